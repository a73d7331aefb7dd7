package agg

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// pick names one row of a gather: row row of source src.
type pick struct{ src, row uint32 }

// gatherRecord copies the rows picks name out of srcs, batches of schema,
// into one new batch of schema allocated from mem: how a sorted run and a
// merge put rows of many batches in key order. It fails only when a
// string column would pass 32-bit offsets.
func gatherRecord(mem memory.Allocator, schema *arrow.Schema, srcs []arrow.RecordBatch, picks []pick) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, schema.NumFields())
	arrs := make([]arrow.Array, len(srcs))
	for c := range cols {
		for s, rec := range srcs {
			arrs[s] = rec.Column(c)
		}
		var err error
		if cols[c], err = gatherColumn(mem, schema.Field(c).Type, arrs, picks); err != nil {
			releaseAll(cols[:c])
			return nil, fmt.Errorf("column %s: %w", schema.Field(c).Name, err)
		}
	}
	rec := array.NewRecordBatch(schema, cols, int64(len(picks)))
	releaseAll(cols)
	return rec, nil
}

// gatherColumn copies the rows picks name out of srcs, arrays of type dt,
// into a new array. The types are those of keys and partial states.
func gatherColumn(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, picks []pick) (arrow.Array, error) {
	switch dt.ID() {
	case arrow.BOOL:
		return gatherBools(mem, srcs, picks), nil
	case arrow.INT64, arrow.FLOAT64:
		return gatherFixed[int64](mem, dt, srcs, picks), nil
	case arrow.DATE32:
		return gatherFixed[int32](mem, dt, srcs, picks), nil
	case arrow.DECIMAL128:
		return gatherFixed[decimal128.Num](mem, dt, srcs, picks), nil
	case arrow.DECIMAL256:
		return gatherFixed[decimal256.Num](mem, dt, srcs, picks), nil
	case arrow.STRING:
		return gatherStrings(mem, srcs, picks)
	}
	panic("agg: gather of " + dt.String()) // keys and partial states have the types above
}

// fixedValues is the values buffer of a fixed-width array from its offset.
func fixedValues[T arrow.FixedWidthType](a arrow.Array) []T {
	d := a.Data()
	if d.Len() == 0 {
		return nil
	}
	return arrow.GetData[T](d.Buffers()[1].Bytes())[d.Offset():]
}

// validity is an array's bitmap and offset, nil when it has no NULLs.
func validity(a arrow.Array) ([]byte, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	return a.NullBitmapBytes(), a.Data().Offset()
}

func gatherFixed[T arrow.FixedWidthType](mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, picks []pick) arrow.Array {
	vals := make([][]T, len(srcs))
	valid := make([][]byte, len(srcs))
	offs := make([]int, len(srcs))
	nulls := false
	for i, s := range srcs {
		vals[i] = fixedValues[T](s)
		valid[i], offs[i] = validity(s)
		nulls = nulls || valid[i] != nil
	}
	out := newFixedOut[T](mem, dt, len(picks))
	for i, p := range picks {
		out.vals[i] = vals[p.src][p.row]
	}
	if nulls {
		for i, p := range picks {
			if bm := valid[p.src]; bm != nil && !bitutil.BitIsSet(bm, offs[p.src]+int(p.row)) {
				out.setNull(i)
			}
		}
	}
	return out.finish()
}

func gatherBools(mem memory.Allocator, srcs []arrow.Array, picks []pick) arrow.Array {
	out := newFixedOut[uint8](mem, arrow.FixedWidthTypes.Boolean, len(picks))
	for i, p := range picks {
		b := srcs[p.src].(*array.Boolean)
		switch {
		case b.IsNull(int(p.row)):
			out.setNull(i)
		case b.Value(int(p.row)):
			out.vals[i] = 1
		}
	}
	return out.finish()
}

func gatherStrings(mem memory.Allocator, srcs []arrow.Array, picks []pick) (arrow.Array, error) {
	offs := make([][]int32, len(srcs))
	data := make([][]byte, len(srcs))
	valid := make([][]byte, len(srcs))
	voff := make([]int, len(srcs))
	for i, s := range srcs {
		d := s.Data()
		if d.Len() == 0 {
			continue
		}
		offs[i] = arrow.GetData[int32](d.Buffers()[1].Bytes())[d.Offset():]
		if b := d.Buffers()[2]; b != nil {
			data[i] = b.Bytes()
		}
		valid[i], voff[i] = validity(s)
	}
	bytes := 0
	for _, p := range picks {
		o := offs[p.src]
		bytes += int(o[p.row+1] - o[p.row])
		if bytes > math.MaxInt32 {
			return nil, fmt.Errorf("%w: more than %d string bytes in %d rows; use fewer rows per batch", ErrMemoryLimit, math.MaxInt32, len(picks))
		}
	}
	out := newStringOut(mem, len(picks), bytes)
	for i, p := range picks {
		o := offs[p.src]
		out.add(data[p.src][o[p.row]:o[p.row+1]])
		if bm := valid[p.src]; bm != nil && !bitutil.BitIsSet(bm, voff[p.src]+int(p.row)) {
			out.setNull(i)
		}
	}
	return out.finish(), nil
}
