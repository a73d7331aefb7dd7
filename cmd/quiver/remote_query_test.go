package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/testcert"
	"github.com/quiverdb/quiver/server"
)

func TestLoadThenQuery(t *testing.T) {
	ts := startTestServer(t, server.Config{MaxBatchRows: 300})
	csvFile := writeCSV(t, 1000)
	_, errs := mustRun(t, "load", "--server", ts.uri, "t", csvFile)
	if !strings.Contains(errs, "1000 rows loaded into t (create)") || !strings.Contains(errs, "sent (none)") {
		t.Errorf("load summary: %q", errs)
	}

	out, errs := mustRun(t, "query", "--server", ts.uri, "SELECT count(*), count(val), min(id), max(id) FROM t")
	// 1000 ids, val NULL where id%7 == 3: 143 rows.
	if !strings.Contains(out, "857") || !strings.Contains(out, "999") || !strings.Contains(out, "(1 rows)") {
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
	if code != 1 || !strings.Contains(errs, "quiver load: already exists: ") || !strings.Contains(errs, "append") {
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
	if code != 1 || !strings.Contains(errs, "quiver load: not found: ") || !strings.Contains(errs, "create") {
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
	rows, _, name, ratio := summary(t, errs)
	if rows != 20000 || name != "zstd" || ratio < 2 {
		t.Errorf("zstd:1: %d rows, codec %s, ratio %.2f; want 20000, zstd, > 2", rows, name, ratio)
	}
	// The session keeps no codec between commands (each is a new
	// connection): none is asked for explicitly, and auto on loopback is
	// none too.
	for _, c := range []string{"none", "auto"} {
		_, errs = mustRun(t, "query", "--server", ts.uri, "--codec", c, sql)
		if rows, _, name, ratio := summary(t, errs); rows != 20000 || name != "none" || ratio < 0.9 || ratio > 1.1 {
			t.Errorf("%s: %d rows, codec %s, ratio %.2f; want none ≈ 1", c, rows, name, ratio)
		}
	}
	_, errs = mustRun(t, "query", "--server", ts.uri, "--codec", "lz4", sql)
	if _, _, name, ratio := summary(t, errs); name != "lz4" || ratio < 1.2 {
		t.Errorf("lz4: codec %s, ratio %.2f", name, ratio)
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

// TestSessionCodecHolds: the codec set before a query is the codec of
// its result, every time. arrow-go's cookie middleware can drop the
// session cookie of a SetSessionOptions (a race between the end of the
// stream and a goroutine watching its context; 2 in 300 under -race),
// which setSessionOptions avoids by reading the headers itself.
func TestSessionCodecHolds(t *testing.T) {
	ts := startTestServer(t, server.Config{})
	mustRun(t, "load", "--server", ts.uri, "--quiet", "t", writeCSV(t, 100))
	rf := remoteFlags{server: ts.uri}
	ctx := context.Background()
	n := 300
	if testing.Short() {
		n = 100
	}
	for i := range n {
		conn, err := rf.connect(io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if err := setResultCodec(ctx, conn, "lz4"); err != nil {
			t.Fatal(err)
		}
		info, err := conn.Execute(ctx, "SELECT id FROM t")
		if err != nil {
			t.Fatal(err)
		}
		rs, err := openResult(ctx, conn, info, batch.ReadOptions{Alloc: remoteAlloc})
		if err != nil {
			t.Fatal(err)
		}
		for rs.Next() {
		}
		st := rs.Stats()
		rs.Release()
		conn.Close()
		if rs.Err() != nil || st.Rows != 100 || st.Codec != codec.LZ4 {
			t.Fatalf("query %d: %d rows, codec %v, %v", i, st.Rows, st.Codec, rs.Err())
		}
	}
}
