package bench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/datagen"
)

// The relations `quiver bench cache` measures and the reads it times on
// each.

// RelationSpec names a relation of the cache benchmark: Comet's six
// columns (Ints 0) or Ints nullable int64 columns (datagen.WideRecords), with Rows
// rows (0: the default RunCache derives from CacheConfig.Rows).
type RelationSpec struct {
	Ints int
	Rows int
}

// DefaultRelations are Comet's relation and its three wide ones.
var DefaultRelations = []RelationSpec{{}, {Ints: 100}, {Ints: 200}, {Ints: 1500}}

// ParseRelation reads "comet" or "intN", each optionally followed by
// ":ROWS" (e.g. "int1500:100000").
func ParseRelation(text string) (RelationSpec, error) {
	name, rows, hasRows := strings.Cut(strings.TrimSpace(text), ":")
	var r RelationSpec
	if name != "comet" {
		n, err := strconv.Atoi(strings.TrimPrefix(name, "int"))
		if !strings.HasPrefix(name, "int") || err != nil || n <= 0 {
			return r, fmt.Errorf("bench: relation %q: want comet or intN (N columns), optionally :ROWS", text)
		}
		r.Ints = n
	}
	if hasRows {
		n, err := strconv.Atoi(rows)
		if err != nil || n <= 0 {
			return r, fmt.Errorf("bench: relation %q: rows must be a positive integer", text)
		}
		r.Rows = n
	}
	return r, nil
}

// Name is "comet" or "intN".
func (r RelationSpec) Name() string {
	if r.Ints == 0 {
		return "comet"
	}
	return "int" + strconv.Itoa(r.Ints)
}

// String is the text ParseRelation reads back.
func (r RelationSpec) String() string {
	if r.Rows == 0 {
		return r.Name()
	}
	return r.Name() + ":" + strconv.Itoa(r.Rows)
}

// withRows fills in the default rows given Comet's: all of them for
// Comet, a fifth for up to 200 int columns and a fiftieth above, so that
// at the 5,000,000 rows int100 and int200 have 1,000,000 rows and
// int1500 100,000 (100, 200 and 150 million values, 3 to 7 times Comet's).
func (r RelationSpec) withRows(cometRows int) RelationSpec {
	switch {
	case r.Rows > 0:
	case r.Ints == 0:
		r.Rows = cometRows
	case r.Ints <= 200:
		r.Rows = max(cometRows/5, 1)
	default:
		r.Rows = max(cometRows/50, 1)
	}
	return r
}

// query is one timed read: a projection, or a filter.
type query struct {
	label string // the column header: "read 3", "filter"
	cols  []int  // the projected columns; empty: count(*)
	// filter, when set, selects rows; the answer is then the count and
	// sum of the filter column's passing values.
	filter    *between
	filterPos int // the filter column's index in cols
}

// between is "column col BETWEEN lo AND hi" on an int64 column.
type between struct {
	col    int
	lo, hi int64
}

func (b *between) predicate() cache.Predicate {
	return cache.Between{Col: b.col, Lo: cache.Int(b.lo), Hi: cache.Int(b.hi)}
}

func projection(n int) []int {
	cols := make([]int, n)
	for i := range cols {
		cols[i] = i
	}
	return cols
}

// cometQueries are the reads: count(*), id, id..v, all six, and
// id BETWEEN 0.9·rows AND 0.95·rows (4,500,000 and 4,750,000 at 5M rows),
// which statistics should answer from about 5% of the batches.
func cometQueries(rows int) []query {
	qs := []query{{label: "read 0", cols: []int{}}}
	for _, n := range []int{1, 3, 6} {
		qs = append(qs, query{label: "read " + strconv.Itoa(n), cols: projection(n)})
	}
	f := &between{col: 0, lo: int64(rows) * 9 / 10, hi: int64(rows) * 19 / 20}
	return append(qs, query{label: "filter", cols: projection(6), filter: f, filterPos: 0})
}

// wideQueries read one column and all of them.
func wideQueries(cols int) []query {
	return []query{
		{label: "read 1", cols: projection(1)},
		{label: "read " + strconv.Itoa(cols), cols: projection(cols)},
	}
}

func (q *query) answer() answer {
	if q.filter != nil {
		return answer{sums: make([]int64, 1)}
	}
	return answer{sums: make([]int64, len(q.cols))}
}

// tally adds one batch to a: cols are the batch's projected columns, in
// the order of q.cols.
func (q *query) tally(a *answer, rows int64, cols []arrow.Array) error {
	if len(cols) != len(q.cols) {
		return fmt.Errorf("bench: %s: batch has %d columns, want %d", q.label, len(cols), len(q.cols))
	}
	if q.filter != nil {
		ids, ok := cols[q.filterPos].(*array.Int64)
		if !ok {
			return fmt.Errorf("bench: filter column is %s, want int64", cols[q.filterPos].DataType())
		}
		n, s := sumBetween(ids, q.filter.lo, q.filter.hi)
		a.rows += n
		a.sums[0] += s
		return nil
	}
	a.rows += rows
	for k, c := range cols {
		s, err := sumColumn(c)
		if err != nil {
			return fmt.Errorf("%s column %d: %w", q.label, q.cols[k], err)
		}
		a.sums[k] += s
	}
	return nil
}

// project appends rec's columns q.cols to dst: how the peers, which hold
// whole records, answer a projection.
func (q *query) project(dst []arrow.Array, rec arrow.RecordBatch) []arrow.Array {
	for _, c := range q.cols {
		dst = append(dst, rec.Column(c))
	}
	return dst
}

// relation is one relation's records and the reads timed on them.
type relation struct {
	spec    RelationSpec
	schema  *arrow.Schema
	recs    []arrow.RecordBatch
	bytes   int64 // ArrowBytes(recs)
	queries []query
}

func buildRelation(mem memory.Allocator, spec RelationSpec, batchRows int) *relation {
	r := &relation{spec: spec}
	if spec.Ints == 0 {
		r.schema, r.recs, r.queries = datagen.CometSchema, datagen.CometRecords(mem, spec.Rows, batchRows), cometQueries(spec.Rows)
	} else {
		r.schema, r.recs, r.queries = datagen.WideSchema(spec.Ints), datagen.WideRecords(mem, spec.Ints, spec.Rows, batchRows), wideQueries(spec.Ints)
	}
	r.bytes = ArrowBytes(r.recs)
	return r
}

func (r *relation) columns() int { return len(r.schema.Fields()) }
