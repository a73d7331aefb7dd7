package query

import (
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/expr"
)

// Runtime filters. When a join has built its hash table, the range
// [min, max] of each integer or date key of the build side is known; a
// probe row outside it cannot join. The planner traces each probe key
// down to the table scan it comes from (through projections, filters,
// conversions and the probe sides of other joins) and links the two: the
// scan asks the filter before decoding each batch (cache.ScanOptions.Skip)
// and skips the batches whose statistics put every value of that column
// outside the range. Only joins that drop probe rows without a match get
// one (inner, semi, right; right semi and anti, which return build rows
// only). EXPLAIN names them on the scan; EXPLAIN
// ANALYZE counts the batches they skipped.
//
// The keys themselves go to the scan too, as a row test
// (cache.KeyFilter: an exact bitmap over the keys' range when they lie
// densely in it, else a Bloom filter), when the build side holds at most
// half as many rows as the probe column has distinct values — otherwise
// most rows would pass and the test would cost more than it saves. The
// scan then decodes a batch's key column, drops the rows whose key cannot
// join, and decodes and gathers the other columns for the rest only; the
// join never sees the dropped rows. EXPLAIN ANALYZE counts them.
//
// Batches the scan read ahead before the build finished are neither
// skipped nor filtered.

// runtimeFilter is one key's range, from a join to a scan.
type runtimeFilter struct {
	col     int // the scan's table column
	key     int // the join's key index
	name    string
	ready   atomic.Bool
	empty   bool  // the build side had no key: every batch goes
	lo, hi  int64 // set before ready
	skipped atomic.Int64
	// keys is the row test of the build side's keys, given to the scan
	// when it can gather rows (nil otherwise); probeDistinct is the probe
	// column's distinct values, which decide whether keys is published.
	keys          *cache.KeyFilter
	probeDistinct float64
}

// maxKeyShare is the most build rows, as a share of the probe column's
// distinct values, for which the keys are sent to the scan.
const maxKeyShare = 0.5

// publishKeys sends the keys of the build side's key column col, whose
// range r is, to the scan, when few enough of the probe's rows will pass
// and hold grants the memory of the set.
func (f *runtimeFilter) publishKeys(col arrow.Array, r keyRange, hold func(int64) bool) {
	rows := col.Len() - col.NullN()
	if f.keys == nil || r.unsupported || !r.seen || f.probeDistinct <= 0 {
		return
	}
	share := float64(rows) / f.probeDistinct
	if share > maxKeyShare || !hold(cache.KeySetBytes(rows, r.lo, r.hi)) {
		return
	}
	f.keys.Publish([]arrow.Array{col}, rows, r.lo, r.hi, share)
}

// skip reports whether a batch's statistics put every value of the
// column outside the build side's range.
func (f *runtimeFilter) skip(stats []cache.ColumnStats) bool {
	if !f.ready.Load() || f.col >= len(stats) {
		return false
	}
	st := stats[f.col]
	if st.Rows == st.Nulls || f.empty {
		f.skipped.Add(1)
		return true // NULLs never join
	}
	if !st.HasBounds || st.Min.Kind != cache.KindInt || st.Max.Kind != cache.KindInt {
		return false
	}
	if st.Max.I < f.lo || st.Min.I > f.hi {
		f.skipped.Add(1)
		return true
	}
	return false
}

// publish sets the range from the build side's key column, and sends its
// keys to the scan when they filter enough (publishKeys).
func (f *runtimeFilter) publish(col arrow.Array, hold func(int64) bool) {
	var r keyRange
	r.add(col)
	f.publishKeys(col, r, hold)
	f.set(r)
}

// set publishes r, unless its column's type has no range.
func (f *runtimeFilter) set(r keyRange) {
	if r.unsupported {
		return // never ready: skips nothing
	}
	f.lo, f.hi, f.empty = r.lo, r.hi, !r.seen
	f.ready.Store(true)
}

// keyRange is the range of the values of a key column over one or more
// batches (a grace hash join sees its build side batch by batch).
type keyRange struct {
	lo, hi      int64
	seen        bool // a value that is not NULL
	unsupported bool // not int64 or date32: no range
}

// add widens r by the values of col.
func (r *keyRange) add(col arrow.Array) {
	if !r.seen {
		r.lo, r.hi = math.MaxInt64, math.MinInt64
	}
	note := func(v int64) {
		r.lo, r.hi, r.seen = min(r.lo, v), max(r.hi, v), true
	}
	switch a := col.(type) {
	case *array.Int64:
		for i, v := range a.Int64Values() {
			if a.IsValid(i) {
				note(v)
			}
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			if a.IsValid(i) {
				note(int64(v))
			}
		}
	default:
		r.unsupported = true
	}
}

