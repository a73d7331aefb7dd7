package spill

import (
	"fmt"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// similarStrings returns n strings in random order drawn from a few
// similar ones of different lengths, like TPC-H's ship modes and
// instructions: values and lengths repeat, offsets never do.
func similarStrings(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 1))
	vals := []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	out := make([]string, n)
	for i := range out {
		out[i] = vals[r.IntN(len(vals))]
	}
	return out
}

// stringsWithJunk returns a Utf8 (or Binary, LargeUtf8, LargeBinary: dt)
// array of vals where every nullEvery-th row is null and, as Arrow
// allows, still spans junk bytes in the data buffer.
func stringsWithJunk(mem memory.Allocator, dt arrow.DataType, vals []string, nullEvery int) arrow.Array {
	n := len(vals)
	valid := memory.NewResizableBuffer(mem)
	valid.Resize(int(bitutil.BytesForBits(int64(n))))
	clear(valid.Bytes())
	var data []byte
	offs := make([]int64, 0, n+1)
	offs = append(offs, 0)
	nulls := 0
	for i, v := range vals {
		if nullEvery > 0 && i%nullEvery == nullEvery-1 {
			data = append(data, "JUNK"...) // bytes under a null
			nulls++
		} else {
			bitutil.SetBit(valid.Bytes(), i)
			data = append(data, v...)
		}
		offs = append(offs, int64(len(data)))
	}
	large := dt.ID() == arrow.LARGE_STRING || dt.ID() == arrow.LARGE_BINARY
	var ob []byte
	if large {
		ob = arrow.Int64Traits.CastToBytes(offs)
	} else {
		o32 := make([]int32, len(offs))
		for i, o := range offs {
			o32[i] = int32(o)
		}
		ob = arrow.Int32Traits.CastToBytes(o32)
	}
	offBuf, dataBuf := copyBuffer(mem, ob), copyBuffer(mem, data)
	defer offBuf.Release()
	defer dataBuf.Release()
	defer valid.Release()
	d := array.NewData(dt, n, []*memory.Buffer{valid, offBuf, dataBuf}, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

func copyBuffer(mem memory.Allocator, b []byte) *memory.Buffer {
	out := memory.NewResizableBuffer(mem)
	out.Resize(len(b))
	copy(out.Bytes(), b)
	return out
}

// viewStrings returns a StringView (or BinaryView) array of vals with
// every nullEvery-th row null, built by arrow-go's builder.
func viewStrings(mem memory.Allocator, dt arrow.DataType, vals []string, nullEvery int) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for i, v := range vals {
		if nullEvery > 0 && i%nullEvery == nullEvery-1 {
			b.AppendNull()
			continue
		}
		switch b := b.(type) {
		case *array.StringViewBuilder:
			b.Append(v)
		case *array.BinaryViewBuilder:
			b.Append([]byte(v))
		}
	}
	return b.NewArray()
}

// mixedStrings returns n values of varied lengths: empty, short (inline
// in a view) and long.
func mixedStrings(n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]string, n)
	for i := range out {
		switch r.IntN(4) {
		case 0:
			out[i] = ""
		case 1:
			out[i] = fmt.Sprintf("s%d", r.IntN(1000))
		default:
			out[i] = fmt.Sprintf("a longer value past twelve bytes, number %d", r.IntN(1e6))
		}
	}
	return out
}

// stringRecord returns a record of every string and binary type next to
// an int64 column, n rows, about one in nullEvery null.
func stringRecord(mem memory.Allocator, n int, seed uint64, nullEvery int) arrow.RecordBatch {
	vals := mixedStrings(n, seed)
	cols := []arrow.Array{
		stringsWithJunk(mem, arrow.BinaryTypes.String, vals, nullEvery),
		stringsWithJunk(mem, arrow.BinaryTypes.Binary, vals, nullEvery),
		stringsWithJunk(mem, arrow.BinaryTypes.LargeString, vals, nullEvery),
		stringsWithJunk(mem, arrow.BinaryTypes.LargeBinary, vals, nullEvery),
		viewStrings(mem, arrow.BinaryTypes.StringView, vals, nullEvery),
		viewStrings(mem, arrow.BinaryTypes.BinaryView, vals, nullEvery),
	}
	ib := array.NewInt64Builder(mem)
	defer ib.Release()
	for i := range n {
		ib.Append(int64(i) * 7)
	}
	cols = append(cols, ib.NewArray())
	fields := []arrow.Field{
		{Name: "utf8", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: arrow.NewMetadata([]string{"mine"}, []string{"kept"})},
		{Name: "binary", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "large_utf8", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "large_binary", Type: arrow.BinaryTypes.LargeBinary, Nullable: true},
		{Name: "string_view", Type: arrow.BinaryTypes.StringView, Nullable: true},
		{Name: "binary_view", Type: arrow.BinaryTypes.BinaryView, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64},
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
	releaseArrays(cols)
	return rec
}
