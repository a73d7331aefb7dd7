package extsort

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/datagen"
)

// TestInterleaveEveryType gathers random rows (single rows and stretches) of
// several batches of every type datagen.Record builds — sliced, with NULLs,
// dictionaries that differ between batches — and checks each row equal
// to the source row it came from, by value (dictionaries are unified, so
// indices differ).
func TestInterleaveEveryType(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(1, 2))
	var srcs []arrow.RecordBatch
	for i := range 4 {
		rec := datagen.Record(mem, 60, uint64(i))
		srcs = append(srcs, rec.NewSlice(int64(i), 60-int64(i)))
		rec.Release()
	}
	defer func() {
		for _, s := range srcs {
			s.Release()
		}
	}()
	schema := srcs[0].Schema()
	for trial := range 20 {
		var g Interleave
		for g.rows < 150 {
			src := r.IntN(len(srcs))
			n := int(srcs[src].NumRows())
			start := r.IntN(n)
			if r.IntN(3) == 0 {
				g.AddRange(src, start, 1+r.IntN(n-start))
			} else {
				g.Add(src, start)
			}
		}
		if trial == 0 {
			g.Reset() // an empty batch too
		}
		got, err := g.Record(mem, schema, srcs, 2)
		if err != nil {
			t.Fatal(err)
		}
		if got.NumRows() != int64(g.rows) {
			t.Fatalf("%d rows, want %d", got.NumRows(), g.rows)
		}
		for i, f := range schema.Fields() {
			at := int64(0)
			for _, sg := range g.segs {
				for k := range sg.n {
					g, w := got.Column(i), srcs[sg.src].Column(i)
					j, r := int(at)+k, sg.start+k
					if g.IsNull(j) != w.IsNull(r) || g.ValueStr(j) != w.ValueStr(r) {
						t.Fatalf("trial %d, column %s (%s): row %d is %q, want source %d row %d %q",
							trial, f.Name, f.Type, j, g.ValueStr(j), sg.src, r, w.ValueStr(r))
					}
				}
				at += int64(sg.n)
			}
		}
		got.Release()
	}
}

// TestInterleaveValidates: every gathered column passes arrow-go's full
// validation (offsets, views, indices within bounds).
func TestInterleaveValidates(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a := datagen.Record(mem, 40, 1)
	defer a.Release()
	b := datagen.Record(mem, 40, 2)
	defer b.Release()
	var g Interleave
	for i := range 40 {
		g.Add(i%2, 39-i)
	}
	rec, err := g.Record(mem, a.Schema(), []arrow.RecordBatch{a, b}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	for i, c := range rec.Columns() {
		if v, ok := c.(interface{ ValidateFull() error }); ok {
			if err := v.ValidateFull(); err != nil {
				t.Errorf("column %s: %v", rec.Schema().Field(i).Name, err)
			}
		}
	}
}
