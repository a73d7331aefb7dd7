package query

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// dec256Engine is an engine over "d256": id, n a decimal256(20,2) (read
// as DECIMAL(20,2), exact) and w a decimal256(50,3) (read as DOUBLE, as
// DuckDB's Parquet reader reads decimals past 38 digits), in two
// batches, on a checked allocator.
func dec256Engine(t *testing.T) *Engine {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "n", Type: &arrow.Decimal256Type{Precision: 20, Scale: 2}, Nullable: true},
		{Name: "w", Type: &arrow.Decimal256Type{Precision: 50, Scale: 3}, Nullable: true},
	}, nil)
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for _, js := range []string{
		`[{"id": 0, "n": "12.50", "w": "1.500"}, {"id": 1, "n": "-3.25", "w": "123456789012345678901234567890.125"}, {"id": 2, "n": null, "w": null}]`,
		`[{"id": 3, "n": "999999999999999999.99", "w": "-2.000"}, {"id": 4, "n": "12.50", "w": "1.500"}, {"id": 5, "n": "0.01", "w": "0.000"}]`,
	} {
		rec, _, err := array.RecordFromJSON(mem, schema, strings.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		recs = append(recs, rec)
	}
	putTable(t, c, "d256", recs)
	return New(c, Options{Alloc: mem, MemoryLimit: 64 << 20})
}

// TestDecimal256: decimal256 columns are passed through with every
// digit, and compared, sorted, grouped and aggregated: exactly up to 38
// digits, as DOUBLE past them.
func TestDecimal256(t *testing.T) {
	e := dec256Engine(t)
	for _, tc := range []struct{ sql, want string }{
		{`SELECT id, n, w FROM d256 WHERE id IN (1, 3) ORDER BY id`, "1|-3.25|123456789012345678901234567890.125 3|999999999999999999.99|-2.000"},
		{`SELECT id FROM d256 WHERE n > 12.4 ORDER BY id`, "0 3 4"},
		{`SELECT id FROM d256 WHERE n = 12.5 AND w = 1.5 ORDER BY id`, "0 4"},
		{`SELECT id FROM d256 WHERE w < 0 OR n < 0 ORDER BY id`, "1 3"},
		{`SELECT id FROM d256 ORDER BY n DESC NULLS LAST, id`, "3 0 4 5 1 2"},
		{`SELECT id FROM d256 ORDER BY w NULLS FIRST, id`, "2 3 5 0 4 1"},
		{`SELECT min(n), max(n), sum(n), count(n), min(w), max(w) FROM d256`, "-3.25|999999999999999999.99|1000000000000000021.75|5|-2|1.2345678901234568e+29"},
		{`SELECT n, count(*) FROM d256 GROUP BY n ORDER BY n NULLS FIRST`, "NULL|1 -3.25|1 0.01|1 12.50|2 999999999999999999.99|1"},
		{`SELECT w, count(*) FROM d256 GROUP BY w ORDER BY w NULLS FIRST`, "NULL|1 -2|1 0|1 1.5|2 1.2345678901234568e+29|1"},
		{`SELECT n * 2, n + 1, CAST(n AS DOUBLE), w + 1 FROM d256 WHERE id = 0`, "25.00|13.50|12.5|2.5"},
		{`SELECT a.id, b.id FROM d256 a JOIN d256 b ON a.n = b.n WHERE a.id < b.id`, "0|4"},
	} {
		got, _, err := runOrdered(t, e, tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, s, tc.want)
		}
	}
}
