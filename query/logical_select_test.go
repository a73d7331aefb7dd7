package query

import (
	"fmt"
	"strings"
	"testing"
)

// The rules over a SELECT's operators above FROM (logical_select_rules.go),
// each on the whole plan before and after it runs (checkRule,
// logical_test.go).

func TestRuleGroupByAll(t *testing.T) {
	checkRule(t, "GROUP BY ALL", []ruleCase{
		// The items without aggregates are the keys (printed as the
		// items their positions name).
		{`SELECT grp, qty % 2, sum(id) FROM orders GROUP BY ALL`, `
Project: grp, qty%2, sum(id)
	Aggregate by ALL: sum(id)
		Scan orders
`, `
Project: grp, qty%2, sum(id)
	Aggregate by grp, qty%2: sum(id)
		Scan orders
`},
		// Only aggregates: one group, no keys.
		{`SELECT count(*), max(qty) FROM orders GROUP BY ALL`, `
Project: count(1), max(qty)
	Aggregate by ALL: count(1), max(qty)
		Scan orders
`, `
Project: count(1), max(qty)
	Aggregate: count(1), max(qty)
		Scan orders
`},
	})
}

func TestRuleAliases(t *testing.T) {
	checkRule(t, "aliases substituted", []ruleCase{
		// HAVING's and WHERE's aliases become their items' expressions;
		// GROUP BY's alias is resolved when the Aggregate is lowered.
		{`SELECT grp AS g, sum(qty) AS s FROM orders WHERE g = 'a' GROUP BY g HAVING s > 3`, `
Project: grp AS g, sum(qty) AS s
	Filter: s>3
		Aggregate by g: sum(qty)
			Filter: g='a'
				Scan orders
`, `
Project: grp AS g, sum(qty) AS s
	Filter: sum(qty)>3
		Aggregate by g: sum(qty)
			Filter: grp='a'
				Scan orders
`},
		// A later item naming an earlier one's alias, kept named as
		// written.
		{`SELECT qty * 2 AS d, d + 1 FROM orders`, `
Project: qty*2 AS d, d+1
	Scan orders
`, `
Project: qty*2 AS d, qty*2+1 AS d+1
	Scan orders
`},
	})
}

func TestRuleOrderByAll(t *testing.T) {
	checkRule(t, "ORDER BY ALL", []ruleCase{
		// Every item, left to right, each DESC; with a LIMIT the Sort is
		// a TopK of LIMIT + OFFSET rows.
		{`SELECT grp, qty FROM orders ORDER BY ALL DESC LIMIT 3 OFFSET 1`, `
Limit 3 offset 1
	TopK 4 by ALL DESC
		Project: grp, qty
			Scan orders
`, `
Limit 3 offset 1
	TopK 4 by grp DESC, qty DESC
		Project: grp, qty
			Scan orders
`},
	})
}

func TestRuleDistinctAsGroupBy(t *testing.T) {
	checkRule(t, "DISTINCT as GROUP BY", []ruleCase{
		{`SELECT DISTINCT grp, qty + 1 AS q FROM orders ORDER BY q`, `
Sort by q
	Distinct
		Project: grp, qty+1 AS q
			Scan orders
`, `
Sort by q
	Project: grp, qty+1 AS q
		Aggregate by grp, qty+1
			Scan orders
`},
	})
	// Over a join, after FROM's rules.
	e, _ := newEngine(t, 60, 16)
	st := logicalStages(t, e, `SELECT DISTINCT a.grp FROM orders a, orders b WHERE a.id = b.qty`, true)
	want := strings.ReplaceAll(`Project: a.grp
	Aggregate by a.grp
		Inner join on a.id=b.qty
			Scan orders AS a columns [id, grp] (~60 rows)
			Scan orders AS b columns [qty] (~60 rows)
`, "\t", "  ")
	if got := st["after DISTINCT as GROUP BY"]; got != want {
		t.Errorf("DISTINCT over a join:\n%s\nwant:\n%s", got, want)
	}
	if got := st["after prune columns"]; !strings.HasPrefix(got, "Distinct\n  Project: a.grp\n") {
		t.Errorf("DISTINCT over a join, before the rule:\n%s", got)
	}
}

