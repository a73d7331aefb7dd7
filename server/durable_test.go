package server

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/store"
)

// startDurable starts a server whose tables are kept in dir; stop shuts
// it down and closes the store.
func startDurable(t *testing.T, dir string) (ts *testServer, stop func()) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(dir, c, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := st.Problems(); len(p) != 0 {
		t.Fatal(p)
	}
	cfg := Config{Listen: "127.0.0.1:0", Alloc: mem, Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	s, err := New(cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ts = &testServer{Server: s, mem: mem, cache: c, done: make(chan error, 1)}
	go func() { ts.done <- s.Serve() }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		s.Shutdown(context.Background())
		if err := <-ts.done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		st.Close()
		for _, name := range c.Tables() {
			c.Drop(name)
		}
		deadline := time.Now().Add(5 * time.Second)
		for mem.CurrentAlloc() != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		mem.AssertSize(t, 0)
	}
	t.Cleanup(stop)
	return ts, stop
}

// TestIngestSurvivesRestart: tables created, appended to and replaced
// over Flight SQL with a Store are served again by a new server over the
// same directory.
func TestIngestSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ingest := func(cl *flightsql.Client, table string, from, to int, exists flightsql.TableDefinitionOptionsTableExistsOption) {
		t.Helper()
		r := pointsReader(t, mem, from, to, 256)
		defer r.Release()
		if _, err := cl.ExecuteIngest(ctx, r, ingestOpts(table, flightsql.TableDefinitionOptionsTableNotExistOptionCreate, exists)); err != nil {
			t.Fatal(err)
		}
	}
	query := `SELECT count(*), count(label), min(k), max(k) FROM points`
	ts, stop := startDurable(t, dir)
	cl := ts.client(t)
	ingest(cl, "points", 0, 1000, flightsql.TableDefinitionOptionsTableExistsOptionFail)
	ingest(cl, "points", 1000, 1100, flightsql.TableDefinitionOptionsTableExistsOptionAppend)
	ingest(cl, "other", 0, 10, flightsql.TableDefinitionOptionsTableExistsOptionFail)
	ingest(cl, "other", 5, 8, flightsql.TableDefinitionOptionsTableExistsOptionReplace)
	before, err := fetch(t, cl, ctx, query)
	if err != nil || len(before) != 1 || before[0] != "1100|880|0|1099" {
		t.Fatalf("before the restart: %v %v", before, err)
	}
	stop()

	ts2, _ := startDurable(t, dir)
	cl2 := ts2.client(t)
	after, err := fetch(t, cl2, ctx, query)
	if err != nil || len(after) != 1 || after[0] != before[0] {
		t.Fatalf("after the restart: %v %v, want %v", after, err, before)
	}
	other, err := fetch(t, cl2, ctx, `SELECT count(*), min(k) FROM other`)
	if err != nil || len(other) != 1 || other[0] != "3|5" {
		t.Fatalf("replaced table after the restart: %v %v", other, err)
	}
}
