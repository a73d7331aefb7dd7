package query

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestHeldCTE: a WITH query named more than once is computed once and
// held (EXPLAIN shows it); named once, or with a result past heldLimit,
// it is planned per use as before; the answers agree either way.
func TestHeldCTE(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 60, 16)
	held := New(c, Options{Alloc: mem, MemoryLimit: 64 << 20})
	// heldLimit(32 KiB) is 2 KiB.
	small := New(c, Options{Alloc: mem, MemoryLimit: 32 << 10})
	for _, tc := range []struct {
		sql   string
		want  []string
		held  bool // EXPLAIN shows a held WITH on the roomy engine
		small bool // and on the one with little memory
	}{
		// TPC-H Q15's shape: the WITH in FROM and in a scalar subquery.
		{`WITH r AS (SELECT grp, sum(qty) AS s FROM orders GROUP BY grp)
		  SELECT grp, s FROM r WHERE s = (SELECT max(s) FROM r)`, []string{"b|335"}, true, true},
		{`WITH t AS (SELECT id FROM orders WHERE id > 55) SELECT count(*) FROM t a, t b WHERE a.id <= b.id`, []string{"15"}, true, true},
		// Its 60 rows of six columns pass the small engine's limit.
		{`WITH t AS (SELECT id, grp, qty, price, ratio, day FROM orders) SELECT count(*) FROM t a, t b WHERE a.id = b.id`, []string{"60"}, true, false},
		{`WITH t AS (SELECT id FROM orders WHERE id > 55) SELECT count(*) FROM t`, []string{"5"}, false, false},
		// A WITH of a set operation, used twice (cte_setop.go).
		{`WITH u AS (SELECT id FROM orders WHERE id > 57 UNION ALL SELECT qty FROM orders WHERE id = 1)
		  SELECT count(*) FROM u a, u b WHERE a.id <= b.id`, []string{"10"}, true, true},
		// Empty result, held.
		{`WITH t AS (SELECT id FROM orders WHERE id > 100) SELECT count(*) FROM t a, t b`, []string{"0"}, true, true},
		// A WITH naming an earlier one that is itself used twice.
		{`WITH a AS (SELECT id FROM orders WHERE id < 4), b AS (SELECT x.id FROM a x, a y WHERE x.id = y.id)
		  SELECT count(*) FROM b, a WHERE b.id = a.id`, []string{"3"}, true, true},
		// Inside a subquery.
		{`SELECT count(*) FROM orders o WHERE o.id IN (WITH t AS (SELECT qty FROM orders WHERE qty < 10)
		  SELECT a.qty FROM t a, t b WHERE a.qty = b.qty)`, []string{"9"}, true, true},
	} {
		for _, e := range []*Engine{held, small} {
			got, _, err := runOrdered(t, e, tc.sql)
			if err != nil {
				t.Errorf("%s: %v", tc.sql, err)
				continue
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("%s (limit %d):\n got %v\nwant %v", tc.sql, e.opts.MemoryLimit, got, tc.want)
			}
			plan, err := e.Explain(context.Background(), "EXPLAIN "+tc.sql)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.held
			if e == small {
				want = tc.small
			}
			if strings.Contains(plan, "Held WITH") != want {
				t.Errorf("%s (limit %d): held %v, plan:\n%s", tc.sql, e.opts.MemoryLimit, want, plan)
			}
		}
	}
}
