package query

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/spill"
)

// groupsTable holds about 2 rows per key of keys distinct keys, shuffled,
// in batches of 4096:
//
//	k int64     the key, NULL in every 101st row
//	s utf8      'key-' and another permutation of the key, NULL every 103rd
//	d decimal(12,2), day date32: one per key
//	g int64, h utf8: (k mod 500, k div 500 as text), together one per key
//	v int64     random 0..9999 with NULLs; p decimal(15,2); f float64
//	            (quarters, so every sum is exact); name utf8
func groupsTable(t testing.TB, mem memory.Allocator, keys int) *cache.Cache {
	t.Helper()
	return groupsTableOpts(t, mem, keys, cache.TableOptions{Codec: cache.Fixed(codec.SettingLZ4)})
}

func groupsTableOpts(t testing.TB, mem memory.Allocator, keys int, opts cache.TableOptions) *cache.Cache {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "g", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "h", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "p", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	rng := rand.New(rand.NewPCG(uint64(keys), 3))
	order := rng.Perm(2 * keys)
	var recs []arrow.RecordBatch
	bmem := mem
	if bmem == nil {
		bmem = memory.DefaultAllocator
	}
	b := array.NewRecordBuilder(bmem, schema)
	defer b.Release()
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
		b.Field(4).(*array.Int64Builder).Append(int64(key % 500))
		b.Field(5).(*array.StringBuilder).Append(fmt.Sprint(key / 500))
		if rng.IntN(10) == 0 {
			b.Field(6).AppendNull()
		} else {
			b.Field(6).(*array.Int64Builder).Append(int64(rng.IntN(10000)))
		}
		b.Field(7).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.IntN(1_000_000))))
		b.Field(8).(*array.Float64Builder).Append(float64(rng.IntN(4000)-2000) / 4)
		b.Field(9).(*array.StringBuilder).Append(fmt.Sprintf("n%x", rng.IntN(1<<20)))
		if b.Field(0).Len() == 4096 || i == len(order)-1 {
			recs = append(recs, b.NewRecordBatch())
		}
	}
	copts := cache.Options{Alloc: mem}
	if mem == nil {
		copts = cache.Options{}
		mem = memory.DefaultAllocator
	}
	c, err := cache.New(copts)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := array.NewRecordReader(schema, recs)
	defer r.Release()
	for _, rec := range recs {
		rec.Release()
	}
	if _, err := c.Put(context.Background(), "t", r, opts); err != nil {
		t.Fatal(err)
	}
	return c
}

// spillManager is a Manager in a test folder that must be empty when the
// test ends.
func spillManager(t testing.TB, cfg spill.Config) *spill.Manager {
	t.Helper()
	cfg.Dir = t.TempDir()
	m, err := spill.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		m.Close()
	})
	return m
}

// heavySpillCodec is the spill codec of the heavy spilling tests: LZ4,
// but none under -short (CI's race pass), where sync.Pool drops a
// quarter of what is put back, so that many LZ4 blocks allocate a
// compressor: 40-60% of those tests' time. TestSerialAggregateMemory
// and TestGraceJoinTinyMemory spill through LZ4 under -race still.
func heavySpillCodec() codec.Setting {
	if testing.Short() {
		return codec.SettingNone
	}
	return codec.SettingLZ4
}

func checkNoSpillFiles(t testing.TB, m *spill.Manager) {
	t.Helper()
	if st := m.Stats(); st.Files != 0 || st.DiskBytes != 0 {
		t.Fatalf("%d spill files (%d bytes) left after the query", st.Files, st.DiskBytes)
	}
}

// runStats runs sql to the end and returns its rows, sorted, and stats.
func runStats(t testing.TB, e *Engine, sql string) ([]string, Stats, error) {
	t.Helper()
	rows, st, err := runOrdered(t, e, sql)
	slices.Sort(rows)
	return rows, st, err
}

