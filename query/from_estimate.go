package query

import (
	"math"
	"math/big"

	"github.com/quiverdb/quiver/cache"
)

// Estimates for ordering joins, from the cache's statistics of each
// table (cache.Cache.Stats: rows, NULLs, bounds and a HyperLogLog
// distinct count per column):
//
//   - a conjunct pushed into a table's scan keeps, by the predicate the
//     scan gets for it: col = c 1/distinct(col); col IN (…) n/distinct;
//     a range the share of [min, max] it covers (numbers, dates,
//     decimals); IS NULL the NULL share; a LIKE prefix 1/10; AND
//     multiplies, OR adds (capped at 1), NOT complements; anything else
//     keeps 1/4 (defaultSelectivity);
//   - an equi-join of A and B returns |A|·|B| / max(distinct(a),
//     distinct(b)), each distinct count capped by its side's estimated
//     rows (the textbook formula: every key of the smaller domain finds
//     its matches in the larger);
//   - a derived table's rows are guessed from its plan (estimate), and
//     each of its columns counts as distinct.

// defaultSelectivity is what a conjunct with no estimate keeps.
const defaultSelectivity = 0.25

// tableStats returns a table relation's statistics, fetched once.
func (b *builder) tableStats(r *relation) *cache.TableStats {
	if r.table == "" {
		return nil
	}
	if r.stats == nil {
		st, err := b.c.Stats(r.table)
		if err != nil {
			return nil
		}
		r.stats = &st
	}
	return r.stats
}

// statsOfTable is the statistics of a table the query names, read once
// per relation, or once per builder for a table only a subquery names: a
// join's runtime filter can reach a scan inside a subquery (TPC-H Q4's
// EXISTS over lineitem), and without the table's distinct counts it
// would filter by key range only.
func (b *builder) statsOfTable(table string) *cache.TableStats {
	for _, r := range b.rels {
		if r.table == table {
			return b.tableStats(r)
		}
	}
	if st, ok := b.otherStats[table]; ok {
		return st
	}
	var out *cache.TableStats
	if st, err := b.c.Stats(table); err == nil {
		out = &st
	}
	if b.otherStats == nil {
		b.otherStats = map[string]*cache.TableStats{}
	}
	b.otherStats[table] = out
	return out
}

// distinct estimates the distinct values of a relation column before any
// filter.
func (b *builder) distinct(ref colRef) float64 {
	r := b.rels[ref.rel]
	if st := b.tableStats(r); st != nil && ref.col < len(st.Columns) && st.Columns[ref.col].Distinct > 0 {
		return float64(st.Columns[ref.col].Distinct)
	}
	return max(1, b.baseRows(ref.rel))
}

// scanEstimate estimates the rows of a table relation after the
// conjuncts pushed into its scan.
func (b *builder) scanEstimate(r *relation) float64 {
	rows := float64(r.info.Rows)
	if len(r.pushed) == 0 {
		return rows
	}
	st := b.tableStats(r)
	sub := b.child()
	sub.table, sub.alias, sub.info = r.table, r.name, r.info
	sel := 1.0
	for _, t := range r.pushed {
		p, _, _ := sub.prunable(t) // build_pushdown.go
		sel *= predSelectivity(p, st)
	}
	return max(1, rows*sel)
}

// rowFilterEstimate estimates the rows of the one table of a query that
// does not join after the conjuncts its scan evaluates (b.rows), as
// scanEstimate does a relation's.
func (b *builder) rowFilterEstimate() float64 {
	rows := float64(b.info.Rows)
	if len(b.rows) == 0 {
		return rows
	}
	var st *cache.TableStats
	if s, err := b.c.Stats(b.table); err == nil {
		st = &s
	}
	for _, p := range b.rows {
		rows *= predSelectivity(p, st)
	}
	return max(1, rows)
}

