package agg

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func decimals(mem memory.Allocator, dt *arrow.Decimal128Type, vals ...*big.Int) arrow.Array {
	b := array.NewDecimal128Builder(mem, dt)
	defer b.Release()
	for _, v := range vals {
		b.Append(decimal128.FromBigInt(v))
	}
	return b.NewArray()
}

func pow10(n int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil) }

// TestSumOverflow: sum(int64) fails at Result when the final sum does not
// fit, naming the aggregate, and not when only a running sum would have.
func TestSumOverflow(t *testing.T) {
	mem := checked(t)
	for _, c := range []struct {
		vals     []int64
		overflow bool
	}{
		{[]int64{math.MaxInt64, 1}, true},
		{[]int64{math.MinInt64, -1}, true},
		{[]int64{math.MaxInt64, 1, -1}, false},
		{[]int64{math.MaxInt64, math.MaxInt64, math.MinInt64, math.MinInt64, -1}, false},
	} {
		h, err := NewHashAggregator([]arrow.DataType{arrow.PrimitiveTypes.Int64}, []arrow.DataType{arrow.PrimitiveTypes.Int64},
			[]Spec{{Func: Sum, Arg: 0, Name: "sum(l_quantity)"}, {Func: Avg, Arg: 0}}, Options{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		keys := int64s(mem, make([]int64, len(c.vals))...)
		for _, v := range c.vals { // one row per batch: the order of batches must not matter
			arg := int64s(mem, v)
			key := array.NewSlice(keys, 0, 1)
			if err := h.Add([]arrow.Array{key}, []arrow.Array{arg}); err != nil {
				t.Fatal(err)
			}
			key.Release()
			arg.Release()
		}
		keys.Release()
		recs, err := h.Result(10)
		if c.overflow {
			if !errors.Is(err, ErrOverflow) || !strings.Contains(err.Error(), "sum(l_quantity)") {
				t.Errorf("%v: err %v, want ErrOverflow naming sum(l_quantity)", c.vals, err)
			}
		} else if err != nil {
			t.Errorf("%v: %v", c.vals, err)
		} else {
			sum := new(big.Int)
			for _, v := range c.vals {
				sum.Add(sum, big.NewInt(v))
			}
			if got := recs[0].Column(1).(*array.Int64).Value(0); got != sum.Int64() {
				t.Errorf("%v: sum %d, want %d", c.vals, got, sum)
			}
		}
		releaseBatches(recs)
		h.Release()
	}

	// Decimals sum in 192 bits: 0.99e38 twice passes 2^127 on the way.
	dt := &arrow.Decimal128Type{Precision: 38, Scale: 0}
	big99 := new(big.Int).Mul(big.NewInt(99), pow10(36))
	for _, c := range []struct {
		vals     []*big.Int
		overflow bool
	}{
		{[]*big.Int{big99, big99, new(big.Int).Neg(big99)}, false},
		{[]*big.Int{big99, big.NewInt(1e18), new(big.Int).Mul(big.NewInt(2), pow10(36))}, true},
		{[]*big.Int{new(big.Int).Neg(big99), new(big.Int).Neg(big99)}, true},
	} {
		h, err := NewHashAggregator(nil, []arrow.DataType{dt}, []Spec{{Func: Sum}, {Func: Avg}}, Options{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		arg := decimals(mem, dt, c.vals...)
		if err := h.Add(nil, []arrow.Array{arg}); err != nil {
			t.Fatal(err)
		}
		arg.Release()
		recs, err := h.Result(10)
		if c.overflow != errors.Is(err, ErrOverflow) {
			t.Errorf("%v: err %v, overflow %v", c.vals, err, c.overflow)
		}
		if err == nil {
			want := decimal128.FromBigInt(c.vals[0])
			if got := recs[0].Column(0).(*array.Decimal128).Value(0); got != want {
				t.Errorf("sum %v, want %v", got.BigInt(), want.BigInt())
			}
		}
		releaseBatches(recs)
		h.Release()
	}
}

// TestMemoryLimit: an Add that would pass the limit fails with
// ErrMemoryLimit, leaves the groups and results as they were, and later
// smaller batches still go in.
func TestMemoryLimit(t *testing.T) {
	mem := checked(t)
	keyTypes := []arrow.DataType{arrow.BinaryTypes.String}
	argTypes := []arrow.DataType{arrow.BinaryTypes.String}
	specs := []Spec{{Func: CountStar}, {Func: CountDistinct}, {Func: Min}}
	h, err := NewHashAggregator(keyTypes, argTypes, specs, Options{Mem: mem, MemoryLimit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	ref := newRef(keyTypes, argTypes, specs)
	var failed error
	for i := 0; failed == nil; i++ {
		if i > 1000 {
			t.Fatal("1 MiB limit never reached")
		}
		keys, args := stringBatch(mem, i*1000, 1000)
		before := h.Groups()
		if failed = h.Add([]arrow.Array{keys}, []arrow.Array{args}); failed == nil {
			ref.add([]arrow.Array{keys}, []arrow.Array{args}, 1000)
		} else if h.Groups() != before {
			t.Fatalf("groups %d → %d after a failed Add", before, h.Groups())
		}
		keys.Release()
		args.Release()
	}
	if !errors.Is(failed, ErrMemoryLimit) {
		t.Fatalf("err %v, want ErrMemoryLimit", failed)
	}
	if h.MemoryUsage() > 1<<20 {
		t.Fatalf("usage %d over the limit", h.MemoryUsage())
	}
	// Known keys take no new memory for groups.
	keys, args := stringBatch(mem, 0, 10)
	defer keys.Release()
	defer args.Release()
	if err := h.Add([]arrow.Array{keys}, []arrow.Array{args}); err != nil {
		t.Fatalf("Add of known groups and values after the limit: %v", err)
	}
	ref.add([]arrow.Array{keys}, []arrow.Array{args}, 10)
	checkResult(t, h, ref, 4096, 0)
}

func stringBatch(mem memory.Allocator, from, n int) (keys, args arrow.Array) {
	kb := array.NewStringBuilder(mem)
	ab := array.NewStringBuilder(mem)
	defer kb.Release()
	defer ab.Release()
	for i := from; i < from+n; i++ {
		kb.Append(strings.Repeat("k", i%7) + string(rune('a'+i%26)) + itoa(i))
		ab.Append(itoa(i * 7919 % 1000))
	}
	return kb.NewArray(), ab.NewArray()
}

func itoa(i int) string { return big.NewInt(int64(i)).String() }

// TestEmpty: no input gives no groups with keys, and one row (count 0, the
// rest NULL) without, as SQL requires.
func TestEmpty(t *testing.T) {
	mem := checked(t)
	argTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String, dec12}
	specs := validSpecs(argTypes)
	for _, keyTypes := range [][]arrow.DataType{nil, {arrow.PrimitiveTypes.Int64}} {
		h, err := NewHashAggregator(keyTypes, argTypes, specs, Options{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		ref := newRef(keyTypes, argTypes, specs)
		keys, args := genBatch(&gen{rng: rand.New(rand.NewPCG(1, 2)), mem: mem, card: 1}, keyTypes, argTypes, 0)
		if err := h.Add(keys, args); err != nil {
			t.Fatal(err)
		}
		releaseArrays(keys)
		releaseArrays(args)
		checkResult(t, h, ref, 10, 0)
		recs, err := h.Result(10)
		if err != nil {
			t.Fatal(err)
		}
		if len(keyTypes) == 0 {
			rec := recs[0]
			if len(recs) != 1 || rec.NumRows() != 1 {
				t.Fatalf("%d batches, want one row", len(recs))
			}
			for j, s := range specs {
				col := rec.Column(j)
				isCount := s.Func == CountStar || s.Func == Count || s.Func == CountDistinct
				if isCount && (col.IsNull(0) || col.(*array.Int64).Value(0) != 0) || !isCount && !col.IsNull(0) {
					t.Errorf("%s over no rows = %v", h.names[j], cell(col, 0))
				}
			}
		} else if len(recs) != 0 {
			t.Fatalf("%d batches for no groups", len(recs))
		}
		releaseBatches(recs)
		h.Release()
	}

	// count(*) alone: rows come through AddRows.
	h, err := NewHashAggregator(nil, nil, []Spec{{Func: CountStar}}, Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	for _, n := range []int{0, 5, 8192} {
		if err := h.AddRows(n); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := h.Result(1)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseBatches(recs)
	if got := recs[0].Column(0).(*array.Int64).Value(0); got != 8197 {
		t.Errorf("count(*) = %d, want 8197", got)
	}
}

// TestAllocatorOnErrors: arrays built before Result or Partial fails are
// released.
func TestAllocatorOnErrors(t *testing.T) {
	mem := checked(t)
	h, err := NewHashAggregator([]arrow.DataType{arrow.BinaryTypes.String}, []arrow.DataType{arrow.PrimitiveTypes.Int64},
		[]Spec{{Func: Min}, {Func: CountDistinct}, {Func: Sum}}, Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	keys, strs := stringBatch(mem, 0, 3000)
	defer keys.Release()
	strs.Release()
	vals := make([]int64, 3000)
	vals[2999] = math.MaxInt64 // in the third batch of 1000 groups
	args := int64s(mem, vals...)
	defer args.Release()
	if err := h.Add([]arrow.Array{keys}, []arrow.Array{args}); err != nil {
		t.Fatal(err)
	}
	if err := h.Add([]arrow.Array{keys}, []arrow.Array{args}); err != nil { // every sum doubles: the last ones overflow
		t.Fatal(err)
	}
	if _, err := h.Result(1000); !errors.Is(err, ErrOverflow) {
		t.Fatalf("Result: %v, want ErrOverflow", err)
	}
	parts, err := h.Partial(1000) // partial sums are 128-bit: no overflow
	if err != nil {
		t.Fatal(err)
	}
	releaseBatches(parts)
	if _, err := h.Partial(0); !errors.Is(err, ErrInput) {
		t.Fatalf("Partial(0): %v", err)
	}
}

// TestReset: after Reset the aggregator starts again with no groups.
func TestReset(t *testing.T) {
	mem := checked(t)
	keyTypes := []arrow.DataType{arrow.BinaryTypes.String}
	argTypes := []arrow.DataType{arrow.BinaryTypes.String}
	specs := validSpecs(argTypes)
	for _, kt := range [][]arrow.DataType{keyTypes, nil} {
		h, err := NewHashAggregator(kt, argTypes, specs, Options{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		keys, args := stringBatch(mem, 0, 500)
		k := []arrow.Array{keys}[:len(kt)]
		if err := h.Add(k, []arrow.Array{args}); err != nil {
			t.Fatal(err)
		}
		if err := h.Reset(); err != nil {
			t.Fatal(err)
		}
		ref := newRef(kt, argTypes, specs)
		checkResult(t, h, ref, 100, 0)
		if err := h.Add(k, []arrow.Array{args}); err != nil {
			t.Fatal(err)
		}
		ref.add(k, []arrow.Array{args}, 500)
		checkResult(t, h, ref, 100, 0)
		keys.Release()
		args.Release()
		h.Release()
	}
}

// TestManyGroups: one batch of new groups grows the table many times in
// the middle of an insert; string min/max replace their values often
// enough to compact the arena.
func TestManyGroups(t *testing.T) {
	mem := checked(t)
	keyTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64}
	argTypes := []arrow.DataType{arrow.BinaryTypes.String}
	specs := []Spec{{Func: CountStar}, {Func: Max}, {Func: Min}, {Func: CountDistinct}}
	h, err := NewHashAggregator(keyTypes, argTypes, specs, Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	ref := newRef(keyTypes, argTypes, specs)
	const n = 100_000
	kv := make([]int64, n)
	for i := range kv {
		kv[i] = int64(i * 2654435761 % n)
	}
	keys := int64s(mem, kv...)
	defer keys.Release()
	for round := range 4 {
		sb := array.NewStringBuilder(mem)
		for i := range n {
			sb.Append(itoa((i*31 + round*7) % 1000))
		}
		args := sb.NewArray()
		sb.Release()
		if err := h.Add([]arrow.Array{keys}, []arrow.Array{args}); err != nil {
			t.Fatal(err)
		}
		ref.add([]arrow.Array{keys}, []arrow.Array{args}, n)
		args.Release()
	}
	if h.Groups() != n {
		t.Fatalf("%d groups, want %d", h.Groups(), n)
	}
	checkResult(t, h, ref, 8192, 0)
	// At least the keys (8 B), hashes (8 B) and slots (≥ 16 B) per group.
	if u := h.MemoryUsage(); u < n*32 {
		t.Errorf("MemoryUsage() = %d for %d groups", u, n)
	}
}

// TestSharedStates: repeated aggregates and sum/avg pairs share a state
// and still answer each spec, and Merge refuses a batch of another shape.
func TestSharedStates(t *testing.T) {
	mem := checked(t)
	keyTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64}
	argTypes := []arrow.DataType{arrow.PrimitiveTypes.Float64, dec38}
	specs := []Spec{{Func: Min}, {Func: Avg, Arg: 1}, {Func: Min}, {Func: Sum, Arg: 1}, {Func: Avg},
		{Func: Sum}, {Func: CountStar}, {Func: CountStar}, {Func: Count, Arg: 1}}
	h, err := NewHashAggregator(keyTypes, argTypes, specs, Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if got := len(h.states); got != 5 {
		t.Errorf("%d states for %d specs, want 5", got, len(specs))
	}
	ref := newRef(keyTypes, argTypes, specs)
	g := &gen{rng: rand.New(rand.NewPCG(5, 6)), mem: mem, card: 40, nullP: 0.3}
	for range 5 {
		keys, args := genBatch(g, keyTypes, argTypes, 500)
		if err := h.Add(keys, args); err != nil {
			t.Fatal(err)
		}
		ref.add(keys, args, 500)
		releaseArrays(keys)
		releaseArrays(args)
	}
	checkResult(t, h, ref, 7, 0)

	other, err := NewHashAggregator(keyTypes, argTypes, specs[:3], Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	parts, err := other.Partial(10)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseBatches(parts)
	empty := array.NewRecordBatch(other.PartialSchema(), nil, 0)
	defer empty.Release()
	if err := h.Merge(empty); !errors.Is(err, ErrInput) {
		t.Errorf("Merge of another shape: %v, want ErrInput", err)
	}
}

// TestEmptyBuffers: zero-length arrays may come without buffers (from IPC).
func TestEmptyBuffers(t *testing.T) {
	mem := checked(t)
	types := []arrow.DataType{arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Float64, dec38, arrow.FixedWidthTypes.Date32}
	h, err := NewHashAggregator(types, types, validSpecs(types), Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	var cols []arrow.Array
	for _, dt := range types {
		bufs := []*memory.Buffer{nil, nil}
		if dt.ID() == arrow.STRING {
			bufs = append(bufs, nil)
		}
		data := array.NewData(dt, 0, bufs, nil, 0, 0)
		cols = append(cols, array.MakeFromData(data))
		data.Release()
	}
	defer releaseArrays(cols)
	if err := h.Add(cols, cols); err != nil {
		t.Fatal(err)
	}
	if h.Groups() != 0 {
		t.Fatalf("%d groups", h.Groups())
	}
}
