package sortkey_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/sortkey"
	"github.com/quiverdb/quiver/sortkey/sortkeytest"
)

// The question: does the external sort compare rows faster as normalized
// keys (encode, then sort 16-byte items on an 8-byte prefix and memcmp)
// or column by column (a typed closure per key column, as the query
// engine's in-memory sort did)? Both sort the same 1M TPC-H lineitem rows
// (SF 1/6) by sort_tpch's keys, stably; the key side pays for encoding.

var (
	benchOnce  sync.Once
	benchBatch []arrow.RecordBatch // lineitem, 1M rows in 8192-row batches
	benchWhole arrow.RecordBatch   // the same rows as one batch
)

const benchRows = 1_000_000

func lineitem(b *testing.B) ([]arrow.RecordBatch, arrow.RecordBatch) {
	benchOnce.Do(func() {
		r, err := tpch.Lineitem(memory.NewGoAllocator(), 0.167)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Release()
		n := int64(0)
		for r.Next() && n < benchRows {
			rec := r.RecordBatch()
			if n+rec.NumRows() > benchRows {
				rec = rec.NewSlice(0, benchRows-n)
			} else {
				rec.Retain()
			}
			benchBatch = append(benchBatch, rec)
			n += rec.NumRows()
		}
		cols := make([]arrow.Array, len(tpch.LineitemSchema.Fields()))
		for i := range cols {
			parts := make([]arrow.Array, len(benchBatch))
			for k, rec := range benchBatch {
				parts[k] = rec.Column(i)
			}
			cols[i], err = array.Concatenate(parts, memory.NewGoAllocator())
			if err != nil {
				b.Fatal(err)
			}
		}
		benchWhole = array.NewRecordBatch(tpch.LineitemSchema, cols, n)
	})
	return benchBatch, benchWhole
}

// sortTPCHKeys are sort_tpch's ORDER BYs (Q3, Q7, Q10) as lineitem column
// indices.
var sortTPCHKeys = []struct {
	name string
	cols []int
}{
	{"q3_comment", []int{15}},
	{"q7_line_supp_order", []int{3, 2, 0}},
	{"q10_order_supp_line_comment", []int{0, 2, 3, 15}},
	{"orderkey_desc", []int{0}},
}

func fieldsOf(cols []int, desc bool) []sortkey.SortField {
	fs := make([]sortkey.SortField, len(cols))
	for i, c := range cols {
		fs[i] = sortkey.SortField{Type: tpch.LineitemSchema.Field(c).Type, Desc: desc}
	}
	return fs
}

func pick(rec arrow.RecordBatch, cols []int) []arrow.Array {
	out := make([]arrow.Array, len(cols))
	for i, c := range cols {
		out[i] = rec.Column(c)
	}
	return out
}

func BenchmarkSort1M(b *testing.B) {
	batches, whole := lineitem(b)
	for _, q := range sortTPCHKeys {
		desc := q.name == "orderkey_desc"
		fields := fieldsOf(q.cols, desc)
		b.Run("keys=normalized/order="+q.name, func(b *testing.B) {
			b.ReportAllocs()
			enc, err := sortkey.NewEncoder(fields)
			if err != nil {
				b.Fatal(err)
			}
			keys := make([]*sortkey.Rows, len(batches))
			for i := range keys {
				keys[i] = new(sortkey.Rows)
			}
			items := make([]sortkey.Item, 0, benchRows)
			var sorter sortkey.Sorter
			var keyBytes int
			for b.Loop() {
				items = items[:0]
				keyBytes = 0
				for i, rec := range batches {
					keys[i].Reset()
					if err := enc.Encode(keys[i], pick(rec, q.cols)); err != nil {
						b.Fatal(err)
					}
					items = sortkey.AppendItems(items, keys[i], uint32(i))
					keyBytes += keys[i].DataBytes()
				}
				sorter.Sort(items, keys)
			}
			b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(float64(keyBytes)/benchRows, "keyB/row")
		})
		b.Run("keys=columns/order="+q.name, func(b *testing.B) {
			b.ReportAllocs()
			perm := make([]int32, benchRows)
			cols := pick(whole, q.cols)
			for b.Loop() {
				c, err := sortkeytest.Comparator(cols, cols, fields)
				if err != nil {
					b.Fatal(err)
				}
				for i := range perm {
					perm[i] = int32(i)
				}
				// Stable through the index, as the key side is: pdqsort
				// beats SortStableFunc's insertion-merge sort here too.
				slices.SortFunc(perm, func(x, y int32) int {
					if r := c(int(x), int(y)); r != 0 {
						return r
					}
					return int(x - y)
				})
			}
			b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkEncode measures encoding alone, per TPC-H key set.
func BenchmarkEncode(b *testing.B) {
	batches, _ := lineitem(b)
	for _, q := range sortTPCHKeys {
		b.Run("order="+q.name, func(b *testing.B) {
			b.ReportAllocs()
			enc, err := sortkey.NewEncoder(fieldsOf(q.cols, q.name == "orderkey_desc"))
			if err != nil {
				b.Fatal(err)
			}
			var rows sortkey.Rows
			for b.Loop() {
				for _, rec := range batches {
					rows.Reset()
					if err := enc.Encode(&rows, pick(rec, q.cols)); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
