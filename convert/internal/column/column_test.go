package column

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/datagen"
)

// slices are Comet's: (start, rows) of the input.
var slices = [][2]int{{0, 300}, {7, 40}, {33, 31}}

// chunks splits n rows the way Comet's suite appends them: 1, n/3, rest.
func chunks(n int) []int {
	if n <= 1 {
		return []int{n}
	}
	return []int{1, n / 3, n - 1 - n/3}
}

// input returns the matrix input for one case: plain (built then sliced
// so that it has an offset) or dictionary-encoded.
func input(mem memory.Allocator, c datagen.Case, nullFrac float64, dict bool, r *rand.Rand) arrow.Array {
	if dict {
		dn := 0.0
		if nullFrac > 0 {
			dn = 0.1
		}
		values := datagen.Gen(mem, c.Type, 20, dn, r)
		defer values.Release()
		return datagen.Dictionary(mem, values, 340, nullFrac, r)
	}
	full := datagen.Gen(mem, c.Type, 345, nullFrac, r)
	defer full.Release()
	return array.NewSlice(full, 5, 345)
}

// TestDifferential: for every type × null fraction × plain/dictionary ×
// slice, appending the slice in uneven chunks into a builder sized for
// one row gives exactly what arrow-go's builders give value by value,
// and the result passes ValidateFull. A second batch through the same
// builder checks that Finish leaves it reusable.
func TestDifferential(t *testing.T) {
	for _, c := range datagen.Cases() {
		for _, nullFrac := range []float64{0, 0.2, 1} {
			for _, dict := range []bool{false, true} {
				if dict && !c.Dict {
					continue
				}
				name := fmt.Sprintf("%s/nulls=%v/dict=%v", c.Name, nullFrac, dict)
				t.Run(name, func(t *testing.T) {
					mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
					defer mem.AssertSize(t, 0)
					r := rand.New(rand.NewPCG(uint64(len(name)), 1))
					in := input(mem, c, nullFrac, dict, r)
					defer in.Release()
					b, err := New(in.DataType(), mem, 1)
					if err != nil {
						t.Fatal(err)
					}
					defer b.Release()
					for round := range 2 {
						for _, s := range slices {
							checkSlice(t, mem, b, in, s[0], s[1], fmt.Sprintf("round %d slice %v", round, s))
						}
					}
				})
			}
		}
	}
}

func checkSlice(t *testing.T, mem memory.Allocator, b Builder, in arrow.Array, start, n int, what string) {
	t.Helper()
	pos := start
	for _, k := range chunks(n) {
		if got, _ := b.Measure(in, pos, k); got < 0 {
			t.Fatalf("%s: Measure %d", what, got)
		}
		if err := b.AppendArray(in, pos, k, Mask{}); err != nil {
			t.Fatalf("%s: AppendArray(%d, %d): %v", what, pos, k, err)
		}
		pos += k
	}
	if b.Len() != n {
		t.Fatalf("%s: Len %d, want %d", what, b.Len(), n)
	}
	got := makeArray(b.Finish())
	defer got.Release()
	want := datagen.Rebuild(mem, b.Type(), in, start, n)
	defer want.Release()
	if err := array.ValidateFull(got); err != nil {
		t.Fatalf("%s: ValidateFull: %v", what, err)
	}
	if !array.Equal(got, want) {
		t.Fatalf("%s: not equal\ngot  %v\nwant %v", what, got, want)
	}
	if b.Len() != 0 || b.Bytes() != 0 {
		t.Fatalf("%s: after Finish Len %d Bytes %d", what, b.Len(), b.Bytes())
	}
}

// TestTruncate: rows appended then truncated leave no trace.
func TestTruncate(t *testing.T) {
	for _, c := range datagen.Cases() {
		t.Run(c.Name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			r := rand.New(rand.NewPCG(3, 4))
			in := datagen.Gen(mem, c.Type, 100, 0.3, r)
			defer in.Release()
			b, err := New(in.DataType(), mem, 1)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Release()
			if err := b.AppendArray(in, 0, 40, Mask{}); err != nil {
				t.Fatal(err)
			}
			if err := b.AppendArray(in, 40, 60, Mask{}); err != nil {
				t.Fatal(err)
			}
			b.Truncate(40)
			if err := b.AppendArray(in, 40, 60, Mask{}); err != nil {
				t.Fatal(err)
			}
			got := makeArray(b.Finish())
			defer got.Release()
			if err := array.ValidateFull(got); err != nil {
				t.Fatal(err)
			}
			want := datagen.Rebuild(mem, b.Type(), in, 0, in.Len())
			defer want.Release()
			if !array.Equal(got, want) {
				t.Fatalf("got %v\nwant %v", got, want)
			}
		})
	}
}