var spillQueries = []string{
	`SELECT k, count(*), count(v), count(DISTINCT v), sum(v), min(v), max(v), avg(v) FROM t GROUP BY k`,
	`SELECT s, count(*), sum(p), min(name), max(name), avg(p), count(DISTINCT name) FROM t GROUP BY s`,
	`SELECT d, count(*), sum(f), min(f), max(day), avg(f) FROM t GROUP BY d`,
	`SELECT day, count(DISTINCT v), sum(v), min(s) FROM t GROUP BY day`,
	`SELECT g, h, count(*), sum(v), count(DISTINCT s), max(p) FROM t GROUP BY g, h`,
	`SELECT k, s, count(*) FROM t GROUP BY k, s`,
	`SELECT count(DISTINCT v), count(DISTINCT name), count(*), sum(v) FROM t`,
	`SELECT k % 1000 AS m, count(DISTINCT name) FROM t WHERE v > 100 GROUP BY m HAVING count(*) > 1`,
	`SELECT k + 1, sum(v) FROM t WHERE v > 5000 GROUP BY k + 1 HAVING count(*) > 1`,
	// the variance family merges partial moments (rounded: the merge order
	// moves the last bits), bool_and and count_if merge as min and sum
	`SELECT k % 20000 AS m, round(stddev(v), 6), round(var_pop(f), 6), bool_and(v > 10), count_if(v > 100), count(*) FROM t GROUP BY m`,
	// arg_min and arg_max keep strings through spills (rows with equal k
	// have equal s, d and day, so ties cannot tell the two runs apart)
	`SELECT k % 20000 AS m, arg_min(s, k), arg_max(d, k), arg_max(s, day), min_by(day, k) FROM t GROUP BY m`,
}

// TestGroupBySpillMatchesMemory runs GROUP BY queries with more groups than
// fit in a 4 MiB limit (200,000 keys; -short: 60,000) with
// spilling, and compares every answer with the same query run in memory:
// every aggregate, int, string, decimal, date and two-column keys, NULL
// keys, count(DISTINCT) with and without keys. It checks that the query
// spilled, stayed near its limit, left no file behind and freed every
// Arrow buffer.
func TestGroupBySpillMatchesMemory(t *testing.T) {
	t.Parallel() // heavy: overlaps the others under -race
	keys, limit := 200_000, int64(4<<20)
	if testing.Short() {
		keys = 60_000
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, keys)
	inMem := New(c, Options{Alloc: mem, MemoryLimit: 1 << 30})
	m := spillManager(t, spill.Config{Codec: heavySpillCodec()})
	spilling := New(c, Options{Alloc: mem, MemoryLimit: limit, Spill: m, Workers: 2})
	for i, sql := range spillQueries {
		if testing.Short() && i%2 == 1 {
			continue // CI's race pass, after the full pass ran them all
		}
		t.Run(sql, func(t *testing.T) {
			want, _, err := runStats(t, inMem, sql)
			if err != nil {
				t.Fatal(err)
			}
			got, st, err := runStats(t, spilling, sql)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				i := firstDiff(got, want)
				t.Fatalf("%d rows, in memory %d; first difference at row %d: %q, want %q", len(got), len(want), i, at(got, i), at(want, i))
			}
			if st.Spill.Files+st.Spill.Held == 0 && len(want) > 1000 { // files, or map outputs held in memory
				t.Errorf("%d groups in %d bytes did not spill: %+v", len(want), limit, st)
			}
			if st.PeakMemory > limit {
				t.Errorf("peak memory %d passes the %d-byte limit", st.PeakMemory, limit)
			}
			checkNoSpillFiles(t, m)
			t.Logf("%d groups; peak %d of %d; spilled %v", len(want), st.PeakMemory, limit, st.Spill)
		})
	}
}

func at(rows []string, i int) string {
	if i < len(rows) {
		return rows[i]
	}
	return "<none>"
}

// TestGroupBySpillErrors: without a Manager a GROUP BY past the limit fails
// with ErrMemory as before; a quota too small fails the query with an
// error matching spill.ErrQuota; an overflow found while merging and a
// cancellation in the middle of the merge fail the query; each time no
// spill file is left and every buffer is freed.
func TestGroupBySpillErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, 30_000)
	const sql = `SELECT k, count(DISTINCT v), sum(v) FROM t GROUP BY k`

	t.Run("no-spill", func(t *testing.T) {
		e := New(c, Options{Alloc: mem, MemoryLimit: 1 << 20})
		if _, _, err := runStats(t, e, sql); !errors.Is(err, ErrMemory) {
			t.Fatalf("%v, want ErrMemory", err)
		}
	})
	t.Run("quota", func(t *testing.T) {
		m := spillManager(t, spill.Config{Quota: 100 << 10})
		e := New(c, Options{Alloc: mem, MemoryLimit: 1 << 20, Spill: m})
		_, _, err := runStats(t, e, sql)
		if !errors.Is(err, spill.ErrQuota) || !errors.Is(err, spill.ErrResourceExhausted) {
			t.Fatalf("%v, want spill.ErrQuota", err)
		}
		t.Log(err)
		checkNoSpillFiles(t, m)
	})
	t.Run("overflow", func(t *testing.T) {
		m := spillManager(t, spill.Config{})
		e := New(c, Options{Alloc: mem, MemoryLimit: 1 << 20, Spill: m})
		// Each row's value fits int64; the sum of a key's two rows
		// does not when both have v > 9000, which the final merge
		// finds (sums are exact in 128 bits until then).
		_, _, err := runStats(t, e, `SELECT k, sum(CASE WHEN v > 9000 THEN 5000000000000000000 ELSE 1 END) FROM t GROUP BY k`)
		if !errors.Is(err, ErrExec) || !errors.Is(err, agg.ErrOverflow) {
			t.Fatalf("%v, want ErrExec and agg.ErrOverflow", err)
		}
		t.Log(err)
		checkNoSpillFiles(t, m)
	})
	t.Run("cancel", func(t *testing.T) { checkCancelRemovesSpill(t, c, mem, sql) })
	t.Run("release-early", func(t *testing.T) {
		m := spillManager(t, spill.Config{})
		e := New(c, Options{Alloc: mem, MemoryLimit: 1 << 20, Spill: m})
		r, err := e.Query(context.Background(), sql)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatal(r.Err())
		}
		r.Release()
		checkNoSpillFiles(t, m)
	})
}

