package query

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The logical plan's rules (logical.go), each on the plan before and
// after it runs, over the test table orders (id, grp, qty; see
// testTable) under aliases. Answers against DuckDB are in difftest.

// logicalStages plans sql under EXPLAIN FORMAT = 'logical' and returns
// the FROM part of the statement's own logical plan at each stage of
// optimize and optimizeSelect, by name ("bound", "after factor ORs", …);
// with whole, the whole plan, the operators above FROM over it.
func logicalStages(t *testing.T, e *Engine, sql string, whole bool) map[string]string {
	t.Helper()
	p, _, err := e.plan(context.Background(), "EXPLAIN FORMAT = 'logical' "+sql, nil)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	n, ok := p.(*logicalExplainNode)
	if !ok {
		t.Fatalf("%s: plan %T, not a logical EXPLAIN", sql, p)
	}
	for _, tp := range n.trace.plans {
		if tp.depth == 0 {
			out := map[string]string{}
			for _, st := range tp.stages {
				out[st.name] = st.text
				if whole {
					out[st.name] = st.full()
				}
			}
			return out
		}
	}
	t.Fatalf("%s: no logical plan of the statement", sql)
	return nil
}

type ruleCase struct {
	sql           string
	before, after string // the plan before and after the rule, lines indented by tabs
}

// checkRule checks each case's plan before and after the named rule: a
// rule of FROM and WHERE (logicalRules) on the FROM part of the plan, a
// rule above FROM (selectRules) on the whole plan. The cases of a rule
// above FROM read one table: a joining SELECT's FROM rules would come
// between "bound" and the first of those.
func checkRule(t *testing.T, rule string, cases []ruleCase) {
	t.Helper()
	e, _ := newEngine(t, 60, 16)
	var names []string
	for _, r := range logicalRules() {
		names = append(names, r.name)
	}
	whole := !slices.Contains(names, rule)
	if whole {
		names = names[:0]
		for _, r := range selectRules() {
			names = append(names, r.name)
		}
	}
	prev := "bound"
	found := false
	for _, name := range names {
		if name == rule {
			found = true
			break
		}
		prev = "after " + name
	}
	if !found {
		t.Fatalf("no rule %q", rule)
	}
	tabs := func(s string) string {
		s = strings.TrimPrefix(s, "\n")
		return strings.ReplaceAll(s, "\t", "  ")
	}
	for _, tc := range cases {
		st := logicalStages(t, e, tc.sql, whole)
		if got, want := st[prev], tabs(tc.before); got != want {
			t.Errorf("%s\n%s:\n%s\nwant:\n%s", tc.sql, prev, got, want)
		}
		if got, want := st["after "+rule], tabs(tc.after); got != want {
			t.Errorf("%s\nafter %s:\n%s\nwant:\n%s", tc.sql, rule, got, want)
		}
	}
}

func TestRuleFactorOrs(t *testing.T) {
	checkRule(t, "factor ORs", []ruleCase{
		// The key every branch has comes out of the OR (TPC-H Q19).
		{`SELECT count(*) FROM orders a, orders b WHERE (a.id = b.id AND a.qty < 5) OR (a.id = b.id AND b.qty > 40)`, `
Filter: (a.id=b.id and a.qty<5) or (a.id=b.id and b.qty>40)
	Inner join
		Scan orders AS a
		Scan orders AS b
`, `
Filter: a.id=b.id AND ((a.qty<5) or (b.qty>40))
	Inner join
		Scan orders AS a
		Scan orders AS b
`},
		// Branches that each restrict a table imply the OR of those
		// restrictions, for that table's scan (TPC-H Q7); the OR stays.
		{`SELECT count(*) FROM orders a, orders b WHERE a.id = b.qty AND ((a.grp = 'a' AND b.id < 5) OR (a.grp = 'b' AND b.id > 50))`, `
Filter: a.id=b.qty AND ((a.grp='a' and b.id<5) or (a.grp='b' and b.id>50))
	Inner join
		Scan orders AS a
		Scan orders AS b
`, `
Filter: a.id=b.qty AND ((a.grp='a' and b.id<5) or (a.grp='b' and b.id>50)) AND ((a.grp='a') or (a.grp='b')) AND ((b.id<5) or (b.id>50))
	Inner join
		Scan orders AS a
		Scan orders AS b
`},
	})
}

