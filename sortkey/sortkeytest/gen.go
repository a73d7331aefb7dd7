package sortkeytest

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Types are the sort-key types the tests cover: every orderable type, with
// a dictionary of strings and one of integers.
func Types() []arrow.DataType {
	return []arrow.DataType{
		arrow.Null,
		arrow.FixedWidthTypes.Boolean,
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.FixedWidthTypes.Float16, arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
		&arrow.Decimal32Type{Precision: 9, Scale: 2}, &arrow.Decimal64Type{Precision: 18, Scale: 2},
		&arrow.Decimal128Type{Precision: 38, Scale: 2}, &arrow.Decimal256Type{Precision: 76, Scale: 2},
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Date64,
		arrow.FixedWidthTypes.Time32s, arrow.FixedWidthTypes.Time32ms,
		arrow.FixedWidthTypes.Time64us, arrow.FixedWidthTypes.Time64ns,
		&arrow.TimestampType{Unit: arrow.Second}, &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"},
		&arrow.TimestampType{Unit: arrow.Microsecond}, &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "Europe/Paris"},
		arrow.FixedWidthTypes.Duration_s, arrow.FixedWidthTypes.Duration_ns,
		arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeBinary,
		arrow.BinaryTypes.StringView, arrow.BinaryTypes.BinaryView,
		&arrow.FixedSizeBinaryType{ByteWidth: 3},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint8, ValueType: arrow.PrimitiveTypes.Int64},
	}
}

// Column returns n random values of t: drawn from a pool of about distinct
// values (so there are duplicates) that always holds the type's edge values
// (minimum, maximum, zero, -0.0, ±Inf, NaNs, empty strings, strings with
// zero and 0xFF bytes, strings that prefix each other), with about
// nullFrac of the rows NULL. The array starts at a non-zero offset of a
// larger one (Slice), as arrays cut from batches do.
func Column(mem memory.Allocator, t arrow.DataType, n, distinct int, nullFrac float64, r *rand.Rand) arrow.Array {
	const pad = 3
	full := column(mem, t, n+2*pad, distinct, nullFrac, r)
	defer full.Release()
	return array.NewSlice(full, pad, int64(pad+n))
}

func column(mem memory.Allocator, t arrow.DataType, n, distinct int, nullFrac float64, r *rand.Rand) arrow.Array {
	distinct = max(distinct, 1)
	switch t.ID() {
	case arrow.NULL:
		return array.NewNull(n)
	case arrow.BOOL:
		return fixedColumn(mem, t, n, nullFrac, r, func() []byte { return nil }, 0)
	case arrow.DICTIONARY:
		dt := t.(*arrow.DictionaryType)
		dict := column(mem, dt.ValueType, distinct, distinct, nullFrac/2, r)
		defer dict.Release()
		idx := indexColumn(mem, dt.IndexType, n, dict.Len(), nullFrac/2, r)
		defer idx.Release()
		return array.NewDictionaryArray(dt, idx, dict)
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.STRING_VIEW, arrow.BINARY_VIEW:
		return varColumn(mem, t, n, distinct, nullFrac, r)
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.LIST_VIEW, arrow.MAP, arrow.STRUCT:
		return nestedColumn(mem, t, n, distinct, nullFrac, r)
	case arrow.SPARSE_UNION, arrow.DENSE_UNION:
		return unionColumn(mem, t.(arrow.UnionType), n, distinct, nullFrac, r)
	}
	w := t.(arrow.FixedWidthDataType).BitWidth() / 8
	pool := fixedPool(t, w, distinct, r)
	return fixedColumn(mem, t, n, nullFrac, r, func() []byte { return pool[r.IntN(len(pool))] }, w)
}

// fixedPool is distinct random values of width w, plus the edge values.
func fixedPool(t arrow.DataType, w, distinct int, r *rand.Rand) [][]byte {
	le := func(v uint64) []byte {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint64(b, v)
		return b[:min(w, 8)]
	}
	var pool [][]byte
	switch t.ID() {
	case arrow.FLOAT16:
		for _, v := range []uint16{0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01, 0x3C00, 0xBC00, 0x0001, 0x8001} {
			pool = append(pool, le(uint64(v)))
		}
	case arrow.FLOAT32:
		for _, f := range []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), 1, -1, math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32} {
			pool = append(pool, le(uint64(math.Float32bits(f))))
		}
		pool = append(pool, le(0x7FC00000), le(0xFFC00001), le(0x7F800001))
	case arrow.FLOAT64:
		for _, f := range []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), 1, -1, math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64} {
			pool = append(pool, le(math.Float64bits(f)))
		}
		pool = append(pool, le(0x7FF8000000000000), le(0xFFF8000000000001), le(0x7FF0000000000001))
	default:
		// Integers, decimals, dates, times: zero, ±1, the extremes of the
		// width as two's complement and as unsigned.
		for _, v := range [][]byte{fill(w, 0), fill(w, 0xFF), one(w, false), one(w, true), minSigned(w), maxSigned(w)} {
			pool = append(pool, v)
		}
	}
	for len(pool) < distinct {
		b := make([]byte, w)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		if r.IntN(2) == 0 && w > 1 {
			// Small magnitudes too, not only huge random words.
			clear(b[1:])
			if r.IntN(2) == 0 {
				for i := 1; i < w; i++ {
					b[i] = 0xFF
				}
			}
		}
		pool = append(pool, b)
	}
	return pool
}

