package agg

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestKeyHasher: equal tuples hash equal however they are batched (-0 as
// 0, every NaN as one, NULL as NULL), a seed changes the hashes, and bad
// input is an error, not a panic.
func TestKeyHasher(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fb := array.NewFloat64Builder(mem)
	defer fb.Release()
	fb.AppendValues([]float64{0, math.Copysign(0, -1), math.NaN(), -math.NaN(), 1.5}, nil)
	fb.AppendNull()
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendValues([]string{"a string past eight bytes", "a string past eight bytes", "x", "x", "y"}, nil)
	sb.AppendNull()
	f, s := fb.NewArray(), sb.NewArray()
	defer f.Release()
	defer s.Release()
	types := []arrow.DataType{arrow.PrimitiveTypes.Float64, arrow.BinaryTypes.String}
	hash := func(seed uint64, keys []arrow.Array) []uint64 {
		h, err := NewKeyHasher(types, seed)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Release()
		n := keys[0].Len()
		out := make([]uint64, n)
		rows := make([]uint32, n)
		for i := range rows {
			rows[i] = uint32(i)
		}
		if err := h.Hash(keys, rows, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a := hash(1, []arrow.Array{f, s})
	if a[0] != a[1] || a[2] != a[3] || a[0] == a[2] || a[4] == a[5] {
		t.Errorf("hashes %x: want rows 0=1, 2=3, others apart", a)
	}
	fs, ss := array.NewSlice(f, 3, 6), array.NewSlice(s, 3, 6)
	defer fs.Release()
	defer ss.Release()
	if b := hash(1, []arrow.Array{fs, ss}); b[0] != a[3] || b[1] != a[4] || b[2] != a[5] {
		t.Errorf("a slice hashes %x, want %x", b, a[3:])
	}
	if c := hash(2, []arrow.Array{f, s}); c[0] == a[0] {
		t.Error("another seed, the same hash")
	}
	h, _ := NewKeyHasher(types, 1)
	defer h.Release()
	if err := h.Hash([]arrow.Array{s, f}, nil, make([]uint64, 6)); err == nil {
		t.Error("keys of the wrong types hashed")
	}
	if err := h.Hash([]arrow.Array{f, s}, nil, make([]uint64, 2)); err == nil {
		t.Error("too few hashes for the rows")
	}
	if _, err := NewKeyHasher([]arrow.DataType{arrow.PrimitiveTypes.Int32}, 1); err == nil {
		t.Error("a hasher of int32, not an engine type")
	}
}
