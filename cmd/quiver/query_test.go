package main

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/codec"
)

func TestQueryCommand(t *testing.T) {
	code, out, errs := runCLI("query", "--rows", "20000", "SELECT k % 3 AS m, count(*) FROM comet WHERE id < 100 GROUP BY k % 3 ORDER BY m")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// ids 1..99 but 8, 16, … (NULL): 87 rows; k is NULL one row in 8.
	for _, want := range []string{"m     count(*)", "0     25", "1     24", "2     25", "NULL  13", "(4 rows)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// One row is "1 row", not "1 rows".
	if code, out, errs := runCLI("query", "--rows", "100", "SELECT count(*) FROM comet"); code != 0 || !strings.HasSuffix(out, "(1 row)\n") {
		t.Errorf("one row: exit %d\n%s%s", code, out, errs)
	}
	file := writeTestFile(t, true, codec.SettingLZ4)
	code, out, errs = runCLI("query", "--table", "t="+file, "--max-rows", "2", "SELECT i64 FROM t WHERE i64 IS NOT NULL")
	if code != 0 || !strings.Contains(out, "more rows") {
		t.Errorf("file table: exit %d\n%s%s", code, out, errs)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"query"}, 2, "exactly one SQL"},
		{[]string{"query", "--rows", "10", "SELECT nope FROM comet"}, 1, `no column "nope"`},
		{[]string{"query", "--rows", "10", "SELECT id FROM comet a JOIN comet b ON a.id = b.id"}, 1, `column "id" is ambiguous: it could be a.id or b.id`},
		{[]string{"query", "--rows", "10", "SELECT a.id FROM comet a, LATERAL (SELECT a.id) b"}, 1, "LATERAL"},
		{[]string{"query", "--table", "nofile", "SELECT 1"}, 2, "NAME=FILE"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d, %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}