func TestRuleDecorrelate(t *testing.T) {
	checkRule(t, "decorrelate subqueries", []ruleCase{
		// EXISTS is a semi join, NOT IN a null-aware anti join, NOT EXISTS
		// an anti join; the correlated inequality is the semi join's
		// residual.
		{`SELECT count(*) FROM orders a WHERE EXISTS (SELECT * FROM orders b WHERE b.qty = a.id AND b.grp <> a.grp) AND a.id NOT IN (SELECT qty FROM orders c WHERE c.grp = 'a') AND NOT EXISTS (SELECT * FROM orders d WHERE d.id = a.qty)`, `
Filter: exists (select * from orders as b where b.qty=a.id and b.grp!=a.grp) AND a.id not in (select qty from orders as c where c.grp='a') AND not exists (select * from orders as d where d.id=a.qty)
	Scan orders AS a
`, `
Anti join on $sub3.$c0=a.qty
	NullAwareAnti join on a.id=$sub2.$in
		Semi join on $sub1.$c0=a.id AND $sub1.$c1!=a.grp
			Scan orders AS a
			Subquery $sub1 [$c0, $c1]
		Subquery $sub2 [$in]
	Subquery $sub3 [$c0]
`},
		// A correlated scalar subquery is a relation grouped by its
		// correlation key, joined on it.
		{`SELECT id FROM orders a WHERE a.qty < (SELECT max(b.qty) FROM orders b WHERE b.grp = a.grp)`, `
Filter: a.qty<(select max(b.qty) from orders as b where b.grp=a.grp)
	Scan orders AS a
`, `
Filter: a.grp=$sub1.$k0 AND a.qty<$sub1.$value
	Inner join
		Scan orders AS a
		Subquery $sub1 [$value, $k0]
`},
	})
}

func TestRuleOuterToInner(t *testing.T) {
	checkRule(t, "outer joins to inner", []ruleCase{
		// WHERE rejects the NULL rows of b: inner.
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE b.grp = 'a'`, `
Filter: b.grp='a'
	Left join on a.id=b.qty
		Scan orders AS a
		Scan orders AS b
`, `
Filter: b.grp='a'
	Inner join on a.id=b.qty
		Scan orders AS a
		Scan orders AS b
`},
		// IS NULL keeps them: still LEFT.
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE b.grp IS NULL`, `
Filter: b.grp is null
	Left join on a.id=b.qty
		Scan orders AS a
		Scan orders AS b
`, `
Filter: b.grp is null
	Left join on a.id=b.qty
		Scan orders AS a
		Scan orders AS b
`},
		// A FULL JOIN whose right side's NULLs WHERE rejects keeps only
		// the right side's unmatched rows: b LEFT JOIN a.
		{`SELECT count(*) FROM orders a FULL JOIN orders b ON a.id = b.qty WHERE b.grp = 'a'`, `
Filter: b.grp='a'
	Full join on a.id=b.qty
		Scan orders AS a
		Scan orders AS b
`, `
Filter: b.grp='a'
	Left join on a.id=b.qty
		Scan orders AS b
		Scan orders AS a
`},
		// A semi join's condition rejects NULLs as WHERE's do ...
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE EXISTS (SELECT 1 FROM orders c WHERE c.id = b.id)`, `
Semi join on $sub1.$c0=b.id
	Left join on a.id=b.qty
		Scan orders AS a
		Scan orders AS b
	Subquery $sub1 [$c0]
`, `
Semi join on $sub1.$c0=b.id
	Inner join on a.id=b.qty
		Scan orders AS a
		Scan orders AS b
	Subquery $sub1 [$c0]
`},
		// ... an anti join's does not: it keeps the NULL rows.
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE NOT EXISTS (SELECT 1 FROM orders c WHERE c.id = b.id)`, `
Anti join on $sub1.$c0=b.id
	Left join on a.id=b.qty
		Scan orders AS a
		Scan orders AS b
	Subquery $sub1 [$c0]
`, `
Anti join on $sub1.$c0=b.id
	Left join on a.id=b.qty
		Scan orders AS a
		Scan orders AS b
	Subquery $sub1 [$c0]
`},
	})
}

