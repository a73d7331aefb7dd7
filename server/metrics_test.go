package server

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
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