// TestSnapshotReuse: reuse mode hands out data over the builder's own
// buffers and keeps them for the next chunk.
func TestSnapshotReuse(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range datagen.Cases() {
		in := datagen.Gen(mem, c.Type, 400, 0.2, r)
		b, err := New(in.DataType(), mem, 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range slices {
			if err := b.AppendArray(in, s[0], s[1], Mask{}); err != nil {
				t.Fatal(err)
			}
			got := makeArray(b.Snapshot())
			want := datagen.Rebuild(mem, b.Type(), in, s[0], s[1])
			if err := array.ValidateFull(got); err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			if !array.Equal(got, want) {
				t.Fatalf("%s: got %v\nwant %v", c.Name, got, want)
			}
			got.Release()
			want.Release()
			b.Reset()
		}
		b.Release()
		in.Release()
	}
}

// TestDictionaryIDOutOfRange: an id past the dictionary under a valid
// row is an error naming the row, and nothing is appended.
func TestDictionaryIDOutOfRange(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, vt := range []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, &arrow.FixedSizeBinaryType{ByteWidth: 3}} {
		r := rand.New(rand.NewPCG(1, 1))
		values := datagen.Gen(mem, vt, 5, 0, r)
		ib := array.NewInt32Builder(mem)
		ib.AppendValues([]int32{0, 1, 4, 5, -1}, nil)
		idx := ib.NewInt32Array()
		d := array.NewDictionaryArray(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: vt}, idx, values)
		b, _ := New(d.DataType(), mem, 1)
		for _, start := range []int{0, 3, 4} {
			n := 5 - start
			err := b.AppendArray(d, start, n, Mask{})
			if start == 0 && err == nil || start > 0 && !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s start %d: err %v, want ErrCorrupt", vt, start, err)
			}
			if b.Len() != 0 {
				t.Errorf("%s: %d rows appended on error", vt, b.Len())
			}
		}
		if err := b.AppendArray(d, 0, 3, Mask{}); err != nil {
			t.Errorf("%s: %v", vt, err)
		}
		b.Release()
		d.Release()
		idx.Release()
		ib.Release()
		values.Release()
	}
}

// TestMaxOffset: a slice whose bytes would push an int32 offset past
// MaxOffset is refused whole, and Measure says so first.
func TestMaxOffset(t *testing.T) {
	defer func(v int64) { MaxOffset = v }(MaxOffset)
	MaxOffset = 100
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	for range 20 {
		sb.Append("0123456789")
	}
	s := sb.NewArray()
	sb.Release()
	defer s.Release()
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int8)
	for range 20 {
		lb.Append(true)
		for range 10 {
			lb.ValueBuilder().(*array.Int8Builder).Append(1)
		}
	}
	l := lb.NewArray()
	lb.Release()
	defer l.Release()
	for _, in := range []arrow.Array{s, l} {
		b, _ := New(in.DataType(), mem, 1)
		if _, fits := b.Measure(in, 0, 10); !fits {
			t.Errorf("%s: 10 rows do not fit", in.DataType())
		}
		if _, fits := b.Measure(in, 0, 11); fits {
			t.Errorf("%s: 11 rows fit", in.DataType())
		}
		if err := b.AppendArray(in, 0, 11, Mask{}); !errors.Is(err, ErrOffsets) {
			t.Errorf("%s: %v, want ErrOffsets", in.DataType(), err)
		}
		if err := b.AppendArray(in, 0, 10, Mask{}); err != nil {
			t.Error(err)
		}
		if _, fits := b.Measure(in, 0, 1); fits {
			t.Errorf("%s: one more row fits", in.DataType())
		}
		b.Release()
	}
}

// makeArray turns data a builder handed over into an array, dropping the
// data's own reference.
func makeArray(data arrow.ArrayData) arrow.Array {
	defer data.Release()
	return array.MakeFromData(data)
}
