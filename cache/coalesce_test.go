package cache

import (
	"context"
	"fmt"
	"math/bits"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestCoalesceSmallAppends: single-row appends with Coalesce leave a
// binary counter of small batches (never one per append), every row in
// order, and the table's counts and the budget exact.
func TestCoalesceSmallAppends(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	row := func(k int64) arrow.RecordBatch {
		b := array.NewRecordBuilder(mem, schema)
		defer b.Release()
		b.Field(0).(*array.Int64Builder).Append(k)
		if k%3 == 0 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprint("v", k))
		}
		return b.NewRecordBatch()
	}
	put(t, c, "t", schema, nil, TableOptions{})
	const n, limit = 300, 64
	for k := int64(0); k < n; k++ {
		rec := row(k)
		r, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
		info, err := c.Append(context.Background(), "t", r, TableOptions{Coalesce: limit})
		r.Release()
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		full := int(info.Rows) / limit
		if max := full + bits.Len(uint(limit)) + 1; info.Batches > max {
			t.Fatalf("after %d appends: %d batches, want at most %d", k+1, info.Batches, max)
		}
		if c.Used() != info.Compressed {
			t.Fatalf("after %d appends: cache holds %d bytes, the table %d", k+1, c.Used(), info.Compressed)
		}
	}
	info, _ := c.Info("t")
	if info.Rows != n || info.Columns[1].Nulls != n/3 {
		t.Fatalf("%d rows, %d nulls", info.Rows, info.Columns[1].Nulls)
	}
	got, _ := scanAll(t, c, "t", ScanOptions{})
	defer release(got)
	next := int64(0)
	for _, rec := range got {
		if rec.NumRows() > limit {
			t.Fatalf("a batch of %d rows, over %d", rec.NumRows(), limit)
		}
		ks, ss := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String)
		for i := range ks.Len() {
			if ks.Value(i) != next || ss.IsNull(i) != (next%3 == 0) || (!ss.IsNull(i) && ss.Value(i) != fmt.Sprint("v", next)) {
				t.Fatalf("row %d: %d %q", next, ks.Value(i), ss.ValueStr(i))
			}
			next++
		}
	}
	if next != n {
		t.Fatalf("%d rows scanned", next)
	}
	// A large append is not coalesced; without Coalesce each append adds.
	r, _ := array.NewRecordReader(schema, []arrow.RecordBatch{})
	before, _ := c.Info("t")
	rec := row(n)
	r, _ = array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	after, err := c.Append(context.Background(), "t", r, TableOptions{})
	r.Release()
	rec.Release()
	if err != nil || after.Batches != before.Batches+1 {
		t.Fatalf("plain append: %d batches after %d, %v", after.Batches, before.Batches, err)
	}
}
