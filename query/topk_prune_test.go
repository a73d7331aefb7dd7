package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// TestTopKPruningNeverChangesAnAnswer: ORDER BY a string, integer, date or
// decimal column LIMIT k, in every direction and NULL placement, with and
// without WHERE, returns row for row what it returns without pruning
// (ties included: the table repeats values), and the clustered columns
// let the scan skip batches.
func TestTopKPruningNeverChangesAnAnswer(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "amt", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "g", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	r := rand.New(rand.NewPCG(8, 9))
	// 40 batches of 100 rows; s rises with the batch (clustered), with
	// repeats and NULLs; ls is random.
	var recs []arrow.RecordBatch
	for bi := range 40 {
		b := array.NewRecordBuilder(mem, schema)
		for i := range 100 {
			b.Field(0).(*array.Int64Builder).Append(int64(bi*100 + i))
			if r.IntN(15) == 0 || (bi == 7 && i < 50) {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("k%03d-%d", bi*3+r.IntN(4), r.IntN(3)))
			}
			if r.IntN(10) == 0 {
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.LargeStringBuilder).Append(fmt.Sprintf("%x", r.Uint32()%5000))
			}
			// n falls with the batch, d rises, amt is random: each with
			// repeats and NULLs.
			appendOr(b.Field(3), r.IntN(12) == 0, func(x array.Builder) { x.(*array.Int32Builder).Append(int32(4000 - bi*90 - r.IntN(120))) })
			appendOr(b.Field(4), r.IntN(12) == 0, func(x array.Builder) { x.(*array.Date32Builder).Append(arrow.Date32(9000 + bi*5 + r.IntN(7))) })
			appendOr(b.Field(5), r.IntN(12) == 0, func(x array.Builder) {
				x.(*array.Decimal128Builder).Append(decimal128.FromI64(int64(r.IntN(2000) - 1000)))
			})
			appendOr(b.Field(6), r.IntN(12) == 0, func(x array.Builder) { x.(*array.Float64Builder).Append(float64(bi) - 0.5) })
			// g is one value for ten batches in a row: the batches after
			// the threshold is set tie with it.
			b.Field(7).(*array.Int64Builder).Append(int64(bi / 10))
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	putTable(t, c, "t", recs)
	for _, rec := range recs {
		rec.Release()
	}
	pruned, full := New(c, Options{Alloc: mem}), New(c, Options{Alloc: mem, NoPruning: true})
	skipped := map[string]int{}
	for _, col := range []string{"s", "ls", "n", "d", "amt", "g"} {
		// ", id DESC": a later row tying with the threshold's first key
		// beats it on the second, so ties must not be skipped.
		for _, order := range []string{"", " DESC", " NULLS FIRST", " DESC NULLS LAST", " DESC NULLS FIRST", ", id DESC", " DESC, id DESC"} {
			for _, where := range []string{"", " WHERE id % 3 <> 1"} {
				for _, k := range []int{1, 7, 130, 5000} {
					sql := fmt.Sprintf("SELECT %s, id FROM t%s ORDER BY %s%s LIMIT %d", col, where, col, order, k)
					want, err := run(t, full, sql)
					if err != nil {
						t.Fatalf("%s: %v", sql, err)
					}
					got, st, err := runOrdered(t, pruned, sql)
					if err != nil {
						t.Fatalf("%s: %v", sql, err)
					}
					skipped[col] += st.Scan.SkippedLate
					if !slices.Equal(got, want) {
						t.Fatalf("%s:\npruned %v\nfull   %v", sql, got, want)
					}
				}
			}
		}
	}
	for _, col := range []string{"s", "n", "d"} { // the clustered ones
		if skipped[col] == 0 {
			t.Errorf("top-k pruning never skipped a batch ordering by %s", col)
		}
	}
	// An alias that hides a column is what ORDER BY sorts by.
	for _, sql := range []string{"SELECT -id AS g, id FROM t ORDER BY g LIMIT 5", "SELECT s AS ls, id FROM t ORDER BY ls DESC LIMIT 5"} {
		want, err := run(t, full, sql)
		if err != nil {
			t.Fatal(err)
		}
		got, err := run(t, pruned, sql)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: pruned %v (%v), full %v", sql, got, err, want)
		}
	}
	plan, err := pruned.Explain(context.Background(), "SELECT id FROM t ORDER BY s LIMIT 3")
	if err != nil || !strings.Contains(plan, "skips batches past the top-k's s") {
		t.Errorf("plan: %v\n%s", err, plan)
	}
	for _, sql := range []string{"SELECT id FROM t ORDER BY f LIMIT 3", "SELECT id FROM t ORDER BY id + 1 LIMIT 3", "SELECT s FROM t ORDER BY s", "SELECT s, count(*) FROM t GROUP BY s ORDER BY s LIMIT 2"} {
		plan, _ := pruned.Explain(context.Background(), sql)
		if strings.Contains(plan, "top-k") {
			t.Errorf("%s: pruning where it does not apply:\n%s", sql, plan)
		}
	}
}
