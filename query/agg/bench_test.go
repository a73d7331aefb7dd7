package agg

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

const benchBatch = 8192

// int64Batches makes rows rows of (key, value) in 8192-row batches, keys
// uniform over groups.
func int64Batches(rows, groups int) (keys, vals []arrow.Array) {
	rng := rand.New(rand.NewPCG(1, 2))
	mem := memory.NewGoAllocator()
	for at := 0; at < rows; at += benchBatch {
		kb, vb := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
		for range min(benchBatch, rows-at) {
			kb.Append(int64(rng.IntN(groups)) * 7919)
			vb.Append(int64(rng.IntN(1000)))
		}
		keys, vals = append(keys, kb.NewArray()), append(vals, vb.NewArray())
		kb.Release()
		vb.Release()
	}
	return keys, vals
}

// BenchmarkGroupByInt64 is SELECT k, count(*), sum(v) GROUP BY k over
// 8192-row batches, against the naive way: a map[int64]*state filled row
// by row (no output built).
func BenchmarkGroupByInt64(b *testing.B) {
	for _, c := range []struct{ rows, groups int }{{1 << 20, 4}, {4 << 20, 1 << 20}} {
		keys, vals := int64Batches(c.rows, c.groups)
		specs := []Spec{{Func: CountStar}, {Func: Sum, Arg: 0}}
		b.Run(fmt.Sprintf("groups=%d/impl=hash", c.groups), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				h, err := NewHashAggregator([]arrow.DataType{arrow.PrimitiveTypes.Int64},
					[]arrow.DataType{arrow.PrimitiveTypes.Int64}, specs, Options{})
				if err != nil {
					b.Fatal(err)
				}
				for i := range keys {
					if err := h.Add(keys[i:i+1], vals[i:i+1]); err != nil {
						b.Fatal(err)
					}
				}
				recs, err := h.Result(benchBatch)
				if err != nil {
					b.Fatal(err)
				}
				releaseBatches(recs)
				h.Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.rows), "ns/row")
		})
		b.Run(fmt.Sprintf("groups=%d/impl=naive", c.groups), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				type st struct{ count, sum, n int64 }
				m := map[int64]*st{}
				var order []int64 // first-seen order, as Result keeps
				for i := range keys {
					k, v := keys[i].(*array.Int64), vals[i].(*array.Int64)
					for r := range k.Len() {
						key := k.Value(r)
						s := m[key]
						if s == nil {
							s = &st{}
							m[key] = s
							order = append(order, key)
						}
						s.count++
						if v.IsValid(r) {
							s.sum += v.Value(r)
							s.n++
						}
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.rows), "ns/row")
		})
		releaseArrays(keys)
		releaseArrays(vals)
	}
}

// q1Batches is TPC-H lineitem's Q1 columns: l_returnflag, l_linestatus
// (keys: 4 groups), l_quantity, l_extendedprice, l_discount as
// decimal(15,2), disc_price decimal(31,4) and l_orderkey int64.
func q1Batches(rows int) (keys, args [][]arrow.Array) {
	rng := rand.New(rand.NewPCG(3, 4))
	mem := memory.NewGoAllocator()
	d2 := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	d4 := &arrow.Decimal128Type{Precision: 31, Scale: 4}
	for at := 0; at < rows; at += benchBatch {
		rf, ls := array.NewStringBuilder(mem), array.NewStringBuilder(mem)
		qty, price, disc := array.NewDecimal128Builder(mem, d2), array.NewDecimal128Builder(mem, d2), array.NewDecimal128Builder(mem, d2)
		dp, ok := array.NewDecimal128Builder(mem, d4), array.NewInt64Builder(mem)
		for i := range min(benchBatch, rows-at) {
			f := rng.IntN(4) // (A,F) (N,F) (N,O) (R,F), as in Q1's answer
			rf.Append([]string{"A", "N", "N", "R"}[f])
			ls.Append([]string{"F", "F", "O", "F"}[f])
			q := int64(1+rng.IntN(50)) * 100
			p := int64(90000 + rng.IntN(10000000))
			d := int64(rng.IntN(11))
			qty.Append(decimal128.FromI64(q))
			price.Append(decimal128.FromI64(p))
			disc.Append(decimal128.FromI64(d))
			dp.Append(decimal128.FromI64(p * (100 - d)))
			ok.Append(int64(at+i) / 4)
		}
		bs := []array.Builder{rf, ls, qty, price, disc, dp, ok}
		var cols []arrow.Array
		for _, b := range bs {
			cols = append(cols, b.NewArray())
			b.Release()
		}
		keys, args = append(keys, cols[:2]), append(args, cols[2:])
	}
	return keys, args
}

// BenchmarkQ1 is TPC-H Q1's aggregation: GROUP BY two string keys with
// sums and averages of decimals, a sum of int64 and count(*), against a
// map keyed by the two strings filled row by row (averages come from the
// sums, as a hand-written loop would do).
func BenchmarkQ1(b *testing.B) {
	const rows = 1 << 20
	keys, args := q1Batches(rows)
	defer func() {
		for i := range keys {
			releaseArrays(keys[i])
			releaseArrays(args[i])
		}
	}()
	specs := []Spec{
		{Func: Sum, Arg: 0}, {Func: Sum, Arg: 1}, {Func: Sum, Arg: 3},
		{Func: Avg, Arg: 0}, {Func: Avg, Arg: 1}, {Func: Avg, Arg: 2},
		{Func: Sum, Arg: 4}, {Func: CountStar},
	}
	var argTypes []arrow.DataType
	for _, a := range args[0] {
		argTypes = append(argTypes, a.DataType())
	}
	b.Run("impl=hash", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			h, err := NewHashAggregator([]arrow.DataType{arrow.BinaryTypes.String, arrow.BinaryTypes.String},
				argTypes, specs, Options{})
			if err != nil {
				b.Fatal(err)
			}
			for i := range keys {
				if err := h.Add(keys[i], args[i]); err != nil {
					b.Fatal(err)
				}
			}
			recs, err := h.Result(benchBatch)
			if err != nil {
				b.Fatal(err)
			}
			releaseBatches(recs)
			h.Release()
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	})
	b.Run("impl=naive", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			type key struct{ rf, ls string }
			type st struct {
				qty, price, disc, dp decimal128.Num
				ok, n                int64
			}
			m := map[key]int{} // key → index in states, first-seen order
			var states []st
			for i := range keys {
				rf, ls := keys[i][0].(*array.String), keys[i][1].(*array.String)
				qty, price := args[i][0].(*array.Decimal128), args[i][1].(*array.Decimal128)
				disc, dp, ok := args[i][2].(*array.Decimal128), args[i][3].(*array.Decimal128), args[i][4].(*array.Int64)
				for r := range rf.Len() {
					k := key{rf.Value(r), ls.Value(r)} // views of the arrays' bytes: no allocation
					j, found := m[k]
					if !found {
						j = len(states)
						m[key{strings.Clone(k.rf), strings.Clone(k.ls)}] = j
						states = append(states, st{})
					}
					s := &states[j]
					s.qty = s.qty.Add(qty.Value(r))
					s.price = s.price.Add(price.Value(r))
					s.disc = s.disc.Add(disc.Value(r))
					s.dp = s.dp.Add(dp.Value(r))
					s.ok += ok.Value(r)
					s.n++
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	})
}
