//go:build duckdb

package difftest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/query"
	"github.com/quiverdb/quiver/spill"
)

// groupsRecords is table g: about two rows for each of keys keys, shuffled,
// in batches of 8192. k int64 (NULL every 101st row), s utf8 (another
// permutation of the key, NULL every 103rd), d decimal(12,2) and day
// date32 (one per key), v int64 (0..9999, 10% NULL), p decimal(15,2),
// f float64 (quarters: sums are exact in both engines), name utf8.
func groupsRecords(mem memory.Allocator, keys int) []arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "p", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rng := rand.New(rand.NewPCG(uint64(keys), 5))
	order := rng.Perm(2 * keys)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	var recs []arrow.RecordBatch
	for i, o := range order {
		key := o % keys
		if i%101 == 100 {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.Int64Builder).Append(int64(key))
		}
		if i%103 == 102 {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("key-%07d", key*7919%keys))
		}
		b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(key)*3 - 1000))
		b.Field(3).(*array.Date32Builder).Append(arrow.Date32(key - keys/2))
		if rng.IntN(10) == 0 {
			b.Field(4).AppendNull()
		} else {
			b.Field(4).(*array.Int64Builder).Append(int64(rng.IntN(10000)))
		}
		b.Field(5).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.IntN(1_000_000))))
		b.Field(6).(*array.Float64Builder).Append(float64(rng.IntN(4000)-2000) / 4)
		b.Field(7).(*array.StringBuilder).Append(fmt.Sprintf("n%x", rng.IntN(1<<20)))
		if b.Field(0).Len() == 8192 || i == len(order)-1 {
			recs = append(recs, b.NewRecordBatch())
		}
	}
	return recs
}

// TestGroupBySpill runs GROUP BY queries with more groups than fit in
// quiver's 4 MiB memory limit (200,000 keys; -short: 50,000), so that
// quiver spills sorted runs and merges them, and compares the answers
// with DuckDB's: every aggregate, int, string, decimal, date and
// two-column keys, NULL keys, count(DISTINCT) with and without keys.
func TestGroupBySpill(t *testing.T) {
	ctx := context.Background()
	keys := 200_000
	if testing.Short() {
		keys = 50_000
	}
	recs := groupsRecords(memory.DefaultAllocator, keys)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	c, err := cache.New(cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := putRecords(ctx, c, "g", recs); err != nil {
		t.Fatal(err)
	}
	if err := duckTable(ctx, env.db, "g", "*", recs); err != nil {
		t.Fatal(err)
	}
	m, err := spill.NewManager(spill.Config{Dir: t.TempDir(), Codec: codec.Setting{Kind: codec.Zstd, Level: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	q := query.New(c, query.Options{MemoryLimit: 4 << 20, Spill: m, Workers: 2})
	for _, sql := range []string{
		`SELECT k, count(*), count(v), count(DISTINCT v), sum(v), min(v), max(v), avg(v) FROM g GROUP BY k`,
		`SELECT s, count(*), sum(p), min(name), max(name), avg(p), count(DISTINCT name) FROM g GROUP BY s`,
		`SELECT d, count(*), sum(f), min(f), max(day), avg(f) FROM g GROUP BY d`,
		`SELECT day, count(DISTINCT v), sum(v), min(s) FROM g GROUP BY day`,
		`SELECT k, s, count(*), max(p) FROM g GROUP BY k, s`,
		`SELECT count(DISTINCT v), count(DISTINCT name), count(*), sum(v) FROM g`,
		`SELECT k % 1000 AS m, count(DISTINCT name), sum(p) FROM g WHERE v > 100 GROUP BY k % 1000 HAVING count(*) > 1`,
	} {
		t.Run(sql, func(t *testing.T) {
			st, want := againstDuckDB(t, ctx, q, sql)
			if len(want) > 10_000 && st.Spill.Files+st.Spill.Held == 0 { // files, or map outputs held in memory
				t.Errorf("%d groups did not spill", len(want))
			}
			if s := m.Stats(); s.Files != 0 {
				t.Errorf("%d spill files left", s.Files)
			}
			t.Logf("%d groups; peak memory %d; spilled %v", len(want), st.PeakMemory, st.Spill)
		})
	}
}

// againstDuckDB runs sql in q and in DuckDB, reports a difference, and
// returns quiver's statistics and DuckDB's rows.
func againstDuckDB(t *testing.T, ctx context.Context, q *query.Engine, sql string) (query.Stats, []row) {
	t.Helper()
	r, err := q.Query(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readArrow(r)
	st := r.Stats()
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := env.db.QueryContext(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	want, err := readSQL(rs)
	if err != nil {
		t.Fatal(err)
	}
	if d := diff(got, want, false); d != "" {
		t.Error(d)
	}
	return st, want
}
