// Package take copies chosen rows of Arrow arrays by index: the rows a filter
// selected, in ascending order, or the rows of the pairs a hash join
// matched, in any order and repeated. The cache's row filter and the query
// engine's filter and join use it.
//
// Why not arrow-go's take alone: its take checks every index against the
// array's length first (a quarter of a filter's time over int32 columns
// where nearly every row passes), while a selection is ascending and in
// range by construction, so Rows only copies. And arrow-go v18.8's take
// has no kernel for decimal32, decimal64, views, list views, run-end
// encoded arrays or month-day-nano intervals. Types without a loop here go
// to take (decimal32 and decimal64 retyped as the integers they are), and
// what take refuses to concatenating slices of the selected runs. A
// sparse union at the top is taken member by member (union.go); sparse
// unions inside another type can be taken by none of these: [Supported]
// says so before anyone relies on it.
package take

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/bufs"
)

// Selection appends to dst the rows where mask is TRUE (set and not NULL),
// ascending, eight rows per byte of the bitmaps.
func Selection(dst []int32, mask *array.Boolean) []int32 {
	n, off := mask.Len(), mask.Data().Offset()
	if n == 0 { // perhaps without a values buffer (a constant over no rows)
		return dst
	}
	if off%8 != 0 {
		for i := range n {
			if mask.IsValid(i) && mask.Value(i) {
				dst = append(dst, int32(i))
			}
		}
		return dst
	}
	vals := mask.Data().Buffers()[1].Bytes()[off/8:]
	var valid []byte
	if mask.NullN() > 0 {
		valid = mask.NullBitmapBytes()[off/8:]
	}
	for k := 0; k*8 < n; k++ {
		v := vals[k]
		if valid != nil {
			v &= valid[k]
		}
		if rest := n - k*8; rest < 8 {
			v &= byte(1)<<rest - 1
		}
		for v != 0 {
			dst = append(dst, int32(k*8+bits.TrailingZeros8(v)))
			v &= v - 1
		}
	}
	return dst
}

// Record returns the rows sel names (in range; any order, repeats
// allowed) of rec.
func Record(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, sel []int32) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, rec.NumCols())
	for i, col := range rec.Columns() {
		var err error
		if cols[i], err = Array(ctx, mem, col, sel); err != nil {
			releaseAll(cols[:i])
			return nil, fmt.Errorf("column %q: %w", rec.ColumnName(i), err)
		}
	}
	out := array.NewRecordBatch(rec.Schema(), cols, int64(len(sel)))
	releaseAll(cols)
	return out, nil
}

// Array returns the rows sel names (in range; any order, repeats allowed)
// of arr: through
// Rows, else arrow-go's take, else concatenated runs.
func Array(ctx context.Context, mem memory.Allocator, arr arrow.Array, sel []int32) (arrow.Array, error) {
	if out := Rows(mem, arr, sel); out != nil {
		return out, nil
	}
	if u, ok := arr.(*array.SparseUnion); ok { // union.go
		return sparseUnion(ctx, mem, u, sel)
	}
	// The indices share sel's memory: nothing to release but the wrapper.
	idx := array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(sel),
		[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(sel))}, nil, 0, 0))
	defer idx.Release()
	out, err := computeTake(compute.WithAllocator(ctx, mem), arr, idx)
	if err != nil {
		out, err = concatRuns(mem, arr, sel)
	}
	if err != nil {
		return nil, fmt.Errorf("take: %s: %w", arr.DataType(), err)
	}
	return out, nil
}

// concatRuns takes by concatenating slices of arr, one per run of
// consecutive rows in sel.
func concatRuns(mem memory.Allocator, arr arrow.Array, sel []int32) (arrow.Array, error) {
	var parts []arrow.Array
	defer func() { releaseAll(parts) }()
	for i := 0; i < len(sel); {
		j := i + 1
		for j < len(sel) && sel[j] == sel[j-1]+1 {
			j++
		}
		parts = append(parts, array.NewSlice(arr, int64(sel[i]), int64(sel[j-1])+1))
		i = j
	}
	if len(parts) == 0 {
		return array.NewSlice(arr, 0, 0), nil
	}
	return array.Concatenate(parts, mem)
}

// Supported reports whether Record can take a column of type dt: every
// type but those holding a sparse union, and dense unions below the top.
func Supported(dt arrow.DataType) bool { return supported(dt, true) }

