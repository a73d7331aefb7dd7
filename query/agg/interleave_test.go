package agg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/extsort"
)

// TestInterleave interleaves (extsort.Interleave, what spilling and
// merging copy rows with) random rows of several sliced sources with
// NULLs, of every type a key or partial state has, and checks each row
// against its source.
func TestInterleave(t *testing.T) {
	dec76 := &arrow.Decimal256Type{Precision: 76, Scale: 3}
	for _, dt := range append(append([]arrow.DataType(nil), engineTypes...), dec76) {
		t.Run(dt.String(), func(t *testing.T) {
			mem := checked(t)
			rng := rand.New(rand.NewPCG(1, 2))
			g := &gen{rng: rng, mem: mem, card: 50, nullP: 0.3}
			srcs := make([]arrow.Array, 4)
			for i := range srcs {
				if dt.ID() == arrow.DECIMAL256 {
					srcs[i] = decimal256s(mem, dec76, rng, 1+rng.IntN(40))
				} else {
					srcs[i] = g.array(dt, 1+rng.IntN(40))
				}
			}
			defer releaseArrays(srcs)
			picks := make([]pick, 300)
			for i := range picks {
				s := rng.IntN(len(srcs))
				picks[i] = pick{uint32(s), uint32(rng.IntN(srcs[s].Len()))}
			}
			var il extsort.Interleave
			for _, p := range picks {
				il.Add(int(p.src), int(p.row))
			}
			out, err := il.Array(mem, dt, srcs)
			if err != nil {
				t.Fatal(err)
			}
			defer out.Release()
			if out.Len() != len(picks) || !arrow.TypeEqual(out.DataType(), dt) {
				t.Fatalf("%d rows of %v", out.Len(), out.DataType())
			}
			for i, p := range picks {
				src := srcs[p.src]
				if got, want := out.ValueStr(i), src.ValueStr(int(p.row)); got != want || out.IsNull(i) != src.IsNull(int(p.row)) {
					t.Fatalf("row %d = %q, source %d row %d = %q", i, got, p.src, p.row, want)
				}
			}
		})
	}
}

// pick names row row of source src.
type pick struct{ src, row uint32 }

func decimal256s(mem memory.Allocator, dt *arrow.Decimal256Type, rng *rand.Rand, n int) arrow.Array {
	b := array.NewDecimal256Builder(mem, dt)
	defer b.Release()
	for range n {
		if rng.IntN(4) == 0 {
			b.AppendNull()
			continue
		}
		v, err := decimal256.FromString(fmt.Sprint(rng.Int64()), dt.Precision, 0)
		if err != nil {
			panic(err)
		}
		b.Append(v)
	}
	return b.NewArray()
}
