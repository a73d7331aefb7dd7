package main

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/server"
)

// TestCLITableNamesAndNoFrom (issue 13): quiver load LINEITEM next to
// lineitem is refused naming both, FROM in any unquoted case reads the one
// table, and SELECT without FROM answers over --server.
func TestCLITableNamesAndNoFrom(t *testing.T) {
	ts := startTestServer(t, server.Config{})
	mustRun(t, "load", "--server", ts.uri, "lineitem", writeCSV(t, 100))
	code, _, errs := runCLI("load", "--server", ts.uri, "LINEITEM", writeCSV(t, 2))
	if code != 1 || !strings.Contains(errs, `table "LINEITEM" would clash with table "lineitem"`) {
		t.Errorf("load LINEITEM: exit %d, %q", code, errs)
	}
	if out, _ := mustRun(t, "query", "--server", ts.uri, "SELECT count(*) FROM LINEITEM"); !strings.Contains(out, "100") {
		t.Errorf("FROM LINEITEM: %s", out)
	}
	out, _ := mustRun(t, "query", "--server", ts.uri, "SELECT 1+1 AS two, 'a' || 'b' AS ab")
	if lines := strings.Fields(out); len(lines) < 4 || lines[0] != "two" || lines[1] != "ab" || lines[2] != "2" || lines[3] != "ab" {
		t.Errorf("SELECT 1+1, 'a' || 'b':\n%s", out)
	}
	code, _, errs = runCLI("query", "--server", ts.uri, "SELECT count(*) FROM nosuchdb.lineitem")
	if code != 1 || !strings.Contains(errs, `no schema "nosuchdb"`) {
		t.Errorf("FROM nosuchdb.lineitem: exit %d, %q", code, errs)
	}
}
