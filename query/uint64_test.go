package query

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// uint64Table stores t(id int64, x uint64) with values around 2^63 and up
// to 2^64-1, two batches so pruning has statistics to use.
func uint64Table(t *testing.T, mem memory.Allocator) *cache.Cache {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "x", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
	}, nil)
	batches := [][]uint64{{0, 1, math.MaxInt64}, {1 << 63, math.MaxUint64, 0}}
	var recs []arrow.RecordBatch
	id := int64(0)
	for bi, vals := range batches {
		b := array.NewRecordBuilder(mem, schema)
		for i, v := range vals {
			id++
			b.Field(0).(*array.Int64Builder).Append(id)
			if bi == 1 && i == 2 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.Uint64Builder).Append(v)
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	c, _ := cache.New(cache.Options{Alloc: mem})
	r, _ := array.NewRecordReader(schema, recs)
	for _, rec := range recs {
		rec.Release()
	}
	defer r.Release()
	if _, err := c.Put(context.Background(), "t", r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestUint64PastInt64 (issue 14 item 9): a uint64 column holding values
// above 2^63-1 filters, compares, sorts, groups and aggregates (it failed
// with "converting column x: uint64 … out of range"). Its engine type is
// decimal(20,0); passed through or as a GROUP BY key it stays uint64.
func TestUint64PastInt64(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	e := New(uint64Table(t, mem), Options{Alloc: mem})
	for _, tc := range []struct{ sql, want string }{
		{`SELECT x FROM t WHERE x > 9223372036854775807 ORDER BY x`, "[9223372036854775808 18446744073709551615]"},
		{`SELECT id FROM t WHERE x >= 9223372036854775808 AND x <= 18446744073709551615 ORDER BY id`, "[4 5]"},
		{`SELECT id FROM t WHERE x = 18446744073709551615`, "[5]"},
		{`SELECT id FROM t WHERE x IN (1, 18446744073709551615) ORDER BY id`, "[2 5]"},
		{`SELECT id FROM t WHERE x < 1 ORDER BY id`, "[1]"},
		{`SELECT sum(x), min(x), max(x), count(x), count(DISTINCT x) FROM t`, "[36893488147419103231|0|18446744073709551615|5|5]"},
		{`SELECT x, count(*) FROM t GROUP BY x ORDER BY x DESC NULLS LAST LIMIT 3`, "[18446744073709551615|1 9223372036854775808|1 9223372036854775807|1]"},
		{`SELECT x FROM t ORDER BY x DESC LIMIT 2`, "[18446744073709551615 9223372036854775808]"},
		{`SELECT x + 1, x - 18446744073709551615 FROM t WHERE id = 5`, "[18446744073709551616|0]"},
		{`SELECT CAST(x AS DOUBLE) > 1e19 FROM t WHERE id IN (4, 5) ORDER BY id`, "[false true]"},
		{`SELECT CAST(x AS CHAR) FROM t WHERE id = 5`, "[18446744073709551615]"},
		{`SELECT avg(x) FROM t WHERE id IN (4, 5)`, "[1.3835058055282164e+19]"},
	} {
		for _, noPrune := range []bool{false, true} {
			e.opts.NoPruning = noPrune
			got, err := run(t, e, tc.sql)
			if err != nil || fmt.Sprint(got) != tc.want {
				t.Errorf("%s (no pruning %v): %v, %v; want %s", tc.sql, noPrune, got, err, tc.want)
			}
		}
	}
	// A uint64 parameter past int64 binds as the column computes.
	got, _, err := runOrdered(t, e, `SELECT id FROM t WHERE x = ?`, uint64(math.MaxUint64))
	if err != nil || fmt.Sprint(got) != "[5]" {
		t.Errorf("x = ? (2^64-1): %v, %v", got, err)
	}
	// A bare column and a GROUP BY key come out as uint64.
	for _, sql := range []string{`SELECT x FROM t`, `SELECT x FROM t GROUP BY x`} {
		s, err := e.Schema(sql)
		if err != nil || s.Field(0).Type.ID() != arrow.UINT64 {
			t.Errorf("%s: schema %v, %v", sql, s, err)
		}
	}
}
