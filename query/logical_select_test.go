package query

import (
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
