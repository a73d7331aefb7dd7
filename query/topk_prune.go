package query

import (
	"sync/atomic"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/extsort"
)

// Top-k pruning: `SELECT … ORDER BY c LIMIT k` with c a string or binary
// column of the table. Once the top-k sort holds k rows, a row whose c
// sorts strictly after the k-th row's c cannot enter the result; a batch
// whose statistics put every row there is skipped by the scan before it is
// decoded (cache.ScanOptions.Skip). In TPC-H lineitem a batch of 8,192
// comments holds on average 0.14 of the 100 smallest of 6 million, so
// once the threshold settles nearly every batch is skipped.
//
// Only without GROUP BY or aggregates (the sort then sees the scan's rows,
// filtered or not: a row the filter drops could not enter the result
// either), and only for the first ORDER BY key, which must be a bare
// column. Rows that tie with the threshold are never skipped, so the
// answer is exactly the one without pruning.

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
}

// planTopKPrune sets up top-k pruning when the query qualifies.
func (b *builder) planTopKPrune(s *ast.SelectStmt, sort *sortNode) {
	if b.opts.NoPruning || sort.limit < 0 || s.GroupBy != nil || hasAggregate(s) || s.OrderBy == nil || len(sort.keys) == 0 {
		return
	}
	col, dt, ok := b.bareColumn(s.OrderBy.Items[0].Expr)
	if !ok || !isString(dt) {
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
	t, tNull, ok := s.FirstKeyBound()
	if !ok {
		return false
	}
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
	if !st.HasBounds || st.Min.Kind != cache.KindBytes {
		return false
	}
	if l.prune.desc {
		return st.Max.S < t
	}
	return st.Min.S > t
}
