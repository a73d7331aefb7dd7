package query

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/spill"
)

// TestDictionaryGroupByCodes: a GROUP BY on a kept dictionary column is
// grouped by its codes (EXPLAIN says so, and nothing decodes the column),
// and answers as the decoded twin does, in memory, through the exchange,
// and spilling through the shuffle within a small memory limit.
func TestDictionaryGroupByCodes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	rows := 30000
	if testing.Short() {
		rows = 10000
	}
	recs := dictRecords(mem, rows, 1500, 400)
	plain := decodedRecords(t, mem, recs)
	putTable(t, c, "kept", recs)
	putTable(t, c, "plain", plain)
	for _, r := range append(recs, plain...) {
		r.Release()
	}
	if info, err := c.Info("kept"); err != nil || info.Columns[0].Dictionary != "kept" {
		t.Fatalf("column d is not kept as dictionaries: %v", err)
	}
	w := dictWords(400)
	queries := []string{
		`SELECT d, count(*), sum(x), min(x) FROM %s GROUP BY d`,
		`SELECT d, count(*) FROM %s WHERE x %% 3 = 0 GROUP BY d HAVING count(*) > 1`,
		`SELECT d, count(*) FROM %s WHERE d > '` + w[200] + `' GROUP BY 1`,
		`SELECT d, x %% 4, count(*) FROM %s GROUP BY d, x %% 4`,
		`SELECT count(*), max(x) FROM %s GROUP BY d ORDER BY 1 DESC, 2 LIMIT 5`,
		// a group per row: past the spill engine's limit, so the shuffle
		// spill routes dictionary keys (decoded first)
		`SELECT d, x, count(*) FROM %s GROUP BY d, x`,
	}
	engines := map[string]*Engine{
		"memory":   New(c, Options{Alloc: mem}),
		"exchange": New(c, Options{Alloc: mem, Exchange: true, Workers: 2}),
		"spill": New(c, Options{Alloc: mem, MemoryLimit: 256 << 10, Workers: 2,
			Spill: spillManager(t, spill.Config{})}),
	}
	for name, e := range engines {
		for _, q := range queries {
			got, err := run(t, e, fmt.Sprintf(q, "kept"))
			if err != nil {
				t.Fatalf("%s: %s: %v", name, fmt.Sprintf(q, "kept"), err)
			}
			want, err := run(t, e, fmt.Sprintf(q, "plain"))
			if err != nil {
				t.Fatalf("%s: %s: %v", name, fmt.Sprintf(q, "plain"), err)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) || len(want) < 5 {
				t.Errorf("%s: %s: %d rows, decoded %d", name, fmt.Sprintf(q, "kept"), len(got), len(want))
			}
		}
	}
	analyzed, err := run(t, engines["spill"], "EXPLAIN ANALYZE "+fmt.Sprintf(queries[len(queries)-1], "kept"))
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(analyzed, "\n"); !strings.Contains(text, "spilled through the shuffle") {
		t.Errorf("the last query did not spill, so routing dictionary keys went untested:\n%s", text)
	}
	plan, err := run(t, engines["memory"], "EXPLAIN "+fmt.Sprintf(queries[0], "kept"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(plan, "\n")
	if !strings.Contains(text, "HashAggregate by d (dictionary codes)") || strings.Contains(text, "ToEngine") {
		t.Errorf("the plan does not group by codes without decoding:\n%s", text)
	}
}

// TestDictionaryGroupByCodesCancel: a query cancelled before its first
// batch releases what it took (dictEngine's allocator must end empty).
func TestDictionaryGroupByCodesCancel(t *testing.T) {
	e := dictEngine(t, 20000, 1500, 60)
	ctx, cancel := context.WithCancel(context.Background())
	r, err := e.Query(ctx, "SELECT d, count(*) FROM kept GROUP BY d")
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	for r.Next() {
	}
	r.Release()
}
