package cache

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/gather"
)

// withRows is the pruning predicate of a scan with a row filter: the
// filter's conjuncts prove batches empty as Filter's do.
func withRows(filter Predicate, rows []Predicate) Predicate {
	all := make(And, 0, len(rows)+1)
	if filter != nil {
		all = append(all, filter)
	}
	return append(all, rows...)
}

// decodeFiltered decodes entry i under the row filter (see rowfilter.go):
// the filter's columns first, then the selected columns for the rows
// that pass.
func (s *Scanner) decodeFiltered(dec *chunkDecoder, i int) decoded {
	e := s.t.entries[i]
	var d decoded
	arrs := map[int]arrow.Array{} // table column → decoded array
	defer func() {
		for _, a := range arrs {
			a.Release()
		}
	}()
	column := func(col int) (arrow.Array, error) {
		if a, ok := arrs[col]; ok {
			return a, nil
		}
		f := s.t.schema.Field(col)
		a, err := dec.decode(f.Type, e.chunks[col], e.decoded[col])
		if err != nil {
			return nil, &ChunkError{Table: s.t.name, Batch: i, Column: f.Name, Err: err}
		}
		arrs[col] = a
		d.compressed += int64(len(e.chunks[col]))
		d.size += e.decoded[col]
		return a, nil
	}

	n := int(e.rows)
	todo, all := s.rangesFor(e), true
	for _, r := range todo {
		arr, err := column(r.col)
		if err != nil {
			return decoded{err: err}
		}
		if all {
			dec.sel = grow32(dec.sel, n)
		}
		dec.sel = selectRows(arr, r, dec.sel, all)
		all = false
		if len(dec.sel) == 0 {
			d.filtered = e.rows
			return d
		}
	}
	if all { // every range holds on every row, by the statistics
		dec.sel = dec.sel[:0]
	}
	kept := n
	if !all {
		kept = len(dec.sel)
	}
	d.filtered = int64(n - kept)

	cols := make([]arrow.Array, len(s.cols))
	for j, col := range s.cols {
		a, err := column(col)
		if err != nil {
			return decoded{err: err}
		}
		cols[j] = a
	}
	rec := array.NewRecordBatch(s.schema, cols, int64(n))
	if kept == n {
		d.rec = rec
		return d
	}
	defer rec.Release()
	out, err := gather.Record(context.Background(), s.mem, rec, dec.sel)
	if err != nil {
		return decoded{err: &ChunkError{Table: s.t.name, Batch: i, Column: "(row filter)", Err: err}}
	}
	d.rec = out
	return d
}

// rangesFor returns the ranges to evaluate on entry e, most selective first
// by its statistics, without those its bounds prove TRUE on every row.
func (s *Scanner) rangesFor(e *entry) []rowRange {
	type est struct {
		r     rowRange
		share float64
	}
	ests := make([]est, 0, len(s.ranges))
	for _, r := range s.ranges {
		share, all := r.selectivity(e.stats[r.col])
		if !all {
			ests = append(ests, est{r, share})
		}
	}
	slices.SortStableFunc(ests, func(a, b est) int {
		switch {
		case a.share < b.share:
			return -1
		case a.share > b.share:
			return 1
		}
		return 0
	})
	out := make([]rowRange, len(ests))
	for i, x := range ests {
		out[i] = x.r
	}
	return out
}

func grow32(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n)
	}
	return b[:n]
}
