package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// TestSelectWithoutFrom: a SELECT without FROM reads one row of no columns.
func TestSelectWithoutFrom(t *testing.T) {
	e, _ := newEngine(t, 10, 10)
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{`SELECT 1+1`, []string{"2"}},
		{`SELECT 1 + 1 AS two, 'x', DATE '2024-02-28' + INTERVAL 1 DAY`, []string{"2|x|2024-02-29"}},
		{`SELECT 'a' || 'b'`, []string{"ab"}},
		{`SELECT 1 WHERE false`, nil},
		{`SELECT 1 WHERE 1 < 2`, []string{"1"}},
		{`SELECT count(*)`, []string{"1"}},
		{`SELECT count(*), sum(2) WHERE false`, []string{"0|NULL"}},
		{`SELECT 3 AS x ORDER BY x LIMIT 0`, nil},
		{`SELECT max(5) HAVING count(*) = 1`, []string{"5"}},
	} {
		got, err := run(t, e, tc.sql)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: got %q, %v; want %q", tc.sql, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ sql, want string }{
		{`SELECT x`, `no column "x": the query has no FROM`},
		{`SELECT *`, `SELECT * without FROM`},
	} {
		_, err := run(t, e, tc.sql)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want ErrInvalid containing %q", tc.sql, err, tc.want)
		}
	}
	plan, err := e.Explain(context.Background(), `SELECT 1 + 1`)
	if err != nil || !strings.Contains(plan, "One row (no FROM)") {
		t.Errorf("EXPLAIN: %v\n%s", err, plan)
	}
	if _, err := run(t, e, `EXPLAIN ANALYZE SELECT 1`); err != nil {
		t.Errorf("EXPLAIN ANALYZE: %v", err)
	}
}

// TestConcatOperator: || concatenates strings (NULL when either side is),
// as in ANSI SQL, DuckDB and PostgreSQL; it was parsed as OR.
func TestConcatOperator(t *testing.T) {
	e, _ := newEngine(t, 10, 10)
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{`SELECT grp || '-' || id FROM orders WHERE id IN (1, 2, 7)`, []string{"a-1", "b-2", "NULL"}},
		{`SELECT id FROM orders WHERE grp || 'x' = 'bx' ORDER BY id`, []string{"2", "5", "8"}},
		{`SELECT ('a' || grp) || (grp || 'z') FROM orders WHERE id = 3`, []string{"acc" + "z"}},
		{`SELECT id FROM orders WHERE id = 1 || 2`, []string{}}, // 1 || 2 is '12': no common type with id
		// || is looser than arithmetic (the parser had it tighter)
		{`SELECT id + 1 || 'x', 'x' || id * 2 + 1, -id || 2 - 1, id || '-' || id * 2 + 1 || '.' FROM orders WHERE id = 2`, []string{"3x|x5|-21|2-5."}},
		{`SELECT 1 + 1 || 1 + 1 = '22', (1 || 2) = '12'`, []string{"true|true"}},
	} {
		got, err := run(t, e, tc.sql)
		if len(tc.want) == 0 {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%s: %v, %v; want ErrInvalid", tc.sql, got, err)
			}
			continue
		}
		if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: got %q, %v; want %q", tc.sql, got, err, tc.want)
		}
	}
	// Columns are named as written.
	s, err := e.Schema(`SELECT grp || 'x, (y)', 'a' || grp || 'b', CAST(id || '' AS CHAR), id + 1 || 'x', 'it''s' || '(' FROM orders`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range s.Fields() {
		names = append(names, f.Name)
	}
	if got, want := strings.Join(names, "; "), `grp || 'x, (y)'; 'a' || grp || 'b'; cast(id || '' as char); id+1 || 'x'; 'it''s' || '('`; got != want {
		t.Errorf("column names %s\nwant %s", got, want)
	}
	// A written concat() is not ||: DuckDB's and PostgreSQL's skip NULLs.
	got, err := run(t, e, `SELECT concat(grp, NULL, 'x'), concat(grp, 'x') || 'y', grp || NULL, concat(NULL) FROM orders WHERE id = 1`)
	if err != nil || len(got) != 1 || got[0] != "ax|axy|NULL|" {
		t.Errorf("concat(): %v, %v", got, err)
	}
	// OR is still OR.
	got, err = run(t, e, `SELECT id FROM orders WHERE id = 1 OR id = 2`)
	if err != nil || fmt.Sprint(got) != "[1 2]" {
		t.Errorf("OR: %v, %v", got, err)
	}
}

// TestConcatNames: a written concat() keeps its name and || its spelling,
// also through a WITH query planned again from restored text.
func TestConcatNames(t *testing.T) {
	e, _ := newEngine(t, 10, 10)
	for _, sql := range []string{
		`SELECT concat(grp, 'x'), grp || 'x', concat(grp, 'a' || grp) FROM orders WHERE id = 1`,
		`WITH w AS (SELECT grp || 'x' AS a, concat(grp, NULL) AS b FROM orders WHERE id = 1) SELECT a, b, a || b FROM w`,
	} {
		s, err := e.Schema(sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		var names []string
		for _, f := range s.Fields() {
			names = append(names, f.Name)
		}
		got, err := run(t, e, sql)
		t.Logf("%s: %v %v", strings.Join(names, "; "), got, err)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.Join(names, ";"), "quiver$") {
			t.Errorf("names %q show the internal name", names)
		}
	}
}

// TestPipesSurviveACopy: an expression copied through its restored text
// (copyExpr) keeps its || as ||.
func TestPipesSurviveACopy(t *testing.T) {
	st, err := parseSQL(`SELECT a || 'x', concat(a, 'y') FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	sel := st.(*ast.SelectStmt)
	markPipes(sel)
	for i, want := range []string{pipesFunc, "concat"} {
		e, err := copyExpr(sel.Fields.Fields[i].Expr)
		if err != nil {
			t.Fatal(err)
		}
		if f, ok := e.(*ast.FuncCallExpr); !ok || f.FnName.L != want {
			t.Errorf("copy of field %d: %s, want a call of %s", i, restore(e), want)
		}
	}
}
