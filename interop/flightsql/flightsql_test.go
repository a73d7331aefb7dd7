//go:build flightsqljs

// Package flightsql checks that Flight SQL clients no one here wrote read
// quiver's result streams, with every result codec: quiver's server runs
// in-process over a test table, fetch.js runs a query with a foreign
// client and prints every value it decoded, and the test compares that
// with the rows it expects. It needs Node and `npm install` in this folder
// (see .ci/run), hence the build tag:
//
//	npm install --prefix interop/flightsql
//	go test -tags flightsqljs -v ./interop/flightsql
//
// (-v shows what each client read and the known limitations below.)
//
// The clients (fetch.js says more):
//
//	rs  @lakehouse-rs/flight-sql-client 0.0.10: arrow-rs 49's Flight SQL
//	    client through napi. Its arrow-ipc is built without the lz4 and
//	    zstd features, so it reads only uncompressed streams: knownFailures
//	    holds the error it gives for the others, and the test fails if that
//	    changes either way.
//	ts  @firetiger-oss/flight-sql-client 1.1.1: TypeScript over grpc-js,
//	    decoding with Arrow JS 21.2.0, whose reader decompresses with the
//	    codecs registered in it (lz4js and fzstd, pure JS).
package flightsql

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/servertest"
	"github.com/quiverdb/quiver/server"
)

const (
	tableRows    = 5000
	tableBatch   = 1024 // rows per batch in the cache
	maxBatchRows = 1000 // rows per result batch, so results span batches
	testToken    = "interop-token-0123456789abcdef"
)

// resultCodecs are the server's result codecs under test, set through
// server.Config.ResultCodec so the clients need no session options.
var resultCodecs = []string{"none", "lz4", "zstd:1", "zstd:19"}

var clients = []string{"rs", "ts"}

const columns = "id, score, label, shipdate, price, flag"

// queries end their results inside a batch: the sorted one inside the
// sort's fourth output batch, the scan one inside the table's third batch.
var queries = []struct {
	name  string
	sql   string
	order func(a, b row) int // nil: table order
	limit int
}{
	{"sorted", "SELECT " + columns + " FROM t ORDER BY shipdate DESC NULLS LAST, id LIMIT 3333", byShipdateDescThenID, 3333},
	{"scan", "SELECT " + columns + " FROM t LIMIT 2500", nil, 2500},
}

// knownFailures maps a client and a result codec it cannot decode to the
// text its error contains. These are facts about the clients, not about
// quiver: the rs client's native module is built from arrow-ipc 49 with
// its default features, which leave out LZ4 and zstd (arrow-ipc's "lz4"
// and "zstd" features), and it collects the stream with expect, so the
// decode error becomes a panic (see runNode). A result whose buffers were
// all stored raw (-1, too small to gain from compression) still reads:
// the queries here are large enough to compress. The test fails if a
// listed failure stops happening, so this table cannot go stale quietly.
var knownFailures = map[string]map[string]string{
	"rs": {
		"lz4":     "lz4 IPC decompression requires the lz4 feature",
		"zstd:1":  "zstd IPC decompression requires the zstd feature",
		"zstd:19": "zstd IPC decompression requires the zstd feature",
	},
}

// TestForeignClientsReadResults runs every query with every client
// against a server with each result codec, and checks each client saw
// the schema, the batch boundaries and every value that quiver sent.
func TestForeignClientsReadResults(t *testing.T) {
	requireNode(t)
	rows := makeRows(tableRows)
	body := map[string]int64{}
	for _, rc := range resultCodecs {
		t.Run(rc, func(t *testing.T) {
			addr := startServer(t, server.Config{ResultCodec: rc, Tokens: []string{testToken}, MaxBatchRows: maxBatchRows}, rows)
			for _, q := range queries {
				w := fetchWire(t, addr, testToken, q.sql)
				checkWire(t, rc, q.limit, w)
				body[rc] += w.bodyBytes
				want := expect(rows, q.order, q.limit)
				for _, cl := range clients {
					t.Run(q.name+"/"+cl, func(t *testing.T) {
						out, err := runNode(t, cl, addr, testToken, q.sql)
						if known, ok := knownFailures[cl][rc]; ok {
							expectKnownFailure(t, cl, rc, known, out, err)
							return
						}
						if err != nil {
							t.Fatalf("%s client, result codec %s: %v", cl, rc, err)
						}
						checkResult(t, out, w.batchRows, want, strings.Split(columns, ", "), wantTypes)
					})
				}
			}
			t.Logf("result codec %s: %d record batch body bytes on the wire for both queries", rc, body[rc])
		})
	}
	// Levels must reach the wire, or "zstd:19" would test zstd:1 twice.
	z1, ok1 := body["zstd:1"]
	z19, ok19 := body["zstd:19"]
	if ok1 && ok19 && z1 == z19 {
		t.Errorf("zstd:1 and zstd:19 sent the same %d body bytes: the level did not reach the stream", z1)
	}
}

