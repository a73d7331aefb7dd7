package query

import (
	"errors"
	"strings"
	"testing"
)

// TestRewriteValues: a VALUES list that starts a query becomes a UNION
// ALL of one-row SELECTs naming col0, col1, … or the alias's columns;
// INSERT's VALUES and VALUES in strings stay.
func TestRewriteValues(t *testing.T) {
	for in, want := range map[string]string{
		`VALUES (1, 'a'), (2, NULL)`:                                 `SELECT 1 AS "col0", 'a' AS "col1" UNION ALL SELECT  2, NULL`,
		`SELECT * FROM (VALUES (1, 'a'), (2, f(x, y))) AS v(x, "Y")`: `SELECT * FROM (SELECT 1 AS "x", 'a' AS "Y" UNION ALL SELECT  2, f(x, y)) AS v`,
		`SELECT * FROM (values (1)) v`:                               `SELECT * FROM (SELECT 1 AS "col0") v`,
		`INSERT INTO t VALUES (1), (2)`:                              `INSERT INTO t VALUES (1), (2)`,
		`SELECT 'VALUES (1)', x FROM t`:                              `SELECT 'VALUES (1)', x FROM t`,
	} {
		var edits []textEdit
		got, err := rewriteValues(in, in, &edits)
		if err != nil || got != want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", in, got, err, want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`VALUES (1, 2), (3)`, "line 1, column 16: VALUES rows of 2 and 1 values"},
		{`VALUES 1, 2`, "VALUES needs rows in parentheses"},
		{`SELECT * FROM (VALUES (1, 2)) v(a)`, "1 column names for VALUES rows of 2 values"},
		{`VALUES ()`, "an empty VALUES row"},
		{`VALUES (1`, "without a closing )"},
	} {
		_, err := parseSQL(tc.in)
		if err == nil || !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a syntax error containing %q", tc.in, err, tc.want)
		}
	}
	e := newCastEngine(t, nil)
	rows, err := run(t, e, `SELECT y, sum(x) FROM (VALUES (1, 'a'), (2.5, NULL), (3, 'a')) v(x, y) GROUP BY y ORDER BY y NULLS FIRST`)
	if err != nil || strings.Join(rows, ";") != "NULL|2.5;a|4.0" {
		t.Errorf("VALUES as a table: %q, %v", rows, err)
	}
	// a value keeps its position in the user's text: TRY_CAST is read there
	rows, err = run(t, e, `VALUES (1, TRY_CAST('x' AS DATE)), (2, DATE '2024-01-01')`)
	if err != nil || strings.Join(rows, ";") != "1|NULL;2|2024-01-01" {
		t.Errorf("TRY_CAST in VALUES: %q, %v", rows, err)
	}
}
