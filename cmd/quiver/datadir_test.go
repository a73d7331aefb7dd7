package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/store"
)

// serveUntil runs `quiver serve args…` and returns its address, what it
// printed, and a stop that ends it (and fails the test on a bad exit).
func serveUntil(t *testing.T, args ...string) (addr string, stdout *lockedBuffer, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout = &lockedBuffer{}
	var stderr lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"serve"}, args...), stdout, &stderr) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d: %s", code, stderr.String())
		}
	}
	t.Cleanup(stop)
	connect := regexp.MustCompile(`connect: grpc://(\S+)`)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := connect.FindStringSubmatch(stdout.String()); m != nil {
			return m[1], stdout, stop
		}
		select {
		case code := <-done:
			stopped = true
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		default:
		}
	}
	t.Fatalf("serve did not start: %s", stderr.String())
	return
}

func flightClient(t *testing.T, addr string) *flightsql.Client {
	t.Helper()
	cl, err := flightsql.NewClient(addr, nil, []flight.ClientMiddleware{flight.NewClientCookieMiddleware()}, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// countRows runs SELECT count(*) FROM table.
func countRows(t *testing.T, cl *flightsql.Client, table string) (int64, error) {
	t.Helper()
	ctx := context.Background()
	info, err := cl.Execute(ctx, "SELECT count(*) FROM "+table)
	if err != nil {
		return 0, err
	}
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		return 0, err
	}
	defer r.Release()
	var n int64
	for r.Next() {
		n += r.RecordBatch().Column(0).(*array.Int64).Value(0)
	}
	return n, r.Err()
}

// TestServeDataDir: without --data-dir serve says tables live in memory
// only; with it an ingested table is served again after a restart, a
// second server on the directory is refused naming the holder, and a
// --demo table may not shadow a stored one.
func TestServeDataDir(t *testing.T) {
	_, out, stop := serveUntil(t, "--listen", "127.0.0.1:0", "--metrics", "")
	stop()
	if !strings.Contains(out.String(), "tables are kept in memory only; --data-dir DIR keeps them") {
		t.Errorf("serve without --data-dir printed %q", out.String())
	}

	dir := t.TempDir()
	addr, _, stop := serveUntil(t, "--listen", "127.0.0.1:0", "--metrics", "", "--data-dir", dir)
	cl := flightClient(t, addr)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(mem)
	for i := range 5000 {
		b.Append(int64(i))
	}
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 5000)
	col.Release()
	r, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	rec.Release()
	_, err := cl.ExecuteIngest(context.Background(), r, &flightsql.ExecuteIngestOpts{Table: "kept", TableDefinitionOptions: &flightsql.TableDefinitionOptions{
		IfNotExist: flightsql.TableDefinitionOptionsTableNotExistOptionCreate, IfExists: flightsql.TableDefinitionOptionsTableExistsOptionFail}})
	r.Release()
	if err != nil {
		t.Fatal(err)
	}

	var errOut bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0", "--metrics", "", "--data-dir", dir}, &bytes.Buffer{}, &errOut); code == 0 || !strings.Contains(errOut.String(), "locked by process") {
		t.Errorf("second server on the directory: exit %d, %q", code, errOut.String())
	}
	stop()

	errOut.Reset()
	if code := run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0", "--metrics", "", "--data-dir", dir, "--table", "kept=x.csv"}, &bytes.Buffer{}, &errOut); code != 2 || !strings.Contains(errOut.String(), `"kept" is stored`) {
		t.Errorf("--table shadowing a stored table: exit %d, %q", code, errOut.String())
	}

	addr, _, _ = serveUntil(t, "--listen", "127.0.0.1:0", "--metrics", "", "--data-dir", dir)
	if n, err := countRows(t, flightClient(t, addr), "kept"); n != 5000 || err != nil {
		t.Fatalf("after the restart: %d rows, %v", n, err)
	}
}

