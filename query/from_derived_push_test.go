package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestPushIntoDerivedPlans: a conjunct over a derived table reaches its
// SELECT's scan (row filter and pruning) through a projection, an
// aggregate's keys, a WITH name and a view; the forms it must not cross
// keep a Filter above the derived table.
func TestPushIntoDerivedPlans(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 2000, 50) // id 1..2000 in 40 batches of 50
	e := New(c, Options{Alloc: mem})
	exec(t, e, `CREATE VIEW shifted (k, q) AS SELECT id + 1, qty FROM orders`)
	for _, tc := range []struct {
		sql  string
		want []string // in the plan
	}{
		{`SELECT count(*) FROM (SELECT id + 1 AS x, qty FROM orders) t WHERE x BETWEEN 101 AND 200`,
			[]string{"keeps rows where id between 100 and 199", "pruning skips 37"}},
		{`SELECT * FROM (SELECT grp, id, sum(qty) AS s FROM orders GROUP BY grp, id) t WHERE id < 50 AND s > 3`,
			[]string{"keeps rows where id<50", "pruning skips 39", "Having sum(qty) > 3"}},
		{`WITH w AS (SELECT id AS k, qty FROM orders) SELECT count(*) FROM w WHERE k >= 1951`,
			[]string{"keeps rows where id>=1951", "pruning skips 39"}},
		{`SELECT count(*) FROM shifted WHERE k > 1951`, []string{"keeps rows where id>1950", "pruning skips 39"}},
		// Over windows, a conjunct on a partition key moves, the rest stays above.
		{`SELECT * FROM (SELECT id, grp, row_number() OVER (PARTITION BY grp ORDER BY id) AS rn, sum(qty) OVER (PARTITION BY grp, qty) AS s FROM orders) t WHERE grp = 'a' AND rn <= 2 AND id > 0`,
			[]string{"keeps rows where grp='a'", "Filter (rn <= 2) AND (id > 0)"}},
		// Part of WHERE moves: random() stays above.
		{`SELECT count(*) FROM (SELECT id, qty FROM orders) t WHERE id > 1950 AND random() < 2`,
			[]string{"keeps rows where id>1950", "pruning skips 39", "Filter random() < 2"}},
		{`WITH w AS (SELECT id AS k FROM orders WHERE grp = 'a' UNION ALL SELECT id FROM orders WHERE grp = 'b') SELECT count(*) FROM w WHERE k >= 1951`,
			[]string{"keeps rows where grp='a' AND id>=1951", "keeps rows where grp='b' AND id>=1951"}},
		{`SELECT count(*) FROM orders o JOIN (SELECT id AS k, qty FROM orders) d ON o.id = d.k WHERE d.k < 51`,
			[]string{"keeps rows where id<51"}},
		{`SELECT count(*) FROM (SELECT id, qty FROM orders WHERE grp = 'a' UNION ALL SELECT id + 1, qty FROM orders WHERE grp = 'b') u WHERE id <= 50`,
			[]string{"keeps rows where grp='a' AND id<=50", "keeps rows where grp='b' AND id<=49"}},
	} {
		plan, err := e.Explain(context.Background(), tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s: plan lacks %q:\n%s", tc.sql, w, plan)
			}
		}
	}
	// Not moved: the derived table's rows are filtered above it.
	for _, sql := range []string{
		`SELECT * FROM (SELECT id FROM orders LIMIT 100) t WHERE id < 50`,
		`SELECT * FROM (SELECT DISTINCT qty FROM orders) t WHERE qty < 5`,
		`SELECT * FROM (SELECT id, row_number() OVER (ORDER BY id) AS rn FROM orders) t WHERE id < 50`,
		`SELECT * FROM (SELECT id, grp, rank() OVER (PARTITION BY grp ORDER BY id) AS r, count(*) OVER (PARTITION BY id) AS c FROM orders) t WHERE grp = 'a'`,
		`SELECT * FROM (SELECT grp, count(*) AS n, rank() OVER (PARTITION BY grp ORDER BY count(*)) AS r FROM orders GROUP BY grp) t WHERE grp = 'a'`,
		`SELECT * FROM (SELECT id, random() AS r FROM orders) t WHERE r < 0.5`,
		`SELECT * FROM (SELECT id AS qty, qty AS id FROM orders) t WHERE id < 5`,
		`SELECT * FROM (SELECT * FROM orders) t WHERE id < 50`,
		`SELECT * FROM (SELECT id FROM orders UNION SELECT qty FROM orders) t WHERE id < 50`,
		`SELECT * FROM (SELECT id FROM orders UNION ALL SELECT price FROM orders) t WHERE id < 50`,
		`SELECT * FROM (SELECT id FROM orders UNION ALL (SELECT qty FROM orders LIMIT 5)) t WHERE id < 50`,
	} {
		plan, err := e.Explain(context.Background(), sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if !strings.Contains(plan, "Filter") || strings.Contains(plan, "pruning skips 3") {
			t.Errorf("%s: the filter moved into the derived table:\n%s", sql, plan)
		}
	}
	// NoPruning turns the push off with the other rules.
	off := New(c, Options{Alloc: mem, NoPruning: true})
	plan, err := off.Explain(context.Background(), `SELECT count(*) FROM (SELECT id + 1 AS x FROM orders) t WHERE x < 10`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "Filter") {
		t.Errorf("NoPruning pushed:\n%s", plan)
	}
}