func TestRuleInferFilters(t *testing.T) {
	checkRule(t, "infer filters through join keys", []ruleCase{
		// a.id = b.qty = c.id: a.id < 10 holds of all three (qty is int32,
		// id int64: both compute as BIGINT).
		{`SELECT count(*) FROM orders a JOIN orders b ON a.id = b.qty JOIN orders c ON c.id = b.qty WHERE a.id < 10 AND b.grp IN ('a', 'b')`, `
Filter: a.id<10 AND b.grp in ('a','b')
	Inner join on a.id=b.qty AND c.id=b.qty
		Scan orders AS a
		Scan orders AS b
		Scan orders AS c
`, `
Filter: a.id<10 AND b.grp in ('a','b') AND b.qty<10 AND c.id<10
	Inner join on a.id=b.qty AND c.id=b.qty
		Scan orders AS a
		Scan orders AS b
		Scan orders AS c
`},
		// Both ways, LIKE and BETWEEN; a filter already there is not
		// added again.
		{`SELECT count(*) FROM orders a, orders b WHERE a.grp = b.grp AND a.grp LIKE 'a%' AND b.id BETWEEN 3 AND 5 AND a.id = b.id AND a.id BETWEEN 3 AND 5`, `
Filter: a.grp=b.grp AND a.grp like 'a%' AND b.id between 3 and 5 AND a.id=b.id AND a.id between 3 and 5
	Inner join
		Scan orders AS a
		Scan orders AS b
`, `
Filter: a.grp=b.grp AND a.grp like 'a%' AND b.id between 3 and 5 AND a.id=b.id AND a.id between 3 and 5 AND b.grp like 'a%'
	Inner join
		Scan orders AS a
		Scan orders AS b
`},
		// A LEFT JOIN passes a filter of its preserved side to its inner
		// side, in ON ...
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE a.id < 10`, `
Filter: a.id<10
	Left join on a.id=b.qty
		Scan orders AS a
		Scan orders AS b
`, `
Filter: a.id<10
	Left join on a.id=b.qty and b.qty<10
		Scan orders AS a
		Scan orders AS b
`},
		// ... but not the reverse: its inner side's filter says nothing of
		// the preserved rows. Nor is an equality of columns of different
		// types used (id is BIGINT, ratio DOUBLE).
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty AND b.qty < 10 WHERE a.grp = 'a'`, `
Filter: a.grp='a'
	Left join on a.id=b.qty and b.qty<10
		Scan orders AS a
		Scan orders AS b
`, `
Filter: a.grp='a'
	Left join on a.id=b.qty and b.qty<10
		Scan orders AS a
		Scan orders AS b
`},
		{`SELECT count(*) FROM orders a, orders b WHERE a.id = b.ratio AND a.id < 10`, `
Filter: a.id=b.ratio AND a.id<10
	Inner join
		Scan orders AS a
		Scan orders AS b
`, `
Filter: a.id=b.ratio AND a.id<10
	Inner join
		Scan orders AS a
		Scan orders AS b
`},
	})
}

