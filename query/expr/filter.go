package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Cutting batches down to the rows a CASE or COALESCE operand needs.

// project returns batch with the columns needed does not want replaced by
// NULL columns.
func project(batch arrow.RecordBatch, needed func(int) bool) arrow.RecordBatch {
	n := batch.NumRows()
	fields := make([]arrow.Field, batch.NumCols())
	arrs := make([]arrow.Array, batch.NumCols())
	for i := range fields {
		f := batch.Schema().Field(i)
		switch {
		case !needed(i):
			f.Type, f.Nullable = arrow.Null, true
			arrs[i] = array.NewNull(int(n))
		default:
			arrs[i] = batch.Column(i)
			arrs[i].Retain()
		}
		fields[i] = f
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, n)
	for _, a := range arrs {
		a.Release()
	}
	return out
}

// filterWith keeps the values of a where sel is true (mask is sel as an
// array): arrow-go's filter, except for Booleans, whose NULLs v18.8's
// filter loses.
func filterWith(ctx context.Context, mem memory.Allocator, a, mask arrow.Array, sel []bool) (arrow.Array, error) {
	b, ok := a.(*array.Boolean)
	if !ok {
		return compute.FilterArray(ctx, a, mask, *compute.DefaultFilterOptions())
	}
	bld := array.NewBooleanBuilder(mem)
	defer bld.Release()
	for i, s := range sel {
		switch {
		case !s:
		case b.IsNull(i):
			bld.AppendNull()
		default:
			bld.Append(b.Value(i))
		}
	}
	return bld.NewArray(), nil
}

// filterBatch keeps the rows of batch where sel is true, in the columns
// needed wants (the others are NULL columns).
func filterBatch(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch, sel []bool, needed func(int) bool) (arrow.RecordBatch, error) {
	mask := boolArray(mem, sel)
	defer mask.Release()
	kept := 0
	for _, s := range sel {
		if s {
			kept++
		}
	}
	cctx := compute.WithAllocator(ctx, mem)
	cols := make([]arrow.Array, batch.NumCols())
	for i := range cols {
		if !needed(i) {
			cols[i] = array.NewNull(kept)
			continue
		}
		c, err := filterWith(cctx, mem, batch.Column(i), mask, sel)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, errorf(ErrInvalid, "filtering column %d: %v", i, err)
		}
		cols[i] = c
	}
	out := array.NewRecordBatch(batch.Schema(), cols, int64(kept))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}

// boolArray is sel as a Boolean array.
func boolArray(mem memory.Allocator, sel []bool) arrow.Array {
	buf := newBits(mem, len(sel))
	bits := buf.Bytes()
	for i, s := range sel {
		if s {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return makeArray(typBool, len(sel), nil, 0, buf)
}
