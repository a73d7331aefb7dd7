package agg

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

var seeds = flag.Int("seeds", 300, "random cases TestRandom runs (TestMerge: half)")

// validSpecs lists every Func over every argument type ResultType takes.
func validSpecs(argTypes []arrow.DataType) []Spec {
	var specs []Spec
	for a, dt := range argTypes {
		for _, f := range allFuncs {
			if f == CountStar && a > 0 {
				continue
			}
			if _, err := ResultType(f, dt); err == nil {
				// arg_min and arg_max order by the last argument
				specs = append(specs, Spec{Func: f, Arg: a, By: len(argTypes) - 1})
			}
		}
	}
	return specs
}

// checkResult compares h's Result with the reference, group by group in
// first-seen order.
func checkResult(t *testing.T, h *HashAggregator, ref *refAgg, batchRows int, tol float64) {
	t.Helper()
	recs, err := h.Result(batchRows)
	if ref.overflows() {
		if !errors.Is(err, ErrOverflow) {
			t.Fatalf("Result: %v, want ErrOverflow", err)
		}
		return
	}
	if err != nil {
		t.Fatalf("Result: %v", err)
	}
	defer releaseBatches(recs)
	if h.Groups() != len(ref.order) {
		t.Fatalf("Groups() = %d, reference has %d", h.Groups(), len(ref.order))
	}
	row := 0
	nk := len(ref.keyTypes)
	for _, rec := range recs {
		if rec.NumRows() > int64(batchRows) || rec.NumRows() == 0 {
			t.Fatalf("batch of %d rows, limit %d", rec.NumRows(), batchRows)
		}
		if !rec.Schema().Equal(h.ResultSchema()) {
			t.Fatalf("schema %v, want %v", rec.Schema(), h.ResultSchema())
		}
		for i := range int(rec.NumRows()) {
			if row >= len(ref.order) {
				t.Fatalf("more rows than the reference's %d groups", len(ref.order))
			}
			g := ref.order[row]
			for k := range nk {
				if got, want := cell(rec.Column(k), i), g.keys[k]; keyString(got) != keyString(want) {
					t.Fatalf("group %d key %d = %v, want %v", row, k, got, want)
				}
			}
			for j, s := range ref.specs {
				got, want := cell(rec.Column(nk+j), i), ref.expect(g, j)
				ftol := specTol(s, ref.argTypes, tol)
				if !sameValue(got, want, ftol) {
					t.Fatalf("group %d (keys %v) %s = %v, want %v", row, g.keys, h.names[j], got, want)
				}
			}
			row++
		}
	}
	if row != len(ref.order) {
		t.Fatalf("%d rows, reference has %d groups", row, len(ref.order))
	}
}

// specTol is the float tolerance of spec s: tol, or more where the
// aggregator and the reference compute differently.
func specTol(s Spec, argTypes []arrow.DataType, tol float64) float64 {
	switch {
	case s.Func == Avg && argTypes[s.Arg].ID() != arrow.FLOAT64:
		return max(tol, 1e-12)
	case s.Func >= VarSamp && s.Func <= StddevPop:
		// Welford's one pass and the reference's two differ in the last
		// bits; values of very different size (±1e300 next to 0.5)
		// cancel badly in both.
		return max(tol, 1e-6)
	}
	return tol
}

// TestRandom runs random batches through the aggregator and the row-at-a-
// time reference: random key columns (0 to 3, every type), every Func over
// every argument type, NULLs, sliced arrays, and sometimes a memory limit,
// where a failed Add must leave the aggregator as it was.
func TestRandom(t *testing.T) {
	for seed := range uint64(*seeds) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runRandom(t, seed) })
	}
}

