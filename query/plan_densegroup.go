package query

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/query/expr"
)

// denseGroupRange is the range of a GROUP BY's one integer or date key
// when the table's statistics say its values are dense enough for the
// aggregator to number groups with an array instead of a hash table
// (agg/densegroup.go): the key is a column of a scanned table whose
// bounds span at most 8 values per distinct value (or 65,536 in all),
// and the workers' arrays, 4 bytes per value of the span each, take at
// most a quarter of the query's memory limit. nil otherwise. The bounds
// hold every value of the table, so a WHERE or a join below only leaves
// the array sparser, never wrong; a key outside them (a NULL from an
// outer join) turns the array off while running.
func (b *builder) denseGroupRange(n *aggregateNode) *agg.DenseRange {
	if len(n.keys) != 1 || b.c == nil {
		return nil
	}
	switch n.keys[0].Type().ID() {
	case arrow.INT64, arrow.DATE32:
	default:
		return nil
	}
	x := expr.Inspect(n.keys[0])
	if x.Kind != expr.KindColumn || x.Column < 0 {
		return nil
	}
	scan, col, ok := traceToScan(n.in, x.Column)
	if !ok {
		return nil
	}
	st := b.statsOfTable(scan.table) // read once per query
	if st == nil || col >= len(st.Columns) {
		return nil
	}
	cs := st.Columns[col]
	if !cs.HasBounds || cs.Min.Kind != cache.KindInt || cs.Max.Kind != cache.KindInt {
		return nil
	}
	lo, hi := cs.Min.I, cs.Max.I
	groups := cs.Distinct
	if groups <= 0 {
		groups = cs.Rows - cs.Nulls
	}
	if !agg.DenseGroupsFit(lo, hi, groups) {
		return nil
	}
	limit := b.opts.MemoryLimit
	if limit <= 0 {
		limit = DefaultMemoryLimit
	}
	workers := int64(max(b.opts.Workers, 1))
	if span := uint64(hi) - uint64(lo) + 1; span > uint64(limit/4/workers/4) {
		return nil
	}
	return &agg.DenseRange{Lo: lo, Hi: hi}
}
