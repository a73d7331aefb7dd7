package query

import (
	"errors"
	"strings"
	"testing"
)

// TestRuleSetOpsAsUnionAll: a set operation's plan as bound (INTERSECT
// folded first, ORDER BY and LIMIT above) and after every SetOp became
// UNION ALL under a Distinct or a counting Aggregate; a parenthesized
// list is an input with a plan of its own; INTERSECT ALL stays a SetOp,
// refused.
func TestRuleSetOpsAsUnionAll(t *testing.T) {
	e, _ := newEngine(t, 60, 16)
	tabs := func(s string) string { return strings.ReplaceAll(strings.TrimPrefix(s, "\n"), "\t", "  ") }
	for _, tc := range []ruleCase{
		{`SELECT qty FROM orders UNION SELECT id FROM orders ORDER BY 1 LIMIT 3`, `
Limit 3
	TopK 3 by 1
		SetOp UNION
			Input: select qty from orders
			Input: select id from orders
`, `
Limit 3
	TopK 3 by 1
		Distinct
			UnionAll
				Input: select qty from orders
				Input: select id from orders
`},
		// INTERSECT binds tighter: a EXCEPT (b INTERSECT c), and UNION
		// ALL stays as it is.
		{`SELECT id FROM orders EXCEPT SELECT qty FROM orders INTERSECT SELECT id % 3 FROM orders UNION ALL SELECT 1`, `
SetOp UNION ALL
	SetOp EXCEPT
		Input: select id from orders
		SetOp INTERSECT
			Input: select qty from orders
			Input: select id%3 from orders
	Input: select 1
`, `
UnionAll
	Aggregate by every column: keep sum($l) > 0 AND sum($r) = 0
		UnionAll
			Project: *, 1 AS $l, 0 AS $r
				Input: select id from orders
			Project: *, 0 AS $l, 1 AS $r
				Aggregate by every column: keep sum($l) > 0 AND sum($r) > 0
					UnionAll
						Project: *, 1 AS $l, 0 AS $r
							Input: select qty from orders
						Project: *, 0 AS $l, 1 AS $r
							Input: select id%3 from orders
	Input: select 1
`},
		{`SELECT id FROM orders UNION ALL (SELECT qty FROM orders UNION SELECT id % 3 FROM orders)`, `
SetOp UNION ALL
	Input: select id from orders
	Input: (select qty from orders union select id%3 from orders)
`, `
UnionAll
	Input: select id from orders
	Input: (select qty from orders union select id%3 from orders)
`},
	} {
		st := logicalStages(t, e, tc.sql, true)
		if got, want := st["bound"], tabs(tc.before); got != want {
			t.Errorf("%s\nbound:\n%s\nwant:\n%s", tc.sql, got, want)
		}
		if got, want := st["after set operations as UNION ALL"], tabs(tc.after); got != want {
			t.Errorf("%s\nafter the rule:\n%s\nwant:\n%s", tc.sql, got, want)
		}
	}
	_, _, err := e.plan(t.Context(), "SELECT id FROM orders INTERSECT ALL SELECT qty FROM orders", nil)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "INTERSECT ALL (INTERSECT ALL and EXCEPT ALL)") {
		t.Errorf("INTERSECT ALL: %v", err)
	}
	_, _, err = e.plan(t.Context(), "SELECT id, qty FROM orders UNION SELECT 1 INTERSECT SELECT 2", nil)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "UNION: the inputs have 2 and 1 columns") {
		t.Errorf("columns that do not line up: %v", err)
	}
}
