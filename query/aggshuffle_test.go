package query

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// aggShuffleQueries spill through the shuffle (no count(DISTINCT)): keys
// seen twice far apart (the tables reduce nothing, so rows go to disk as
// they come), keys repeated within a table's reach (partial states), strings,
// two keys, NULL keys, first/last by position, and a HAVING.
var aggShuffleQueries = []string{
	`SELECT k, count(*), count(v), sum(v), min(v), max(v), avg(v) FROM t GROUP BY k`,
	`SELECT s, count(*), sum(p), min(name), max(name), avg(p) FROM t GROUP BY s`,
	`SELECT g, h, count(*), sum(v), max(p) FROM t GROUP BY g, h`,
	`SELECT k % 1000 AS m, count(*), sum(f), round(stddev(v), 6) FROM t GROUP BY m`,
	`SELECT k, first(v), last(name) FROM t GROUP BY k`,
	`SELECT k + 1, sum(v) FROM t WHERE v > 5000 GROUP BY k + 1 HAVING count(*) > 1`,
}

// TestGroupByShuffleSpill: within limits small enough to repartition, on
// one and two workers, the shuffle spill answers as the GROUP BY in memory
// and as the sorted runs do, spills through the shuffle (EXPLAIN ANALYZE
// says so), stays within the limit, leaves no file and frees every Arrow
// buffer.
func TestGroupByShuffleSpill(t *testing.T) {
	type config struct {
		limit   int64
		workers int
		fanout  int // of the first level; 0: the planner's
		sorted  bool
	}
	keys, queries, spilled := 40_000, aggShuffleQueries, codec.SettingLZ4
	configs := []config{{1 << 20, 1, 0, true}, {768 << 10, 2, 0, true}, {1 << 20, 2, 2, false}}
	if testing.Short() {
		// The path through every part: partial states, rows written as
		// they come, a second level, first/last.
		// Uncompressed: under -race, sync.Pool drops what is put, so
		// every lz4 block would allocate a compressor.
		keys, queries, spilled = 1_200, []string{queries[4]}, codec.SettingNone
		configs = []config{{192 << 10, 2, 2, false}}
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, keys)
	inMem := New(c, Options{Alloc: mem, MemoryLimit: 1 << 30})
	m := spillManager(t, spill.Config{Codec: spilled})
	levels := 0
	for _, cfg := range configs {
		engines := map[string]*Engine{"shuffle": New(c, Options{Alloc: mem, MemoryLimit: cfg.limit, Spill: m, Workers: cfg.workers})}
		engines["shuffle"].aggFanout = cfg.fanout
		if cfg.sorted {
			engines["sorted"] = New(c, Options{Alloc: mem, MemoryLimit: cfg.limit, Spill: m, Workers: cfg.workers, GroupBySortSpill: true})
		}
		hash := engines["shuffle"]
		for _, sql := range queries {
			want, _, err := runStats(t, inMem, sql)
			if err != nil {
				t.Fatal(err)
			}
			for name, e := range engines {
				got, st, err := runStats(t, e, sql)
				if err != nil {
					t.Fatalf("%s, %d bytes, %d workers: %s: %v", name, cfg.limit, cfg.workers, sql, err)
				}
				if !slices.Equal(got, want) {
					i := firstDiff(got, want)
					t.Fatalf("%s, %d bytes, %d workers: %s: %d rows, in memory %d; first difference at row %d: %q, want %q",
						name, cfg.limit, cfg.workers, sql, len(got), len(want), i, at(got, i), at(want, i))
				}
				if st.Spill.Files+st.Spill.Held == 0 && len(want) >= keys { // files, or map outputs held in memory
					t.Errorf("%s: %s did not spill within %d bytes", name, sql, cfg.limit)
				}
				if st.PeakMemory > cfg.limit {
					t.Errorf("%s: %s: peak memory %d passes the %d-byte limit", name, sql, st.PeakMemory, cfg.limit)
				}
				checkNoSpillFiles(t, m)
			}
			rows, err := run(t, hash, "EXPLAIN ANALYZE "+sql)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Join(rows, "\n")
			if len(want) >= keys && !strings.Contains(text, "spilled through the shuffle to ") {
				t.Fatalf("EXPLAIN ANALYZE %s does not show the shuffle:\n%s", sql, text)
			}
			if mm := regexp.MustCompile(`(\d+) repartition levels`).FindStringSubmatch(text); mm != nil {
				n, _ := strconv.Atoi(mm[1])
				levels = max(levels, n)
			}
			checkNoSpillFiles(t, m)
		}
	}
	if levels == 0 {
		t.Error("no partition was repartitioned: the test misses that path")
	}
}

// TestGroupByShuffleSpillCancel: a GROUP BY spilling through the shuffle
// cancelled while its partitions are aggregated, or released before its
// end, or failing on the disk quota, leaves no file and no buffer.
func TestGroupByShuffleSpillCancel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, 20_000)
	const sql = `SELECT k, sum(v), count(*) FROM t GROUP BY k`
	t.Run("cancel", func(t *testing.T) { checkCancelRemovesSpill(t, c, mem, sql) })
	t.Run("release-early", func(t *testing.T) {
		m := spillManager(t, spill.Config{})
		e := New(c, Options{Alloc: mem, MemoryLimit: 512 << 10, Spill: m, Workers: 2})
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
	t.Run("quota", func(t *testing.T) {
		m := spillManager(t, spill.Config{Quota: 64 << 10})
		e := New(c, Options{Alloc: mem, MemoryLimit: 512 << 10, Spill: m, Workers: 2})
		_, _, err := runStats(t, e, sql)
		if !errors.Is(err, spill.ErrQuota) {
			t.Fatalf("%v, want spill.ErrQuota", err)
		}
		checkNoSpillFiles(t, m)
	})
	t.Run("cancel-before", func(t *testing.T) {
		m := spillManager(t, spill.Config{})
		e := New(c, Options{Alloc: mem, MemoryLimit: 512 << 10, Spill: m, Workers: 2})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r, err := e.Query(ctx, sql)
		if err == nil {
			for r.Next() {
			}
			err = r.Err()
			r.Release()
		}
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%v, want context.Canceled", err)
		}
		checkNoSpillFiles(t, m)
	})
}
