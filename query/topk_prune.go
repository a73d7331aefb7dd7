package query

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/extsort"
	"github.com/quiverdb/quiver/query/expr"
)

// Top-k pruning: `SELECT … ORDER BY c LIMIT k` with c a column of the
// table. Once the top-k sort holds k rows, a row whose c sorts strictly
// after the k-th row's c cannot enter the result; a batch whose
// statistics put every row there is skipped by the scan before it is
// decoded (cache.ScanOptions.Skip). In TPC-H lineitem a batch of 8,192
// comments holds on average 0.14 of the 100 smallest of 6 million, so
// once the threshold settles most batches are skipped; a column the table
// is clustered by (a date, an increasing key) skips nearly everything.
//
// Only without GROUP BY or aggregates (the sort then sees the scan's rows,
// filtered or not: a row the filter drops could not enter the result
// either), and only for the first ORDER BY key, which must be a bare
// column of a type whose statistics order its values exactly as the sort
// does: strings and binary, integers, date32 and decimals. Not floats
// (the statistics order -0.0 below +0.0, the sort ties them) nor date64
// (sorted by day, bounded in milliseconds). Rows that tie with the
// threshold are never skipped (a later key may still decide for them),
// so the answer is exactly the one without pruning.

// topKPrune links a plan's top-k sort to its scan.
type topKPrune struct {
	col        int // table column of the first sort key
	desc       bool
	nullsFirst bool
}

// topKLink carries the running sorter from the sort, which opens after
// its input, to the scan's Skip, which runs on the decode goroutines.
type topKLink struct {
	prune  topKPrune
	sorter atomic.Pointer[extsort.Sorter]
	last   atomic.Pointer[threshold] // the statistics of the last bound seen
}

// threshold is a bound of the sorter and its statistics (one value).
type threshold struct {
	row   arrow.Array
	stats cache.ColumnStats
}

// planTopKPrune sets up top-k pruning when the query qualifies. exprs are
// the projection under the sort, which the sort keys index.
func (b *builder) planTopKPrune(sp *selectPlan, sort *sortNode, exprs []expr.Expr) {
	if b.opts.NoPruning || sort.limit < 0 || sp.aggregated() || len(sort.keys) == 0 {
		return
	}
	// What the first key sorts by, after ORDER BY's names resolved (an
	// alias may name another expression than the column it shadows): it
	// must be a table column, as stored or in its engine type.
	n := expr.Inspect(exprs[sort.keys[0].col])
	if n.Kind == expr.KindStored {
		n = expr.Inspect(n.Args[0])
	}
	if n.Kind != expr.KindColumn {
		return
	}
	col := b.columnIndex(n.Name)
	if col < 0 {
		return
	}
	switch dt := b.info.Schema.Field(col).Type; dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY,
		arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.DATE32, arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128:
	default:
		return
	}
	k := sort.keys[0]
	p := &topKPrune{col: col, desc: k.desc, nullsFirst: k.nullsFirst}
	sort.prune, b.scan.prune = p, p
}

// skip is the scan's Skip: true when every row of a batch sorts strictly
// after the sorter's threshold in the first key.
func (l *topKLink) skip(stats []cache.ColumnStats) bool {
	s := l.sorter.Load()
	if s == nil {
		return false
	}
	row, ok := s.FirstKeyBound()
	if !ok {
		return false
	}
	th := l.last.Load()
	if th == nil || th.row != row {
		th = &threshold{row: row, stats: cache.ComputeStats(row)}
		l.last.Store(th)
	}
	ts := th.stats
	tNull := ts.Nulls > 0
	st := stats[l.prune.col]
	if st.Nulls > 0 && (tNull || l.prune.nullsFirst) {
		return false // a NULL ties with a NULL threshold, or sorts first
	}
	if st.Rows == st.Nulls {
		return true // only NULLs, after a non-NULL threshold
	}
	if tNull {
		// Values sort after a NULL threshold only with NULLS FIRST.
		return l.prune.nullsFirst
	}
	if !st.HasBounds || !ts.HasBounds || st.Min.Kind != ts.Min.Kind {
		return false
	}
	if l.prune.desc {
		return cache.Compare(st.Max, ts.Min) < 0
	}
	return cache.Compare(st.Min, ts.Min) > 0
}
