package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/server"
)

// nullsCSV has nulls written every way in a column of each inferred
// type: empty, NULL, null, and quoted "" (null but in strings, where it
// is the empty string); s also holds a quoted "NULL" (a string); e is
// empty but for one quoted "".
const nullsCSV = `i,f,b,d,ts,s,e
1,1.5,true,2024-01-01,2024-01-01 10:00:00,x,
,,,,,,
NULL,NULL,NULL,NULL,NULL,NULL,
null,null,null,null,null,null,
"","","","","","",""
"2","2.5","false","2024-01-02","2024-01-02 10:00:00","NULL",
`

// nullsSQL counts each column's values (but ts's: the engine has no
// timestamps; the convert case counts them), and s's nulls, distinct
// values, least value and IN matches.
const nullsSQL = `SELECT count(*), count(i), count(f), count(b), count(d), count(s), count(e),
 count(DISTINCT s), min(s) = '', sum(CASE WHEN s IS NULL THEN 1 ELSE 0 END), sum(CASE WHEN s IN ('', 'NULL') THEN 1 ELSE 0 END) FROM t`

// The answers: with the default rule, and with --strings-never-null.
var (
	nullsWant  = []string{"6", "2", "2", "2", "2", "3", "1", "3", "true", "3", "2"}
	neverWants = []string{"6", "2", "2", "2", "2", "6", "6", "4", "true", "0", "4"}
)

// TestCSVNullsEveryPath: quiver convert, quiver load, serve --table and
// quiver query --table read the same CSV alike, by the one rule of
// package convert/csv, and --strings-never-null turns it off for
// strings in convert and load.
func TestCSVNullsEveryPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "nulls.csv")
	if err := os.WriteFile(file, []byte(nullsCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(path string, out string, want []string) {
		t.Helper()
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) < 2 || strings.Join(strings.Fields(lines[1]), " ") != strings.Join(want, " ") {
			t.Errorf("%s:\n%s\nwant %v", path, out, want)
		}
	}

	// convert, then the local engine over the Arrow file it wrote.
	for _, never := range []bool{false, true} {
		out := filepath.Join(dir, "nulls.arrow")
		args := []string{"convert", "--quiet", file, out}
		want := nullsWant
		if never {
			args = []string{"convert", "--quiet", "--strings-never-null", file, out}
			want = neverWants
		}
		mustRun(t, args...)
		got, _ := mustRun(t, "query", "--table", "t="+out, nullsSQL)
		what := strings.Join(args[:len(args)-2], " ")
		check(what, got, want)
		recs, theirs := readBack(t, out, true)
		var nulls []string
		for i, f := range recs[0].Schema().Fields() {
			nulls = append(nulls, fmt.Sprintf("%s %s %d", f.Name, f.Type, recs[0].Column(i).NullN()))
		}
		wantNulls := "i int64 4|f float64 4|b bool 4|d date32 4|ts timestamp[us] 4|s utf8 3|e utf8 5"
		if never {
			wantNulls = "i int64 4|f float64 4|b bool 4|d date32 4|ts timestamp[us] 4|s utf8 0|e utf8 0"
		}
		if got := strings.Join(nulls, "|"); len(recs) != 1 || got != wantNulls {
			t.Errorf("%s: %d batches, nulls %s\nwant %s", what, len(recs), got, wantNulls)
		}
		release(recs, theirs)
	}

	// query --table reads the CSV itself.
	got, _ := mustRun(t, "query", "--table", "t="+file, nullsSQL)
	check("query --table", got, nullsWant)

	// load into a server, with and without --strings-never-null.
	ts := startTestServer(t, server.Config{})
	mustRun(t, "load", "--server", ts.uri, "--quiet", "t", file)
	got, _ = mustRun(t, "query", "--server", ts.uri, nullsSQL)
	check("load", got, nullsWant)
	mustRun(t, "load", "--server", ts.uri, "--quiet", "--strings-never-null", "--mode", "replace", "t", file)
	got, _ = mustRun(t, "query", "--server", ts.uri, nullsSQL)
	check("load --strings-never-null", got, neverWants)

	// serve --table.
	addr, _ := startServe(t, "--listen", "127.0.0.1:0", "--metrics", "", "--table", "t="+file)
	got, _ = mustRun(t, "query", "--server", "grpc://"+addr, nullsSQL)
	check("serve --table", got, nullsWant)
}
