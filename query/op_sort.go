package query

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/arrowsize"
)

// sortKey orders by input column col.
type sortKey struct {
	col        int
	desc       bool
	nullsFirst bool
}

// sortOp sorts its whole input in memory (the query's memory limit bounds
// it; spilling sorts are issue 7), stably. With a limit it keeps only the
// first limit rows as it goes: whenever it holds more than twice the limit
// (and a batch) it sorts and cuts back, so ORDER BY … LIMIT k holds O(k)
// rows whatever the input size.
type sortOp struct {
	rt     *runtime
	in     operator
	keys   []sortKey
	limit  int64 // -1: none
	schema *arrow.Schema

	held  []arrow.RecordBatch
	rows  int64
	bytes int64 // accounted to rt.mt

	threshold arrow.RecordBatch // top-k: the k-th row so far (one row)
	sorted    arrow.RecordBatch // after the input ends
	pos       int64
	closed    bool
}

const outputBatchRows = 8192

func (o *sortOp) Schema() *arrow.Schema { return o.schema }

func (o *sortOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if o.sorted == nil {
		if err := o.consume(ctx); err != nil {
			return nil, err
		}
	}
	n := o.sorted.NumRows()
	if o.limit >= 0 {
		n = min(n, o.limit)
	}
	if o.pos >= n {
		return nil, io.EOF
	}
	end := min(o.pos+outputBatchRows, n)
	out := o.sorted.NewSlice(o.pos, end)
	o.pos = end
	return out, nil
}

func (o *sortOp) consume(ctx context.Context) error {
	err := drain(ctx, o.in, func(rec arrow.RecordBatch) error {
		rec, err := o.beatThreshold(ctx, rec)
		if err != nil {
			return err
		}
		defer rec.Release()
		if rec.NumRows() == 0 {
			return nil
		}
		size := arrowsize.Record(rec)
		if err := o.rt.mt.grow(size, "ORDER BY"); err != nil {
			return err
		}
		rec.Retain()
		o.held = append(o.held, rec)
		o.rows += rec.NumRows()
		o.bytes += size
		if o.limit >= 0 && o.rows > 2*o.limit {
			return o.compact(ctx, o.limit)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return o.compact(ctx, -1)
}

// beatThreshold, once a top-k holds its k rows, keeps only the rows of rec
// that sort before the k-th (ties lose: the sort is stable, and the held
// row came first). Most batches of a large input then add nothing, and
// the top-k costs a comparison per row rather than a sort per batch. It
// returns rec retained (or a new batch).
func (o *sortOp) beatThreshold(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if o.limit < 0 || o.threshold == nil || o.limit == 0 {
		if o.limit == 0 {
			return rec.NewSlice(0, 0), nil
		}
		rec.Retain()
		return rec, nil
	}
	c, err := rowComparator(rec, o.threshold, o.keys)
	if err != nil {
		return nil, err
	}
	var keep []int32
	for i := range int(rec.NumRows()) {
		if c(i, 0) < 0 {
			keep = append(keep, int32(i))
		}
	}
	if len(keep) == int(rec.NumRows()) {
		rec.Retain()
		return rec, nil
	}
	return takeRecord(ctx, o.rt.mem, rec, keep)
}

// compact sorts what is held into one batch, keeping the first keep rows
// (all when negative).
func (o *sortOp) compact(ctx context.Context, keep int64) error {
	rec, err := concatRecords(o.rt.mem, o.schema, o.held)
	if err != nil {
		return err
	}
	defer rec.Release()
	perm, err := sortPermutation(rec, o.keys)
	if err != nil {
		return err
	}
	if keep >= 0 && int64(len(perm)) > keep {
		perm = perm[:keep]
	}
	out, err := takeRecord(ctx, o.rt.mem, rec, perm)
	if err != nil {
		return err
	}
	o.release()
	size := arrowsize.Record(out)
	if err := o.rt.mt.grow(size, "ORDER BY"); err != nil {
		out.Release()
		return err
	}
	o.bytes = size
	if keep >= 0 {
		o.held, o.rows = []arrow.RecordBatch{out}, out.NumRows()
		if o.threshold != nil {
			o.threshold.Release()
		}
		o.threshold = nil
		if out.NumRows() == keep && keep > 0 {
			o.threshold = out.NewSlice(keep-1, keep)
		}
		return nil
	}
	o.sorted = out
	return nil
}

// release drops the held batches and their accounting.
func (o *sortOp) release() {
	for _, r := range o.held {
		r.Release()
	}
	o.held, o.rows = nil, 0
	o.rt.mt.shrink(o.bytes)
	o.bytes = 0
}

func (o *sortOp) Close() {
	if o.closed {
		return
	}
	o.closed = true
	o.release()
	if o.threshold != nil {
		o.threshold.Release()
		o.threshold = nil
	}
	if o.sorted != nil {
		o.sorted.Release()
		o.sorted = nil
	}
	o.in.Close()
}

// concatRecords returns the batches as one (an empty batch for none).
func concatRecords(mem memory.Allocator, schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	if len(recs) == 1 {
		recs[0].Retain()
		return recs[0], nil
	}
	cols := make([]arrow.Array, schema.NumFields())
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	for i := range cols {
		parts := make([]arrow.Array, len(recs))
		for j, r := range recs {
			parts[j] = r.Column(i)
		}
		var err error
		if len(parts) == 0 {
			cols[i] = array.MakeArrayOfNull(mem, schema.Field(i).Type, 0)
			continue
		}
		if cols[i], err = array.Concatenate(parts, mem); err != nil {
			releaseAll(cols[:i])
			return nil, err
		}
	}
	out := array.NewRecordBatch(schema, cols, rows)
	releaseAll(cols)
	return out, nil
}

// takeRecord gathers the rows perm names.
func takeRecord(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, perm []int32) (arrow.RecordBatch, error) {
	idx := array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(perm),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(perm))}, nil, 0, 0))
	defer idx.Release()
	ectx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, rec.NumCols())
	for i, col := range rec.Columns() {
		var err error
		if cols[i], err = compute.TakeArray(ectx, col, idx); err != nil {
			releaseAll(cols[:i])
			return nil, err
		}
	}
	out := array.NewRecordBatch(rec.Schema(), cols, int64(len(perm)))
	releaseAll(cols)
	return out, nil
}

