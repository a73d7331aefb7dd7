package expr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// dictOf builds a dictionary array of index type it over values (nil: a
// NULL entry), with codes (-1: a NULL index).
func dictOf(mem memory.Allocator, it arrow.DataType, values []*string, codes []int) *array.Dictionary {
	vb := array.NewStringBuilder(mem)
	defer vb.Release()
	for _, v := range values {
		if v == nil {
			vb.AppendNull()
		} else {
			vb.Append(*v)
		}
	}
	dict := vb.NewArray()
	defer dict.Release()
	ib := array.NewBuilder(mem, it)
	defer ib.Release()
	for _, c := range codes {
		switch b := ib.(type) {
		case *array.Int8Builder:
			if c < 0 {
				b.AppendNull()
			} else {
				b.Append(int8(c))
			}
		case *array.Uint32Builder:
			if c < 0 {
				b.AppendNull()
			} else {
				b.Append(uint32(c))
			}
		}
	}
	idx := ib.NewArray()
	defer idx.Release()
	return array.NewDictionaryArray(&arrow.DictionaryType{IndexType: it, ValueType: arrow.BinaryTypes.String}, idx, dict)
}

// TestDictionaryToEngineAsTake: our decode of utf8 dictionaries gives
// what arrow-go's take does — NULL indices, NULL entries, empty values,
// sliced dictionaries and indices, 128 entries under int8 indices — and
// an index outside the dictionary is a clear error.
func TestDictionaryToEngineAsTake(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := func(v string) *string { return &v }
	var many []*string
	for i := range 128 {
		many = append(many, s(fmt.Sprint("v", i)))
	}
	many[3], many[4] = nil, s("")
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		it     arrow.DataType
		values []*string
		codes  []int
		slice  [2]int // of the dictionary array; {0, 0}: none
	}{
		{"nulls", arrow.PrimitiveTypes.Int8, []*string{s("a"), nil, s(""), s("ccc")}, []int{0, 1, -1, 2, 3, 3, 0, -1}, [2]int{}},
		{"no nulls", arrow.PrimitiveTypes.Uint32, []*string{s("x"), s("yy")}, []int{1, 0, 1, 1}, [2]int{}},
		{"127 of 128", arrow.PrimitiveTypes.Int8, many, []int{127, 0, 3, 4, -1, 126}, [2]int{}},
		{"sliced", arrow.PrimitiveTypes.Int8, []*string{s("a"), nil, s("bb")}, []int{2, 0, 1, -1, 2, 0}, [2]int{1, 5}},
	} {
		d := dictOf(mem, tc.it, tc.values, tc.codes)
		var in arrow.Array = d
		if tc.slice != [2]int{} {
			in = array.NewSlice(d, int64(tc.slice[0]), int64(tc.slice[1]))
			d.Release()
		}
		got, err := ToEngine(ctx, mem, in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		dd := in.(*array.Dictionary)
		want, err := compute.TakeArray(compute.WithAllocator(ctx, mem), dd.Dictionary(), dd.Indices())
		if err != nil {
			t.Fatal(err)
		}
		if !arrow.TypeEqual(got.DataType(), arrow.BinaryTypes.String) || !array.Equal(got, want) {
			t.Errorf("%s: %v, want %v", tc.name, got, want)
		}
		for _, a := range []arrow.Array{got, want, in} {
			a.Release()
		}
	}

	bad := dictOf(mem, arrow.PrimitiveTypes.Int8, []*string{s("a")}, []int{0, 5})
	defer bad.Release()
	if _, err := ToEngine(ctx, mem, bad); err == nil || !strings.Contains(err.Error(), "index 5 outside its 1 values") {
		t.Errorf("an index past the dictionary: %v", err)
	}
}

// BenchmarkDictionaryToEngine: decoding 8,192 rows of a utf8 dictionary
// of 60 values of 22 bytes, ours against arrow-go's take.
func BenchmarkDictionaryToEngine(b *testing.B) {
	mem := memory.NewGoAllocator()
	var values []*string
	for i := range 60 {
		v := fmt.Sprintf("w%04d-%016x", i, i*7777777)
		values = append(values, &v)
	}
	codes := make([]int, 8192)
	for i := range codes {
		codes[i] = i * 31 % 60
	}
	d := dictOf(mem, arrow.PrimitiveTypes.Int8, values, codes)
	defer d.Release()
	for _, impl := range []string{"ours", "take"} {
		b.Run("impl="+impl, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var out arrow.Array
				var err error
				if impl == "ours" {
					out, err = ToEngine(context.Background(), mem, d)
				} else {
					out, err = compute.TakeArray(context.Background(), d.Dictionary(), d.Indices())
				}
				if err != nil {
					b.Fatal(err)
				}
				out.Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/8192, "ns/row")
		})
	}
}

// TestDictionaryFromEngine: values stored as a dictionary type keep their
// NULLs, and more distinct values than the indices number is ErrOverflow.
func TestDictionaryFromEngine(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"a", "", "b", "a"}, []bool{true, false, true, true})
	small := sb.NewArray()
	for i := range 200 {
		sb.Append(fmt.Sprint(i))
	}
	many := sb.NewArray()
	sb.Release()
	defer small.Release()
	defer many.Release()
	got, err := FromEngine(ctx, mem, small, dt)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	back, err := ToEngine(ctx, mem, got)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Release()
	if !arrow.TypeEqual(got.DataType(), dt) || !array.Equal(back, small) {
		t.Errorf("stored %v as %s, read back %v", small, got.DataType(), back)
	}
	if _, err := FromEngine(ctx, mem, many, dt); !errors.Is(err, ErrOverflow) || !strings.Contains(err.Error(), "200 distinct values") {
		t.Errorf("200 values into int8 indices: %v", err)
	}
	large := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.LargeString}
	if _, err := FromEngine(ctx, mem, small, large); !errors.Is(err, ErrType) {
		t.Errorf("into a dictionary of large_utf8: %v, want ErrType", err)
	}
}
