package cache

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestCanSkipRandom is the soundness check: on random batches of every
// type (nulls, NaN, -0.0, empty strings, slices) and random predicates,
// whenever CanSkip says skip, the reference evaluator selects no row. It
// also checks that pruning fires often enough to matter.
func TestCanSkipRandom(t *testing.T) {
	mem := newAlloc(t)
	r := rand.New(rand.NewPCG(42, 7))
	var preds, skipped, empty int
	const batches, perBatch = 3000, 60
	for bi := range batches {
		n := r.IntN(10)
		if bi%10 == 0 {
			n = 0
		}
		cols := make([]testCol, 1+r.IntN(3))
		stats := make([]ColumnStats, len(cols))
		for i := range cols {
			cols[i] = genColumn(mem, r, colTypes[r.IntN(len(colTypes))], n)
			stats[i] = ComputeStats(cols[i].arr)
		}
		for range perBatch {
			p := genPred(r, cols, 3)
			preds++
			selected := -1
			for row := range n {
				if evalRow(p, cols, row) == tTrue {
					selected = row
					break
				}
			}
			if selected < 0 {
				empty++
			}
			if CanSkip(p, stats) {
				skipped++
				if selected >= 0 {
					t.Fatalf("batch %d: CanSkip(%v) but row %d is selected\n%s", bi, p, selected, dumpBatch(cols, stats))
				}
			}
		}
		for _, c := range cols {
			c.arr.Release()
		}
	}
	t.Logf("%d predicates: %d select nothing, %d skipped (%.0f%% of those)",
		preds, empty, skipped, 100*float64(skipped)/float64(empty))
	if skipped < empty/3 {
		t.Errorf("pruning too weak: skipped %d of %d empty results", skipped, empty)
	}
}

func dumpBatch(cols []testCol, stats []ColumnStats) string {
	s := ""
	for i, c := range cols {
		s += fmt.Sprintf("$%d %s rows %v stats %+v\n", i, c.ct.name, c.rows, stats[i])
	}
	return s
}