// sortPermutation returns the row order of rec under keys, stable.
func sortPermutation(rec arrow.RecordBatch, keys []sortKey) ([]int32, error) {
	c, err := rowComparator(rec, rec, keys)
	if err != nil {
		return nil, err
	}
	perm := make([]int32, rec.NumRows())
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortStableFunc(perm, func(a, b int32) int { return c(int(a), int(b)) })
	return perm, nil
}

// comparator compares non-null row i of x with non-null row j of y, two
// arrays of the same engine type. Floats order NaN above everything and
// -0.0 equal to +0.0, as DuckDB and Postgres do.
func comparator(x, y arrow.Array) (func(i, j int) int, error) {
	switch a := x.(type) {
	case *array.Int64:
		u, v := a.Int64Values(), y.(*array.Int64).Int64Values()
		return func(i, j int) int { return cmp.Compare(u[i], v[j]) }, nil
	case *array.Int32:
		u, v := a.Int32Values(), y.(*array.Int32).Int32Values()
		return func(i, j int) int { return cmp.Compare(u[i], v[j]) }, nil
	case *array.Date32:
		u, v := a.Date32Values(), y.(*array.Date32).Date32Values()
		return func(i, j int) int { return cmp.Compare(u[i], v[j]) }, nil
	case *array.Float64:
		u, v := a.Float64Values(), y.(*array.Float64).Float64Values()
		return func(i, j int) int { return compareFloat(u[i], v[j]) }, nil
	case *array.Decimal128:
		b := y.(*array.Decimal128)
		return func(i, j int) int { return a.Value(i).Cmp(b.Value(j)) }, nil
	case *array.String:
		b := y.(*array.String)
		return func(i, j int) int { return strings.Compare(a.Value(i), b.Value(j)) }, nil
	case *array.Boolean:
		b := y.(*array.Boolean)
		return func(i, j int) int { return cmp.Compare(b2i(a.Value(i)), b2i(b.Value(j))) }, nil
	case *array.Null:
		return func(int, int) int { return 0 }, nil
	}
	return nil, &Error{Kind: ErrUnsupported, Msg: fmt.Sprintf("ORDER BY a column of type %s", x.DataType())}
}

// rowComparator compares row i of x with row j of y under keys, with
// NULLs placed as each key says.
func rowComparator(x, y arrow.RecordBatch, keys []sortKey) (func(i, j int) int, error) {
	cmps := make([]func(i, j int) int, len(keys))
	for k, key := range keys {
		c, err := comparator(x.Column(key.col), y.Column(key.col))
		if err != nil {
			return nil, err
		}
		cx, cy, desc, nullsFirst := x.Column(key.col), y.Column(key.col), key.desc, key.nullsFirst
		cmps[k] = func(i, j int) int {
			ni, nj := cx.IsNull(i), cy.IsNull(j)
			switch {
			case ni && nj:
				return 0
			case ni != nj:
				if ni == nullsFirst {
					return -1
				}
				return 1
			}
			if desc {
				return -c(i, j)
			}
			return c(i, j)
		}
	}
	return func(i, j int) int {
		for _, c := range cmps {
			if r := c(i, j); r != 0 {
				return r
			}
		}
		return 0
	}, nil
}

func compareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an || bn:
		return cmp.Compare(b2i(an), b2i(bn))
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