// TestForeignClientsAuth: each client gets through with the right bearer
// token and is refused without one and with a wrong one. Neither client
// passes on the server's message: the ts client reports the gRPC code
// (UNAUTHENTICATED) with a message of its own, and the rs client only
// the step that failed, so its refusals are told from other failures by
// the right token getting through on the same server.
func TestForeignClientsAuth(t *testing.T) {
	requireNode(t)
	addr := startServer(t, server.Config{ResultCodec: "none", Tokens: []string{testToken}}, makeRows(100))
	sql := "SELECT id FROM t LIMIT 5"
	refused := map[string]string{
		"rs": "failed to prepare statement",
		"ts": "[code UNAUTHENTICATED] FlightError: Authentication failed",
	}
	for _, cl := range clients {
		t.Run(cl+"/right token", func(t *testing.T) {
			out, err := runNode(t, cl, addr, testToken, sql)
			if err != nil {
				t.Fatal(err)
			}
			checkResult(t, out, []int64{5}, [][]*string{{ptr("0")}, {ptr("1")}, {ptr("2")}, {ptr("3")}, {ptr("4")}}, []string{"id"}, []string{"Int64"})
		})
		for _, tc := range []struct{ name, token string }{
			{"no token", ""},
			{"wrong token", "wrong-token-0123456789abcdef"},
		} {
			t.Run(cl+"/"+tc.name, func(t *testing.T) {
				out, err := runNode(t, cl, addr, tc.token, sql)
				if err == nil {
					t.Fatalf("the server answered:\n%s", out)
				}
				if !strings.Contains(err.Error(), refused[cl]) {
					t.Fatalf("error does not say %q:\n%v", refused[cl], err)
				}
			})
		}
	}
}

// checkWire: every record batch crossed the wire with the codec asked
// for, and the results span several batches.
func checkWire(t *testing.T, rc string, limit int, w wire) {
	t.Helper()
	want, err := codec.ParseSetting(rc)
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for i, k := range w.codecs {
		if k != want.Kind {
			t.Errorf("result codec %s: batch %d was sent with %s", rc, i, k)
		}
		rows += w.batchRows[i]
	}
	// The table holds more rows than the limit, so a last batch shorter
	// than the cap is one the limit ended inside.
	if rows != int64(limit) || len(w.batchRows) < 2 || w.batchRows[len(w.batchRows)-1] >= maxBatchRows {
		t.Fatalf("result codec %s: arrow-go received batches of %v rows; want %d rows in several batches, the last one cut", rc, w.batchRows, limit)
	}
}

func expectKnownFailure(t *testing.T, cl, rc, known string, out []byte, err error) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s client decoded a %s result, which knownFailures says it cannot: check its rows and remove the entry\n%.300s", cl, rc, out)
	case !strings.Contains(err.Error(), known):
		t.Errorf("%s client failed on a %s result, but not with the known error %q:\n%v", cl, rc, known, err)
	default:
		for line := range strings.Lines(err.Error()) {
			if strings.Contains(line, known) {
				t.Logf("known limitation: the %s client cannot read %s results: %s", cl, rc, strings.TrimSpace(line))
				break
			}
		}
	}
}

// resultHead is fetch.js's first line.
type resultHead struct {
	Client  string `json:"client"`
	Version string `json:"version"`
	Schema  []struct {
		Name     string `json:"name"`
		Type     string `json:"type"`
		Nullable bool   `json:"nullable"`
	} `json:"schema"`
	Batches []int64 `json:"batches"`
	Rows    int     `json:"rows"`
}

