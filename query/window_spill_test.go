package query

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// winSpillSQL holds calls of every path a spilled partition takes
// (window_spill_path.go), P standing for the PARTITION BY. Calls whose
// answer depends on the order of rows with equal keys use w, whose
// ORDER BY takes every column shown, so both runs agree.
const winSpillSQL = `SELECT k, s, v, name, p,
	ntile(7) OVER w, percent_rank() OVER (P ORDER BY k), cume_dist() OVER (P ORDER BY k DESC),
	cume_dist() OVER (P), row_number() OVER w, lag(v, 2) OVER w,
	sum(v) OVER (P), count(*) OVER (P), avg(d) OVER (P), min(name) OVER (P), max(f) OVER (P),
	sum(f) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
	sum(v) OVER (P ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
	count(s) OVER (P ORDER BY k RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
	avg(v) OVER (P ORDER BY k GROUPS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
	sum(p) OVER (w ROWS BETWEEN 3 PRECEDING AND 5 FOLLOWING),
	count(v) OVER (w ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING),
	first_value(name) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING),
	nth_value(v, 5) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 3 FOLLOWING),
	last_value(s) OVER (w ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING),
	min(name) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
	max(v) OVER (P ORDER BY k RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
	max(p) OVER (w ROWS BETWEEN 3 PRECEDING AND UNBOUNDED FOLLOWING),
	sum(f) OVER (w ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING),
	first_value(name) OVER (w ROWS BETWEEN 2 FOLLOWING AND 4 FOLLOWING),
	last_value(v) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
	nth_value(s, 3) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
	min(v) OVER (w ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW),
	bool_or(v > 9990) OVER (P), var_pop(v) OVER (P),
	count_if(v > 5000) OVER (w ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)
	FROM t WINDOW w AS (P ORDER BY k, s, v, name, p, f)`

// winSpillShortSQL is winSpillSQL's paths in one window with no keys,
// so no sort: -short runs' (a sort spilling under -race takes seconds).
// Its partition is in the scan's order, the same in both runs with one
// worker.
const winSpillShortSQL = `SELECT k, s, v, name, p,
	ntile(7) OVER (), percent_rank() OVER (), cume_dist() OVER (), row_number() OVER (), lag(v, 2) OVER (),
	sum(v) OVER (), count(*) OVER (), avg(d) OVER (), min(name) OVER (), max(f) OVER (), sum(f) OVER (),
	sum(v) OVER (ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
	sum(p) OVER (ROWS BETWEEN 3 PRECEDING AND 5 FOLLOWING),
	count(v) OVER (ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING),
	first_value(name) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING),
	nth_value(v, 5) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND 3 FOLLOWING),
	last_value(s) OVER (ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING),
	min(name) OVER (ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
	max(p) OVER (ROWS BETWEEN 3 PRECEDING AND UNBOUNDED FOLLOWING),
	avg(f) OVER (ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING),
	first_value(name) OVER (ROWS BETWEEN 2 FOLLOWING AND 4 FOLLOWING),
	last_value(v) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
	nth_value(s, 3) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
	min(v) OVER (ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING EXCLUDE CURRENT ROW),
	bool_or(v > 9990) OVER (), var_pop(v) OVER (),
	count_if(v > 5000) OVER (ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING)
	FROM t`

// TestWindowSpillsPartition runs calls that need the whole partition
// over partitions that pass the memory limit many times over (one of
// 60,000 rows, then three of 20,000, within 512 KiB): each partition is
// spilled, read back, and the answer is the one computed in memory.
func TestWindowSpillsPartition(t *testing.T) {
	t.Parallel() // heavy: overlaps the others under -race
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rows, limit, workers := 30_000, int64(512<<10), 2
	sqls := []string{winSpillSQL, strings.NewReplacer("(P ", "(PARTITION BY g % 3 ", "(P)", "(PARTITION BY g % 3)").Replace(winSpillSQL)}
	sqls[0] = strings.NewReplacer("(P ", "(", "(P)", "()").Replace(sqls[0])
	if testing.Short() { // CI's race pass: one partition of three batches
		rows, limit, workers, sqls = 9_000, 768<<10, 1, []string{winSpillShortSQL}
	}
	c := groupsTable(t, mem, rows)
	inMem := New(c, Options{Alloc: mem, MemoryLimit: 1 << 30, Workers: workers})
	m := spillManager(t, spill.Config{Codec: codec.SettingLZ4})
	tight := New(c, Options{Alloc: mem, MemoryLimit: limit, Spill: m, Workers: workers})
	for _, sql := range sqls {
		part := sql[strings.Index(sql, "ntile"):][:40]
		want, _, err := runOrdered(t, inMem, sql)
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := runOrdered(t, tight, sql)
		if err != nil {
			t.Fatalf("%q: %v", part, err)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			i := firstDiff(got, want)
			t.Fatalf("%q: %d rows, in memory %d; first difference at row %d:\n%q\nwant\n%q", part, len(got), len(want), i, at(got, i), at(want, i))
		}
		if st.Spill.Files == 0 {
			t.Errorf("%q: nothing spilled", part)
		}
		t.Logf("%q: %d rows; peak %d of %d; spilled %v", part, len(got), st.PeakMemory, limit, st.Spill)
		checkNoSpillFiles(t, m)
	}
}