func supported(dt arrow.DataType, top bool) bool {
	switch t := dt.(type) {
	case arrow.UnionType: // sparse or dense
		if !top {
			return false
		}
		for _, f := range t.Fields() {
			if !supported(f.Type, false) {
				return false
			}
		}
		return true
	case arrow.NestedType:
		for _, f := range t.Fields() {
			if !supported(f.Type, false) {
				return false
			}
		}
	case *arrow.DictionaryType:
		return supported(t.ValueType, false)
	}
	return true
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// Rows copies the rows sel names of arr into a new array, or returns nil
// for a type it has no loop for: those of fixed width 1 to 16 bytes,
// booleans, and utf8 and binary, large or not, have one.
func Rows(mem memory.Allocator, arr arrow.Array, sel []int32) arrow.Array {
	var values []*memory.Buffer
	switch arr.DataType().ID() {
	case arrow.INT8, arrow.UINT8:
		values = takeFixed[uint8](mem, arr, sel)
	case arrow.INT16, arrow.UINT16, arrow.FLOAT16:
		values = takeFixed[uint16](mem, arr, sel)
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32, arrow.TIME32, arrow.DECIMAL32, arrow.INTERVAL_MONTHS:
		values = takeFixed[uint32](mem, arr, sel)
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP,
		arrow.DURATION, arrow.DECIMAL64, arrow.INTERVAL_DAY_TIME:
		values = takeFixed[uint64](mem, arr, sel)
	case arrow.DECIMAL128, arrow.INTERVAL_MONTH_DAY_NANO:
		// arrow-go's take also leaks its output buffer when it refuses
		// month-day-nano intervals ("invalid values byte width").
		values = takeFixed[decimal128.Num](mem, arr, sel)
	case arrow.BOOL:
		values = []*memory.Buffer{takeBits(mem, arr.Data().Buffers()[1].Bytes(), arr.Data().Offset(), sel)}
	case arrow.STRING, arrow.BINARY:
		values = takeVar[int32](mem, arr, sel)
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		values = takeVar[int64](mem, arr, sel)
	default:
		return nil
	}
	var validity *memory.Buffer
	nulls := 0
	if arr.NullN() > 0 {
		validity = takeBits(mem, arr.NullBitmapBytes(), arr.Data().Offset(), sel)
		nulls = len(sel) - bitutil.CountSetBits(validity.Bytes(), 0, len(sel))
	}
	bufs := append([]*memory.Buffer{validity}, values...)
	data := array.NewData(arr.DataType(), len(sel), bufs, nil, nulls, 0)
	out := array.MakeFromData(data)
	data.Release()
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	return out
}

// takeFixed copies values of a fixed width type, T of that width.
func takeFixed[T uint8 | uint16 | uint32 | uint64 | decimal128.Num](mem memory.Allocator, arr arrow.Array, sel []int32) []*memory.Buffer {
	d := arr.Data()
	var vals []T
	if b := d.Buffers()[1]; b != nil {
		vals = arrow.GetData[T](b.Bytes())[d.Offset():]
	}
	var z T
	buf := bufs.NewDirty(mem, len(sel)*sizeOfFixed(z)) // every value written below
	out := arrow.GetData[T](buf.Bytes())[:len(sel)]
	for i, r := range sel {
		out[i] = vals[r]
	}
	return []*memory.Buffer{buf}
}

func sizeOfFixed(z any) int {
	switch z.(type) {
	case uint8:
		return 1
	case uint16:
		return 2
	case uint32:
		return 4
	case decimal128.Num:
		return 16
	}
	return 8
}

// takeBits copies bits off+sel[i] of src to bit i of a new bitmap.
func takeBits(mem memory.Allocator, src []byte, off int, sel []int32) *memory.Buffer {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(len(sel)))))
	out := buf.Bytes()
	clear(out)
	for i, r := range sel {
		if bitutil.BitIsSet(src, off+int(r)) {
			out[i>>3] |= 1 << (i & 7)
		}
	}
	return buf
}

// takeVar copies values of a type of offsets O and bytes (utf8,
// binary): offsets first, to size the bytes, then the bytes, a run of
// consecutive rows at a time (a filter that keeps most rows leaves long
// runs, and one copy of a run's bytes beats one per short value).
func takeVar[O int32 | int64](mem memory.Allocator, arr arrow.Array, sel []int32) []*memory.Buffer {
	d := arr.Data()
	offs := arrow.GetData[O](d.Buffers()[1].Bytes())[d.Offset():]
	var src []byte
	if b := d.Buffers()[2]; b != nil {
		src = b.Bytes()
	}
	ob := memory.NewResizableBuffer(mem)
	ob.Resize((len(sel) + 1) * sizeOfOffset[O]())
	outOffs := arrow.GetData[O](ob.Bytes())[:len(sel)+1]
	var total O
	outOffs[0] = 0
	for i, r := range sel {
		total += offs[r+1] - offs[r]
		outOffs[i+1] = total
	}
	vb := memory.NewResizableBuffer(mem)
	vb.Resize(int(total))
	out := vb.Bytes()
	for i := 0; i < len(sel); {
		j := i + 1
		for j < len(sel) && sel[j] == sel[j-1]+1 {
			j++
		}
		first, last := sel[i], sel[j-1]
		copy(out[outOffs[i]:outOffs[j]], src[offs[first]:offs[last+1]])
		i = j
	}
	return []*memory.Buffer{ob, vb}
}

func sizeOfOffset[O int32 | int64]() int {
	var z O
	if _, ok := any(z).(int32); ok {
		return 4
	}
	return 8
}