func runRandom(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	mem := checked(t)
	g := &gen{rng: rng, mem: mem, card: []int{1, 3, 20, 300, 5000}[rng.IntN(5)], nullP: 0.15}
	keyTypes := make([]arrow.DataType, rng.IntN(4))
	for i := range keyTypes {
		keyTypes[i] = engineTypes[rng.IntN(len(engineTypes))]
	}
	argTypes := make([]arrow.DataType, 1+rng.IntN(3))
	for i := range argTypes {
		argTypes[i] = engineTypes[rng.IntN(len(engineTypes))]
	}
	specs := validSpecs(argTypes)
	opts := Options{Mem: mem}
	if rng.IntN(4) == 0 {
		opts.MemoryLimit = int64(20_000 + rng.IntN(400_000))
	}
	h, err := NewHashAggregator(keyTypes, argTypes, specs, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	ref := newRef(keyTypes, argTypes, specs)
	limited := 0
	for range 1 + rng.IntN(8) {
		n := rng.IntN(600)
		if rng.IntN(5) == 0 {
			n = 0
		}
		keys, args := genBatch(g, keyTypes, argTypes, n)
		groups, usage := h.Groups(), h.MemoryUsage()
		err := h.Add(keys, args)
		switch {
		case err == nil:
			ref.add(keys, args, n)
		case errors.Is(err, ErrMemoryLimit) && opts.MemoryLimit > 0:
			limited++
			if h.Groups() != groups {
				t.Fatalf("failed Add changed the groups from %d to %d", groups, h.Groups())
			}
			if h.MemoryUsage() > opts.MemoryLimit || h.MemoryUsage() < usage {
				t.Fatalf("usage %d after a failed Add (was %d, limit %d)", h.MemoryUsage(), usage, opts.MemoryLimit)
			}
		default:
			t.Fatalf("Add: %v", err)
		}
		releaseArrays(keys)
		releaseArrays(args)
	}
	if opts.MemoryLimit > 0 && h.MemoryUsage() > opts.MemoryLimit {
		t.Fatalf("usage %d passes the limit %d", h.MemoryUsage(), opts.MemoryLimit)
	}
	checkResult(t, h, ref, 1+rng.IntN(100), 0)
	if testing.Verbose() {
		t.Logf("keys %v args %v card %d: %d groups, %d bytes, %d Adds refused, overflow %v",
			keyTypes, argTypes, g.card, h.Groups(), h.MemoryUsage(), limited, ref.overflows())
	}
	h.Release()
	if h.MemoryUsage() != 0 {
		t.Fatalf("MemoryUsage() = %d after Release: accounting is off", h.MemoryUsage())
	}
}

func genBatch(g *gen, keyTypes, argTypes []arrow.DataType, n int) (keys, args []arrow.Array) {
	for _, dt := range keyTypes {
		keys = append(keys, g.array(dt, n))
	}
	for _, dt := range argTypes {
		args = append(args, g.array(dt, n))
	}
	return keys, args
}

// TestMerge splits the batches between two aggregators, exports one's
// partial state and merges it into the other (and into an empty third);
// both must equal the reference over all batches.
func TestMerge(t *testing.T) {
	for seed := range uint64(*seeds / 2) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 11))
			mem := checked(t)
			g := &gen{rng: rng, mem: mem, card: []int{2, 30, 2000}[rng.IntN(3)], nullP: 0.2}
			keyTypes := make([]arrow.DataType, rng.IntN(3))
			for i := range keyTypes {
				keyTypes[i] = engineTypes[rng.IntN(len(engineTypes))]
			}
			argTypes := []arrow.DataType{engineTypes[rng.IntN(len(engineTypes))], engineTypes[rng.IntN(len(engineTypes))]}
			specs := validSpecs(argTypes)
			newAgg := func() *HashAggregator {
				h, err := NewHashAggregator(keyTypes, argTypes, specs, Options{Mem: mem})
				if err != nil {
					t.Fatal(err)
				}
				return h
			}
			a, b, c := newAgg(), newAgg(), newAgg()
			defer a.Release()
			defer b.Release()
			defer c.Release()
			ref := newRef(keyTypes, argTypes, specs)
			refB := newRef(keyTypes, argTypes, specs)
			for i := range 6 {
				n := rng.IntN(400)
				keys, args := genBatch(g, keyTypes, argTypes, n)
				into := a
				if i >= 3 {
					into = b
					refB.add(keys, args, n)
				}
				if err := into.Add(keys, args); err != nil {
					t.Fatal(err)
				}
				ref.add(keys, args, n)
				releaseArrays(keys)
				releaseArrays(args)
			}
			parts, err := b.Partial(1 + rng.IntN(50))
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range parts {
				if !p.Schema().Equal(b.PartialSchema()) {
					t.Fatalf("partial schema %v", p.Schema())
				}
				if err := a.Merge(p); err != nil {
					t.Fatal(err)
				}
				if err := c.Merge(p); err != nil {
					t.Fatal(err)
				}
			}
			releaseBatches(parts)
			checkResult(t, a, ref, 64, 1e-9)
			checkResult(t, c, refB, 64, 1e-9)
		})
	}
}

