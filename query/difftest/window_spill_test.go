//go:build duckdb

package difftest

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/query"
	"github.com/quiverdb/quiver/spill"
)

// TestWindowSpill compares windows whose partitions pass the memory limit
// many times over, and whose calls need the whole partition (so each is
// spilled and read back, query/window_spill.go), with DuckDB's answers:
// ntile, percent_rank, cume_dist, aggregates over the whole partition and
// to its end (min, max and float sums too), frames reaching ahead,
// first/last_value. The rows shown are
// the ORDER BY keys, so rows that tie are equal, and the answers compare
// as multisets.
func TestWindowSpill(t *testing.T) {
	ctx := context.Background()
	keys := 100_000
	if testing.Short() {
		keys = 25_000
	}
	c := loadGroups(t, keys)
	m, err := spill.NewManager(spill.Config{Dir: t.TempDir(), Codec: codec.SettingLZ4})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	q := query.New(c, query.Options{MemoryLimit: 1 << 20, Spill: m, Workers: 2})
	for _, sql := range []string{
		`SELECT k, s, v, name, ntile(5) OVER w, percent_rank() OVER (ORDER BY k), cume_dist() OVER (ORDER BY k DESC),
			sum(v) OVER (), count(*) OVER (), avg(p) OVER (), min(name) OVER (), max(f) OVER (), stddev_samp(v) OVER ()
			FROM g WINDOW w AS (ORDER BY k, s, v, name)`,
		`SELECT k, s, v, name, sum(v) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
			count(v) OVER (ORDER BY k RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
			sum(p) OVER (w ROWS BETWEEN 3 PRECEDING AND 5 FOLLOWING),
			first_value(v) OVER (w ROWS BETWEEN 2 FOLLOWING AND 4 FOLLOWING),
			last_value(name) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
			min(v) OVER (w ROWS BETWEEN 1 PRECEDING AND 2 FOLLOWING), avg(f) OVER (w ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING),
			min(name) OVER (w ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
			max(v) OVER (ORDER BY k RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
			sum(f) OVER (w ROWS BETWEEN 1 PRECEDING AND UNBOUNDED FOLLOWING),
			first_value(name) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 2 PRECEDING),
			nth_value(v, 5) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 3 FOLLOWING),
			last_value(s) OVER (w ROWS BETWEEN 2 FOLLOWING AND UNBOUNDED FOLLOWING)
			FROM g WINDOW w AS (ORDER BY k, s, v, name)`,
		`SELECT k, s, v, name, ntile(3) OVER (PARTITION BY k % 2 ORDER BY k, s, v, name), sum(v) OVER (PARTITION BY k % 2),
			cume_dist() OVER (PARTITION BY k % 2 ORDER BY k), max(name) OVER (PARTITION BY k % 2)
			FROM g`,
	} {
		t.Run(sql[:40], func(t *testing.T) {
			st, want := againstDuckDB(t, ctx, q, sql)
			if st.Spill.Files == 0 {
				t.Errorf("%d rows did not spill", len(want))
			}
			if s := m.Stats(); s.Files != 0 {
				t.Errorf("%d spill files left", s.Files)
			}
			t.Logf("%d rows; peak memory %d; spilled %v", len(want), st.PeakMemory, st.Spill)
		})
	}
}

// loadGroups loads groupsRecords(keys) as table g into a new cache and
// into DuckDB, as TestGroupBySpill does.
func loadGroups(t *testing.T, keys int) *cache.Cache {
	t.Helper()
	ctx := context.Background()
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
	path := filepath.Join(t.TempDir(), "g.parquet")
	if err := writeParquet(path, recs); err != nil {
		t.Fatal(err)
	}
	if _, err := env.db.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE TABLE g AS SELECT * FROM read_parquet('%s')", path)); err != nil {
		t.Fatal(err)
	}
	return c
}