// TestWindowSpillErrors: without a spill Manager a partition past the
// limit still fails with ErrMemory naming the call; a spill quota too
// small fails the query with spill.ErrQuota and leaves no file, as does
// a cancellation while the spilled partition is read back; a call with
// no spilled path (a RANGE offset frame) fails with ErrMemory naming it;
// EXPLAIN ANALYZE says what the window spilled.
func TestWindowSpillErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, 8_000)
	const limit = 160 << 10
	const sql = `SELECT k, name, ntile(4) OVER (ORDER BY k), sum(v) OVER () FROM t`
	// No keys, so no sort: what spills is the window's.
	const noSort = `SELECT k, name, ntile(4) OVER (), sum(v) OVER () FROM t`

	t.Run("no-spill", func(t *testing.T) {
		// no PARTITION BY or ORDER BY: no sort to fail first
		e := New(c, Options{Alloc: mem, MemoryLimit: limit})
		_, _, err := runOrdered(t, e, `SELECT k, ntile(4) OVER (), sum(v) OVER () FROM t`)
		if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "ntile(4) over (), sum(v) over () need the whole partition") {
			t.Fatalf("%v, want ErrMemory naming ntile", err)
		}
	})
	t.Run("quota", func(t *testing.T) {
		m := spillManager(t, spill.Config{})
		e := New(c, Options{Alloc: mem, MemoryLimit: limit, Spill: m})
		_, st, err := runOrdered(t, e, noSort)
		if err != nil {
			t.Fatal(err)
		}
		m = spillManager(t, spill.Config{Quota: st.Spill.Bytes / 2})
		e = New(c, Options{Alloc: mem, MemoryLimit: limit, Spill: m})
		_, _, err = runOrdered(t, e, noSort)
		if !errors.Is(err, spill.ErrQuota) || !strings.Contains(err.Error(), "window () spilling a partition") {
			t.Fatalf("%v, want spill.ErrQuota", err)
		}
		t.Log(err)
		checkNoSpillFiles(t, m)
	})
	t.Run("cancel", func(t *testing.T) {
		m := spillManager(t, spill.Config{})
		e := New(c, Options{Alloc: mem, MemoryLimit: limit, Spill: m})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		r, err := e.Query(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatal(r.Err())
		}
		if m.Stats().Files == 0 {
			t.Fatal("no spill file open before the cancellation")
		}
		cancel()
		for r.Next() {
		}
		if !errors.Is(r.Err(), context.Canceled) {
			t.Fatalf("%v, want context.Canceled", r.Err())
		}
		r.Release()
		checkNoSpillFiles(t, m)
	})
	t.Run("no-path", func(t *testing.T) {
		m := spillManager(t, spill.Config{})
		e := New(c, Options{Alloc: mem, MemoryLimit: limit, Spill: m})
		_, _, err := runOrdered(t, e, `SELECT k, ntile(4) OVER (ORDER BY k), sum(v) OVER (ORDER BY k RANGE BETWEEN 5 PRECEDING AND 5 FOLLOWING) FROM t`)
		if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "range between 5 preceding and 5 following) needs the whole partition") {
			t.Fatalf("%v, want ErrMemory naming the RANGE frame's sum", err)
		}
		checkNoSpillFiles(t, m)
	})
	t.Run("explain-analyze", func(t *testing.T) {
		m := spillManager(t, spill.Config{Codec: codec.SettingLZ4})
		e := New(c, Options{Alloc: mem, MemoryLimit: limit, Spill: m})
		text, err := e.Explain(context.Background(), "EXPLAIN ANALYZE "+noSort)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, "Window") || !strings.Contains(text, "spilled") {
			t.Errorf("EXPLAIN ANALYZE does not say what the window spilled:\n%s", text)
		}
		checkNoSpillFiles(t, m)
	})
}