// predSelectivity estimates the share of rows a scan predicate keeps.
func predSelectivity(p cache.Predicate, st *cache.TableStats) float64 {
	if p == nil {
		return defaultSelectivity
	}
	col := func(c int) (cache.ColumnSummary, bool) {
		if st == nil || c < 0 || c >= len(st.Columns) || st.Columns[c].Rows == 0 {
			return cache.ColumnSummary{}, false
		}
		return st.Columns[c], true
	}
	eq := func(c int) float64 {
		s, ok := col(c)
		if !ok || s.Distinct <= 0 {
			return 0.1
		}
		return 1 / float64(s.Distinct)
	}
	switch x := p.(type) {
	case cache.And:
		s := 1.0
		for _, q := range x {
			s *= predSelectivity(q, st)
		}
		return s
	case cache.Or:
		s := 0.0
		for _, q := range x {
			s += predSelectivity(q, st)
		}
		return min(1, s)
	case cache.Not:
		return 1 - predSelectivity(x.X, st)
	case cache.In:
		return min(1, float64(len(x.Vals))*eq(x.Col))
	case cache.IsNull:
		if s, ok := col(x.Col); ok {
			return float64(s.Nulls) / float64(s.Rows)
		}
		return 0.1
	case cache.IsNotNull:
		if s, ok := col(x.Col); ok {
			return 1 - float64(s.Nulls)/float64(s.Rows)
		}
		return 0.9
	case cache.Prefix:
		return 0.1
	case cache.Between:
		if s, ok := col(x.Col); ok {
			if f, ok := rangeShare(s, x.Lo, x.Hi); ok {
				return f
			}
		}
		return defaultSelectivity
	case cache.Cmp:
		switch x.Op {
		case cache.Eq:
			return eq(x.Col)
		case cache.Ne:
			return 1 - eq(x.Col)
		}
		s, ok := col(x.Col)
		if !ok {
			return 1.0 / 3
		}
		var f float64
		switch x.Op {
		case cache.Lt, cache.Le:
			f, ok = rangeShare(s, s.Min, x.Val)
		default:
			f, ok = rangeShare(s, x.Val, s.Max)
		}
		if ok {
			return f
		}
		return 1.0 / 3
	}
	return defaultSelectivity
}

// rangeShare is the share of [min, max] of a column that [lo, hi] covers,
// at least 1/1000 (a range rarely keeps nothing).
func rangeShare(s cache.ColumnSummary, lo, hi cache.Value) (float64, bool) {
	if !s.HasBounds {
		return 0, false
	}
	mn, ok1 := valueFloat(s.Min)
	mx, ok2 := valueFloat(s.Max)
	l, ok3 := valueFloat(lo)
	h, ok4 := valueFloat(hi)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return 0, false
	}
	if mx <= mn {
		if l <= mn && mn <= h {
			return 1, true
		}
		return 0.001, true
	}
	l, h = max(l, mn), min(h, mx)
	if h < l {
		return 0.001, true
	}
	return max(0.001, (h-l)/(mx-mn)), true
}

// valueFloat reads a numeric Value as a float64 (a decimal unscaled: the
// planner compares values of one column, so of one scale).
func valueFloat(v cache.Value) (float64, bool) {
	switch v.Kind {
	case cache.KindInt:
		return float64(v.I), true
	case cache.KindUint:
		return float64(v.U), true
	case cache.KindFloat:
		if math.IsNaN(v.F) || math.IsInf(v.F, 0) {
			return 0, false
		}
		return v.F, true
	case cache.KindDecimal:
		if len(v.S) != 32 {
			return 0, false
		}
		raw := []byte(v.S)
		raw[0] ^= 0x80 // the sign bit was flipped so that bytes sort as numbers
		n := new(big.Int).SetBytes(raw)
		if raw[0]&0x80 != 0 {
			n.Sub(n, new(big.Int).Lsh(big.NewInt(1), 256))
		}
		f, _ := new(big.Float).SetInt(n).Float64()
		return f, true
	}
	return 0, false
}
