package server

import (
	"context"
	"crypto/tls"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/testcert"
)

// scrape returns what the metrics handler serves now.
func (ts *testServer) scrape(t *testing.T) string {
	t.Helper()
	rec := httptest.NewRecorder()
	ts.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	return string(body)
}

// TestMetricsDisconnectIsNotAnError: a client that goes away mid-stream
// is counted as a cancelled query, not as an Unavailable (or any) error.
func TestMetricsDisconnectIsNotAnError(t *testing.T) {
	ts := startServer(t, Config{MaxBatchRows: 1000}, wideStrings(20000, 1000, 400))
	cl := ts.client(t)
	for range 5 {
		ctx, cancel := context.WithCancel(context.Background())
		info, err := cl.Execute(ctx, `SELECT s FROM wide`)
		if err != nil {
			t.Fatal(err)
		}
		r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatalf("no first batch: %v", r.Err())
		}
		cancel()
		r.Release()
	}
	// A client whose connection closes mid-stream (a process that
	// exits): the server's Send fails Unavailable or Canceled.
	gone := ts.client(t)
	info, err := gone.Execute(context.Background(), `SELECT s FROM wide`)
	if err != nil {
		t.Fatal(err)
	}
	r, err := gone.DoGet(context.Background(), info.Endpoint[0].Ticket)
	if err != nil || !r.Next() {
		t.Fatalf("no first batch: %v", err)
	}
	gone.Close()
	r.Release()
	var text string
	waitFor(t, "the cancelled queries to end", func() bool {
		text = ts.scrape(t)
		return strings.Contains(text, "quiver_queries_total 6\n") && ts.running.count() == 0
	})
	if !strings.Contains(text, "quiver_query_errors_total 0\n") || strings.Contains(text, "quiver_query_errors_by_code_total{") {
		t.Errorf("disconnects counted as errors:\n%s", text)
	}
	if !strings.Contains(text, "quiver_queries_cancelled_total 6\n") {
		t.Errorf("disconnects not counted as cancelled:\n%s", text)
	}
}

// get fetches url with header "Authorization: auth" (none if empty).
func get(t *testing.T, client *http.Client, url, auth string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// TestMetricsEndpointServesRuntime: the endpoint a server listens on
// serves quiver's counters and the Go runtime's gauges.
func TestMetricsEndpointServesRuntime(t *testing.T) {
	ts := startServer(t, Config{MetricsListen: "127.0.0.1:0"})
	code, body := get(t, http.DefaultClient, ts.MetricsURL(), "")
	for _, want := range []string{"quiver_queries_total 0\n", "\ngo_goroutines ", "\ngo_memstats_heap_alloc_bytes ", "\ngo_gc_cycles_total "} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("status %d, no %q in:\n%s", code, want, body)
		}
	}
}

// TestMetricsOffByDefault: a server with no MetricsListen binds one
// port, so two start side by side on one machine.
func TestMetricsOffByDefault(t *testing.T) {
	a := startServer(t, Config{})
	b := startServer(t, Config{})
	if a.MetricsURL() != "" || b.MetricsURL() != "" {
		t.Errorf("metrics on by default: %q, %q", a.MetricsURL(), b.MetricsURL())
	}
}

// newUnstarted returns a server over an empty cache, not listening yet.
func newUnstarted(t *testing.T, cfg Config) *Server {
	t.Helper()
	c, err := cache.New(cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	s, err := New(cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMetricsTakenPortIsNamed: a metrics port another program holds
// fails Listen with an error that names it and the flag, and leaves the
// Flight port free.
func TestMetricsTakenPortIsNamed(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	flightAddr := freePort(t)
	s := newUnstarted(t, Config{Listen: flightAddr, MetricsListen: taken.Addr().String()})
	err = s.Listen()
	if err == nil || !strings.Contains(err.Error(), "metrics: listen "+taken.Addr().String()+": address already in use") || !strings.Contains(err.Error(), "--metrics") {
		t.Fatalf("got %v", err)
	}
	lis, err := net.Listen("tcp", flightAddr)
	if err != nil {
		t.Fatalf("the Flight port stayed bound after the failed Listen: %v", err)
	}
	lis.Close()
}

func freePort(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	return lis.Addr().String()
}

// TestMetricsFollowsTheFlightPortsRule: a non-loopback metrics address
// needs TLS and a token (or Insecure), like the Flight port; with tokens
// the endpoint wants one, with TLS it speaks HTTPS.
func TestMetricsFollowsTheFlightPortsRule(t *testing.T) {
	s := newUnstarted(t, Config{MetricsListen: "0.0.0.0:0"})
	if err := s.Listen(); err == nil || !strings.Contains(err.Error(), "refusing to serve metrics on 0.0.0.0:0") {
		t.Fatalf("non-loopback metrics without auth: %v", err)
	}

	s = newUnstarted(t, Config{MetricsListen: "0.0.0.0:0", Insecure: true})
	if err := s.Listen(); err != nil {
		t.Fatalf("non-loopback metrics with Insecure: %v", err)
	}
	s.lis.Close()
	s.metricsLis.Close()

	certFile, keyFile, pool := testcert.Write(t)
	ts := startServer(t, Config{MetricsListen: "127.0.0.1:0", Tokens: []string{testToken}, TLSCert: certFile, TLSKey: keyFile})
	url := ts.MetricsURL()
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("metrics URL %q with TLS", url)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for _, tc := range []struct {
		auth string
		code int
	}{{"", 401}, {"Bearer wrong-token-0123456789", 401}, {"Basic " + testToken, 401}, {"Bearer " + testToken, 200}} {
		if code, body := get(t, client, url, tc.auth); code != tc.code || (code == 200) != strings.Contains(body, "go_goroutines") {
			t.Errorf("auth %q: status %d, want %d:\n%s", tc.auth, code, tc.code, body)
		}
	}
	if _, err := http.Get(strings.Replace(url, "https://", "http://", 1)); err == nil {
		if code, _ := get(t, http.DefaultClient, strings.Replace(url, "https://", "http://", 1), "Bearer "+testToken); code == 200 {
			t.Error("metrics answered plain HTTP on a TLS server")
		}
	}
}
