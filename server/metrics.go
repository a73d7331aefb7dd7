package server

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"runtime"
	"runtime/debug"
	"sync/atomic"

	"google.golang.org/grpc/codes"

	"github.com/quiverdb/quiver/cache"
)

// metrics counts what the server did, exposed in Prometheus' text format
// by Metrics, with the Go runtime's gauges (goroutines, heap, GC). It is
// a few counters written by hand: the Prometheus client library would
// bring a dozen modules for what fits on a screen.
type metrics struct {
	queries      atomic.Int64
	queryErrors  atomic.Int64
	cancelled    atomic.Int64 // queries whose client went away or cancelled
	rows         atomic.Int64
	batches      atomic.Int64
	rawBytes     atomic.Int64
	sentBytes    atomic.Int64
	ingestRows   atomic.Int64
	errorsByCode [17]atomic.Int64 // gRPC codes 0..16

	cache    *cache.Cache
	sessions *sessions
	running  *runningQueries
}

// query counts a query that ended. gone says the client went away or
// cancelled it (its stream's context ended): the error that follows
// (Canceled, or Unavailable from a closed transport) is then the client's
// doing, counted as cancelled, not as a failure of the server's.
func (m *metrics) query(st sendStats, err error, gone bool) {
	m.queries.Add(1)
	m.rows.Add(st.Rows)
	m.batches.Add(st.Batches)
	m.rawBytes.Add(st.RawBytes)
	m.sentBytes.Add(st.Sent)
	switch {
	case err != nil && gone:
		m.cancelled.Add(1)
	case err != nil:
		m.queryErrors.Add(1)
		if c := codeOf(err); int(c) < len(m.errorsByCode) {
			m.errorsByCode[c].Add(1)
		}
	}
}

// Metrics serves the counters in Prometheus' text exposition format.
func (s *Server) Metrics() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		s.metrics.write(w)
	})
}

func (m *metrics) write(w io.Writer) {
	metric := func(name, kind, help string, v int64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s %d\n", name, help, name, kind, name, v)
	}
	metric("quiver_queries_total", "counter", "Queries run (DoGet of a statement).", m.queries.Load())
	metric("quiver_query_errors_total", "counter", "Queries that failed, at plan time or while streaming (not counting cancelled ones).", m.queryErrors.Load())
	metric("quiver_queries_cancelled_total", "counter", "Queries ended because their client cancelled them or went away.", m.cancelled.Load())
	metric("quiver_result_rows_total", "counter", "Rows sent in query results.", m.rows.Load())
	metric("quiver_result_batches_total", "counter", "Record batches sent in query results.", m.batches.Load())
	metric("quiver_result_raw_bytes_total", "counter", "Arrow buffer bytes of the batches sent, before compression.", m.rawBytes.Load())
	metric("quiver_result_sent_bytes_total", "counter", "Bytes of the IPC messages sent (header and body), after compression.", m.sentBytes.Load())
	metric("quiver_ingest_rows_total", "counter", "Rows stored by bulk ingest.", m.ingestRows.Load())
	fmt.Fprintf(w, "# HELP quiver_query_errors_by_code_total Failed queries by gRPC status code.\n# TYPE quiver_query_errors_by_code_total counter\n")
	for c := range m.errorsByCode {
		if v := m.errorsByCode[c].Load(); v > 0 {
			fmt.Fprintf(w, "quiver_query_errors_by_code_total{code=%q} %d\n", codes.Code(c).String(), v)
		}
	}
	metric("quiver_queries_running", "gauge", "Queries streaming results now.", int64(m.running.count()))
	metric("quiver_sessions", "gauge", "Client sessions held.", int64(m.sessions.len()))
	metric("quiver_cache_tables", "gauge", "Tables in the cache.", int64(len(m.cache.Tables())))
	metric("quiver_cache_compressed_bytes", "gauge", "Compressed bytes the cache holds (what its budget counts).", m.cache.Used())
	metric("quiver_cache_budget_bytes", "gauge", "The cache's budget.", m.cache.Budget())
	writeRuntime(w)
}

// writeRuntime writes the Go runtime's gauges under the names the
// Prometheus client library gives them, so dashboards made for Go
// services read them as they are.
func writeRuntime(w io.Writer) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gauge := func(name, help string, v uint64) {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s gauge\n%s %d\n", name, help, name, name, v)
	}
	gauge("go_goroutines", "Number of goroutines that currently exist.", uint64(runtime.NumGoroutine()))
	threads, _ := runtime.ThreadCreateProfile(nil)
	gauge("go_threads", "Number of OS threads created.", uint64(threads))
	gauge("go_memstats_heap_alloc_bytes", "Bytes of allocated heap objects.", ms.HeapAlloc)
	gauge("go_memstats_heap_inuse_bytes", "Bytes in in-use heap spans.", ms.HeapInuse)
	gauge("go_memstats_heap_idle_bytes", "Bytes in idle (unused) heap spans.", ms.HeapIdle)
	gauge("go_memstats_heap_released_bytes", "Bytes of idle heap spans returned to the OS.", ms.HeapReleased)
	gauge("go_memstats_heap_objects", "Number of allocated heap objects.", ms.HeapObjects)
	gauge("go_memstats_sys_bytes", "Bytes of memory obtained from the OS.", ms.Sys)
	gauge("go_memstats_next_gc_bytes", "Heap size at which the next GC cycle starts.", ms.NextGC)
	fmt.Fprintf(w, "# HELP go_memstats_last_gc_time_seconds Time of the last GC, seconds since 1970.\n# TYPE go_memstats_last_gc_time_seconds gauge\ngo_memstats_last_gc_time_seconds %g\n", float64(ms.LastGC)/1e9)
	fmt.Fprintf(w, "# HELP go_gc_cycles_total Completed GC cycles.\n# TYPE go_gc_cycles_total counter\ngo_gc_cycles_total %d\n", ms.NumGC)
	fmt.Fprintf(w, "# HELP go_gc_pause_seconds_total Stop-the-world GC pause time.\n# TYPE go_gc_pause_seconds_total counter\ngo_gc_pause_seconds_total %g\n", float64(ms.PauseTotalNs)/1e9)
	if limit := debug.SetMemoryLimit(-1); limit != math.MaxInt64 {
		gauge("go_gc_gomemlimit_bytes", "The Go runtime's soft memory limit (debug.SetMemoryLimit, GOMEMLIMIT).", uint64(limit))
	}
}
