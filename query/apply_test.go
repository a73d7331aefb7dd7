package query

import (
	"fmt"
	"strings"
	"testing"
)

// TestApply: correlated subqueries the planner does not turn into joins
// (in the SELECT list, under OR, with outer columns in other comparisons
// than inner = outer, count over no rows) run per distinct outer tuple
// and agree with the same questions asked as joins.
func TestApply(t *testing.T) {
	e, _ := newEngine(t, 60, 16)
	for _, tc := range []struct{ apply, join string }{
		{`SELECT id, (SELECT count(*) FROM orders x WHERE x.qty < o.qty) FROM orders o ORDER BY id`,
			`SELECT o.id, count(x.qty) FROM orders o LEFT JOIN orders x ON x.qty < o.qty GROUP BY o.id ORDER BY o.id`},
		{`SELECT count(*) FROM orders o WHERE EXISTS (SELECT 1 FROM orders x WHERE x.qty > o.qty + 40) OR o.grp = 'a'`,
			`SELECT count(*) FROM orders o WHERE o.qty + 40 < (SELECT max(qty) FROM orders) OR o.grp = 'a'`},
		{`SELECT count(*) FROM orders o WHERE NOT EXISTS (SELECT 1 FROM orders x WHERE x.qty > o.qty) AND o.qty IS NOT NULL`,
			`SELECT count(*) FROM orders o WHERE o.qty = (SELECT max(qty) FROM orders)`},
		{`SELECT id FROM orders a WHERE a.id = (SELECT count(*) FROM orders b WHERE b.qty = a.id) ORDER BY id`,
			`SELECT a.id FROM orders a LEFT JOIN orders b ON b.qty = a.id GROUP BY a.id HAVING a.id = count(b.qty) ORDER BY a.id`},
		{`SELECT count(*) FROM orders a WHERE a.qty > (SELECT coalesce(max(b.qty), 0) FROM orders b WHERE b.id = a.id + 1)`,
			`SELECT count(*) FROM orders a LEFT JOIN orders b ON b.id = a.id + 1 WHERE a.qty > coalesce(b.qty, 0)`},
		{`SELECT count(*) FROM orders o WHERE o.qty IN (SELECT x.qty FROM orders x WHERE x.grp = 'a') OR o.id < 3`,
			`SELECT count(*) FROM (SELECT id FROM orders o WHERE o.qty IN (SELECT x.qty FROM orders x WHERE x.grp = 'a') UNION SELECT id FROM orders WHERE id < 3) u`},
		{`SELECT count(*) FROM orders o WHERE (o.qty IN (SELECT x.qty FROM orders x WHERE x.id > o.id)) IS NULL`,
			`SELECT count(*) FROM orders o WHERE (o.qty IS NULL AND EXISTS (SELECT 1 FROM orders x WHERE x.id > o.id)) OR (NOT EXISTS (SELECT 1 FROM orders x WHERE x.id > o.id AND x.qty = o.qty) AND EXISTS (SELECT 1 FROM orders x WHERE x.id > o.id AND x.qty IS NULL))`},
		{`SELECT id, qty * 2 + (SELECT sum(x.qty) FROM orders x WHERE x.grp = o.grp AND x.id <> o.id) FROM orders o ORDER BY id`,
			`SELECT o.id, o.qty * 2 + sum(x.qty) FROM orders o LEFT JOIN orders x ON x.grp = o.grp AND x.id <> o.id GROUP BY o.id, o.qty ORDER BY o.id`},
	} {
		got, err := run(t, e, tc.apply)
		if err != nil {
			t.Fatalf("%s: %v", tc.apply, err)
		}
		want, err := run(t, e, tc.join)
		if err != nil {
			t.Fatalf("%s: %v", tc.join, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s:\n got %v\nwant %v (%s)", tc.apply, got, want, tc.join)
		}
	}
	// No row: NULL; several rows: an error naming the subquery.
	got, err := run(t, e, `SELECT (SELECT max(x.id) FROM orders x WHERE x.id < o.id AND x.id > o.id) FROM orders o WHERE id < 3`)
	if err != nil || len(got) == 0 || strings.ReplaceAll(strings.Join(got, ""), "NULL", "") != "" {
		t.Errorf("a subquery of no rows: %v, %v; want NULLs", got, err)
	}
	if _, err := run(t, e, `SELECT (SELECT x.id FROM orders x WHERE x.qty < o.qty) FROM orders o`); err == nil || !strings.Contains(err.Error(), "more than one row") {
		t.Errorf("a subquery of several rows: %v", err)
	}
	plan, err := e.Explain(t.Context(), `EXPLAIN SELECT id, (SELECT count(*) FROM orders x WHERE x.qty < o.qty) FROM orders o`)
	if err != nil || !strings.Contains(plan, "(select count(1) from orders as x where x.qty<o.qty)") {
		t.Errorf("EXPLAIN does not show the subquery: %v\n%s", err, plan)
	}
}

// TestApplyMemoryCounts: what a subquery Apply runs holds counts against
// its query's memory limit: the query's peak includes it (it was the
// subquery's own before, beside the limit).
func TestApplyMemoryCounts(t *testing.T) {
	e, _ := newEngine(t, 600, 16)
	_, alone, err := runOrdered(t, e, `SELECT count(DISTINCT y.price) FROM orders y WHERE y.id >= 1`)
	if err != nil {
		t.Fatal(err)
	}
	_, with, err := runOrdered(t, e, `SELECT x.id, (SELECT count(DISTINCT y.price) FROM orders y WHERE y.id >= x.id) FROM orders x WHERE x.id <= 2`)
	if err != nil {
		t.Fatal(err)
	}
	// Workers grow their tables differently run to run: half is enough to
	// tell the subquery's memory from none (64 bytes before).
	if alone.PeakMemory == 0 || with.PeakMemory < alone.PeakMemory/2 {
		t.Fatalf("peak with the subquery %d bytes, the subquery alone %d", with.PeakMemory, alone.PeakMemory)
	}
}