// TestInspectDataDir: quiver inspect DIR prints the tables of a data
// directory a server holds, and --verify names a damaged chunk's file.
func TestInspectDataDir(t *testing.T) {
	dir := t.TempDir()
	c, _ := cache.New(cache.Options{})
	st, err := store.Open(dir, c, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close() // held, as by a running server
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range 1000 {
		b.Append(int64(i * i))
	}
	col := b.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 1000)
	r, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	if _, err := st.Put(context.Background(), "squares", r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"inspect", "--verify", dir}, &out, &errOut); code != 0 ||
		!strings.Contains(out.String(), "table squares: 1000 rows in 1 batches") || !strings.Contains(out.String(), "checksum checked: OK") {
		t.Fatalf("inspect: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	chunks := filepath.Join(dir, "t1-1.chunks")
	data, _ := os.ReadFile(chunks)
	data[len(data)-2] ^= 1
	os.WriteFile(chunks, data, 0o644)
	out.Reset()
	errOut.Reset()
	if code := run(context.Background(), []string{"inspect", "--verify", dir}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "t1-1.chunks") {
		t.Fatalf("inspect of a damaged directory: exit %d\n%s%s", code, out.String(), errOut.String())
	}
}

// TestServeDemoShadowsStored: --demo loads all eight TPC-H tables, so a
// stored table named like any of them (here nation) refuses the start.
func TestServeDemoShadowsStored(t *testing.T) {
	dir := t.TempDir()
	c, _ := cache.New(cache.Options{})
	st, err := store.Open(dir, c, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.Append(1)
	col := b.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 1)
	r, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	if _, err := st.Put(context.Background(), "nation", r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	var errOut bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0", "--metrics", "", "--data-dir", dir, "--demo"}, &bytes.Buffer{}, &errOut); code != 2 || !strings.Contains(errOut.String(), `"nation" is stored`) {
		t.Errorf("--demo with a stored nation: exit %d, %q", code, errOut.String())
	}
}

// TestServeCompactFiles: with --compact-files 2 the server merges single-
// row appends in the background, so 8 of them end in at most 3 chunk
// files with every row; bad compaction flags are usage errors naming
// the flag.
func TestServeCompactFiles(t *testing.T) {
	for _, args := range [][]string{{"--compact-rows", "0"}, {"--compact-files", "-1"}, {"--compact-rows", "100000000"}} {
		var errOut bytes.Buffer
		if code := run(context.Background(), append([]string{"serve", "--listen", "127.0.0.1:0", "--metrics", ""}, args...), &bytes.Buffer{}, &errOut); code != 2 || !strings.Contains(errOut.String(), args[0]) {
			t.Errorf("serve %v: exit %d, %q", args, code, errOut.String())
		}
	}
	dir := t.TempDir()
	addr, _, _ := serveUntil(t, "--listen", "127.0.0.1:0", "--metrics", "", "--data-dir", dir, "--compact-files", "2")
	cl := flightClient(t, addr)
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for i := range 9 {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.Append(int64(i))
		col := b.NewArray()
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, 1)
		r, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
		_, err := cl.ExecuteIngest(context.Background(), r, &flightsql.ExecuteIngestOpts{Table: "small", TableDefinitionOptions: &flightsql.TableDefinitionOptions{
			IfNotExist: flightsql.TableDefinitionOptionsTableNotExistOptionCreate, IfExists: flightsql.TableDefinitionOptionsTableExistsOptionAppend}})
		r.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	chunkFiles := func() int {
		names, _ := filepath.Glob(filepath.Join(dir, "*.chunks"))
		return len(names)
	}
	for deadline := time.Now().Add(30 * time.Second); chunkFiles() > 3; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d chunk files after 9 single-row ingests with --compact-files 2", chunkFiles())
		}
	}
	if n, err := countRows(t, cl, "small"); n != 9 || err != nil {
		t.Fatalf("after compaction: %d rows, %v", n, err)
	}
}
