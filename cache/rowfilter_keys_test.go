package cache

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// keysTable puts a table of batches of (k int64 with NULLs, d date32,
// s int32, v utf8) with keys drawn from 0…spread.
func keysTable(t *testing.T, mem memory.Allocator, c *Cache, rng *rand.Rand, spread int64) []arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32},
		{Name: "s", Type: arrow.PrimitiveTypes.Int32},
		{Name: "v", Type: arrow.BinaryTypes.String},
	}, nil)
	var recs []arrow.RecordBatch
	for range 5 {
		b := array.NewRecordBuilder(mem, schema)
		for r := range 700 {
			k := rng.Int64N(spread + 1)
			if r%13 == 0 {
				b.Field(0).(*array.Int64Builder).AppendNull()
			} else {
				b.Field(0).(*array.Int64Builder).Append(k)
			}
			b.Field(1).(*array.Date32Builder).Append(arrow.Date32(k % 40000))
			b.Field(2).(*array.Int32Builder).Append(int32(k % 1000))
			b.Field(3).(*array.StringBuilder).Append(fmt.Sprint("v", k))
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	put(t, c, "keys", schema, recs, TableOptions{})
	return recs
}

// TestKeyFilter scans with a KeyFilter on each integer column, exact
// (dense keys) and Bloom (sparse keys): every row whose key is among the
// published keys comes back, whole; no NULL does; with an exact set no
// other row does, with a Bloom filter few do. Unpublished, it passes
// every row.
func TestKeyFilter(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	rng := rand.New(rand.NewPCG(5, 6))
	const spread = 1 << 40 // sparse enough for a Bloom filter on k
	recs := keysTable(t, mem, c, rng, spread)
	defer release(recs)

	cases := []struct {
		col   int
		keys  func(v int64) bool // which values are published, of those in the table
		bloom bool
	}{
		{0, func(v int64) bool { return v%3 == 0 }, true},
		{1, func(v int64) bool { return v%5 < 2 }, false},
		{2, func(v int64) bool { return v > 990 }, false},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprint("column ", tc.col), func(t *testing.T) {
			// The published keys: some of the column's values, plus
			// values not in the table.
			kb := array.NewInt64Builder(mem)
			db := array.NewDate32Builder(mem)
			in := map[int64]bool{}
			for _, rec := range recs {
				col := rec.Column(tc.col)
				for r := range col.Len() {
					if col.IsNull(r) {
						continue
					}
					v := valueAt(col, r)
					if tc.keys(v) && !in[v] {
						in[v] = true
						kb.Append(v)
						db.Append(arrow.Date32(v))
					}
				}
			}
			kb.Append(-7)
			db.Append(-7)
			keys := kb.NewArray()
			dates := db.NewArray()
			kb.Release()
			db.Release()
			defer keys.Release()
			defer dates.Release()
			published := keys
			if tc.col == 1 {
				published = dates
			}
			lo, hi := int64(-7), int64(-7)
			for v := range in {
				lo, hi = min(lo, v), max(hi, v)
			}
			if got := KeySetBytes(len(in)+1, lo, hi); tc.bloom != (got == int64(bloomWords(len(in)+1))*8) {
				t.Fatalf("KeySetBytes %d: want a Bloom filter %v", got, tc.bloom)
			}

			f := &KeyFilter{Col: tc.col, Name: "k"}
			out, _ := scanAll(t, c, "keys", ScanOptions{Rows: []Predicate{f}})
			if n := rowsOf(out); n != 5*700 {
				t.Errorf("unpublished: %d rows, want every one", n)
			}
			release(out)

			f.Publish([]arrow.Array{published}, len(in)+1, lo, hi, 0.3)
			out, _ = scanAll(t, c, "keys", ScanOptions{Rows: []Predicate{f}})
			defer release(out)
			want, extra := 0, 0
			for _, rec := range recs {
				col := rec.Column(tc.col)
				for r := range col.Len() {
					if col.IsValid(r) && in[valueAt(col, r)] {
						want++
					}
				}
			}
			got := 0
			for _, rec := range out {
				col, v := rec.Column(tc.col), rec.Column(3).(*array.String)
				for r := range col.Len() {
					if col.IsNull(r) {
						t.Fatal("a NULL key passed")
					}
					x := valueAt(col, r)
					if tc.col == 0 && v.Value(r) != fmt.Sprint("v", x) {
						t.Fatalf("row with key %d came back with v %q: columns out of step", x, v.Value(r))
					}
					if in[x] {
						got++
					} else {
						extra++
					}
				}
			}
			if got != want {
				t.Errorf("%d rows with a published key came back, want %d", got, want)
			}
			if !tc.bloom && extra > 0 || tc.bloom && extra > want/20 {
				t.Errorf("%d rows without a published key passed (Bloom filter %v)", extra, tc.bloom)
			}
			if d := f.Dropped.Load(); d != int64(5*700-got-extra) {
				t.Errorf("Dropped %d, want %d", d, 5*700-got-extra)
			}
		})
	}
}

func valueAt(col arrow.Array, r int) int64 {
	switch a := col.(type) {
	case *array.Int64:
		return a.Value(r)
	case *array.Date32:
		return int64(a.Value(r))
	case *array.Int32:
		return int64(a.Value(r))
	}
	panic(col.DataType())
}

func rowsOf(recs []arrow.RecordBatch) int {
	n := 0
	for _, r := range recs {
		n += int(r.NumRows())
	}
	return n
}

// BenchmarkKeyFilterKeep: TPC-H Q8's runtime filter on lineitem, a batch
// of 8,192 l_partkey values (1…200,000) tested against 1,451 keys (an
// exact bitmap), and the same against 150,000 keys of a wide range (a
// Bloom filter).
func BenchmarkKeyFilterKeep(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]int64, 8192)
	for i := range vals {
		vals[i] = 1 + rng.Int64N(200_000)
	}
	for _, tc := range []struct {
		name   string
		keys   int
		lo, hi int64
	}{{"bitmap", 1451, 1, 200_000}, {"bloom", 150_000, 1, 1 << 40}} {
		bld := array.NewInt64Builder(memory.DefaultAllocator)
		for range tc.keys {
			bld.Append(tc.lo + rng.Int64N(tc.hi-tc.lo))
		}
		keys := bld.NewArray()
		var f KeyFilter
		f.Publish([]arrow.Array{keys}, tc.keys, tc.lo, tc.hi, 0.01)
		keys.Release()
		s := f.set.Load()
		sel := make([]int32, len(vals))
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(vals)) * 8)
			for b.Loop() {
				keepKeys(s, vals, sel, true, len(vals))
			}
		})
	}
}