// TestCanSkipCases pins each pruning rule on hand-made statistics, in both
// directions: what must be skipped (pruning is not useless) and what must
// not (the boundary, NULL, NaN and -0.0 cases).
func TestCanSkipCases(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	f := func(v float64) Value { return Float(v) }
	st := func(rows, nulls int64, lo, hi Value) []ColumnStats {
		return []ColumnStats{{Rows: rows, Nulls: nulls, HasBounds: !lo.IsNull(), Min: lo, Max: hi}}
	}
	ints := st(10, 2, Int(0), Int(3))  // some nulls
	dense := st(10, 0, Int(0), Int(3)) // no nulls
	one := st(10, 0, Int(5), Int(5))   // constant
	allNull := st(10, 10, Null, Null)  // all null
	floats := st(10, 0, f(-1), f(nan)) // NaN present
	zeros := st(10, 0, f(negZero), f(negZero))
	strs := st(10, 1, String("str_a_1"), String("str_a_9"))
	noBounds := st(10, 3, Null, Null) // e.g. a list column
	tests := []struct {
		p     Predicate
		stats []ColumnStats
		skip  bool
	}{
		{Cmp{0, Eq, Int(4)}, ints, true},
		{Cmp{0, Eq, Int(3)}, ints, false},
		{Cmp{0, Ne, Int(5)}, one, true},
		{Cmp{0, Ne, Int(4)}, one, false},
		{Cmp{0, Lt, Int(0)}, ints, true},
		{Cmp{0, Le, Int(0)}, ints, false},
		{Cmp{0, Gt, Int(3)}, ints, true},
		{Cmp{0, Ge, Int(3)}, ints, false},
		{Cmp{0, Eq, Null}, ints, true},
		{Not{Cmp{0, Eq, Null}}, ints, true},
		{Cmp{0, Eq, Uint(1)}, ints, false}, // kind mismatch proves nothing
		// NOT (x < 5): TRUE where x >= 5; with Max 3 never, NULL rows UNKNOWN.
		{Not{Cmp{0, Lt, Int(5)}}, ints, true},
		{Not{Cmp{0, Lt, Int(3)}}, ints, false},
		{Not{Not{Cmp{0, Gt, Int(7)}}}, ints, true},
		{Not{Or{Cmp{0, Lt, Int(5)}, Cmp{0, Eq, Int(100)}}}, ints, true},
		{Not{And{Cmp{0, Lt, Int(5)}, Cmp{0, Ge, Int(0)}}}, ints, true},
		{Not{And{Cmp{0, Lt, Int(5)}, Cmp{0, Ge, Int(1)}}}, ints, false},
		{Not{IsNull{0}}, ints, false},
		{Not{IsNotNull{0}}, dense, true},
		{Not{IsNotNull{0}}, ints, false},
		{IsNull{0}, dense, true},
		{IsNull{0}, allNull, false},
		{IsNotNull{0}, allNull, true},
		{Cmp{0, Ne, Int(1)}, allNull, true},
		{Not{Cmp{0, Ne, Int(1)}}, allNull, true},
		{Or{IsNull{0}, Cmp{0, Gt, Int(1)}}, allNull, false},
		{And{}, ints, false},
		{Or{}, ints, true},
		{Not{Or{}}, ints, false},
		{In{0, []Value{Int(-1), Int(7)}}, ints, true},
		{In{0, []Value{Int(-1), Int(2)}}, ints, false},
		{In{0, nil}, ints, true},
		{Not{In{0, []Value{Int(5)}}}, one, true},
		{Not{In{0, []Value{Int(4), Null}}}, one, true}, // 5 NOT IN (4, NULL) is UNKNOWN
		{Not{In{0, []Value{Int(4)}}}, one, false},
		{Between{0, Int(4), Int(9)}, ints, true},
		{Between{0, Int(3), Int(9)}, ints, false},
		{Between{0, Int(2), Int(1)}, ints, true}, // empty range
		{Between{0, Int(-5), Int(-1)}, ints, true},
		{Not{Between{0, Int(-5), Int(10)}}, ints, true},
		{Not{Between{0, Int(1), Int(10)}}, ints, false},
		// NaN is the largest value and equals itself.
		{Cmp{0, Gt, f(inf)}, floats, false}, // NaN > +Inf
		{Cmp{0, Eq, f(nan)}, floats, false},
		{Cmp{0, Eq, f(nan)}, st(10, 0, f(-1), f(inf)), true},
		{Cmp{0, Lt, f(nan)}, st(10, 0, f(nan), f(nan)), true},
		{Cmp{0, Ne, f(nan)}, st(10, 0, f(nan), f(nan)), true},
		{Cmp{0, Ge, f(nan)}, st(10, 0, f(1), f(inf)), true},
		// -0.0 = +0.0 in predicates.
		{Cmp{0, Eq, f(0)}, zeros, false},
		{Cmp{0, Ne, f(0)}, zeros, true},
		{Cmp{0, Lt, f(0)}, st(10, 0, f(negZero), f(1)), true},
		{Cmp{0, Gt, f(negZero)}, st(10, 0, f(-1), f(0)), true},
		{Between{0, f(0), f(negZero)}, zeros, false},
		// Prefix: values starting with p are [p, succ(p)).
		{Prefix{0, []byte("str_b")}, strs, true},
		{Prefix{0, []byte("str_a_")}, strs, false},
		{Prefix{0, []byte("str_")}, strs, false},
		{Prefix{0, []byte("st")}, strs, false},
		{Prefix{0, []byte("str_a_9x")}, strs, true},
		{Prefix{0, []byte("str_a_1")}, strs, false},
		{Prefix{0, []byte("a")}, strs, true},
		{Prefix{0, []byte("")}, strs, false},
		{Not{Prefix{0, []byte("str_a_")}}, strs, true},
		{Not{Prefix{0, []byte("str_a_1")}}, strs, false},
		{Not{Prefix{0, []byte("")}}, strs, true},
		{Prefix{0, []byte("\xff")}, st(1, 0, String("\xfe\xff"), String("\xfe\xff")), true},
		{Prefix{0, []byte("\xfe\xff")}, st(1, 0, String("\xff"), String("\xff")), true},
		{Prefix{0, []byte("\xfe\xff")}, st(1, 0, String("\xfe\xff\xff"), String("\xff")), false},
		{Prefix{0, []byte("x")}, allNull, true},
		{Prefix{0, []byte("x")}, ints, false}, // not a bytes column
		{Cmp{0, Eq, Int(1)}, noBounds, false},
		{IsNull{0}, noBounds, false},
		{Cmp{0, Eq, Int(1)}, st(0, 0, Null, Null), true}, // empty batch
		{And{}, st(0, 0, Null, Null), true},
	}
	for _, tt := range tests {
		if got := CanSkip(tt.p, tt.stats); got != tt.skip {
			t.Errorf("CanSkip(%v, %+v) = %v, want %v", tt.p, tt.stats[0], got, tt.skip)
		}
	}
}