// TestPushIntoDerivedKeepsAnswers: random conjuncts over random derived
// tables — projections, aggregates, WITH names, outer joins — answer as
// with NoPruning, which leaves every filter above its derived table.
func TestPushIntoDerivedKeepsAnswers(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 600, 50)
	e := New(c, Options{Alloc: mem})
	full := New(c, Options{Alloc: mem, NoPruning: true})
	r := rand.New(rand.NewPCG(5, 9))
	derived := []string{
		"SELECT id AS k, qty AS v, grp AS g FROM orders",
		"SELECT id * 2 AS k, qty + 1 AS v, lower(grp) AS g FROM orders WHERE id % 3 <> 0",
		"SELECT qty AS k, count(*) AS v, max(grp) AS g FROM orders GROUP BY qty",
		"SELECT qty AS k, sum(id) AS v, grp AS g FROM orders GROUP BY qty, grp HAVING count(*) > 1",
		"SELECT id AS k, CASE WHEN qty IS NULL THEN -1 ELSE qty END AS v, coalesce(grp, 'none') AS g FROM orders",
		"SELECT count(*) AS k, sum(qty) AS v, 'all' AS g FROM orders",
		"SELECT id AS k, qty AS v, grp AS g FROM orders WHERE id < 300 UNION ALL SELECT id + 1000, qty * 2, 'x' FROM orders WHERE grp IS NULL",
		"SELECT id AS k, qty AS v, grp AS g FROM orders UNION ALL SELECT 7, NULL, NULL FROM orders WHERE id = 3",
		"SELECT qty AS k, count(*) AS v, max(grp) AS g FROM orders GROUP BY qty UNION ALL SELECT id, id, grp FROM orders WHERE id < 20",
		"SELECT qty AS k, row_number() OVER (PARTITION BY qty ORDER BY id) AS v, grp AS g FROM orders",
		"SELECT qty AS k, sum(id) OVER (PARTITION BY qty, grp ORDER BY id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS v, grp AS g FROM orders",
		"SELECT id AS k, count(*) OVER (PARTITION BY grp) AS v, grp AS g FROM orders",
		// || is NULL with a NULL side; planned again from text it must
		// not turn into concat(), which skips NULLs
		"SELECT id AS k, qty AS v, grp || 'x' AS g FROM orders",
		"SELECT id AS k, qty AS v, qty + 1 || grp AS g FROM orders WHERE id < 400 UNION ALL SELECT id, qty, grp || 'y' FROM orders WHERE id < 50",
	}
	conds := []func() string{
		func() string { return fmt.Sprintf("d.k %s %d", pick(r, "<", "<=", "=", "<>", ">", ">="), r.IntN(700)) },
		func() string { return fmt.Sprintf("d.v %s %d", pick(r, "<", ">", "="), r.IntN(60)) },
		func() string { return fmt.Sprintf("d.k + d.v > %d", r.IntN(600)) },
		func() string {
			return "d.g " + pick(r, "= 'a'", "IS NULL", "IS NOT NULL", "<> 'b'", "LIKE 'n%'", "LIKE '%x'")
		},
		func() string { return fmt.Sprintf("d.v BETWEEN %d AND %d", r.IntN(30), 20+r.IntN(60)) },
		// planned again from restored text, where IS DISTINCT FROM once lost its NOT (markDistinct)
		func() string { return fmt.Sprintf("d.v IS %sDISTINCT FROM %d", pick(r, "", "NOT "), r.IntN(10)) },
	}
	n := 120
	if testing.Short() {
		n = 30
	}
	for range n {
		w := conds[r.IntN(len(conds))]()
		if r.IntN(2) == 0 {
			w += " AND " + conds[r.IntN(len(conds))]()
		}
		d := derived[r.IntN(len(derived))]
		var sql string
		switch r.IntN(4) {
		case 0:
			sql = fmt.Sprintf("SELECT d.k, d.v, d.g FROM (%s) d WHERE %s ORDER BY 1, 2, 3", d, w)
		case 1: // WITH over a UNION ALL too (cte_setop.go)
			sql = fmt.Sprintf("WITH d AS (%s) SELECT d.k, d.v, d.g FROM d WHERE %s ORDER BY 1, 2, 3", d, w)
		case 2:
			sql = fmt.Sprintf("SELECT o.id, d.v FROM orders o LEFT JOIN (%s) d ON o.qty = d.k AND %s WHERE o.id < 200 ORDER BY 1, 2", d, w)
		default:
			sql = fmt.Sprintf("SELECT o.id, d.v FROM orders o JOIN (%s) d ON o.qty = d.k WHERE %s ORDER BY 1, 2", d, w)
		}
		want, err := run(t, full, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		got, err := run(t, e, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: pushing changed the answer\n got %d rows %.200v\nwant %d rows %.200v", sql, len(got), got, len(want), want)
		}
	}
}