// checkResult compares fetch.js's output with the rows and batch
// boundaries expected.
func checkResult(t *testing.T, out []byte, wantBatches []int64, want [][]*string, wantNames, wantTypes []string) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		t.Fatalf("no output")
	}
	var head resultHead
	if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
		t.Fatalf("%v: %s", err, sc.Text())
	}
	var names, types []string
	for _, f := range head.Schema {
		names, types = append(names, f.Name), append(types, f.Type)
	}
	if !slices.Equal(names, wantNames) || !slices.Equal(types, wantTypes) {
		t.Errorf("%s sees columns %v of types %v; want %v of %v", head.Client, names, types, wantNames, wantTypes)
	}
	// Both clients' tables start with a batch of no rows: the rs client
	// puts one first to carry the schema, and Arrow JS makes one from the
	// schema message, which the ts client frames with a length that leaves
	// out the padding it writes after it. Batches of no rows are left out.
	got := slices.DeleteFunc(slices.Clone(head.Batches), func(n int64) bool { return n == 0 })
	if !slices.Equal(got, wantBatches) {
		t.Errorf("%s sees batches of %v rows; arrow-go received %v", head.Client, head.Batches, wantBatches)
	}
	if head.Rows != len(want) {
		t.Errorf("%s sees %d rows; want %d", head.Client, head.Rows, len(want))
	}
	bad := 0
	for i := 0; sc.Scan(); i++ {
		var cells []*string
		if err := json.Unmarshal(sc.Bytes(), &cells); err != nil {
			t.Fatalf("row %d: %v: %s", i, err, sc.Text())
		}
		if i >= len(want) {
			t.Fatalf("%s printed more than the %d rows expected", head.Client, len(want))
		}
		if c := firstDiff(cells, want[i]); c >= 0 {
			if bad++; bad <= 5 {
				t.Errorf("%s row %d column %d: got %s, want %s", head.Client, i, c, show(cells), show(want[i]))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d rows differ", head.Client, bad, len(want))
	}
	t.Logf("%s client %s read %d rows in batches %v", head.Client, head.Version, head.Rows, head.Batches)
}

func firstDiff(got, want []*string) int {
	for c := range max(len(got), len(want)) {
		if c >= len(got) || c >= len(want) {
			return c
		}
		g, w := got[c], want[c]
		if (g == nil) != (w == nil) || (g != nil && *g != *w) {
			return c
		}
	}
	return -1
}

func show(cells []*string) string {
	parts := make([]string, len(cells))
	for i, c := range cells {
		if c == nil {
			parts[i] = "NULL"
		} else {
			parts[i] = fmt.Sprintf("%q", *c)
		}
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// requireNode fails, not skips, when Node or the npm packages are
// missing: this test exists to be run, and a quiet skip would read as a
// pass.
func requireNode(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed; see .ci/run")
	}
	for _, pkg := range []string{"@lakehouse-rs/flight-sql-client", "@lakehouse-rs/flight-sql-client-linux-x64-gnu", "@firetiger-oss/flight-sql-client", "lz4js", "fzstd"} {
		if _, err := os.Stat("node_modules/" + pkg); err != nil {
			t.Fatalf("%s is not installed: run npm install --prefix interop/flightsql", pkg)
		}
	}
}

// runNode runs fetch.js with one client; a failure's error holds what the
// script wrote to stderr.
//
// A panic in the rs client's Rust code (its stream collection calls
// expect) is printed to stderr, but the promise it should have rejected
// never settles and node never exits. runNode watches stderr for the
// panic and ends node itself, so the failure shows at once, with the
// panic's message, instead of after the timeout.
func runNode(t *testing.T, client, addr, token, sql string) ([]byte, error) {
	t.Helper()
	host, port, ok := strings.Cut(addr, ":")
	if !ok {
		t.Fatalf("address %q has no port", addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command("node", "fetch.js", client, host, port, sql)
	cmd.Env = append(os.Environ(), "QUIVER_TOKEN="+token)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting node: %v", err)
	}
	var stderr bytes.Buffer
	panicked, stderrDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stderrDone)
		sc := bufio.NewScanner(stderrPipe)
		sc.Buffer(nil, 1<<20)
		seen := false
		for sc.Scan() {
			stderr.Write(sc.Bytes())
			stderr.WriteByte('\n')
			if !seen && strings.Contains(sc.Text(), "panicked at") {
				seen = true
				close(panicked)
			}
		}
		io.Copy(io.Discard, stderrPipe) // a line past the buffer: drain
	}()
	var ended string
	select {
	case <-stderrDone:
	case <-panicked:
		time.Sleep(200 * time.Millisecond) // the rest of the panic report
		ended = "node ended by the test after the panic"
	case <-ctx.Done():
		ended = "node ended by the test after 2 minutes"
	}
	if ended != "" {
		cmd.Process.Kill()
		<-stderrDone
	}
	err = cmd.Wait()
	if ended != "" {
		err = errors.New(ended)
	}
	if err != nil {
		return stdout.Bytes(), fmt.Errorf("node fetch.js %s: %w\n%s", client, err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// startServer serves rows as table t on a loopback port until the test
// ends, then checks that the cache and the server gave back every byte.
func startServer(t *testing.T, cfg server.Config, rows []row) string {
	t.Helper()
	s := servertest.Start(t, cfg, 64<<20, func(c *cache.Cache, mem memory.Allocator) {
		putTable(t, c, mem, "t", rows, tableBatch)
	})
	return s.Addr().String()
}
