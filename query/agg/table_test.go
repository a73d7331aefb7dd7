package agg

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestTableCollisions drives the table with hashes that collide on
// purpose (every key the same hash, or one of a few), so rows go around
// many times, resume after the groups whose tag matched, and see the slots
// grow under them; group ids must still be one per key, in first-seen
// order. Then the keys must read back in that order.
func TestTableCollisions(t *testing.T) {
	for _, c := range []struct {
		hashes int
		dt     arrow.DataType
	}{{1, arrow.PrimitiveTypes.Int64}, {3, arrow.PrimitiveTypes.Int64}, {64, arrow.PrimitiveTypes.Int64},
		{1, arrow.BinaryTypes.String}, {5, arrow.BinaryTypes.String}} {
		hashes := c.hashes
		t.Run(fmt.Sprintf("hashes=%d/type=%v", hashes, c.dt), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(hashes), 1))
			mem := checked(t)
			var acct account
			col := newKeyColumn(&acct, c.dt)
			tab := newTable(&acct, []keyColumn{col})
			defer tab.release()
			want := map[int64]uint32{}
			for range 20 {
				n := rng.IntN(300)
				vals := make([]int64, n)
				h := make([]uint64, n)
				rows := make([]uint32, n)
				for i := range vals {
					vals[i] = int64(rng.IntN(400))
					h[i] = mix(0x9e3779b97f4a7c15, uint64(vals[i])%uint64(hashes))
					rows[i] = uint32(i)
				}
				var arr arrow.Array = int64s(mem, vals...)
				if c.dt.ID() == arrow.STRING {
					arr.Release()
					b := array.NewStringBuilder(mem)
					for _, v := range vals {
						b.Append(strings.Repeat("x", int(v%13)) + itoa(int(v)))
					}
					arr = b.NewArray()
					b.Release()
				}
				if err := col.bind(arr); err != nil {
					t.Fatal(err)
				}
				col.hash(make([]uint64, n), rows) // for its side tables; the hashes are h
				gids := make([]uint32, n)
				if err := tab.insert(rows, h, gids); err != nil {
					t.Fatal(err)
				}
				for i, v := range vals {
					g, ok := want[v]
					if !ok {
						g = uint32(len(want))
						want[v] = g
					}
					if gids[i] != g {
						t.Fatalf("key %d: group %d, want %d", v, gids[i], g)
					}
				}
				arr.Release()
			}
			if tab.groups() != len(want) {
				t.Fatalf("%d groups, want %d", tab.groups(), len(want))
			}
			keys := col.export(mem, 0, tab.groups())
			defer keys.Release()
			for v, g := range want {
				got := fmt.Sprint(cell(keys, int(g)))
				if c.dt.ID() == arrow.STRING && got != strings.Repeat("x", int(v%13))+itoa(int(v)) ||
					c.dt.ID() == arrow.INT64 && got != fmt.Sprint(v) {
					t.Fatalf("group %d holds %s, want key %d", g, got, v)
				}
			}
		})
	}
}
