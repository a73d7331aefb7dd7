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

var orderByQueries = []string{
	// Strings with NULLs, DESC, then ints: ties on s are ordered by k,
	// ties on both keep the table's order.
	`SELECT s, k, v FROM t ORDER BY s DESC, k`,
	`SELECT d, day, k, name FROM t ORDER BY d, day DESC NULLS FIRST`,
	`SELECT f, p, name, k FROM t ORDER BY f, p DESC, name`,
	// Equal keys by the thousand: only stability decides their order.
	`SELECT g, h, k, v FROM t ORDER BY g DESC NULLS FIRST, h`,
	`SELECT v, k FROM t ORDER BY v NULLS FIRST`,
	// A top-k of more rows than fit (spills runs of k rows) and one of a
	// few (never spills).
	`SELECT k, v, s FROM t ORDER BY v NULLS FIRST, k DESC LIMIT 50000`,
	`SELECT k, name FROM t ORDER BY name LIMIT 10 OFFSET 5`,
}

// TestOrderBySpillMatchesMemory runs ORDER BY queries over a table larger
// than a 2 MiB limit with spilling and compares every row, in order, with
// the same query run within 1 GiB (an in-memory sort): the same rows in
// the same order, ties in table order on both sides. It checks the
// queries spilled (the small top-k did not), left no file behind and
// freed every Arrow buffer.
func TestOrderBySpillMatchesMemory(t *testing.T) {
	keys, limit := 100_000, int64(2<<20)
	if testing.Short() {
		keys = 30_000
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, keys)
	inMem := New(c, Options{Alloc: mem, MemoryLimit: 1 << 30})
	m := spillManager(t, spill.Config{Codec: codec.Setting{Kind: codec.Zstd, Level: 1}})
	spilling := New(c, Options{Alloc: mem, MemoryLimit: limit, Spill: m, Workers: 2})
	for _, sql := range orderByQueries {
		t.Run(sql, func(t *testing.T) {
			want, wst, err := runOrdered(t, inMem, sql)
			if err != nil {
				t.Fatal(err)
			}
			if wst.Spill.Files != 0 {
				t.Errorf("the in-memory run spilled: %+v", wst.Spill)
			}
			got, st, err := runOrdered(t, spilling, sql)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				i := firstDiff(got, want)
				t.Fatalf("%d rows, in memory %d; first difference at row %d: %q, want %q", len(got), len(want), i, at(got, i), at(want, i))
			}
			small := strings.Contains(sql, "LIMIT 10 ")
			if spilled := st.Spill.Files > 0; spilled == small {
				t.Errorf("spilled %v (%+v), want %v", spilled, st.Spill, !small)
			}
			checkNoSpillFiles(t, m)
			t.Logf("%d rows; peak %d of %d; spilled %v", len(got), st.PeakMemory, limit, st.Spill)
		})
	}
}

// TestOrderBySpillErrors: without a Manager an ORDER BY past the limit
// fails with ErrMemory as before; a quota too small fails the query with
// an error matching spill.ErrQuota; a cancellation while the merge is read
// stops the query; each time no spill file is left and every buffer is
// freed. EXPLAIN ANALYZE says what the sort spilled.
func TestOrderBySpillErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, 30_000)
	const sql = `SELECT s, k, name FROM t ORDER BY s, k`

	t.Run("no-spill", func(t *testing.T) {
		e := New(c, Options{Alloc: mem, MemoryLimit: 1 << 20})
		if _, _, err := runOrdered(t, e, sql); !errors.Is(err, ErrMemory) {
			t.Fatalf("%v, want ErrMemory", err)
		}
	})
	t.Run("quota", func(t *testing.T) {
		m := spillManager(t, spill.Config{Quota: 100 << 10})
		e := New(c, Options{Alloc: mem, MemoryLimit: 1 << 20, Spill: m})
		_, _, err := runOrdered(t, e, sql)
		if !errors.Is(err, spill.ErrQuota) || !errors.Is(err, spill.ErrResourceExhausted) {
			t.Fatalf("%v, want spill.ErrQuota", err)
		}
		checkNoSpillFiles(t, m)
	})
	t.Run("cancel", func(t *testing.T) { checkCancelRemovesSpill(t, c, mem, sql) })
	t.Run("explain-analyze", func(t *testing.T) {
		m := spillManager(t, spill.Config{Codec: codec.SettingLZ4})
		e := New(c, Options{Alloc: mem, MemoryLimit: 1 << 20, Spill: m})
		text, err := e.Explain(context.Background(), "EXPLAIN ANALYZE "+sql)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, "Sort by") || !strings.Contains(text, "spilled") {
			t.Errorf("EXPLAIN ANALYZE does not say what the sort spilled:\n%s", text)
		}
		checkNoSpillFiles(t, m)
	})
}