// TestCanSkipSortedRange is the benchmark's selective filter in miniature:
// 20 sorted batches of 1000 ids, BETWEEN 4500 AND 4750 touches one batch.
func TestCanSkipSortedRange(t *testing.T) {
	mem := newAlloc(t)
	var kept []int
	for b := range 20 {
		vals := make([]Value, 1000)
		for i := range vals {
			if id := b*1000 + i; id%8 != 0 {
				vals[i] = Int(int64(id))
			}
		}
		arr := makeArray(mem, arrow.PrimitiveTypes.Int64, vals...)
		stats := []ColumnStats{ComputeStats(arr)}
		arr.Release()
		if !CanSkip(Between{0, Int(4500), Int(4750)}, stats) {
			kept = append(kept, b)
		}
	}
	if fmt.Sprint(kept) != "[4]" {
		t.Errorf("kept batches %v, want [4]", kept)
	}
}

func TestPredicateString(t *testing.T) {
	p := And{
		Cmp{0, Ge, Int(-3)},
		Or{In{1, []Value{String("a"), Null}}, Not{IsNull{2}}},
		Not{Between{3, Float(math.NaN()), Float(negZero)}},
		Prefix{4, []byte("ab\xff")},
		IsNotNull{5},
		Cmp{6, Ne, DecimalInt(-12345)},
		Cmp{7, Lt, Bool(true)},
		Or{},
		Not{And{}},
	}
	want := `($0 >= -3 AND ($1 IN ("a", NULL) OR NOT ($2 IS NULL)) AND NOT ($3 BETWEEN NaN AND -0)` +
		` AND starts_with($4, "ab\xff") AND $5 IS NOT NULL AND $6 <> decimal(-12345) AND $7 < true AND FALSE AND NOT TRUE)`
	if got := p.String(); got != want {
		t.Errorf("String:\n got %s\nwant %s", got, want)
	}
}

func TestCanSkipPanicsOnBadColumn(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for a column outside the batch")
		}
	}()
	CanSkip(IsNull{3}, []ColumnStats{{Rows: 1}})
}

// FuzzCanSkip runs the soundness check of TestCanSkipRandom from fuzzed
// seeds: one random batch, many random predicates.
func FuzzCanSkip(f *testing.F) {
	for i := range uint64(8) {
		f.Add(i, i*7919)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		mem := newAlloc(t)
		r := rand.New(rand.NewPCG(s1, s2))
		n := r.IntN(16)
		cols := make([]testCol, 1+r.IntN(3))
		stats := make([]ColumnStats, len(cols))
		for i := range cols {
			cols[i] = genColumn(mem, r, colTypes[r.IntN(len(colTypes))], n)
			defer cols[i].arr.Release()
			stats[i] = ComputeStats(cols[i].arr)
			checkStats(t, cols[i].ct.name, cols[i], stats[i])
		}
		for range 100 {
			p := genPred(r, cols, 4)
			if !CanSkip(p, stats) {
				continue
			}
			for row := range n {
				if evalRow(p, cols, row) == tTrue {
					t.Fatalf("CanSkip(%v) but row %d is selected\n%s", p, row, dumpBatch(cols, stats))
				}
			}
		}
	})
}