// publishFilters hands the build side's key ranges (and keys) to the
// scans linked to the join. rec holds every build row (nil when none);
// hold asks for the memory of a set of keys.
func (n *hashJoinNode) publishFilters(rec arrow.RecordBatch, hold func(int64) bool) {
	for _, f := range n.filters {
		if rec == nil {
			f.empty = true
			f.ready.Store(true)
			continue
		}
		f.publish(rec.Column(n.buildKeys[f.key]), hold)
	}
}

// scanSkip combines a scan's runtime filters (and the top-k's Skip) into
// one cache.ScanOptions.Skip.
func scanSkip(filters []*runtimeFilter, topK func([]cache.ColumnStats) bool) func([]cache.ColumnStats) bool {
	if len(filters) == 0 {
		return topK
	}
	return func(stats []cache.ColumnStats) bool {
		for _, f := range filters {
			if f.skip(stats) {
				return true
			}
		}
		return topK != nil && topK(stats)
	}
}

// runtimeFilterText describes a scan's runtime filters for EXPLAIN.
func runtimeFilterText(filters []*runtimeFilter, analyzed bool) string {
	if len(filters) == 0 {
		return ""
	}
	parts := make([]string, len(filters))
	for i, f := range filters {
		parts[i] = f.name
		switch {
		case analyzed && f.keys != nil:
			parts[i] += fmt.Sprintf(" (skipped %d batches, dropped %d rows)", f.skipped.Load(), f.keys.Dropped.Load())
		case analyzed:
			parts[i] += fmt.Sprintf(" (skipped %d batches)", f.skipped.Load())
		case f.keys != nil:
			parts[i] += " (range and keys)"
		}
	}
	return "; runtime filters on " + strings.Join(parts, ", ")
}

// linkRuntimeFilters gives a join a filter for each integer or date key
// whose probe column comes straight from a table scan; with the table's
// statistics (stats, nil without) the filter can send keys too.
func linkRuntimeFilters(n *hashJoinNode, stats func(table string) *cache.TableStats) {
	switch n.kind {
	case joinInner, joinSemi, joinRight, joinRightSemi, joinRightAnti:
	default:
		return
	}
	for i, pos := range n.probeKeys {
		scan, col, ok := traceToScan(n.probe, pos)
		if !ok {
			continue
		}
		switch scan.info.Schema.Field(col).Type.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.DATE32:
		default:
			continue
		}
		et, _ := expr.EngineType(scan.info.Schema.Field(col).Type)
		if bt := n.build.schema().Field(n.buildKeys[i]).Type; !arrow.TypeEqual(et, bt) {
			continue
		}
		f := &runtimeFilter{col: col, key: i, name: scan.info.Schema.Field(col).Name}
		if st := statsOf(stats, scan.table); st != nil && col < len(st.Columns) && st.Columns[col].Distinct > 0 && scan.gatherable() {
			f.keys = &cache.KeyFilter{Col: col, Name: f.name}
			f.probeDistinct = float64(st.Columns[col].Distinct)
		}
		n.filters = append(n.filters, f)
		scan.filters = append(scan.filters, f)
	}
}

func statsOf(stats func(string) *cache.TableStats, table string) *cache.TableStats {
	if stats == nil {
		return nil
	}
	return stats(table)
}

// keyFilters are the row tests of a scan's runtime filters that have one.
func keyFilters(filters []*runtimeFilter) []cache.Predicate {
	var out []cache.Predicate
	for _, f := range filters {
		if f.keys != nil {
			out = append(out, f.keys)
		}
	}
	return out
}

// traceToScan follows column pos of a plan's batches down to the table
// column of a scan it is a copy of.
func traceToScan(p planNode, pos int) (*scanNode, int, bool) {
	switch n := p.(type) {
	case *scanNode:
		if n.noTable() || pos >= len(n.columns) {
			return nil, 0, false
		}
		return n, n.columns[pos], true
	case *projectNode:
		x := expr.Inspect(n.exprs[pos])
		if x.Kind == expr.KindStored {
			x = expr.Inspect(x.Args[0])
		}
		if x.Kind != expr.KindColumn || x.Column < 0 {
			return nil, 0, false
		}
		return traceToScan(n.in, x.Column)
	case *filterNode:
		if n.keep != nil {
			pos = n.keep[pos]
		}
		return traceToScan(n.in, pos)
	case *convertNode:
		in := n.in.schema().NumFields()
		if pos >= in {
			pos = n.cols[pos-in]
		}
		return traceToScan(n.in, pos)
	case *hashJoinNode:
		if n.kind == joinRightSemi || n.kind == joinRightAnti { // build columns only
			return traceToScan(n.build, pos)
		}
		if n.kind == joinRight || n.kind == joinFull || pos >= n.probe.schema().NumFields() {
			return nil, 0, false
		}
		return traceToScan(n.probe, pos)
	}
	return nil, 0, false
}
