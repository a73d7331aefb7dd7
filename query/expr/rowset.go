package expr

import (
	"context"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

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

// filterWith keeps the values of a where sel equals want (mask is that as
// an array): arrow-go's filter, except for Booleans, whose validity v18.8's
// filter loses.
func filterWith(ctx context.Context, mem memory.Allocator, a, mask arrow.Array, sel []bool, want bool) (arrow.Array, error) {
	b, ok := a.(*array.Boolean)
	if !ok {
		return compute.FilterArray(ctx, a, mask, *compute.DefaultFilterOptions())
	}
	bld := array.NewBooleanBuilder(mem)
	defer bld.Release()
	for i, s := range sel {
		switch {
		case s != want:
		case b.IsNull(i):
			bld.AppendNull()
		default:
			bld.Append(b.Value(i))
		}
	}
	return bld.NewArray(), nil
}

// filterBatch keeps the rows of batch where sel equals want.
func filterBatch(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch, sel []bool, want bool, needed func(int) bool) (arrow.RecordBatch, error) {
	mask := boolArray(mem, sel, want)
	defer mask.Release()
	kept := 0
	for _, s := range sel {
		if s == want {
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
		c, err := filterWith(cctx, mem, batch.Column(i), mask, sel, want)
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

// boolArray is a Boolean array, true where sel equals want.
func boolArray(mem memory.Allocator, sel []bool, want bool) arrow.Array {
	buf := newBits(mem, len(sel))
	bits := buf.Bytes()
	for i, s := range sel {
		if s == want {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return makeArray(typBool, len(sel), nil, 0, buf)
}

// referenced returns a predicate telling which columns es read (every
// column when one of them is not ours).
func referenced(es ...Expr) func(int) bool {
	cols := map[int]bool{}
	all := false
	var walk func(e Expr)
	walk = func(e Expr) {
		switch x := e.(type) {
		case *column:
			cols[x.index] = true
		case node:
			for _, c := range x.children() {
				walk(c)
			}
		default:
			all = true
		}
	}
	for _, e := range es {
		walk(e)
	}
	if all {
		return func(int) bool { return true }
	}
	return func(i int) bool { return cols[i] }
}

// Columns returns the batch columns e reads, ascending (for projection
// pushdown). Only columns built with Column are seen.
func Columns(e Expr) []int {
	seen := map[int]bool{}
	var walk func(e Expr)
	walk = func(e Expr) {
		if c, ok := e.(*column); ok {
			seen[c.index] = true
		}
		for _, c := range childrenOf(e) {
			walk(c)
		}
	}
	walk(e)
	out := make([]int, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	sort.Ints(out)
	return out
}
