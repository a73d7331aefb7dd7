package agg

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// denseKeys makes n keys of type dt drawn from lo…lo+span-1, a NULL
// with probability nullP, and, with out, one key past the range.
func denseKeys(rng *rand.Rand, mem memory.Allocator, dt arrow.DataType, n int, lo, span int64, nullP float64, out bool) arrow.Array {
	vals := make([]int64, n)
	valid := make([]bool, n)
	for i := range vals {
		vals[i] = lo + rng.Int64N(span)
		valid[i] = rng.Float64() >= nullP
	}
	if out {
		vals[rng.IntN(n)] = lo + span + 3
	}
	if dt.ID() == arrow.DATE32 {
		b := array.NewDate32Builder(mem)
		defer b.Release()
		for i, v := range vals {
			if valid[i] {
				b.Append(arrow.Date32(v))
			} else {
				b.AppendNull()
			}
		}
		return b.NewArray()
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

// TestDenseGroups: a GROUP BY on one int64 or date32 key given its range
// numbers groups with the dense index and agrees with the reference;
// a batch with a NULL key or a key past the range turns the index off
// and the answer still agrees; merging partials works either way.
func TestDenseGroups(t *testing.T) {
	kept, left := 0, 0
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 17))
		mem := checked(t)
		dt := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.FixedWidthTypes.Date32}[rng.IntN(2)]
		keyTypes := []arrow.DataType{dt}
		argTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64}
		specs := validSpecs(argTypes)
		lo, span := rng.Int64N(1000)-500, 1+rng.Int64N(3000)
		opts := Options{Mem: mem, Dense: &DenseRange{Lo: lo, Hi: lo + span - 1}}
		a, err := NewHashAggregator(keyTypes, argTypes, specs, opts)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewHashAggregator(keyTypes, argTypes, specs, opts)
		if err != nil {
			t.Fatal(err)
		}
		if a.dense == nil {
			t.Fatalf("seed %d: no dense index for %v over %d…%d", seed, dt, lo, lo+span-1)
		}
		ref := newRef(keyTypes, argTypes, specs)
		var later []func()
		leave := rng.IntN(3) // 0: stays dense; 1: a NULL key; 2: a key past the range
		for i := range 8 {
			h := a
			if i%2 == 1 {
				h = b
			}
			n := 1 + rng.IntN(500)
			odd := i == 5 && leave > 0
			keys := []arrow.Array{denseKeys(rng, mem, dt, n, lo, span, map[bool]float64{true: 0.2}[odd && leave == 1], odd && leave == 2)}
			g := &gen{rng: rng, mem: mem, card: 50, nullP: 0.1}
			args := []arrow.Array{g.array(argTypes[0], n)}
			if err := h.Add(keys, args); err != nil {
				t.Fatal(err)
			}
			if h == a {
				ref.add(keys, args, n)
				releaseArrays(keys)
				releaseArrays(args)
			} else { // merged into a after a's own batches, so later in the reference too
				later = append(later, func() {
					ref.add(keys, args, n)
					releaseArrays(keys)
					releaseArrays(args)
				})
			}
		}
		for _, f := range later {
			f()
		}
		if (b.dense == nil) != (leave > 0) {
			t.Fatalf("seed %d: leave %d, dense index kept %v", seed, leave, b.dense != nil)
		}
		if b.dense == nil {
			left++
		} else {
			kept++
		}
		parts, err := b.Partial(1 + rng.IntN(200))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			if err := a.Merge(p); err != nil {
				t.Fatal(err)
			}
		}
		releaseBatches(parts)
		checkResult(t, a, ref, 1+rng.IntN(100), 0)
		a.Release()
		b.Release()
	}
	if kept == 0 || left == 0 {
		t.Errorf("kept %d, left %d: the test exercises too little", kept, left)
	}
}

// TestDenseGroupsMemory: a batch that passes the memory limit leaves the
// aggregator and its dense index as they were; an index too big for the
// limit is not made at all.
func TestDenseGroupsMemory(t *testing.T) {
	mem := checked(t)
	keyTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64}
	argTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64}
	specs := []Spec{{Func: Sum, Arg: 0}, {Func: CountStar}}
	big, err := NewHashAggregator(keyTypes, argTypes, specs, Options{Mem: mem, MemoryLimit: 1 << 20, Dense: &DenseRange{Lo: 0, Hi: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if big.dense != nil {
		t.Error("a 4 MiB dense index under a 1 MiB limit")
	}
	big.Release()

	h, err := NewHashAggregator(keyTypes, argTypes, specs, Options{Mem: mem, MemoryLimit: 64 << 10, Dense: &DenseRange{Lo: 0, Hi: 9999}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if h.dense == nil {
		t.Fatal("no dense index")
	}
	ref := newRef(keyTypes, argTypes, specs)
	add := func(lo, n int64) error {
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = lo + int64(i)
		}
		k, v := int64s(mem, vals...), int64s(mem, vals...)
		defer k.Release()
		defer v.Release()
		err := h.Add([]arrow.Array{k}, []arrow.Array{v})
		if err == nil {
			ref.add([]arrow.Array{k}, []arrow.Array{v}, int(n))
		}
		return err
	}
	if err := add(0, 100); err != nil {
		t.Fatal(err)
	}
	if err := add(100, 9000); !errors.Is(err, ErrMemoryLimit) {
		t.Fatalf("9,000 new groups under 64 KiB: %v", err)
	}
	if h.Groups() != 100 {
		t.Fatalf("%d groups after the failed batch, want 100", h.Groups())
	}
	if err := add(50, 100); err != nil { // 50 old keys, 50 new
		t.Fatal(err)
	}
	checkResult(t, h, ref, 64, 0)
}
