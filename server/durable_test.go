package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/store"
	"github.com/quiverdb/quiver/store/vfs"
)

// startDurable starts a server whose tables are kept in dir; stop shuts
// it down and closes the store.
func startDurable(t *testing.T, dir string) (ts *testServer, stop func()) {
	t.Helper()
	return startDurableBudget(t, dir, 0)
}

// startDurableBudget is startDurable with a cache budget (0: the default).
func startDurableBudget(t *testing.T, dir string, budget int64) (ts *testServer, stop func()) {
	t.Helper()
	return startDurableWith(t, dir, budget, store.Options{})
}

// startDurableWith is startDurableBudget with the store's options.
func startDurableWith(t *testing.T, dir string, budget int64, opts store.Options) (ts *testServer, stop func()) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	c, err := cache.New(cache.Options{Alloc: mem, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(dir, c, opts)
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

// TestIngestDiskFull: an upload the data directory has no room for
// fails with ResourceExhausted and one sentence naming the table, the
// directory and the space free, at whichever write the disk fills; the
// table is as it was.
func TestIngestDiskFull(t *testing.T) {
	dir := t.TempDir()
	ffs := vfs.NewFaultFS(vfs.OS)
	// No background compaction: its writes would take the faults.
	ts, _ := startDurableWith(t, dir, 0, store.Options{FS: ffs, Compaction: store.Compaction{Files: -1}})
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cl := ts.client(t)
	r := pointsReader(t, mem, 0, 1000, 256)
	_, err := cl.ExecuteIngest(context.Background(), r, ingestOpts("points", flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionFail))
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	// Ops: 0 creates the chunk file, 1 writes its header, 2–5 its four
	// batches; 6–9 are the chunk file's sync and the manifest temp's
	// create, write and sync, which run at once.
	for _, op := range []int{0, 2, 7} {
		ffs.ResetOps()
		ffs.FailAt(op, syscall.ENOSPC)
		r := pointsReader(t, mem, 1000, 2000, 256)
		_, err := cl.ExecuteIngest(context.Background(), r, ingestOpts("points", flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionAppend))
		r.Release()
		want := fmt.Sprintf("store: table %q not stored: no space left in data directory %s (", "points", dir)
		msg := status.Convert(err).Message()
		if status.Code(err) != codes.ResourceExhausted || !strings.HasPrefix(msg, want) || !strings.HasSuffix(msg, "iB free)") {
			t.Fatalf("disk full at op %d: %v, want ResourceExhausted %q… free)", op, err, want)
		}
		if info, _ := ts.cache.Info("points"); info.Rows != 1000 {
			t.Fatalf("disk full at op %d: %d rows, want 1000", op, info.Rows)
		}
	}
}

// TestStoreErrorCodes: a full disk is ResourceExhausted, a damaged data
// directory DataLoss, an append to a table not stored FailedPrecondition.
func TestStoreErrorCodes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want codes.Code
	}{
		{fmt.Errorf("store: table %q: writing t1-2.chunks: %w", "t", &os.PathError{Op: "write", Path: "t1-2.chunks", Err: syscall.ENOSPC}), codes.ResourceExhausted},
		{&store.DiskFullError{Table: "t", Dir: "/d", Op: "stored", Free: -1, Err: &os.PathError{Op: "write", Path: "t1-2.chunks", Err: syscall.ENOSPC}}, codes.ResourceExhausted},
		{fmt.Errorf("wrapped: %w", store.ErrCorrupt), codes.DataLoss},
		{fmt.Errorf("%w: append refused", store.ErrNotStored), codes.FailedPrecondition},
	} {
		if got := codeOf(tc.err); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestIngestAppendToMemoryOnlyTable: with a Store, appending to a table
// put into the cache directly (as --demo does) fails with
// FailedPrecondition and leaves it as it was.
func TestIngestAppendToMemoryOnlyTable(t *testing.T) {
	ts, _ := startDurable(t, t.TempDir())
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := pointsReader(t, mem, 0, 100, 100)
	if _, err := ts.cache.Put(context.Background(), "demo", r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	r.Release()
	r = pointsReader(t, mem, 100, 110, 10)
	_, err := ts.client(t).ExecuteIngest(context.Background(), r, ingestOpts("demo", flightsql.TableDefinitionOptionsTableNotExistOptionFail, flightsql.TableDefinitionOptionsTableExistsOptionAppend))
	r.Release()
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("append to a memory-only table: %v", err)
	}
	if info, _ := ts.cache.Info("demo"); info.Rows != 100 {
		t.Fatalf("rows %d", info.Rows)
	}
}

// randomReader makes rows of (k int64, label utf8 of 24 random hex
// characters): bytes the codecs cannot shrink much.
func randomReader(t *testing.T, mem memory.Allocator, rows int, seed uint64) array.RecordReader {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "label", Type: arrow.BinaryTypes.String},
	}, nil)
	rng := rand.New(rand.NewPCG(seed, 0))
	var recs []arrow.RecordBatch
	for start := 0; start < rows; start += 8192 {
		b := array.NewRecordBuilder(mem, schema)
		for i := start; i < min(rows, start+8192); i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("%016x%08x", rng.Uint64(), rng.Uint32()))
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	r, err := array.NewRecordReader(schema, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		rec.Release()
	}
	return r
}

// TestIngestMakesRoom: with a Store, the budget is a cache over stored
// tables: an upload that needs the room of batches read from disk gets
// it (they are dropped, and read again when needed), where batches put
// in memory alone would leave it refused.
func TestIngestMakesRoom(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ingest := func(cl *flightsql.Client, table string, rows int) error {
		r := randomReader(t, mem, rows, uint64(rows))
		defer r.Release()
		_, err := cl.ExecuteIngest(ctx, r, ingestOpts(table, flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionReplace))
		return err
	}
	ts, stop := startDurable(t, dir)
	if err := ingest(ts.client(t), "a", 400_000); err != nil {
		t.Fatal(err)
	}
	a, _ := ts.cache.Info("a")
	stop()

	// a read in full fills the budget but for room for a tenth of it:
	// the upload of b, a quarter of a, needs a to give way.
	ts2, _ := startDurableBudget(t, dir, a.Compressed+a.Decoded/10)
	cl := ts2.client(t)
	count := func(name string) string {
		got, err := fetch(t, cl, ctx, `SELECT count(*), min(k), max(k) FROM `+name)
		if err != nil || len(got) != 1 {
			t.Fatalf("%s: %v %v", name, got, err)
		}
		return got[0]
	}
	if got := count("a"); got != "400000|0|399999" {
		t.Fatalf("a: %s", got)
	}
	if used := ts2.cache.Used(); used != a.Compressed {
		t.Fatalf("a read in full holds %d, want %d", used, a.Compressed)
	}
	if err := ingest(cl, "b", 100_000); err != nil {
		t.Fatalf("upload needing a's room: %v", err)
	}
	if got := count("b"); got != "100000|0|99999" {
		t.Fatalf("b: %s", got)
	}
	if got := count("a"); got != "400000|0|399999" {
		t.Fatalf("a read again: %s", got)
	}
}
