package expr

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// storedCases are columns of every stored type that is not an engine
// type, with NULLs and the extremes of each type.
var storedCases = []struct {
	typ  arrow.DataType
	json string
}{
	{arrow.PrimitiveTypes.Int8, `[-128, null, 0, 127]`},
	{arrow.PrimitiveTypes.Int16, `[-32768, null, 32767]`},
	{arrow.PrimitiveTypes.Int32, `[-2147483648, null, 2147483647, 5]`},
	{arrow.PrimitiveTypes.Uint8, `[0, null, 255]`},
	{arrow.PrimitiveTypes.Uint16, `[0, 65535, null]`},
	{arrow.PrimitiveTypes.Uint32, `[null, 0, 4294967295]`},
	{arrow.PrimitiveTypes.Uint64, `[0, 9223372036854775807, 9223372036854775808, 18446744073709551615, null]`},
	{arrow.PrimitiveTypes.Float32, `[0.5, null, -3.4028235e38, 1e-45, 16777217]`},
	{&arrow.Decimal32Type{Precision: 7, Scale: 2}, `["-99999.99", null, "99999.99", "0.01"]`},
	{&arrow.Decimal256Type{Precision: 38, Scale: 3}, `["-99999999999999999999999999999999999.999", null, "0.001"]`},
	{&arrow.Decimal256Type{Precision: 60, Scale: 2}, `["-12345.75", null, "0.25"]`}, // exact doubles: a DOUBLE key comes back as it was
	{&arrow.Decimal64Type{Precision: 18, Scale: 3}, `["-999999999999999.999", null, "1.5"]`},
	{arrow.BinaryTypes.LargeString, `["a", null, "", "é"]`},
	{arrow.FixedWidthTypes.Date64, `[0, null, -86400000, 253402214400000]`},
}

// TestFromEngineRoundTrip: every value of a stored type comes back from
// its engine type unchanged, sliced or not, NULLs in place.
func TestFromEngineRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, tc := range storedCases {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		a, _, err := array.FromJSON(mem, tc.typ, strings.NewReader(tc.json))
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		for _, in := range []arrow.Array{a, array.NewSlice(a, 1, int64(a.Len()))} {
			e, err := ToEngine(ctx, mem, in)
			if err != nil {
				t.Fatalf("ToEngine(%s): %v", tc.typ, err)
			}
			back, err := FromEngine(ctx, mem, e, tc.typ)
			if err != nil {
				t.Errorf("FromEngine(%s): %v", tc.typ, err)
			} else {
				if !array.Equal(back, in) {
					t.Errorf("%s: %v came back as %v", tc.typ, in, back)
				}
				back.Release()
			}
			e.Release()
			if in != a {
				in.Release()
			}
		}
		a.Release()
		mem.AssertSize(t, 0)
	}
}

