package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// lockedBuffer is a bytes.Buffer safe to write from the server's
// goroutine while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe runs `quiver serve args…` until the test ends and returns
// what it printed once it says where it listens.
func startServe(t *testing.T, args ...string) (addr, metrics string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"serve"}, args...), &stdout, &stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("serve exited %d: %s", code, stderr.String())
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop after the signal")
		}
	})
	connect := regexp.MustCompile(`connect: grpc://(\S+)`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := connect.FindStringSubmatch(stdout.String()); m != nil {
			if mm := regexp.MustCompile(`metrics: (\S+)`).FindStringSubmatch(stdout.String()); mm != nil {
				metrics = mm[1]
			}
			return m[1], metrics
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		default:
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("serve did not start: %s", stderr.String())
	return "", ""
}

func TestServeDemoAnswersFlightSQL(t *testing.T) {
	addr, metrics := startServe(t, "--listen", "127.0.0.1:0", "--metrics", "127.0.0.1:0", "--demo", "--sf", "0.001")
	cl, err := flightsql.NewClient(addr, nil, []flight.ClientMiddleware{flight.NewClientCookieMiddleware()}, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	info, err := cl.Execute(ctx, `SELECT l_returnflag, count(*) FROM lineitem GROUP BY l_returnflag ORDER BY l_returnflag`)
	if err != nil {
		t.Fatal(err)
	}
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var rows int64
	for r.Next() {
		rows += r.RecordBatch().NumRows()
	}
	if r.Err() != nil || rows != 3 {
		t.Fatalf("%d groups, %v", rows, r.Err())
	}
	resp, err := http.Get(metrics)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "quiver_cache_tables 8") {
		t.Errorf("metrics: %s", body)
	}
}

func TestServeConfigFileAndRefusals(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "quiver.json")
	os.WriteFile(cfg, []byte(`{"listen": "127.0.0.1:0", "metrics": "", "codec": "zstd:3", "max-batch-rows": 5000}`), 0o600)
	addr, metrics := startServe(t, "--config", cfg)
	if addr == "" || metrics != "" {
		t.Errorf("config file: addr %q, metrics %q", addr, metrics)
	}

	shortTokens := filepath.Join(dir, "tokens")
	os.WriteFile(shortTokens, []byte("# a comment\nshort\n"), 0o600)
	var out, errOut bytes.Buffer
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--listen", "0.0.0.0:0", "--metrics", ""}, 1, "--insecure"},
		{[]string{"--codec", "gzip"}, 2, "want none, lz4, zstd:N or auto"},
		{[]string{"--config", filepath.Join(dir, "missing.json")}, 1, "no such file"},
		{[]string{"--token-file", shortTokens, "--metrics", "", "--listen", "127.0.0.1:0"}, 2, "at least 16"},
	} {
		out.Reset()
		errOut.Reset()
		code := run(context.Background(), append([]string{"serve"}, tc.args...), &out, &errOut)
		if code != tc.code || !strings.Contains(errOut.String(), tc.msg) {
			t.Errorf("%v: exit %d, %q; want %d with %q", tc.args, code, errOut.String(), tc.code, tc.msg)
		}
	}
	os.WriteFile(cfg, []byte(`{"nope": 1}`), 0o600)
	if code := run(context.Background(), []string{"serve", "--config", cfg}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), `unknown setting "nope"`) {
		t.Errorf("unknown config key: %d %s", code, errOut.String())
	}
}

// TestServeTwoSideBySide: a second server with its own --listen starts
// without further flags (both once took metrics port 31338).
func TestServeTwoSideBySide(t *testing.T) {
	a, am := startServe(t, "--listen", "127.0.0.1:0")
	b, bm := startServe(t, "--listen", "127.0.0.1:0")
	if a == b || am != "" || bm != "" {
		t.Errorf("servers at %s (metrics %q) and %s (metrics %q)", a, am, b, bm)
	}
	// A metrics port that is taken is named, with the way out.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0", "--metrics", taken.Addr().String()}, &out, &errOut)
	want := "metrics: listen " + taken.Addr().String() + ": address already in use (another quiver?"
	if code != 1 || !strings.Contains(errOut.String(), want) {
		t.Errorf("exit %d, %q; want 1 with %q", code, errOut.String(), want)
	}
}

// TestServeSetsMemoryLimit: serve sets the Go runtime's soft memory limit
// to what its budgets add up to, and puts the old one back at exit.
func TestServeSetsMemoryLimit(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set: serve leaves it")
	}
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		if now := debug.SetMemoryLimit(-1); now != before {
			t.Errorf("memory limit %d after serve, %d before", now, before)
		}
	})
	startServe(t, "--listen", "127.0.0.1:0", "--budget", "100000000", "--query-memory", "200000000", "--max-queries", "3")
	if got, want := debug.SetMemoryLimit(-1), int64(100000000+3*200000000+512<<20); got != want {
		t.Errorf("memory limit %d, want %d", got, want)
	}
}
