package cache

import "sync"

// TableStats summarizes a whole table for a planner: what each batch's
// statistics say, merged, and an estimate of each column's distinct
// values.
type TableStats struct {
	Rows    int64
	Batches int
	Columns []ColumnSummary
}

// ColumnSummary is one column over the whole table. Rows and Nulls are
// exact; the bounds (when HasBounds) hold every value of every batch,
// with the conservative dictionary bounds ColumnStats has; HasBounds is
// false when no batch has a value, or one with values has no bounds.
type ColumnSummary struct {
	ColumnStats
	// Distinct estimates the number of distinct non-null values
	// (HyperLogLog, 1.6% standard error, see package hll), never more
	// than the non-null rows nor 0 when there is one; -1 when unknown: a
	// type without a sketch, or a table restored from a store that kept
	// none.
	Distinct int64
}

// Stats returns the statistics of the table visible under name now.
// Computed once per snapshot and kept: a Put or Append makes a new one.
func (c *Cache) Stats(name string) (TableStats, error) {
	t, err := c.snapshot(name)
	if err != nil {
		return TableStats{}, err
	}
	return t.summary(), nil
}

// tableSummary is a snapshot's TableStats, computed on first use.
type tableSummary struct {
	once  sync.Once
	stats TableStats
}

func (t *table) summary() TableStats {
	t.sum.once.Do(func() { t.sum.stats = t.computeSummary() })
	s := t.sum.stats
	s.Columns = append([]ColumnSummary(nil), s.Columns...) // the caller's to change
	return s
}

func (t *table) computeSummary() TableStats {
	s := TableStats{Rows: t.rows, Batches: len(t.entries), Columns: make([]ColumnSummary, len(t.columns))}
	for i, col := range t.columns {
		cs := &s.Columns[i]
		cs.Rows = t.rows
		bounded := true
		for _, e := range t.entries {
			st := e.stats[i]
			cs.Nulls += st.Nulls
			switch {
			case st.AllNull():
			case !st.HasBounds:
				bounded = false
			case !cs.HasBounds:
				cs.HasBounds, cs.Min, cs.Max = true, st.Min, st.Max
			default:
				if Compare(st.Min, cs.Min) < 0 {
					cs.Min = st.Min
				}
				if Compare(st.Max, cs.Max) > 0 {
					cs.Max = st.Max
				}
			}
		}
		if !bounded {
			cs.HasBounds, cs.Min, cs.Max = false, Value{}, Value{}
		}
		cs.Distinct = distinctOf(col, cs.Rows-cs.Nulls)
	}
	return s
}

// distinctOf is a column's estimate, clamped to what its values allow.
func distinctOf(col columnState, values int64) int64 {
	if col.sketch == nil {
		return -1
	}
	n := min(int64(col.sketch.Estimate()), values)
	if values > 0 {
		n = max(n, 1)
	}
	return n
}
