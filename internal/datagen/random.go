// Random values of every type: AppendRandom, the one builder switch that
// makes them, and the columns Gen and Dictionary build from it.

package datagen

import (
	"fmt"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Gen returns an array of n values of dt, each null with probability
// nullFrac (nested children get nulls at 0.2 unless nullFrac is 0).
//
// Structs and lists are laid out the way columnar readers leave them,
// not the way arrow-go's builders do: the fields of a null struct hold
// values of their own, and a null list may own child slots (Parquet's
// layout), so that the converter's masking and run copies are exercised.
func Gen(mem memory.Allocator, dt arrow.DataType, n int, nullFrac float64, r *rand.Rand) arrow.Array {
	switch t := dt.(type) {
	case *arrow.StructType:
		return genStruct(mem, t, n, nullFrac, r)
	case *arrow.ListType:
		return genList(mem, t, n, nullFrac, r)
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for range n {
		AppendRandom(b, dt, nullFrac, r)
	}
	return b.NewArray()
}

// AppendRandom appends one random value of dt to bld, a builder of dt:
// null with probability nullFrac, and its children (list items, struct
// fields, map items) each null with probability min(nullFrac, 0.2).
// Unions and run-end encoded arrays have no validity bitmap of their own
// and are never null at their own level. This is the one switch over
// arrow-go's builders that makes random values: Gen, Record and Tiny use
// it, as should any other generator.
func AppendRandom(bld array.Builder, dt arrow.DataType, nullFrac float64, r *rand.Rand) {
	if nullFrac > 0 && hasValidity(dt) && r.Float64() < nullFrac {
		bld.AppendNull()
		return
	}
	appendRandom(bld, dt, min(nullFrac, 0.2), r)
}

// hasValidity says whether dt's arrays carry their own validity bitmap.
func hasValidity(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.SPARSE_UNION, arrow.DENSE_UNION, arrow.RUN_END_ENCODED:
		return false
	}
	return true
}

var words = []string{"", "a", "arrow", "quiver", "lz4", "zstd", "a fairly long string value past twelve bytes", "ünïcode ✓", "x"}

func word(r *rand.Rand) string { return words[r.IntN(len(words))] }

// appendRandom appends one non-null value of dt; childNulls is the null
// fraction of its children.
func appendRandom(bld array.Builder, dt arrow.DataType, childNulls float64, r *rand.Rand) {
	child := func(b array.Builder, dt arrow.DataType) { AppendRandom(b, dt, childNulls, r) }
	switch b := bld.(type) {
	case *array.BooleanBuilder:
		b.Append(r.IntN(2) == 0)
	case *array.Int8Builder:
		b.Append(int8(r.Int()))
	case *array.Int16Builder:
		b.Append(int16(r.Int()))
	case *array.Int32Builder:
		b.Append(int32(r.Int()))
	case *array.Int64Builder:
		b.Append(r.Int64() - r.Int64())
	case *array.Uint8Builder:
		b.Append(uint8(r.Int()))
	case *array.Uint16Builder:
		b.Append(uint16(r.Int()))
	case *array.Uint32Builder:
		b.Append(r.Uint32())
	case *array.Uint64Builder:
		b.Append(r.Uint64())
	case *array.Float16Builder:
		b.Append(float16.New(float32(r.NormFloat64())))
	case *array.Float32Builder:
		b.Append(float32(r.NormFloat64()))
	case *array.Float64Builder:
		b.Append(r.NormFloat64() * 1e6)
	case *array.Decimal32Builder:
		b.Append(decimal.Decimal32(r.Int32N(1e9) - 5e8))
	case *array.Decimal64Builder:
		b.Append(decimal.Decimal64(r.Int64N(1e18) - 5e17))
	case *array.Decimal128Builder:
		p := dt.(*arrow.Decimal128Type).Precision
		if p <= 18 {
			b.Append(decimal128.FromI64(r.Int64N(pow10(p)) * sign(r)))
		} else {
			b.Append(decimal128.New(r.Int64N(1<<60)*sign(r), r.Uint64()))
		}
	case *array.Decimal256Builder:
		b.Append(decimal256.New(uint64(r.Int64N(1<<60)), r.Uint64(), r.Uint64(), r.Uint64()))
	case *array.Date32Builder:
		b.Append(arrow.Date32(r.Int32N(40000)))
	case *array.Date64Builder:
		b.Append(arrow.Date64(r.Int64N(40000) * 86400000))
	case *array.Time32Builder:
		b.Append(arrow.Time32(r.Int32N(86400000)))
	case *array.Time64Builder:
		b.Append(arrow.Time64(r.Int64N(86400e9)))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(r.Int64N(4e15)))
	case *array.DurationBuilder:
		b.Append(arrow.Duration(r.Int64N(1e12)))
	case *array.MonthIntervalBuilder:
		b.Append(arrow.MonthInterval(r.Int32N(1000)))
	case *array.DayTimeIntervalBuilder:
		b.Append(arrow.DayTimeInterval{Days: r.Int32N(1000), Milliseconds: r.Int32N(86400000)})
	case *array.MonthDayNanoIntervalBuilder:
		b.Append(arrow.MonthDayNanoInterval{Months: r.Int32N(100), Days: r.Int32N(30), Nanoseconds: r.Int64()})
	case *array.FixedSizeBinaryBuilder:
		v := make([]byte, dt.(*arrow.FixedSizeBinaryType).ByteWidth)
		for i := range v {
			v[i] = byte(r.Int())
		}
		b.Append(v)
	case *array.StringBuilder:
		b.Append(word(r))
	case *array.LargeStringBuilder:
		b.Append(word(r))
	case *array.StringViewBuilder:
		b.Append(word(r))
	case *array.BinaryBuilder:
		b.Append([]byte(word(r)))
	case *array.BinaryViewBuilder:
		b.Append([]byte(word(r)))
	case *array.NullBuilder:
		b.AppendNull()
	case *array.MapBuilder:
		b.Append(true)
		mt := dt.(*arrow.MapType)
		for k := range r.IntN(4) {
			if kb, ok := b.KeyBuilder().(*array.StringBuilder); ok {
				kb.Append(fmt.Sprintf("k%d", k))
			} else {
				appendRandom(b.KeyBuilder(), mt.KeyType(), 0, r)
			}
			child(b.ItemBuilder(), mt.ItemType())
		}
	case *array.ListBuilder:
		b.Append(true)
		for range r.IntN(4) {
			child(b.ValueBuilder(), dt.(*arrow.ListType).Elem())
		}
	case *array.LargeListBuilder:
		b.Append(true)
		for range r.IntN(4) {
			child(b.ValueBuilder(), dt.(*arrow.LargeListType).Elem())
		}
	case *array.ListViewBuilder:
		k := r.IntN(4)
		b.AppendWithSize(true, k)
		for range k {
			child(b.ValueBuilder(), dt.(*arrow.ListViewType).Elem())
		}
	case *array.LargeListViewBuilder:
		k := r.IntN(4)
		b.AppendWithSize(true, k)
		for range k {
			child(b.ValueBuilder(), dt.(*arrow.LargeListViewType).Elem())
		}
	case *array.FixedSizeListBuilder:
		b.Append(true)
		t := dt.(*arrow.FixedSizeListType)
		for range t.Len() {
			child(b.ValueBuilder(), t.Elem())
		}
	case *array.StructBuilder:
		b.Append(true)
		for i, f := range dt.(*arrow.StructType).Fields() {
			child(b.FieldBuilder(i), f.Type)
		}
	case *array.SparseUnionBuilder:
		ut := dt.(*arrow.SparseUnionType)
		c := r.IntN(len(ut.Fields()))
		b.Append(ut.TypeCodes()[c])
		for i, f := range ut.Fields() {
			if i == c {
				child(b.Child(i), f.Type)
			} else {
				b.Child(i).AppendEmptyValue()
			}
		}
	case *array.DenseUnionBuilder:
		ut := dt.(*arrow.DenseUnionType)
		c := r.IntN(len(ut.Fields()))
		b.Append(ut.TypeCodes()[c])
		child(b.Child(c), ut.Fields()[c].Type)
	case *array.RunEndEncodedBuilder:
		if b.Len() > 0 && r.IntN(2) == 0 {
			b.ContinueRun(1) // runs longer than one row
			return
		}
		b.Append(1)
		appendRandom(b.ValueBuilder(), dt.(*arrow.RunEndEncodedType).Encoded(), childNulls, r)
	case *array.BinaryDictionaryBuilder:
		if err := b.AppendString(word(r)); err != nil {
			panic(err)
		}
	case *array.Int64DictionaryBuilder:
		if err := b.Append(r.Int64N(20)); err != nil { // a small dictionary: values repeat
			panic(err)
		}
	default:
		panic(fmt.Sprintf("datagen: no generator for %T (%s)", bld, dt))
	}
}