// TestExplainAnalyze runs EXPLAIN ANALYZE of a spilling GROUP BY: the plan
// carries each operator's rows, the scan's batches and bytes, the spill's
// files and bytes, and the numbers agree with Stats of the same query.
func TestExplainAnalyze(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, 30_000)
	m := spillManager(t, spill.Config{Codec: codec.SettingLZ4})
	// One worker: the same query spills the same files twice.
	e := New(c, Options{Alloc: mem, MemoryLimit: 1 << 20, Spill: m, Workers: 1})
	const sql = `SELECT k, count(*) AS n FROM t WHERE v >= 0 AND k + 0 <> -1 GROUP BY k ORDER BY n DESC, k LIMIT 5`
	_, st, err := runStats(t, e, sql)
	if err != nil {
		t.Fatal(err)
	}
	groups, _, err := runStats(t, e, `SELECT k, count(*) FROM t WHERE v >= 0 AND k + 0 <> -1 GROUP BY k`)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := run(t, e, "EXPLAIN ANALYZE "+sql)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(rows, "\n")
	t.Log("\n" + text)
	for _, want := range []string{
		"Limit 5 (rows 5,",
		fmt.Sprintf("batches %d", st.Scan.Decoded),
		fmt.Sprintf("decoded %d of %d batches", st.Scan.Decoded, st.Scan.Batches),
		fmt.Sprintf("%d bytes decompressed into %d", st.Scan.CompressedBytes, st.Scan.DecodedBytes),
		fmt.Sprintf("rows %d,", st.Scan.Rows),
		"summed over workers",
		fmt.Sprintf("spilled %d files", st.Spill.Files),
		fmt.Sprintf("%d bytes, %d rows", st.Spill.Bytes, st.Spill.Rows),
		"Execution: 5 rows in",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("EXPLAIN ANALYZE lacks %q", want)
		}
	}
	if !regexp.MustCompile(fmt.Sprintf(`HashAggregate by k: count\(\*\)( \(dense keys -?\d+…\d+\))? \(rows %d,`, len(groups))).MatchString(text) {
		t.Errorf("aggregate's rows missing")
	}
	checkNoSpillFiles(t, m)

	// Without anything to spill, EXPLAIN ANALYZE works the same.
	plain := New(c, Options{Alloc: mem})
	rows, err = run(t, plain, "EXPLAIN ANALYZE SELECT count(*) FROM t WHERE k < 10")
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(rows, "\n"); !strings.Contains(text, "Execution: 1 rows") || strings.Contains(text, "spilled") {
		t.Errorf("plain EXPLAIN ANALYZE:\n%s", text)
	}
	if s, err := plain.Schema("EXPLAIN ANALYZE SELECT k FROM t"); err != nil || !s.Equal(explainSchema) {
		t.Errorf("Schema of EXPLAIN ANALYZE: %v, %v", s, err)
	}
}

// checkCancelRemovesSpill runs sql, which spills within 1 MiB, cancels it
// once it has spilled and its first batch is out, and checks it ends with
// context.Canceled and leaves no spill file.
func checkCancelRemovesSpill(t *testing.T, c *cache.Cache, mem memory.Allocator, sql string) {
	t.Helper()
	m := spillManager(t, spill.Config{})
	e := New(c, Options{Alloc: mem, MemoryLimit: 1 << 20, Spill: m})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := e.Query(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatal(r.Err())
	}
	if r.Stats().Spill.Files == 0 {
		t.Fatal("nothing spilled before the cancellation")
	}
	cancel()
	for r.Next() {
	}
	if !errors.Is(r.Err(), context.Canceled) {
		t.Fatalf("%v, want context.Canceled", r.Err())
	}
	r.Release()
	checkNoSpillFiles(t, m)
}