func TestResultType(t *testing.T) {
	for _, dt := range engineTypes {
		for _, f := range allFuncs {
			got, err := ResultType(f, dt)
			numeric := dt.ID() == arrow.INT64 || dt.ID() == arrow.FLOAT64 || dt.ID() == arrow.DECIMAL128
			variance := f >= VarSamp && f <= StddevPop
			if (f == Sum || f == Avg) && !numeric || variance && dt.ID() != arrow.FLOAT64 {
				if !errors.Is(err, ErrUnsupported) {
					t.Errorf("%s(%v): %v, want ErrUnsupported", f, dt, err)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s(%v): %v", f, dt, err)
			}
			var want arrow.DataType
			switch {
			case f == CountStar || f == Count || f == CountDistinct:
				want = arrow.PrimitiveTypes.Int64
			case f == Min || f == Max || f == ArgMin || f == ArgMax:
				want = dt
			case f == Avg || variance:
				want = arrow.PrimitiveTypes.Float64
			case dt.ID() == arrow.DECIMAL128:
				want = &arrow.Decimal128Type{Precision: 38, Scale: dt.(*arrow.Decimal128Type).Scale}
			default:
				want = dt
			}
			if !arrow.TypeEqual(got, want) {
				t.Errorf("%s(%v) = %v, want %v", f, dt, got, want)
			}
		}
	}
	if _, err := ResultType(Sum, arrow.PrimitiveTypes.Int32); !errors.Is(err, ErrUnsupported) {
		t.Errorf("sum(int32): %v", err)
	}
	if _, err := NewHashAggregator([]arrow.DataType{arrow.PrimitiveTypes.Int32}, nil, nil, Options{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("int32 key: %v", err)
	}
	if _, err := NewHashAggregator(nil, []arrow.DataType{arrow.BinaryTypes.String}, []Spec{{Func: Sum}}, Options{}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("sum(string): %v", err)
	}
	if _, err := NewHashAggregator(nil, nil, []Spec{{Func: Min, Arg: 0}}, Options{}); !errors.Is(err, ErrInput) {
		t.Errorf("min of a missing argument: %v", err)
	}
}

// TestBadInput: columns of the wrong type or length are refused before
// anything changes.
func TestBadInput(t *testing.T) {
	mem := checked(t)
	h, err := NewHashAggregator([]arrow.DataType{arrow.PrimitiveTypes.Int64}, []arrow.DataType{arrow.PrimitiveTypes.Int64},
		[]Spec{{Func: Sum, Arg: 0}}, Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	i3 := int64s(mem, 1, 2, 3)
	defer i3.Release()
	i2 := int64s(mem, 1, 2)
	defer i2.Release()
	fd := array.NewData(arrow.PrimitiveTypes.Float64, 3, i3.Data().Buffers(), nil, 0, 0)
	f3 := array.NewFloat64Data(fd)
	fd.Release()
	defer f3.Release()
	for _, c := range [][2][]arrow.Array{
		{{i3}, {i2}},
		{{i3}, {f3}},
		{{i3}, nil},
		{nil, {i3}},
	} {
		if err := h.Add(c[0], c[1]); !errors.Is(err, ErrInput) {
			t.Errorf("Add: %v, want ErrInput", err)
		}
	}
	if h.Groups() != 0 {
		t.Errorf("%d groups after bad input", h.Groups())
	}
	if err := h.AddRows(3); !errors.Is(err, ErrInput) {
		t.Errorf("AddRows with keys: %v", err)
	}
	if _, err := h.Result(0); !errors.Is(err, ErrInput) {
		t.Errorf("Result(0): %v", err)
	}
}

func int64s(mem interface {
	Allocate(int) []byte
	Reallocate(int, []byte) []byte
	Free([]byte)
}, vals ...int64) *array.Int64 {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	return b.NewInt64Array()
}

// TestFewKeys runs batches the few-keys path takes (no NULL keys, short
// strings, at least minLocalRows rows, few distinct tuples) mixed with
// batches it gives back (too many tuples, a NULL key), and checks the
// result against the reference; the path must have run.
func TestFewKeys(t *testing.T) {
	taken, batches := 0, 0
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 11))
		mem := checked(t)
		keyTypes := make([]arrow.DataType, 1+rng.IntN(3))
		for i := range keyTypes {
			keyTypes[i] = []arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64,
				arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Float64}[rng.IntN(6)]
		}
		argTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64}
		specs := validSpecs(argTypes)
		h, err := NewHashAggregator(keyTypes, argTypes, specs, Options{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		ref := newRef(keyTypes, argTypes, specs)
		for b := range 6 {
			// card ≤ 8 keeps stringPool's long string out; 300 passes
			// maxLocal tuples; a NULL rate sends the batch back.
			g := &gen{rng: rng, mem: mem, card: []int{2, 5, 8, 8, 300}[rng.IntN(5)]}
			if b == 3 {
				g.nullP = 0.1
			}
			n := minLocalRows + rng.IntN(400)
			keys, args := genBatch(g, keyTypes, argTypes, n)
			if err := h.Add(keys, args); err != nil {
				t.Fatal(err)
			}
			ref.add(keys, args, n)
			releaseArrays(keys)
			releaseArrays(args)
		}
		checkResult(t, h, ref, 1+rng.IntN(100), 0)
		if h.few != nil {
			taken += h.few.taken
		}
		batches += 6
		h.Release()
	}
	if taken < batches/4 || taken == batches {
		t.Errorf("the few-keys path took %d of %d batches: the test exercises too little", taken, batches)
	}
}