func TestRuleHavingToWhere(t *testing.T) {
	checkRule(t, "HAVING into WHERE", []ruleCase{
		// The key's conjuncts move (a key by name, by position, by
		// alias), the aggregate's stays; arithmetic then moves off the
		// moved qty + 1 (the next rule).
		{`SELECT grp AS g, qty, sum(id) FROM orders WHERE id > 2 GROUP BY g, 2 HAVING g <> 'b' AND sum(id) > 5 AND qty + 1 < 9`, `
Project: grp AS g, qty, sum(id)
	Filter: grp!='b' and sum(id)>5 and qty+1<9
		Aggregate by g, qty: sum(id)
			Filter: id>2
				Scan orders
`, `
Project: grp AS g, qty, sum(id)
	Filter: sum(id)>5
		Aggregate by g, qty: sum(id)
			Filter: id>2 AND grp!='b' AND qty+1<9
				Scan orders
`},
		// All of HAVING moves: no Filter is left above the Aggregate.
		{`SELECT grp, count(*) FROM orders GROUP BY grp HAVING grp IS NOT NULL`, `
Project: grp, count(1)
	Filter: grp is not null
		Aggregate by grp: count(1)
			Scan orders
`, `
Project: grp, count(1)
	Aggregate by grp: count(1)
		Filter: grp is not null
			Scan orders
`},
		// Not moved: a column that is no key, a key that is an
		// expression, a volatile call, an OR with an aggregate, a
		// subquery.
		{`SELECT grp, qty % 2, count(*) FROM orders GROUP BY grp, qty % 2 HAVING qty % 2 = 1 AND (grp = 'a' OR count(*) > 1) AND random() < 2 + length(grp) AND grp IN (SELECT grp FROM orders)`, `
Project: grp, qty%2, count(1)
	Filter: qty%2=1 and (grp='a' or count(1)>1) and random()<2+length(grp) and grp in (select grp from orders)
		Aggregate by grp, qty%2: count(1)
			Scan orders
`, `
Project: grp, qty%2, count(1)
	Filter: qty%2=1 and (grp='a' or count(1)>1) and random()<2+length(grp) and grp in (select grp from orders)
		Aggregate by grp, qty%2: count(1)
			Scan orders
`},
		// A float key groups 0 and -0 together: its key is not each
		// row's value, and stays.
		{`SELECT ratio FROM orders GROUP BY ratio HAVING ratio > 0`, `
Project: ratio
	Filter: ratio>0
		Aggregate by ratio
			Scan orders
`, `
Project: ratio
	Filter: ratio>0
		Aggregate by ratio
			Scan orders
`},
		// Without GROUP BY one row returns even over no rows: HAVING
		// stays.
		{`SELECT count(*) FROM orders HAVING 1 = 0`, `
Project: count(1)
	Filter: 1=0
		Aggregate: count(1)
			Scan orders
`, `
Project: count(1)
	Filter: 1=0
		Aggregate: count(1)
			Scan orders
`},
	})
	// The answers are HAVING's, computed here from the table's rows: the
	// groups of the keys that pass, each whole (its count and sum over
	// all its rows), and none when no key passes.
	e, rows := newEngine(t, 60, 16)
	count, sum := map[string]int64{}, map[string]int64{}
	qtys := map[int64]int64{}
	for _, r := range rows {
		if g, ok := r[1].(string); ok && g != "a" {
			count[g]++
			sum[g] += r[0].(int64)
		}
		if q, ok := r[2].(int64); ok && q >= 3 && q <= 7 {
			qtys[q]++
		}
	}
	var byGroup, byQty []string
	for _, g := range []string{"b", "c"} {
		if count[g] > 2 {
			byGroup = append(byGroup, fmt.Sprintf("%s|%d|%d", g, count[g], sum[g]))
		}
	}
	for q := int64(3); q <= 7; q++ {
		byQty = append(byQty, fmt.Sprintf("%d|%d", q, qtys[q]))
	}
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{`SELECT grp, count(*), sum(id) FROM orders GROUP BY grp HAVING grp <> 'a' AND count(*) > 2 ORDER BY 1`, byGroup},
		{`SELECT qty, count(*) FROM orders GROUP BY 1 HAVING qty BETWEEN 3 AND 7 ORDER BY 1`, byQty},
		{`SELECT count(*) FROM orders GROUP BY grp HAVING grp = 'zz'`, nil},
	} {
		got, err := run(t, e, tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n%v\nwant\n%v", tc.sql, got, tc.want)
		}
	}
	if len(byGroup) != 2 || len(byQty) != 5 {
		t.Fatalf("the table changed: %v %v", byGroup, byQty)
	}
}

func TestRuleMoveArith(t *testing.T) {
	checkRule(t, "move arithmetic off columns", []ruleCase{
		{`SELECT id FROM orders WHERE qty + 1 < 10 AND grp <> 'b'`, `
Project: id
	Filter: qty+1<10 AND grp!='b'
		Scan orders
`, `
Project: id
	Filter: qty<9 AND grp!='b'
		Scan orders
`},
	})
}

// Over one table, the conjuncts the scan evaluates and the columns it
// decodes are recorded once the physical planning chose them.
func TestSelectScanStages(t *testing.T) {
	e, _ := newEngine(t, 60, 16)
	st := logicalStages(t, e, `SELECT id, row_number() OVER (PARTITION BY grp ORDER BY qty) AS r FROM orders WHERE qty < 9 AND qty * id > 3 QUALIFY r = 1`, true)
	for stage, want := range map[string]string{
		"after push down predicates": `
Project: id, row_number() over (partition by grp order by qty) AS r
	Filter: row_number() over (partition by grp order by qty)=1
		Window: row_number() over (partition by grp order by qty)
			Filter: qty*id>3
				Scan orders where qty<9 (~11 rows)
`,
		"after prune columns": `
Project: id, row_number() over (partition by grp order by qty) AS r
	Filter: row_number() over (partition by grp order by qty)=1
		Window: row_number() over (partition by grp order by qty)
			Filter: qty*id>3
				Scan orders where qty<9 columns [id, grp, qty] (~11 rows)
`,
	} {
		want = strings.ReplaceAll(strings.TrimPrefix(want, "\n"), "\t", "  ")
		if got := st[stage]; got != want {
			t.Errorf("%s:\n%s\nwant:\n%s", stage, got, want)
		}
	}
}