func pow10(p int32) int64 {
	v := int64(1)
	for range p {
		v *= 10
	}
	return v
}

func sign(r *rand.Rand) int64 {
	if r.IntN(2) == 0 {
		return -1
	}
	return 1
}

// Dictionary encodes n rows over a dictionary of the values in dict:
// row i is dict[ids[i]], null with probability nullFrac, and the id
// under a null row is far outside the dictionary, so that decoding one
// would fail.
func Dictionary(mem memory.Allocator, dict arrow.Array, n int, nullFrac float64, r *rand.Rand) arrow.Array {
	ids := make([]int32, n)
	valid := make([]bool, n)
	for i := range n {
		if (nullFrac > 0 && r.Float64() < nullFrac) || dict.Len() == 0 {
			// AppendNull would write 0, a valid id: write garbage instead.
			ids[i] = int32(dict.Len() + 1000 + r.IntN(1000))
			continue
		}
		ids[i], valid[i] = int32(r.IntN(dict.Len())), true
	}
	ib := array.NewInt32Builder(mem)
	defer ib.Release()
	ib.AppendValues(ids, valid) // writes the garbage ids under the nulls too
	idx := ib.NewInt32Array()
	defer idx.Release()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: dict.DataType()}
	return array.NewDictionaryArray(dt, idx, dict)
}