func TestRulePushDown(t *testing.T) {
	checkRule(t, "push down predicates", []ruleCase{
		// Conjuncts over one table go into its scan (the outer join made
		// inner lends its ON conditions to the region); the rest are the
		// region's, for keys and residuals.
		{`SELECT a.grp, b.qty FROM orders a LEFT JOIN orders b ON a.id = b.qty AND b.grp = 'a' JOIN orders c ON c.id = a.id WHERE a.qty > 3 AND c.grp <> b.grp`, `
Filter: a.qty>3 AND c.grp!=b.grp
	Inner join on a.id=b.qty and b.grp='a' AND c.id=a.id
		Scan orders AS a
		Scan orders AS b
		Scan orders AS c
`, `
Inner join on c.grp!=b.grp AND a.id=b.qty AND c.id=a.id
	Scan orders AS a where a.qty>3 (~56 rows)
	Scan orders AS b where b.grp='a' (~20 rows)
	Scan orders AS c (~60 rows)
`},
		// A LEFT JOIN: WHERE's conjunct over the preserved side goes below
		// it; ON's over the inner side into that side; IS NULL over the
		// inner side stays above.
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty AND b.id < 30 WHERE a.grp = 'b' AND b.grp IS NULL`, `
Filter: a.grp='b' AND b.grp is null
	Left join on a.id=b.qty and b.id<30
		Scan orders AS a
		Scan orders AS b
`, `
Filter: b.grp is null
	Left join on a.id=b.qty
		Scan orders AS a where a.grp='b' (~20 rows)
		Scan orders AS b where b.id<30 (~29 rows)
`},
		// A conjunct over a derived table alone filters its rows before
		// they are joined.
		{`SELECT a.grp FROM orders a JOIN (SELECT grp, max(qty) AS m FROM orders GROUP BY grp) g ON g.grp = a.grp WHERE g.m > 10 AND a.id < 20`, `
Filter: g.m>10 AND a.id<20
	Inner join on g.grp=a.grp
		Scan orders AS a
		Derived g [grp, m]
`, `
Inner join on g.grp=a.grp
	Scan orders AS a where a.id<20 (~19 rows)
	Derived g [grp, m] where g.m>10
`},
	})
}

func TestRulePruneColumns(t *testing.T) {
	checkRule(t, "prune columns", []ruleCase{
		{`SELECT a.grp FROM orders a JOIN orders b ON a.id = b.qty WHERE b.grp = 'c'`, `
Inner join on a.id=b.qty
	Scan orders AS a (~60 rows)
	Scan orders AS b where b.grp='c' (~20 rows)
`, `
Inner join on a.id=b.qty
	Scan orders AS a columns [id, grp] (~60 rows)
	Scan orders AS b where b.grp='c' columns [qty] (~20 rows)
`},
	})
}

// EXPLAIN FORMAT = 'logical' through the engine: each SELECT's plans,
// then the physical plan.
func TestExplainLogical(t *testing.T) {
	e, _ := newEngine(t, 60, 16)
	text := explainText(t, e, `EXPLAIN FORMAT = 'logical' SELECT count(*) FROM orders a JOIN (SELECT x.grp FROM orders x, orders y WHERE x.id = y.qty) d ON d.grp = a.grp`)
	for _, want := range []string{
		"Logical plan of select x.grp from (orders as x) join orders as y where x.id=y.qty\nbound:\n",
		"Logical plan of select count(1) from orders as a join (select",
		"after prune columns:\n",
		"Physical plan:\n",
		"HashJoin Inner on",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("EXPLAIN FORMAT = 'logical' lacks %q:\n%s", want, text)
		}
	}
	// The derived table's plan comes first; an unchanged stage is left out.
	if strings.Index(text, "from orders as x") > strings.Index(text, "from orders as a") {
		t.Errorf("the derived table's plan after the statement's:\n%s", text)
	}
	if strings.Contains(text, "after outer joins to inner") {
		t.Errorf("a stage that changed nothing is printed:\n%s", text)
	}
	// The operators above FROM: over one table, over a join, and with no
	// FROM.
	for sql, wants := range map[string][]string{
		`SELECT grp, sum(qty) AS s FROM orders WHERE id < 50 GROUP BY grp HAVING s > 3 ORDER BY s DESC LIMIT 2`: {
			"Logical plan of select grp,sum(qty) as s from orders where id<50",
			"bound:\n  Limit 2\n    TopK 2 by s DESC\n      Project: grp, sum(qty) AS s\n        Filter: s>3\n          Aggregate by grp: sum(qty)\n            Filter: id<50\n              Scan orders\n",
			"after prune columns:\n",
			"Scan orders where id<50 columns [grp, qty] (~50 rows)\n",
			"Physical plan:\n",
		},
		`SELECT DISTINCT a.grp, rank() OVER (ORDER BY a.grp) FROM orders a JOIN orders b ON a.id = b.id`: nil, // refused: DISTINCT with a window
		`SELECT a.grp, b.qty, rank() OVER (ORDER BY b.qty) AS r FROM orders a JOIN orders b ON a.id = b.id LIMIT 4`: {
			"bound:\n  Limit 4\n    Project: a.grp, b.qty, rank() over (order by b.qty) AS r\n      Window: rank() over (order by b.qty)\n        Inner join on a.id=b.id\n",
			"after prune columns:\n",
		},
		`SELECT DISTINCT grp FROM orders`: {"  Distinct\n    Project: grp\n", "after DISTINCT as GROUP BY:\n  Project: grp\n    Aggregate by grp\n"},
		`SELECT 1 + 1 AS two`:             {"bound:\n  Project: 1+1 AS two\n    Values: one row\n"},
	} {
		if wants == nil {
			if _, err := e.Query(context.Background(), "EXPLAIN FORMAT = 'logical' "+sql); !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s: %v", sql, err)
			}
			continue
		}
		text := explainText(t, e, "EXPLAIN FORMAT = 'logical' "+sql)
		for _, want := range wants {
			if !strings.Contains(text, want) {
				t.Errorf("EXPLAIN FORMAT = 'logical' %s lacks %q:\n%s", sql, want, text)
			}
		}
	}
	// ANALYZE instruments the physical plan under the logical plans.
	if text := explainText(t, e, `EXPLAIN ANALYZE FORMAT = 'logical' SELECT count(*) FROM orders a, orders b WHERE a.id = b.id`); !strings.Contains(text, "after prune columns:") || !regexp.MustCompile(`Physical plan:\n.*\(rows 1, batches 1`).MatchString(text) {
		t.Errorf("EXPLAIN ANALYZE FORMAT = 'logical':\n%s", text)
	}
	if text := explainText(t, e, `EXPLAIN SELECT count(*) FROM orders a, orders b WHERE a.id = b.id`); strings.Contains(text, "Logical plan") {
		t.Errorf("plain EXPLAIN prints the logical plan:\n%s", text)
	}
	_, err := e.Query(context.Background(), `EXPLAIN FORMAT = 'json' SELECT 1`)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "FORMAT = 'logical'") {
		t.Errorf("EXPLAIN FORMAT = 'json': %v", err)
	}
}

func explainText(t *testing.T, e *Engine, sql string) string {
	t.Helper()
	rows, err := run(t, e, sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return strings.Join(rows, "\n") + "\n"
}

// A statement of nested subqueries prints each level's conditions once
// per stage: each condition is clipped, so a long literal deep inside
// does not print once per level.
func TestExplainLogicalBounded(t *testing.T) {
	e, _ := newEngine(t, 60, 16)
	const levels = 20
	long := strings.Repeat("x", 20_000)
	sql := "SELECT count(*) FROM orders a0 WHERE "
	for i := 1; i <= levels; i++ {
		sql += fmt.Sprintf("EXISTS (SELECT * FROM orders a%d WHERE a%d.id = a%d.id AND ", i, i, i-1)
	}
	sql += "a" + strconv.Itoa(levels) + ".grp <> '" + long + "'" + strings.Repeat(")", levels)
	text := explainText(t, e, "EXPLAIN FORMAT = 'logical' "+sql)
	if len(text) > 256<<10 { // unclipped, some 1.2 MB
		t.Errorf("EXPLAIN FORMAT = 'logical' printed %d bytes for a %d-byte statement", len(text), len(sql))
	}
	if !strings.Contains(text, "Semi join on") || !strings.Contains(text, " …") {
		t.Errorf("no semi join, or no clipped condition:\n%.2000s", text)
	}
}
