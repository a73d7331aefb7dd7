package agg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// int64Keys builds an int64 (or date32) array of vals, NULL where null.
func int64Keys(mem memory.Allocator, dt arrow.DataType, vals []int64, null func(int) bool) arrow.Array {
	valid := make([]bool, len(vals))
	for i := range vals {
		valid[i] = null == nil || !null(i)
	}
	if dt.ID() == arrow.DATE32 {
		b := array.NewDate32Builder(mem)
		defer b.Release()
		ds := make([]arrow.Date32, len(vals))
		for i, v := range vals {
			ds[i] = arrow.Date32(v)
		}
		b.AppendValues(ds, valid)
		return b.NewArray()
	}
	switch dt.ID() {
	case arrow.TIMESTAMP:
		b := array.NewTimestampBuilder(mem, dt.(*arrow.TimestampType))
		defer b.Release()
		ts := make([]arrow.Timestamp, len(vals))
		for i, v := range vals {
			ts[i] = arrow.Timestamp(v)
		}
		b.AppendValues(ts, valid)
		return b.NewArray()
	case arrow.TIME64:
		b := array.NewTime64Builder(mem, dt.(*arrow.Time64Type))
		defer b.Release()
		ts := make([]arrow.Time64, len(vals))
		for i, v := range vals {
			ts[i] = arrow.Time64(v)
		}
		b.AppendValues(ts, valid)
		return b.NewArray()
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.AppendValues(vals, valid)
	return b.NewArray()
}

// TestDenseMatchesMap builds tables of single integer keys whose values
// suit a dense index (around 0, negative, at the top and bottom of int64,
// of date32) and checks that, densified, Lookup finds exactly the ids a
// map gives, for probe values inside, just outside and far outside the
// span, with NULLs, and that the table's slots are gone.
func TestDenseMatchesMap(t *testing.T) {
	cases := []struct {
		dt     arrow.DataType
		lo     int64
		n      int
		spread int64 // values drawn from lo … lo+spread
	}{
		{arrow.PrimitiveTypes.Int64, 1, 2000, 10000},
		{arrow.PrimitiveTypes.Int64, -5000, 300, 900},
		{arrow.PrimitiveTypes.Int64, math.MaxInt64 - 3000, 2000, 3000},
		{arrow.PrimitiveTypes.Int64, math.MinInt64, 2000, 3000},
		{arrow.PrimitiveTypes.Int64, 0, 100000, 300000}, // ~85,000 keys: dense by the 4-per-tuple rule
		{arrow.FixedWidthTypes.Date32, 8000, 1500, 4000},
		{arrow.FixedWidthTypes.Date32, math.MinInt32, 50, 60},
		// a TIMESTAMP's and a TIME's keys are int64: a lookup that skipped
		// their arrays matched every probe row with the first tuple
		{&arrow.TimestampType{Unit: arrow.Microsecond}, 865_123_200_000_000, 300, 900},
		{arrow.FixedWidthTypes.Time64us, 3_600_000_000, 300, 900},
	}
	for ci, c := range cases {
		t.Run(fmt.Sprintf("%v/lo=%d/n=%d", c.dt, c.lo, c.n), func(t *testing.T) {
			mem := checked(t)
			rng := rand.New(rand.NewPCG(uint64(ci), 3))
			draw := func(spread int64) int64 { return c.lo + rng.Int64N(spread+1) }
			if c.dt.ID() == arrow.DATE32 && c.lo+c.spread > math.MaxInt32 {
				t.Fatal("case outside date32")
			}
			kt, err := NewKeyTable([]arrow.DataType{c.dt})
			if err != nil {
				t.Fatal(err)
			}
			defer kt.Release()
			vals := make([]int64, c.n)
			for i := range vals {
				vals[i] = draw(c.spread)
			}
			vals[0], vals[1] = c.lo, c.lo+c.spread // the span's ends are keys
			build := int64Keys(mem, c.dt, vals, nil)
			defer build.Release()
			rows := make([]uint32, c.n)
			for i := range rows {
				rows[i] = uint32(i)
			}
			ids := make([]uint32, c.n)
			if err := kt.Insert([]arrow.Array{build}, rows, ids); err != nil {
				t.Fatal(err)
			}
			want := map[int64]uint32{}
			for i, v := range vals {
				want[v] = ids[i]
			}
			kt.Seal()
			if got, wantBytes := kt.DenseBytes(), (c.spread+1)*4; got != wantBytes {
				t.Fatalf("DenseBytes %d, want %d", got, wantBytes)
			}
			if err := kt.Densify(); err != nil {
				t.Fatal(err)
			}
			if kt.tab.slots != nil {
				t.Error("the hash slots outlived Densify")
			}
			// Probes: inside the span, just outside it, at int64's ends
			// (whose difference from lo wraps), and NULLs.
			probe := make([]int64, 4000)
			for i := range probe {
				switch i % 8 {
				case 0:
					probe[i] = c.lo - 1 - rng.Int64N(3)
				case 1:
					probe[i] = c.lo + c.spread + 1 + rng.Int64N(3)
				case 2:
					probe[i] = []int64{math.MinInt64, math.MaxInt64, 0, -1}[rng.IntN(4)]
				default:
					probe[i] = draw(c.spread)
				}
				if c.dt.ID() == arrow.DATE32 {
					probe[i] = max(math.MinInt32, min(math.MaxInt32, probe[i]))
				}
			}
			arr := int64Keys(mem, c.dt, probe, func(i int) bool { return i%11 == 5 })
			defer arr.Release()
			p := kt.NewProber()
			defer p.Release()
			var some []uint32
			for i := range probe {
				if i%3 != 0 { // a subset: other rows' ids stay as they were
					some = append(some, uint32(i))
				}
			}
			got := make([]uint32, len(probe))
			for i := range got {
				got[i] = 7777777
			}
			if err := p.Lookup([]arrow.Array{arr}, some, got); err != nil {
				t.Fatal(err)
			}
			for i, v := range probe {
				w := uint32(7777777)
				if i%3 != 0 {
					var ok bool
					if w, ok = want[v]; !ok || arr.IsNull(i) {
						w = NoKey
					}
				}
				if got[i] != w {
					t.Fatalf("probe row %d (value %d, null %v): id %d, want %d", i, v, arr.IsNull(i), got[i], w)
				}
			}
		})
	}
}

// TestDenseRefused: the tables a dense index does not suit keep hashing.
func TestDenseRefused(t *testing.T) {
	mem := checked(t)
	build := func(types []arrow.DataType, cols ...arrow.Array) *KeyTable {
		t.Helper()
		kt, err := NewKeyTable(types)
		if err != nil {
			t.Fatal(err)
		}
		n := cols[0].Len()
		rows := make([]uint32, n)
		for i := range rows {
			rows[i] = uint32(i)
		}
		if err := kt.Insert(cols, rows, make([]uint32, n)); err != nil {
			t.Fatal(err)
		}
		for _, c := range cols {
			c.Release()
		}
		return kt
	}
	i64 := arrow.PrimitiveTypes.Int64
	sparse := make([]int64, 1000)
	for i := range sparse {
		sparse[i] = int64(i) * 1000 // span 999,001 > 65,536 and > 4 per key
	}
	tables := map[string]*KeyTable{
		"sparse":   build([]arrow.DataType{i64}, int64Keys(mem, i64, sparse, nil)),
		"null key": build([]arrow.DataType{i64}, int64Keys(mem, i64, []int64{1, 2, 3}, func(i int) bool { return i == 1 })),
		"two keys": build([]arrow.DataType{i64, i64}, int64Keys(mem, i64, []int64{1, 2}, nil), int64Keys(mem, i64, []int64{1, 2}, nil)),
		"empty":    build([]arrow.DataType{i64}, int64Keys(mem, i64, nil, nil)),
	}
	for name, kt := range tables {
		if kt.DenseBytes() != 0 {
			t.Errorf("%s: DenseBytes %d before Seal", name, kt.DenseBytes())
		}
		kt.Seal()
		if kt.DenseBytes() != 0 {
			t.Errorf("%s: DenseBytes %d, want 0", name, kt.DenseBytes())
		}
		if err := kt.Densify(); err != nil || kt.dense != nil || (kt.Len() > 0 && kt.tab.slots == nil) {
			t.Errorf("%s: Densify built an index (%v)", name, err)
		}
		kt.Release()
	}
}

// TestUseDense: a table made dense before its inserts numbers keys in
// first-seen order as the hash table does (a NULL key too), finds them
// after Seal, refuses a key outside its range, and needs no Densify.
func TestUseDense(t *testing.T) {
	mem := checked(t)
	i64 := arrow.PrimitiveTypes.Int64
	hashed, _ := NewKeyTable([]arrow.DataType{i64})
	dense, _ := NewKeyTable([]arrow.DataType{i64})
	defer hashed.Release()
	defer dense.Release()
	if err := dense.UseDense(-50, 200); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for b := range 4 {
		vals := make([]int64, 300)
		for i := range vals {
			vals[i] = rng.Int64N(251) - 50
		}
		col := int64Keys(mem, i64, vals, func(i int) bool { return b == 2 && i%7 == 0 })
		rows := make([]uint32, 0, len(vals))
		for r := range vals {
			if r%5 != 0 {
				rows = append(rows, uint32(r))
			}
		}
		want, got := make([]uint32, len(vals)), make([]uint32, len(vals))
		if err := hashed.Insert([]arrow.Array{col}, rows, want); err != nil {
			t.Fatal(err)
		}
		if err := dense.Insert([]arrow.Array{col}, rows, got); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if got[r] != want[r] {
				t.Fatalf("batch %d row %d: dense id %d, hashed %d", b, r, got[r], want[r])
			}
		}
		col.Release()
	}
	if dense.Len() != hashed.Len() {
		t.Fatalf("Len %d, hashed %d", dense.Len(), hashed.Len())
	}
	bad := int64Keys(mem, i64, []int64{201}, nil)
	defer bad.Release()
	if err := dense.Insert([]arrow.Array{bad}, []uint32{0}, make([]uint32, 1)); !errors.Is(err, ErrInput) {
		t.Errorf("a key outside the range: %v", err)
	}
	hashed.Seal()
	dense.Seal()
	if dense.DenseBytes() != 0 || dense.Densify() != nil || dense.Len() != hashed.Len() {
		t.Errorf("after Seal: DenseBytes %d, Len %d", dense.DenseBytes(), dense.Len())
	}
	probe := make([]int64, 400)
	for i := range probe {
		probe[i] = rng.Int64N(300) - 70
	}
	col := int64Keys(mem, i64, probe, func(i int) bool { return i%9 == 0 })
	defer col.Release()
	rows := make([]uint32, len(probe))
	for i := range rows {
		rows[i] = uint32(i)
	}
	want, got := make([]uint32, len(probe)), make([]uint32, len(probe))
	ph, pd := hashed.NewProber(), dense.NewProber()
	defer ph.Release()
	defer pd.Release()
	if err := ph.Lookup([]arrow.Array{col}, rows, want); err != nil {
		t.Fatal(err)
	}
	if err := pd.Lookup([]arrow.Array{col}, rows, got); err != nil {
		t.Fatal(err)
	}
	for r := range probe {
		if got[r] != want[r] {
			t.Fatalf("probe row %d (%d, null %v): dense %d, hashed %d", r, probe[r], col.IsNull(r), got[r], want[r])
		}
	}
}
