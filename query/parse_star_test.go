package query

import (
	"strings"
	"testing"
)

// TestStarExclude: * EXCLUDE (…) and t.* EXCLUDE name drop those columns,
// in one table, a join and a correlated subquery's names; multiplication
// and strings are left alone; an unknown name is an error.
func TestStarExclude(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT * EXCLUDE (a, "B c") FROM t`:     `SELECT *, "quiver$exclude$a", "quiver$exclude$B c" FROM t`,
		`SELECT t.* exclude b, 1 FROM t`:         `SELECT t.*, "quiver$exclude$b", 1 FROM t`,
		`SELECT a * exclude FROM t`:              `SELECT a * exclude FROM t`,
		`SELECT '* EXCLUDE (a)', 2 * 3 FROM t`:   `SELECT '* EXCLUDE (a)', 2 * 3 FROM t`,
		`SELECT * EXCLUDE (t.a) FROM t`:          `SELECT *, "quiver$exclude$a" FROM t`,
		`SELECT count(*) FROM t WHERE * EXCLUDE`: `SELECT count(*) FROM t WHERE * EXCLUDE`,
	} {
		var edits []textEdit
		if got := rewriteStarExclude(in, &edits); got != want {
			t.Errorf("%s:\n got %s\nwant %s", in, got, want)
		}
	}
	e := newCastEngine(t, nil)
	exec(t, e, `CREATE TABLE s AS SELECT 1 AS a, 'x' AS b, 2.5 AS c`)
	for sql, want := range map[string]string{
		`SELECT * EXCLUDE (b) FROM s`:  "1|2.5",
		`SELECT * EXCLUDE b, 7 FROM s`: "1|2.5|7",
		`SELECT s.* EXCLUDE (a, c), s2.* EXCLUDE (B) FROM s JOIN s AS s2 USING (a)`:           "x|1|2.5",
		`SELECT * FROM (SELECT * EXCLUDE (c) FROM s) d WHERE EXISTS (SELECT 1 WHERE d.a = 1)`: "1|x",
	} {
		rows, err := run(t, e, sql)
		if err != nil || strings.Join(rows, ";") != want {
			t.Errorf("%s: %q, %v; want %s", sql, rows, err, want)
		}
	}
	if _, err := run(t, e, `SELECT * EXCLUDE (nope) FROM s`); err == nil || !strings.Contains(err.Error(), `EXCLUDE: no column "nope"`) {
		t.Errorf("EXCLUDE of an unknown column: %v", err)
	}
}
