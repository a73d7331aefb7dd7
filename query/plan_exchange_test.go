package query

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// TestExchangeChosen: a GROUP BY whose keys' distinct counts multiply to
// Options.ExchangeGroups or more goes through the hash exchange, with the
// same answer; fewer groups, a dense key, a negative setting, or a
// memory limit the groups may not fit in when the engine can spill keep
// the per-worker tables.
func TestExchangeChosen(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 3000, 64)
	m, err := spill.NewManager(spill.Config{Dir: t.TempDir(), Codec: codec.SettingLZ4})
	if err != nil {
		t.Fatal(err)
	}
	const many = `SELECT grp, qty, count(*), sum(id) FROM orders GROUP BY grp, qty`
	for _, tc := range []struct {
		name string
		opts Options
		sql  string
		want bool
	}{
		{"many groups", Options{ExchangeGroups: 10}, many, true},
		{"fewer than the setting", Options{ExchangeGroups: 1_000_000}, many, false},
		{"never", Options{ExchangeGroups: -1}, many, false},
		{"a dense key", Options{ExchangeGroups: 10}, `SELECT id, count(*) FROM orders GROUP BY id`, false},
		{"spilling, fits", Options{ExchangeGroups: 10, Spill: m, MemoryLimit: 64 << 20}, many, true},
		{"spilling, may not fit", Options{ExchangeGroups: 10, Spill: m, MemoryLimit: 4 << 10}, many, false},
	} {
		tc.opts.Alloc = mem
		e := New(c, tc.opts)
		plan, err := e.Explain(context.Background(), "EXPLAIN "+tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(plan, "(hash exchange: many groups)"); got != tc.want {
			t.Errorf("%s: exchange %v, want %v:\n%s", tc.name, got, tc.want, plan)
		}
		if tc.opts.MemoryLimit > 0 && tc.opts.MemoryLimit < 1<<20 {
			continue // the point was the plan
		}
		got, _, err := runOrdered(t, e, tc.sql+" ORDER BY 1, 2")
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := runOrdered(t, New(c, Options{Alloc: mem, ExchangeGroups: -1}), tc.sql+" ORDER BY 1, 2")
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: answers differ from the per-worker tables'", tc.name)
		}
	}
}
