package agg

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/spill"
)

// fromJSON builds an array of dt from JSON.
func fromJSON(t *testing.T, mem memory.Allocator, dt arrow.DataType, js string) arrow.Array {
	t.Helper()
	a, _, err := array.FromJSON(mem, dt, strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// batchJSON is one batch: the key column's JSON, then each argument's.
type batchJSON []string

// runAgg aggregates batches grouped by one int64 key and returns each
// result column (after the key) as its JSON-ish text, by group in
// first-seen order.
func runAgg(t *testing.T, argTypes []arrow.DataType, specs []Spec, batches ...batchJSON) []string {
	t.Helper()
	mem := checked(t)
	h, err := NewHashAggregator([]arrow.DataType{arrow.PrimitiveTypes.Int64}, argTypes, specs, Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	for _, b := range batches {
		key := fromJSON(t, mem, arrow.PrimitiveTypes.Int64, b[0])
		args := make([]arrow.Array, len(argTypes))
		for i, dt := range argTypes {
			args[i] = fromJSON(t, mem, dt, b[1+i])
		}
		err := h.Add([]arrow.Array{key}, args)
		key.Release()
		for _, a := range args {
			a.Release()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	recs, err := h.Result(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range recs {
		for i := 1; i < int(r.NumCols()); i++ {
			out = append(out, fmt.Sprint(r.Column(i)))
		}
		r.Release()
	}
	return out
}

func checkCols(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d columns %q, want %d %q", len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("column %d: %s, want %s", i, got[i], want[i])
		}
	}
}

var (
	i64   = arrow.PrimitiveTypes.Int64
	f64   = arrow.PrimitiveTypes.Float64
	str   = arrow.BinaryTypes.String
	bool_ = arrow.FixedWidthTypes.Boolean
)

// TestFilter: a spec's Filter keeps only the rows where its boolean
// argument is TRUE (not FALSE, not NULL), for count(*), count, sum,
// count(DISTINCT), min and first; the same function unfiltered is a
// state of its own.
func TestFilter(t *testing.T) {
	specs := []Spec{
		{Func: CountStar, Filter: 2}, {Func: CountStar}, {Func: Count, Arg: 0, Filter: 2}, {Func: Sum, Arg: 0, Filter: 2},
		{Func: Sum, Arg: 0}, {Func: CountDistinct, Arg: 0, Filter: 2}, {Func: Min, Arg: 0, Filter: 2}, {Func: First, Arg: 0, By: 2, Filter: 2},
		{Func: Avg, Arg: 0, Filter: 2},
	}
	got := runAgg(t, []arrow.DataType{i64, bool_, i64}, specs,
		batchJSON{"[1, 1, 2, 2, 1]", "[10, null, 30, 40, 50]", "[false, true, false, null, true]", "[0, 1, 2, 3, 4]"},
		batchJSON{"[1, 3]", "[10, 7]", "[true, true]", "[5, 6]"})
	checkCols(t, got, []string{
		"[3 0 1]", "[4 2 1]", "[2 0 1]", "[60 (null) 7]", "[70 70 7]", "[2 0 1]", "[10 (null) 7]", "[(null) (null) 7]", "[30 (null) 7]",
	})
}

// TestFirstLast: the value of each group's row of the smallest and
// largest position, NULLs included, whatever order the batches come in
// and however the aggregators' partial states merge.
func TestFirstLast(t *testing.T) {
	specs := []Spec{{Func: First, Arg: 0, By: 2}, {Func: Last, Arg: 0, By: 2}, {Func: First, Arg: 1, By: 2}, {Func: Last, Arg: 1, By: 2}}
	types := []arrow.DataType{str, i64, i64}
	b1 := batchJSON{"[1, 2, 1, 3]", `[null, "b", "c", null]`, "[5, null, 6, null]", "[0, 1, 2, 3]"}
	b2 := batchJSON{"[2, 1, 2]", `["d", "e", null]`, "[7, null, 8]", "[4, 5, 6]"}
	want := []string{`[(null) "b" (null)]`, `["e" (null) (null)]`, "[5 (null) (null)]", "[(null) 8 (null)]"}
	checkCols(t, runAgg(t, types, specs, b1, b2), want)
	// the other order: groups come out in another order (2, 1, 3)
	rev := runAgg(t, types, specs, b2, b1)
	checkCols(t, rev, []string{`["b" (null) (null)]`, `[(null) "e" (null)]`, "[(null) 5 (null)]", "[8 (null) (null)]"})

	// two aggregators, one batch each, merged either way
	mem := checked(t)
	for _, order := range [][2]batchJSON{{b1, b2}, {b2, b1}} {
		var hs [2]*HashAggregator
		for i, b := range order {
			h, err := NewHashAggregator([]arrow.DataType{i64}, types, specs, Options{Mem: mem})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Release()
			key := fromJSON(t, mem, i64, b[0])
			args := []arrow.Array{fromJSON(t, mem, str, b[1]), fromJSON(t, mem, i64, b[2]), fromJSON(t, mem, i64, b[3])}
			if err := h.Add([]arrow.Array{key}, args); err != nil {
				t.Fatal(err)
			}
			key.Release()
			releaseArrays(args)
			hs[i] = h
		}
		parts, err := hs[1].Partial(2)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			if err := hs[0].Merge(p); err != nil {
				t.Fatal(err)
			}
			p.Release()
		}
		recs, err := hs[0].Result(16)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range recs {
			for i := 0; i < int(r.NumRows()); i++ {
				got[r.Column(0).ValueStr(i)] = r.Column(1).ValueStr(i) + "|" + r.Column(2).ValueStr(i) + "|" + r.Column(3).ValueStr(i) + "|" + r.Column(4).ValueStr(i)
			}
			r.Release()
		}
		for k, w := range map[string]string{"1": "(null)|e|5|(null)", "2": "b|(null)|(null)|8", "3": "(null)|(null)|(null)|(null)"} {
			if got[k] != w {
				t.Errorf("merged: group %s: %s, want %s", k, got[k], w)
			}
		}
	}
}

// TestStringAgg: values joined in input order, or by Order (ties in
// input order, NULLs where the key puts them); NULL values skipped; a
// group without values is NULL.
func TestStringAgg(t *testing.T) {
	specs := []Spec{
		{Func: StringAgg, Arg: 0, Sep: ", "},
		{Func: StringAgg, Arg: 0, Sep: "|", Order: []OrderKey{{Arg: 1, Desc: true}}},
		{Func: StringAgg, Arg: 0, Sep: "", Order: []OrderKey{{Arg: 1, NullsFirst: true}}},
		{Func: StringAgg, Arg: 0, Sep: "-", Filter: 3},
	}
	got := runAgg(t, []arrow.DataType{str, i64, bool_}, specs,
		batchJSON{"[1, 1, 2, 1]", `["a", "b", null, "c"]`, "[2, 3, 1, null]", "[true, false, true, true]"},
		batchJSON{"[1, 3, 1]", `["d", null, "é"]`, "[3, 1, 1]", "[true, true, true]"})
	checkCols(t, got, []string{`["a, b, c, d, é" (null) (null)]`, `["b|d|a|é|c" (null) (null)]`, `["céabd" (null) (null)]`, `["a-c-d-é" (null) (null)]`})
}

// TestQuantiles: quantile_disc picks index ⌈n·q⌉−1; quantile_cont
// interpolates, as DOUBLE over integers, as the decimal rounded toward
// −∞, over dates as a timestamp.
func TestQuantiles(t *testing.T) {
	dec := &arrow.Decimal128Type{Precision: 10, Scale: 2}
	date := arrow.FixedWidthTypes.Date32
	specs := []Spec{
		{Func: QuantileCont, Arg: 0, Q: 0.5}, {Func: QuantileDisc, Arg: 0, Q: 0.5}, {Func: QuantileCont, Arg: 0, Q: 0.333},
		{Func: QuantileDisc, Arg: 0, Q: 0.333}, {Func: QuantileDisc, Arg: 0, Q: 1}, {Func: QuantileCont, Arg: 1, Q: 0.5},
		{Func: QuantileCont, Arg: 2, Q: 0.5}, {Func: QuantileDisc, Arg: 3, Q: 0.5}, {Func: QuantileCont, Arg: 3, Q: 0},
	}
	got := runAgg(t, []arrow.DataType{i64, dec, date, f64}, specs,
		batchJSON{"[1, 1, 2, 1]", "[4, 2, null, 3]", `["-1.00", "-2.01", null, null]`, "[19723, 19726, null, null]", `["NaN", 1, null, 2]`},
		batchJSON{"[1, 2]", "[1, null]", "[null, null]", "[null, null]", "[null, null]"})
	checkCols(t, got, []string{
		"[2.5 (null)]", "[2 (null)]", "[1.999 (null)]", "[2 (null)]", "[4 (null)]", "[-1.51 (null)]",
		"[1704196800000000 (null)]", "[2 (null)]", "[1 (null)]",
	})
}

// TestApproxCountDistinct: within 5% of the distinct count (the sketch's
// standard error is 1.6%), -0.0 and 0.0 one value, and the same after
// the partial states of two aggregators merge.
func TestApproxCountDistinct(t *testing.T) {
	mem := checked(t)
	specs := []Spec{{Func: ApproxCountDistinct, Arg: 0}}
	newAgg := func() *HashAggregator {
		h, err := NewHashAggregator(nil, []arrow.DataType{i64}, specs, Options{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	a, b := newAgg(), newAgg()
	defer a.Release()
	defer b.Release()
	const n = 20000
	for i, h := range []*HashAggregator{a, b} {
		vals := make([]int64, n)
		for j := range vals {
			vals[j] = int64(j + i*n/2) // half of b's are a's
		}
		arr := int64s(mem, vals...)
		if err := h.Add(nil, []arrow.Array{arr}); err != nil {
			t.Fatal(err)
		}
		arr.Release()
	}
	parts, err := b.Partial(1024)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if err := a.Merge(p); err != nil {
			t.Fatal(err)
		}
		p.Release()
	}
	recs, err := a.Result(1024)
	if err != nil {
		t.Fatal(err)
	}
	est := recs[0].Column(0).(*array.Int64).Value(0)
	recs[0].Release()
	if want := int64(3 * n / 2); est < want*95/100 || est > want*105/100 {
		t.Fatalf("estimate %d, want %d ± 5%%", est, want)
	}
	got := runAgg(t, []arrow.DataType{f64}, specs, batchJSON{"[1, 1, 1, 2]", "[0, -0, null, null]"})
	checkCols(t, got, []string{"[1 0]"})
}

// TestSerialStates: string_agg and the quantiles have no partial state:
// Partial and Merge fail, and a Spiller refuses them.
func TestSerialStates(t *testing.T) {
	mem := checked(t)
	for _, f := range []Func{StringAgg, QuantileCont, QuantileDisc} {
		h, err := NewHashAggregator([]arrow.DataType{i64}, []arrow.DataType{str}, []Spec{{Func: f, Arg: 0, Q: 0.5}}, Options{Mem: mem})
		if f == QuantileCont {
			if err == nil {
				t.Fatal("quantile_cont over a string: no error")
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		k, v := int64s(mem, 1, 2), fromJSON(t, mem, str, `["a", "b"]`)
		if err := h.Add([]arrow.Array{k}, []arrow.Array{v}); err != nil {
			t.Fatal(err)
		}
		k.Release()
		v.Release()
		if _, err := h.Partial(16); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: Partial: %v, want ErrUnsupported", f, err)
		}
		m, err := spill.NewManager(spill.Config{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewSpiller(h, SpillConfig{Manager: m}); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: NewSpiller: %v, want ErrUnsupported", f, err)
		}
		m.Close()
		h.Release()
	}
}

// TestCollectMemoryLimit: a group whose values pass the limit fails its
// batch with ErrMemoryLimit and leaves the aggregator as it was.
func TestCollectMemoryLimit(t *testing.T) {
	mem := checked(t)
	for _, spec := range []Spec{{Func: StringAgg, Arg: 0, Sep: ","}, {Func: QuantileDisc, Arg: 0, Q: 0.5}} {
		h, err := NewHashAggregator(nil, []arrow.DataType{str}, []Spec{spec}, Options{Mem: mem, MemoryLimit: 256 << 10})
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]string, 1000)
		for i := range vals {
			vals[i] = strings.Repeat("x", 100) + itoa(i)
		}
		var failed error
		for i := 0; failed == nil; i++ {
			if i > 100 {
				t.Fatalf("%s: the limit was never reached", spec.Func)
			}
			b := array.NewStringBuilder(mem)
			b.AppendValues(vals, nil)
			arr := b.NewArray()
			b.Release()
			before := h.MemoryUsage()
			failed = h.Add(nil, []arrow.Array{arr})
			arr.Release()
			if failed != nil && h.MemoryUsage() > before+int64(len(vals))*4 { // scratch may stay
				t.Errorf("%s: usage %d → %d after a failed Add", spec.Func, before, h.MemoryUsage())
			}
		}
		if !errors.Is(failed, ErrMemoryLimit) {
			t.Fatalf("%s: %v, want ErrMemoryLimit", spec.Func, failed)
		}
		if h.MemoryUsage() > 256<<10 {
			t.Fatalf("%s: usage %d over the limit", spec.Func, h.MemoryUsage())
		}
		h.Release()
		if h.MemoryUsage() != 0 {
			t.Errorf("%s: %d bytes still charged after Release", spec.Func, h.MemoryUsage())
		}
	}
}

// TestCollectCompact: a quantile over integers holds about 8 bytes a
// value (the list's growth aside), not a slot of every type.
func TestCollectCompact(t *testing.T) {
	mem := checked(t)
	vals := make([]int64, 1<<16)
	for i := range vals {
		vals[i] = int64(i * 7 % 65521)
	}
	arr := int64s(mem, vals...)
	defer arr.Release()
	h, err := NewHashAggregator(nil, []arrow.DataType{i64}, []Spec{{Func: QuantileCont, Arg: 0, Q: 0.5}}, Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	for range 4 {
		if err := h.Add(nil, []arrow.Array{arr}); err != nil {
			t.Fatal(err)
		}
	}
	if per := float64(h.MemoryUsage()) / float64(4*len(vals)); per > 12 {
		t.Errorf("%.1f bytes a value, want at most 12", per)
	}
}
