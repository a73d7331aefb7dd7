package main

import (
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/server"
)

// TestLoadEveryFormat loads CSV, then the Parquet and Arrow IPC files a
// query wrote from it, and finds the same rows in all three tables.
func TestLoadEveryFormat(t *testing.T) {
	ts := startTestServer(t, server.Config{})
	mustRun(t, "load", "--server", ts.uri, "--quiet", "--batch-rows", "300", "from_csv", writeCSV(t, 2000))
	dir := t.TempDir()
	const sql = "SELECT id, name, val FROM %s ORDER BY id"
	for _, ext := range []string{"parquet", "arrow"} {
		file := filepath.Join(dir, "t."+ext)
		mustRun(t, "query", "--server", ts.uri, "--codec", "zstd:1", "--out", file, strings.Replace(sql, "%s", "from_csv", 1))
		_, errs := mustRun(t, "load", "--server", ts.uri, "--codec", "lz4", "from_"+ext, file)
		if !strings.Contains(errs, "2000 rows loaded into from_"+ext) || !strings.Contains(errs, "with lz4 for") {
			t.Errorf("%s: %q", ext, errs)
		}
	}
	want, _ := mustRun(t, "query", "--server", ts.uri, "--max-rows", "5000", strings.Replace(sql, "%s", "from_csv", 1))
	if !strings.Contains(want, "(2000 rows)") {
		t.Fatalf("from_csv: %s", want)
	}
	for _, table := range []string{"from_parquet", "from_arrow"} {
		if got, _ := mustRun(t, "query", "--server", ts.uri, "--max-rows", "5000", strings.Replace(sql, "%s", table, 1)); got != want {
			t.Errorf("%s differs from from_csv:\n%.500s\nwant\n%.500s", table, got, want)
		}
	}
	// A file that does not parse fails before anything is sent.
	code, _, errs := runCLI("load", "--server", ts.uri, "--from", "parquet", "bad", writeCSV(t, 3))
	if code != 1 || strings.Count(errs, "\n") != 1 {
		t.Errorf("not parquet: exit %d, %q", code, errs)
	}
	if out, _ := mustRun(t, "query", "--server", ts.uri, "SELECT count(*) FROM from_csv"); !strings.Contains(out, "2000") {
		t.Errorf("after a failed load: %s", out)
	}
}

// TestLoadHints: a refused load names the --mode that does what the
// user meant, whatever words the server used.
func TestLoadHints(t *testing.T) {
	for _, tc := range []struct {
		code       codes.Code
		msg        string
		mode       client.Mode
		wantSuffix string
	}{
		{codes.AlreadyExists, `table "t" exists`, client.Create, "; load into it with --mode append or --mode replace"},
		{codes.AlreadyExists, `table "t" exists (ingest with append or replace)`, client.Create, "; load into it with --mode append or --mode replace"},
		{codes.NotFound, `no table "t"`, client.Append, "; make it with --mode create"},
		{codes.NotFound, `no table "t"`, client.Create, `no table "t"`},
	} {
		err := loadError(&client.Error{What: "w", Status: status.New(tc.code, tc.msg)}, tc.mode)
		if !strings.HasSuffix(err.Error(), tc.wantSuffix) {
			t.Errorf("%v %q in mode %s: %q", tc.code, tc.msg, tc.mode, err)
		}
	}
}

func TestClientHelp(t *testing.T) {
	for _, args := range [][]string{{"load", "--help"}, {"query", "--help"}, {"help", "load"}} {
		code, out, _ := runCLI(args...)
		if code != 0 || !strings.Contains(out, "Usage: quiver") || !strings.Contains(out, "--server") {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
	if _, out, _ := runCLI("help"); !strings.Contains(out, "load ") {
		t.Errorf("the command list lacks load:\n%s", out)
	}
}
