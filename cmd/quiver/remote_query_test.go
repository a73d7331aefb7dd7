package main

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/internal/testcert"
	"github.com/quiverdb/quiver/server"
)

func TestLoadThenQuery(t *testing.T) {
	ts := startTestServer(t, server.Config{MaxBatchRows: 300})
	csvFile := writeCSV(t, 1000)
	_, errs := mustRun(t, "load", "--server", ts.uri, "t", csvFile)
	if !strings.Contains(errs, "1000 rows loaded into t (create)") || !strings.Contains(errs, " uncompressed for ") {
		t.Errorf("load summary: %q", errs)
	}

	out, errs := mustRun(t, "query", "--server", ts.uri, "SELECT count(*), count(val), min(id), max(id) FROM t")
	// 1000 ids, val NULL where id%7 == 3: 143 rows.
	if !strings.Contains(out, "857") || !strings.Contains(out, "999") || !strings.Contains(out, "(1 row)\n") {
		t.Errorf("query output:\n%s", out)
	}
	if rows, batches, _, _ := summary(t, errs); rows != 1 || batches != 1 {
		t.Errorf("summary %q", errs)
	}

	// Results come in batches of at most 300 rows: --max-rows cuts across
	// them and the rest is counted.
	out, errs = mustRun(t, "query", "--server", ts.uri, "--max-rows", "3", "SELECT id, name FROM t WHERE id < 700 ORDER BY id")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{"id  name", "0   name 0", "1   name 1", "2   name 2", "… 697 more rows (700 in all; --max-rows to print more)"}
	if len(lines) != len(want) {
		t.Fatalf("got %q", out)
	}
	for i := range want {
		if strings.TrimSpace(lines[i]) != want[i] {
			t.Errorf("line %d: %q, want %q", i, lines[i], want[i])
		}
	}
	if rows, batches, _, _ := summary(t, errs); rows != 700 || batches != 3 {
		t.Errorf("summary %q: want 700 rows in 3 batches", errs)
	}

	// Modes: create refuses an existing table, append adds to it, replace
	// swaps it, append refuses a missing one.
	code, _, errs := runCLI("load", "--server", ts.uri, "t", csvFile)
	if code != 1 || !strings.Contains(errs, "quiver load: already exists: ") || !strings.Contains(errs, "--mode append or --mode replace") {
		t.Errorf("create over an existing table: exit %d, %q", code, errs)
	}
	mustRun(t, "load", "--server", ts.uri, "--mode", "append", "--codec", "zstd", "t", csvFile)
	if out, _ := mustRun(t, "query", "--server", ts.uri, "SELECT count(*) FROM t"); !strings.Contains(out, "2000") {
		t.Errorf("after append: %s", out)
	}
	mustRun(t, "load", "--server", ts.uri, "--mode", "replace", "--codec", "lz4", "t", writeCSV(t, 10))
	if out, _ := mustRun(t, "query", "--server", ts.uri, "SELECT count(*) FROM t"); !strings.Contains(out, "10") || strings.Contains(out, "2000") {
		t.Errorf("after replace: %s", out)
	}
	code, _, errs = runCLI("load", "--server", ts.uri, "--mode", "append", "nowhere", csvFile)
	if code != 1 || !strings.Contains(errs, "quiver load: not found: ") || !strings.Contains(errs, "--mode create") {
		t.Errorf("append to a missing table: exit %d, %q", code, errs)
	}
}

