package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/internal/servertest"
	"github.com/quiverdb/quiver/server"
)

// testServer is a real quiver server on a loopback port whose memory is
// checked for leaks when the test ends, as is the client's: the
// commands' allocator is swapped for a checked one meanwhile.
type testServer struct {
	*server.Server
	uri string
}

const testToken = "cli-test-token-0123456789"

func startTestServer(t *testing.T, cfg server.Config) *testServer {
	t.Helper()
	checkClientMemory(t)
	s := servertest.Start(t, cfg, 256<<20, nil)
	return &testServer{Server: s, uri: s.URI()}
}

// checkClientMemory makes the client commands allocate from a checked
// allocator until the test ends, then asserts they released everything.
func checkClientMemory(t *testing.T) {
	t.Helper()
	if _, ok := remoteAlloc.(*memory.CheckedAllocator); ok {
		return // already checked by this test
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	prev := remoteAlloc
	remoteAlloc = mem
	t.Cleanup(func() {
		remoteAlloc = prev
		mem.AssertSize(t, 0)
	})
}

// writeCSV writes a CSV file of n rows: id (0..n-1), name ("name <id%10>")
// and val (id/4, one row in 7 empty: NULL).
func writeCSV(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("id,name,val\n")
	for i := range n {
		val := strconv.FormatFloat(float64(i)/4, 'f', -1, 64)
		if i%7 == 3 {
			val = ""
		}
		fmt.Fprintf(&b, "%d,name %d,%s\n", i, i%10, val)
	}
	p := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// mustRun runs the CLI and fails the test unless it exits 0.
func mustRun(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	code, out, errs := runCLI(args...)
	if code != 0 {
		t.Fatalf("%v: exit %d\n%s%s", args, code, out, errs)
	}
	return out, errs
}

var summaryRe = regexp.MustCompile(`(\d+) rows? in (\d+) batch(?:es)?; received (.+?) (?:uncompressed|with (\w+)) for (.+?) of Arrow data(?:: compression saved .+? \((\d+)%\))?`)

// summary parses the summary line of a remote query: the codec ("none"
// when uncompressed) and the share of the Arrow bytes compression saved.
func summary(t *testing.T, stderr string) (rows, batches int, codecName string, savedPct int) {
	t.Helper()
	m := summaryRe.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no summary line in %q", stderr)
	}
	rows, _ = strconv.Atoi(m[1])
	batches, _ = strconv.Atoi(m[2])
	codecName = m[4]
	if codecName == "" {
		codecName = "none"
	}
	savedPct, _ = strconv.Atoi(m[6])
	return rows, batches, codecName, savedPct
}

func TestHintsNameFlags(t *testing.T) {
	c, err := client.Dial("grpc://127.0.0.1:1", client.Options{Alloc: remoteAlloc})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.Query(context.Background(), "SELECT 1")
	if !strings.HasPrefix(err.Error(), "server grpc://127.0.0.1:1 unavailable: ") || status.Code(err) != codes.Unavailable {
		t.Errorf("no server: %v", err)
	}
	ce := &client.Error{What: "not authenticated", Status: status.New(codes.Unauthenticated, "m")}
	if got := withHints(ce).Error(); got != "not authenticated: m; give --token or set QUIVER_TOKEN" {
		t.Errorf("unauthenticated: %q", got)
	}
	plain := io.ErrUnexpectedEOF
	if withHints(plain) != plain {
		t.Error("a non-gRPC error changed")
	}
}

// TestProgressETA: with a known total, the line adds the share done and
// the time left at the rate so far.
func TestProgressETA(t *testing.T) {
	var b strings.Builder
	now := time.Unix(0, 0)
	p := &fetchProgress{w: &b, verb: "read", total: 10e6, now: func() time.Time { return now }, start: now, last: now,
		delay: time.Second, every: time.Second}
	now = now.Add(2 * time.Second)
	p.update(100, 4e6)
	now = now.Add(2 * time.Second)
	p.update(300, 10e6) // done: no share
	want := "100 rows, 4.0 MB read, 2.0 MB/s, 40% of 10.0 MB, ETA 3s\n300 rows, 10.0 MB read, 2.5 MB/s\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestFetchProgress(t *testing.T) {
	var b strings.Builder
	now := time.Unix(0, 0)
	p := &fetchProgress{w: &b, verb: "received", now: func() time.Time { return now }, start: now, last: now,
		delay: time.Second, every: 2 * time.Second}
	p.update(10, 1e6) // before the delay: nothing
	now = now.Add(time.Second)
	p.update(20, 2e6)
	now = now.Add(time.Second)
	p.update(30, 3e6) // within the interval: nothing
	now = now.Add(2 * time.Second)
	p.update(40, 8e6)
	p.done()
	want := "20 rows, 2.0 MB received, 2.0 MB/s\n40 rows, 8.0 MB received, 2.0 MB/s\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	p.tty, p.shown = true, false
	now = now.Add(time.Second)
	p.update(50, 10e6)
	p.done()
	if got := b.String(); !strings.HasPrefix(got, "\r\x1b[K50 rows") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("terminal: %q", got)
	}
}