// TestStringCodes: a string's code tells apart values that differ only in
// trailing zero bytes, NULLs share a code no string has, and strings over
// 7 bytes have none.
func TestStringCodes(t *testing.T) {
	mem := checked(t)
	var acct account
	c := &stringKeys{acct: &acct, dt: arrow.BinaryTypes.String}
	defer c.release()
	code := func(vals []string, valid []bool) ([]uint64, bool) {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.AppendValues(vals, valid)
		a := b.NewArray()
		defer a.Release()
		if err := c.bind(a); err != nil {
			t.Fatal(err)
		}
		dst := make([]uint64, len(vals))
		return dst, c.codes(dst)
	}
	vals := []string{"", "\x00", "\x00\x00", "a", "a\x00", "a\x00\x00", "abcdefg", "b", "a", "\xff\xff\xff\xff\xff\xff\xff", "", ""}
	valid := []bool{true, true, true, true, true, true, true, true, true, true, false, false}
	got, ok := code(vals, valid)
	if !ok {
		t.Fatal("short strings have no codes")
	}
	same := func(i, j int) bool {
		if !valid[i] || !valid[j] {
			return valid[i] == valid[j]
		}
		return vals[i] == vals[j]
	}
	for i := range vals {
		for j := range vals {
			if (got[i] == got[j]) != same(i, j) {
				t.Errorf("%q (valid %v) and %q (valid %v): codes %#x and %#x", vals[i], valid[i], vals[j], valid[j], got[i], got[j])
			}
		}
	}
	if _, ok := code([]string{"a", "abcdefgh"}, nil); ok {
		t.Error("an 8-byte string has a code")
	}

}

// TestFixedCodes: NULL dates, booleans and floats get a code no value of
// theirs has (floats as the keys store them: -0 is 0, every NaN one NaN);
// NULL int64 keys have none.
func TestFixedCodes(t *testing.T) {
	mem := checked(t)
	var acct account
	for _, tc := range []struct {
		dt   arrow.DataType
		json string
	}{
		{arrow.FixedWidthTypes.Date32, `[0, -1, -2147483648, 2147483647, 1, null, null]`},
		{arrow.FixedWidthTypes.Boolean, `[true, false, null, true, null]`},
		{arrow.PrimitiveTypes.Float64, `[0, -0, "NaN", "Inf", "-Inf", 1.5, null, null]`},
	} {
		a, _, err := array.FromJSON(mem, tc.dt, strings.NewReader(tc.json))
		if err != nil {
			t.Fatalf("%s: %v", tc.dt, err)
		}
		c := newKeyColumn(&acct, tc.dt)
		if err := c.bind(a); err != nil {
			t.Fatal(err)
		}
		got := make([]uint64, a.Len())
		if !c.(coder).codes(got) {
			t.Fatalf("%s: no codes", tc.dt)
		}
		for i := range got {
			for j := range got {
				want := a.IsNull(i) == a.IsNull(j)
				if want && a.IsValid(i) {
					x, y := array.NewSlice(a, int64(i), int64(i+1)), array.NewSlice(a, int64(j), int64(j+1))
					want = array.ApproxEqual(x, y, array.WithNaNsEqual(true)) || fmt.Sprint(x) == "[0]" && fmt.Sprint(y) == "[-0]" || fmt.Sprint(x) == "[-0]" && fmt.Sprint(y) == "[0]"
					x.Release()
					y.Release()
				}
				if (got[i] == got[j]) != want {
					t.Errorf("%s rows %d and %d: codes %#x and %#x", tc.dt, i, j, got[i], got[j])
				}
			}
		}
		c.release()
		a.Release()
	}
	a, _, _ := array.FromJSON(mem, arrow.PrimitiveTypes.Int64, strings.NewReader(`[1, null]`))
	defer a.Release()
	c := newKeyColumn(&acct, arrow.PrimitiveTypes.Int64)
	defer c.release()
	if err := c.bind(a); err != nil {
		t.Fatal(err)
	}
	if c.(coder).codes(make([]uint64, 2)) {
		t.Error("a NULL int64 key has a code")
	}
}