func TestFromEngineRefuses(t *testing.T) {
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, tc := range []struct {
		from arrow.DataType
		json string
		to   arrow.DataType
		err  error
		text string
	}{
		{typInt64, `[1, 128]`, arrow.PrimitiveTypes.Int8, ErrOverflow, "128 out of range for int8"},
		{typUint64, `["-1"]`, arrow.PrimitiveTypes.Uint64, ErrOverflow, "-1 out of range for uint64"},
		{typInt64, `[4294967296]`, arrow.PrimitiveTypes.Uint32, ErrOverflow, "uint32"},
		{decimalType(7, 2), `["1.00"]`, &arrow.Decimal64Type{Precision: 7, Scale: 3}, ErrType, "decimal64(7, 3)"},
		{typInt64, `[1]`, arrow.PrimitiveTypes.Float32, ErrType, "int64 as float"},
		{typString, `["a"]`, arrow.BinaryTypes.Binary, ErrType, "binary"},
	} {
		a, _, err := array.FromJSON(mem, tc.from, strings.NewReader(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		got, err := FromEngine(ctx, mem, a, tc.to)
		if got != nil {
			t.Errorf("FromEngine(%s to %s) = %v", tc.json, tc.to, got)
			got.Release()
		}
		wantErr(t, err, tc.err, tc.text)
		a.Release()
	}
	// a decimal(7,2) holding more than 7 digits (the builder does not
	// check) cannot have come from a decimal32(7,2)
	db := array.NewDecimal128Builder(mem, decimalType(7, 2))
	db.Append(decimal128.FromI64(10000000))
	d := db.NewArray()
	db.Release()
	got, err := FromEngine(ctx, mem, d, &arrow.Decimal32Type{Precision: 7, Scale: 2})
	wantErr(t, err, ErrOverflow, "100000.00 out of range for decimal32(7, 2)")
	if got != nil {
		got.Release()
	}
	d.Release()
	// a NULL slot's bytes are never checked
	a, _, _ := array.FromJSON(mem, typInt64, strings.NewReader(`[1, null]`))
	defer a.Release()
	a.Data().Buffers()[1].Bytes()[8] = 0xFF
	got, err = FromEngine(ctx, mem, a, arrow.PrimitiveTypes.Int8)
	if err != nil || got.String() != "[1 (null)]" {
		t.Errorf("NULL with garbage under it: %v, %v", got, err)
	}
	if got != nil {
		got.Release()
	}
}

func TestAsStored(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	i16 := arrow.PrimitiveTypes.Int16
	col := Column(0, "k", typInt64)
	e, err := AsStored(col, i16)
	if err != nil {
		t.Fatal(err)
	}
	if !arrow.TypeEqual(e.Type(), i16) || e.String() != "k" {
		t.Errorf("AsStored: %s %s", e.Type(), e)
	}
	if n := Inspect(e); n.Kind != KindStored || len(n.Args) != 1 || n.Args[0] != col {
		t.Errorf("Inspect(AsStored) = %+v", n)
	}
	if same, _ := AsStored(col, typInt64); same != col {
		t.Error("AsStored to the engine type itself is not the expression")
	}
	_, err = AsStored(col, arrow.PrimitiveTypes.Float32)
	wantErr(t, err, ErrType, "float")
	_, err = AsStored(col, arrow.FixedWidthTypes.Timestamp_us)
	wantErr(t, err, ErrType, "timestamp")

	rec := jbatch(t, mem, jcol{"k", typInt64, `[7, null, -32768]`})
	defer rec.Release()
	got, err := e.Eval(context.Background(), mem, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if !arrow.TypeEqual(got.DataType(), i16) || got.String() != "[7 (null) -32768]" {
		t.Errorf("Eval = %s %v", got.DataType(), got)
	}
}

// BenchmarkToEngineInt32 measures what an expression over an int32 column
// pays per batch: the widening loop against arrow-go's cast, the peer,
// in the same run.
func BenchmarkToEngineInt32(b *testing.B) {
	mem := memory.NewGoAllocator()
	bld := array.NewInt32Builder(mem)
	for i := range 8192 {
		if i%50 == 0 {
			bld.AppendNull()
		} else {
			bld.Append(int32(i * 7919))
		}
	}
	a := bld.NewArray()
	defer a.Release()
	ctx := context.Background()
	b.Run("impl=widen", func(b *testing.B) {
		b.SetBytes(8192 * 4)
		b.ReportAllocs()
		for b.Loop() {
			out, err := ToEngine(ctx, mem, a)
			if err != nil {
				b.Fatal(err)
			}
			out.Release()
		}
	})
	b.Run("impl=arrow-cast", func(b *testing.B) {
		b.SetBytes(8192 * 4)
		b.ReportAllocs()
		for b.Loop() {
			out, err := compute.CastArray(compute.WithAllocator(ctx, mem), a, compute.SafeCastOptions(typInt64))
			if err != nil {
				b.Fatal(err)
			}
			out.Release()
		}
	})
}
