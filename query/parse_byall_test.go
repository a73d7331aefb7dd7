package query

import "testing"

// TestRewriteByAll: GROUP BY ALL and ORDER BY ALL become the sentinel,
// never UNION ALL, ALL in strings or names, or a column called all_x.
func TestRewriteByAll(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT k, sum(v) FROM t GROUP BY ALL ORDER BY all DESC`:   `SELECT k, sum(v) FROM t GROUP BY "quiver$all" ORDER BY "quiver$all" DESC`,
		"SELECT a FROM t GROUP\n BY  ALL":                          "SELECT a FROM t GROUP\n BY  \"quiver$all\"",
		`SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY all_x`: `SELECT a FROM t UNION ALL SELECT b FROM u ORDER BY all_x`,
		`SELECT 'ORDER BY ALL', "group by all" FROM t`:             `SELECT 'ORDER BY ALL', "group by all" FROM t`,
		`SELECT x FROM t ORDER BY ALL`:                             `SELECT x FROM t ORDER BY "quiver$all"`,
	} {
		var edits []textEdit
		if got := rewriteByAll(in, &edits); got != want {
			t.Errorf("%s:\n got %s\nwant %s", in, got, want)
		}
	}
	e := newCastEngine(t, nil)
	if _, err := run(t, e, `SELECT *, 1 FROM (SELECT 1 AS a) s GROUP BY ALL`); err == nil {
		t.Error("GROUP BY ALL with * ran; want it refused")
	}
	rows, err := run(t, e, `SELECT a % 2 AS m, count(*) FROM (SELECT 1 AS a UNION ALL SELECT 2 UNION ALL SELECT 3) s GROUP BY ALL ORDER BY ALL DESC`)
	if err != nil || len(rows) != 2 || rows[0] != "1|2" || rows[1] != "0|1" {
		t.Errorf("GROUP BY ALL ORDER BY ALL DESC: %q, %v", rows, err)
	}
}
