package query

import (
	"context"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// TestShuffleHeldInMemory: a grace join and a GROUP BY spilling through
// the shuffle whose compressed map outputs fit half the memory limit keep
// them in memory: they spill (rows go through the shuffle) without
// writing a file; under a limit where they do not fit, outputs go to
// disk, some after being held (moved to make room), and the query still
// finishes within its limit. Answers are those in memory; files, Arrow
// memory and the tracker are released (runQuietStats).
func TestShuffleHeldInMemory(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := spillManager(t, spill.Config{Codec: codec.SettingLZ4})

	c, err := cache.New(cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// -short (CI's race run): a quarter of the join's rows and limits,
	// half the GROUP BY's keys and its tight limit (2 MiB still holds
	// every output; its tables' shares have floors of their own).
	scale, gscale := int64(1), int64(1)
	if testing.Short() {
		scale, gscale = 4, 2
	}
	probeRows, buildRows := 20_000/int(scale), 40_000/int(scale)
	rng := rand.New(rand.NewPCG(1, 2))
	benchTable(t, c, "probe", probeRows, func(i int) (int64, int64) { return int64(rng.IntN(2 * buildRows)), int64(i) })
	benchTable(t, c, "build", buildRows, func(i int) (int64, int64) { return int64(i), int64(i * 3) })
	join := func() planNode {
		return &hashJoinNode{probe: joinScan(t, c, "probe"), build: joinScan(t, c, "build"), kind: joinInner,
			probeKeys: []int{0}, buildKeys: []int{0}, estRows: -1}
	}
	groups := groupsTable(t, mem, 40_000/int(gscale))
	const groupBy = `SELECT k, count(*), sum(v) FROM t GROUP BY k`
	sql := func(e *Engine) planNode {
		p, _, err := e.plan(context.Background(), groupBy, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name  string
		c     *cache.Cache
		node  func(*Engine) planNode
		limit int64
		inMem bool // every output held: no file
	}{
		{"join/fits", c, func(*Engine) planNode { return join() }, 2 << 20 / scale, true},
		{"join/tight", c, func(*Engine) planNode { return join() }, 512 << 10 / scale, false},
		{"groupby/fits", groups, sql, 4 << 20, true},
		{"groupby/tight", groups, sql, 512 << 10 / gscale, false},
	} {
		if testing.Short() && tc.name == "groupby/tight" {
			continue // the EXPLAIN ANALYZE below runs it
		}
		t.Run(tc.name, func(t *testing.T) {
			inMem := New(tc.c, Options{Alloc: mem, MemoryLimit: 1 << 30, Workers: 2})
			want, _, _, err := runJoinStats(t, inMem, mem, tc.node(inMem))
			if err != nil {
				t.Fatal(err)
			}
			e := New(tc.c, Options{Alloc: mem, MemoryLimit: tc.limit, Workers: 2, Spill: m})
			before := m.Stats().FilesCreated
			got, _, st, err := runJoinStats(t, e, mem, tc.node(e))
			if err != nil {
				t.Fatal(err)
			}
			checkNoSpillFiles(t, m)
			if !slices.Equal(got, want) {
				i := firstDiff(got, want)
				t.Fatalf("%d rows, in memory %d; first difference at %d: %q, want %q", len(got), len(want), i, at(got, i), at(want, i))
			}
			files := m.Stats().FilesCreated - before
			switch {
			case st.Rows == 0:
				t.Fatalf("nothing went through the shuffle: %v", st)
			case tc.inMem && (files != 0 || st.Files != 0 || st.Held == 0 || st.HeldBytes == 0):
				t.Fatalf("outputs that fit: %d files created; %v", files, st)
			case !tc.inMem && (files == 0 || st.Files != files):
				t.Fatalf("outputs that do not fit: %d files created; %v", files, st)
			}
		})
	}

	// EXPLAIN ANALYZE says where the outputs went, and under the tight
	// limit some were held, then moved to disk for a table's growth,
	// which kept the query within its limit. Whether a table grows while
	// an output is held depends on how the two workers interleave (one
	// CI run in many saw no move), so up to 5 runs may show the move;
	// every run must stay within the limit.
	e := New(groups, Options{Alloc: mem, MemoryLimit: 512 << 10 / gscale, Workers: 2, Spill: m})
	var text string
	moved := false
	for range 5 {
		rows, err := run(t, e, "EXPLAIN ANALYZE "+groupBy)
		if err != nil {
			t.Fatal(err)
		}
		text = strings.Join(rows, "\n")
		if mm := regexp.MustCompile(`peak memory (\d+) of (\d+) bytes`).FindStringSubmatch(text); mm == nil || len(mm[1]) > len(mm[2]) || len(mm[1]) == len(mm[2]) && mm[1] > mm[2] {
			t.Fatalf("EXPLAIN ANALYZE: held outputs pushed the query past its limit:\n%s", text)
		}
		checkNoSpillFiles(t, m)
		mm := regexp.MustCompile(`(\d+) map outputs on disk, \d+ bytes, (\d+) held in memory, \d+ bytes \((\d+) moved to disk later\)`).FindStringSubmatch(text)
		if mm == nil || mm[1] == "0" {
			t.Fatalf("EXPLAIN ANALYZE does not show outputs on disk:\n%s", text)
		}
		if moved = mm[3] != "0"; moved {
			break
		}
	}
	if !moved {
		t.Fatalf("EXPLAIN ANALYZE shows no output moved to disk in 5 runs:\n%s", text)
	}
}