func TestRemoteQueryErrors(t *testing.T) {
	ts := startTestServer(t, server.Config{})
	mustRun(t, "load", "--server", ts.uri, "--quiet", "t", writeCSV(t, 20))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"SELECT nope FROM t"}, 1, `quiver query: invalid SQL: `},
		{[]string{"SELECT FROM WHERE"}, 1, `quiver query: invalid SQL: `},
		{[]string{"SELECT * FROM missing"}, 1, `quiver query: not found: `},
		{[]string{"--codec", "gzip", "SELECT 1"}, 2, `--codec`},
		{[]string{"--table", "x=y", "SELECT 1"}, 2, `--table is for local queries`},
		{[]string{"--out", "x.txt", "SELECT 1"}, 2, `.arrow, .csv or .parquet`},
		{[]string{"--out", "x.csv", "--out-codec", "zstd", "SELECT 1"}, 2, `--out-codec applies to an .arrow`},
		{[]string{"--tls-ca", "ca.pem", "SELECT 1"}, 2, `grpc+tls://`},
	} {
		code, _, errs := runCLI(append([]string{"query", "--server", ts.uri}, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Count(errs, "\n") > 2 {
			t.Errorf("%v: exit %d, %q; want %d, %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
	// Without --server the connection flags make no sense.
	if code, _, errs := runCLI("query", "--token", "x", "SELECT 1"); code != 2 || !strings.Contains(errs, "--token needs --server") {
		t.Errorf("--token without --server: exit %d, %q", code, errs)
	}
	// Nothing listens on port 1.
	if code, _, errs := runCLI("query", "--server", "127.0.0.1:1", "SELECT 1"); code != 1 || !strings.Contains(errs, "grpc://127.0.0.1:1 unavailable") {
		t.Errorf("no server: exit %d, %q", code, errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"load", "t"}, "want NAME and FILE"},
		{[]string{"load", "--mode", "upsert", "t", "f.csv"}, "--mode must be"},
		{[]string{"load", "--codec", "zstd:3", "t", "f.csv"}, "no zstd level"},
		{[]string{"load", "--server", "http://h:1", "t", "f.csv"}, "scheme"},
	} {
		if code, _, errs := runCLI(tc.args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2, %q", tc.args, code, errs, tc.want)
		}
	}
}

// TestRemoteQueryMidStreamError: a failure while the result streams (the
// sort needs more than the server lets a query hold, and may not spill)
// reaches the user as the server's error, not as a cut-off stream.
func TestRemoteQueryMidStreamError(t *testing.T) {
	ts := startTestServer(t, server.Config{QueryMemory: 64 << 10, NoSpill: true})
	mustRun(t, "load", "--server", ts.uri, "--quiet", "t", writeCSV(t, 20000))
	code, _, errs := runCLI("query", "--server", ts.uri, "SELECT name, id FROM t ORDER BY name, id DESC")
	if code != 1 || !strings.Contains(errs, "quiver query: over a server limit: ") || strings.Contains(errs, "cut off") {
		t.Errorf("exit %d, %q", code, errs)
	}
}

func TestRemoteCodecRatio(t *testing.T) {
	ts := startTestServer(t, server.Config{})
	mustRun(t, "load", "--server", ts.uri, "--quiet", "t", writeCSV(t, 20000))
	const sql = "SELECT id, name, val FROM t"
	_, errs := mustRun(t, "query", "--server", ts.uri, "--codec", "zstd:1", sql)
	rows, _, name, saved := summary(t, errs)
	if rows != 20000 || name != "zstd" || saved < 50 {
		t.Errorf("zstd:1: %d rows, codec %s, saved %d%%; want 20000, zstd, > 50%% (%q)", rows, name, saved, errs)
	}
	// The session keeps no codec between commands (each is a new
	// connection): none is asked for explicitly, and auto on loopback is
	// none too.
	for _, c := range []string{"none", "auto"} {
		_, errs = mustRun(t, "query", "--server", ts.uri, "--codec", c, sql)
		if rows, _, name, saved := summary(t, errs); rows != 20000 || name != "none" || saved != 0 {
			t.Errorf("%s: %d rows, codec %s, saved %d%%; want none (%q)", c, rows, name, saved, errs)
		}
	}
	_, errs = mustRun(t, "query", "--server", ts.uri, "--codec", "lz4", sql)
	if _, _, name, saved := summary(t, errs); name != "lz4" || saved < 16 {
		t.Errorf("lz4: codec %s, saved %d%% (%q)", name, saved, errs)
	}
}

// TestTinyResultSummary: a one-row result asked for with zstd is sent
// uncompressed (compressing it costs more than it holds), and the
// summary says so plainly instead of a ratio below 1.
func TestTinyResultSummary(t *testing.T) {
	ts := startTestServer(t, server.Config{})
	mustRun(t, "load", "--server", ts.uri, "--quiet", "t", writeCSV(t, 3))
	out, errs := mustRun(t, "query", "--server", ts.uri, "--codec", "zstd:1", "SELECT count(*) FROM t")
	if !strings.Contains(out, "(1 row)\n") {
		t.Errorf("output %q", out)
	}
	if rows, batches, name, _ := summary(t, errs); rows != 1 || batches != 1 || name != "none" ||
		!strings.Contains(errs, "1 row in 1 batch; received ") || !strings.Contains(errs, " of schema and message headers)") || strings.Contains(errs, "ratio") {
		t.Errorf("summary %q", errs)
	}
}

func TestDescribeTransfer(t *testing.T) {
	for _, tc := range []struct {
		wire, data  int64
		codec, want string
	}{
		{640, 91, "zstd", "received 640 B with zstd for 91 B of Arrow data: nothing saved, 549 B more than the data (schema, message headers and compression framing)"},
		{1 << 20, 4 << 20, "lz4", "received 1.00 MiB with lz4 for 4.00 MiB of Arrow data: compression saved 3.00 MiB (75%)"},
		{500, 91, "none", "received 500 B uncompressed for 91 B of Arrow data (409 B of schema and message headers)"},
		{4000, 4096, "none", "received 3.9 KiB uncompressed for 4.0 KiB of Arrow data"},
	} {
		if got := describeTransfer("received", tc.wire, tc.data, tc.codec); got != tc.want {
			t.Errorf("%d for %d %s:\n got %q\nwant %q", tc.wire, tc.data, tc.codec, got, tc.want)
		}
	}
}

func TestRemoteTokens(t *testing.T) {
	ts := startTestServer(t, server.Config{Tokens: []string{testToken}})
	csvFile := writeCSV(t, 10)
	code, _, errs := runCLI("load", "--server", ts.uri, "t", csvFile)
	if code != 1 || !strings.Contains(errs, "quiver load: not authenticated: ") || !strings.Contains(errs, "QUIVER_TOKEN") {
		t.Errorf("load without a token: exit %d, %q", code, errs)
	}
	mustRun(t, "load", "--server", ts.uri, "--token", testToken, "t", csvFile)
	code, _, errs = runCLI("query", "--server", ts.uri, "--token", "wrong-token-0123456789", "SELECT count(*) FROM t")
	if code != 1 || !strings.Contains(errs, "not authenticated: invalid bearer token") {
		t.Errorf("wrong token: exit %d, %q", code, errs)
	}
	t.Setenv(tokenEnv, testToken)
	if out, _ := mustRun(t, "query", "--server", ts.uri, "SELECT count(*) FROM t"); !strings.Contains(out, "10") {
		t.Errorf("token from %s: %s", tokenEnv, out)
	}
}

func TestRemoteTLS(t *testing.T) {
	cert, key, _ := testcert.Write(t)
	ts := startTestServer(t, server.Config{TLSCert: cert, TLSKey: key, Tokens: []string{testToken}})
	if !strings.HasPrefix(ts.uri, "grpc+tls://") {
		t.Fatalf("URI %s", ts.uri)
	}
	mustRun(t, "load", "--server", ts.uri, "--tls-ca", cert, "--token", testToken, "--quiet", "t", writeCSV(t, 10))
	out, errs := mustRun(t, "query", "--server", ts.uri, "--tls-ca", cert, "--token", testToken, "SELECT count(*) FROM t")
	if !strings.Contains(out, "10") || strings.Contains(errs, "warning") {
		t.Errorf("over TLS: %s%s", out, errs)
	}
	// Without the CA the certificate is not trusted.
	if code, _, errs := runCLI("query", "--server", ts.uri, "--token", testToken, "SELECT 1 FROM t"); code != 1 || !strings.Contains(errs, "unavailable") {
		t.Errorf("untrusted certificate: exit %d, %q", code, errs)
	}
}