func fill(w int, v byte) []byte {
	b := make([]byte, w)
	for i := range b {
		b[i] = v
	}
	return b
}

func one(w int, neg bool) []byte {
	if neg {
		b := fill(w, 0xFF)
		return b // -1
	}
	b := fill(w, 0)
	b[0] = 1
	return b
}

func minSigned(w int) []byte { b := fill(w, 0); b[w-1] = 0x80; return b }
func maxSigned(w int) []byte { b := fill(w, 0xFF); b[w-1] = 0x7F; return b }

// fixedColumn builds a fixed-width (or, for w = 0, boolean) column from
// raw values.
func fixedColumn(mem memory.Allocator, t arrow.DataType, n int, nullFrac float64, r *rand.Rand, next func() []byte, w int) arrow.Array {
	valid := memory.NewResizableBuffer(mem)
	valid.Resize(int(bitutil.BytesForBits(int64(n))))
	vals := memory.NewResizableBuffer(mem)
	if w == 0 {
		vals.Resize(int(bitutil.BytesForBits(int64(n))))
	} else {
		vals.Resize(n * w)
	}
	clear(vals.Bytes())
	nulls := 0
	for i := range n {
		if r.Float64() < nullFrac {
			bitutil.ClearBit(valid.Bytes(), i)
			nulls++
		} else {
			bitutil.SetBit(valid.Bytes(), i)
		}
		if w == 0 {
			bitutil.SetBitTo(vals.Bytes(), i, r.IntN(2) == 0)
		} else {
			copy(vals.Bytes()[i*w:], next())
		}
	}
	d := array.NewData(t, n, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	valid.Release()
	vals.Release()
	defer d.Release()
	return array.MakeFromData(d)
}

// indexColumn is n dictionary indices below size.
func indexColumn(mem memory.Allocator, t arrow.DataType, n, size int, nullFrac float64, r *rand.Rand) arrow.Array {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	for range n {
		if r.Float64() < nullFrac {
			b.AppendNull()
			continue
		}
		k := r.IntN(size)
		switch b := b.(type) {
		case *array.Int16Builder:
			b.Append(int16(k))
		case *array.Uint8Builder:
			b.Append(uint8(k))
		case *array.Int32Builder:
			b.Append(int32(k))
		default:
			panic(fmt.Sprintf("sortkeytest: index type %s", t))
		}
	}
	return b.NewArray()
}

// stringPool holds strings that prefix each other, contain 00 and (for
// binary) FF bytes, are empty, and are longer than a view's 12 inline
// bytes.
func stringPool(distinct int, binary bool, r *rand.Rand) []string {
	pool := []string{"", "a", "a\x00", "a\x00b", "a\x00\x00", "ab", "abc", "\x00", "\x00\x00", "b", "é", "aaaaaaaaaaaaa", "aaaaaaaaaaaab", "aaaaaaaaaaaa"}
	if binary {
		pool = append(pool, "\xff", "a\xff", "\xff\xff\x00", "a\x01")
	}
	alphabet := "ab\x00c"
	if binary {
		alphabet = "ab\x00\xff\x01"
	}
	for len(pool) < distinct {
		n := r.IntN(40)
		if r.IntN(2) == 0 {
			n = r.IntN(4)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		pool = append(pool, string(b))
	}
	return pool
}

func varColumn(mem memory.Allocator, t arrow.DataType, n, distinct int, nullFrac float64, r *rand.Rand) arrow.Array {
	id := t.ID()
	pool := stringPool(distinct, id == arrow.BINARY || id == arrow.LARGE_BINARY || id == arrow.BINARY_VIEW, r)
	b := array.NewBuilder(mem, t)
	defer b.Release()
	for range n {
		if r.Float64() < nullFrac {
			b.AppendNull()
			continue
		}
		s := pool[r.IntN(len(pool))]
		switch b := b.(type) {
		case interface{ Append(string) }:
			b.Append(s)
		case interface{ Append([]byte) }:
			b.Append([]byte(s))
		default:
			panic(fmt.Sprintf("sortkeytest: builder %T", b))
		}
	}
	return b.NewArray()
}
