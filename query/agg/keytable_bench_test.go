package agg

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkKeyTableLookup looks up batches of 64Ki int64 keys, half of
// them present, in tables of 1Ki to 1Mi distinct keys: the probe of a hash
// join, per row, with a Go map of the same keys measured beside it.
func BenchmarkKeyTableLookup(b *testing.B) {
	const batch = 1 << 16
	mem := memory.DefaultAllocator
	for _, keys := range []int{1 << 10, 100_000, 1 << 20} {
		build := make([]int64, keys)
		for i := range build {
			build[i] = int64(i) * 7
		}
		rng := rand.New(rand.NewPCG(1, 2))
		probe := make([]int64, batch)
		for i := range probe {
			probe[i] = int64(rng.IntN(2*keys)) * 7 / 2 // even: present
		}
		barr, parr := int64s(mem, build...), int64s(mem, probe...)
		kt, err := NewKeyTable([]arrow.DataType{arrow.PrimitiveTypes.Int64})
		if err != nil {
			b.Fatal(err)
		}
		rows := make([]uint32, keys)
		for i := range rows {
			rows[i] = uint32(i)
		}
		if err := kt.Insert([]arrow.Array{barr}, rows, make([]uint32, keys)); err != nil {
			b.Fatal(err)
		}
		prows := rows[:0:0]
		for i := range batch {
			prows = append(prows, uint32(i))
		}
		ids := make([]uint32, batch)
		b.Run(fmt.Sprintf("impl=table/keys=%d", keys), func(b *testing.B) {
			p := kt.NewProber()
			defer p.Release()
			for b.Loop() {
				if err := p.Lookup([]arrow.Array{parr}, prows, ids); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/row")
		})
		b.Run(fmt.Sprintf("impl=gomap/keys=%d", keys), func(b *testing.B) {
			m := make(map[int64]uint32, keys)
			for i, k := range build {
				m[k] = uint32(i)
			}
			vals := parr.Int64Values()
			for b.Loop() {
				for i, v := range vals {
					id, ok := m[v]
					if !ok {
						id = NoKey
					}
					ids[i] = id
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/row")
		})
		kt.Release()
		barr.Release()
		parr.Release()
	}
}