// validity returns a bitmap of n rows, each null with probability
// nullFrac, and the null count.
func validity(mem memory.Allocator, n int, nullFrac float64, r *rand.Rand) (*memory.Buffer, int) {
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(int64(n))))
	nulls := 0
	for i := range n {
		if nullFrac > 0 && r.Float64() < nullFrac {
			nulls++
			continue
		}
		bitutil.SetBit(buf.Bytes(), i)
	}
	return buf, nulls
}

func genStruct(mem memory.Allocator, t *arrow.StructType, n int, nullFrac float64, r *rand.Rand) arrow.Array {
	var cols []arrow.Array
	var names []string
	for _, f := range t.Fields() {
		cols = append(cols, Gen(mem, f.Type, n, min(nullFrac, 0.2), r))
		names = append(names, f.Name)
	}
	valid, nulls := validity(mem, n, nullFrac, r)
	defer valid.Release()
	s, err := array.NewStructArrayWithNulls(cols, names, valid, nulls, 0)
	if err != nil {
		panic(err)
	}
	for _, c := range cols {
		c.Release()
	}
	return s
}

func genList(mem memory.Allocator, t *arrow.ListType, n int, nullFrac float64, r *rand.Rand) arrow.Array {
	offs := make([]int32, n+1)
	for i := range n {
		offs[i+1] = offs[i] + int32(r.IntN(4)) // null rows keep their slots too
	}
	values := Gen(mem, t.Elem(), int(offs[n]), min(nullFrac, 0.2), r)
	defer values.Release()
	valid, nulls := validity(mem, n, nullFrac, r)
	defer valid.Release()
	data := array.NewData(t, n, []*memory.Buffer{valid, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs))},
		[]arrow.ArrayData{values.Data()}, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}
