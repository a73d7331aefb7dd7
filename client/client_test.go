package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/servertest"
	"github.com/quiverdb/quiver/internal/testcert"
	"github.com/quiverdb/quiver/server"
)

const testToken = "client-test-token-0123456789"

// startServer runs a real quiver server on a loopback port; its memory
// is checked for leaks when the test ends.
func startServer(t *testing.T, cfg server.Config) *server.Server {
	t.Helper()
	return servertest.Start(t, cfg, 256<<20, nil)
}

// dial connects with a checked allocator, asserted empty at the end.
func dial(t *testing.T, uri string, opts client.Options) *client.Client {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	opts.Alloc = mem
	c, err := client.Dial(uri, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		mem.AssertSize(t, 0)
	})
	return c
}

// numbers is a reader of n rows in batches of 1000: id int64 0..n-1
// and name utf8 "n<id%10>".
func numbers(n int) array.RecordReader {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var recs []arrow.RecordBatch
	for start := 0; start < n; start += 1000 {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := start; i < min(n, start+1000); i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("n%d", i%10))
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	rr, _ := array.NewRecordReader(schema, recs)
	for _, r := range recs {
		r.Release()
	}
	return rr
}

func ingest(t *testing.T, c *client.Client, table string, n int, mode client.Mode) (int64, error) {
	t.Helper()
	rr := numbers(n)
	defer rr.Release()
	return c.Ingest(context.Background(), table, rr, client.IngestOptions{Mode: mode})
}

// count runs sql, which returns one int64, and returns it.
func count(t *testing.T, c *client.Client, sql string) int64 {
	t.Helper()
	rs, err := c.Query(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Release()
	var n int64 = -1
	for rs.Next() {
		n = rs.RecordBatch().Column(0).(*array.Int64).Value(0)
	}
	if rs.Err() != nil {
		t.Fatal(rs.Err())
	}
	return n
}

// TestIngestModes: create, append and replace do what they say, and the
// refusals are *Errors with the server's code.
func TestIngestModes(t *testing.T) {
	s := startServer(t, server.Config{})
	c := dial(t, s.URI(), client.Options{})
	var progress []client.IngestProgress
	rr := numbers(2500)
	n, err := c.Ingest(context.Background(), "t", rr, client.IngestOptions{Codec: "zstd",
		OnBatch: func(p client.IngestProgress) { progress = append(progress, p) }})
	rr.Release()
	if err != nil || n != 2500 {
		t.Fatalf("create: %d, %v", n, err)
	}
	if len(progress) != 3 || progress[2].Rows != 2500 || progress[2].Batches != 3 || progress[2].Arrow == 0 || c.Sent() == 0 {
		t.Errorf("progress %+v, sent %d", progress, c.Sent())
	}
	var ce *client.Error
	if _, err := ingest(t, c, "t", 10, client.Create); !errors.As(err, &ce) || ce.Code() != codes.AlreadyExists {
		t.Errorf("create over t: %v", err)
	}
	if _, err := ingest(t, c, "t", 10, client.Append); err != nil {
		t.Fatal(err)
	}
	if got := count(t, c, "SELECT count(*) FROM t"); got != 2510 {
		t.Errorf("after append: %d rows", got)
	}
	if _, err := ingest(t, c, "t", 7, client.Replace); err != nil {
		t.Fatal(err)
	}
	if got := count(t, c, "SELECT count(*) FROM t"); got != 7 {
		t.Errorf("after replace: %d rows", got)
	}
	if _, err := ingest(t, c, "missing", 7, client.Append); status.Code(err) != codes.NotFound {
		t.Errorf("append to missing: %v", err)
	}
	for _, s := range []string{"create", "append", "replace"} {
		if m, err := client.ParseMode(s); err != nil || m.String() != s {
			t.Errorf("%s: %v %v", s, m, err)
		}
	}
	if _, err := client.ParseMode("upsert"); !errors.Is(err, client.ErrOptions) {
		t.Errorf("upsert: %v", err)
	}
}

// TestQueryPreparedCatalog: a query's rows and stats, a prepared
// statement run with two parameter values, the catalog.
func TestQueryPreparedCatalog(t *testing.T) {
	s := startServer(t, server.Config{MaxBatchRows: 400})
	c := dial(t, s.URI(), client.Options{})
	ctx := context.Background()
	if _, err := ingest(t, c, "nums", 3000, client.Create); err != nil {
		t.Fatal(err)
	}
	if err := c.SetResultCodec(ctx, "lz4"); err != nil {
		t.Fatal(err)
	}
	rs, err := c.Query(ctx, "SELECT id, name FROM nums WHERE id < 1000")
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for rs.Next() {
		for _, v := range rs.RecordBatch().Column(0).(*array.Int64).Int64Values() {
			sum += v
		}
	}
	st := rs.Stats()
	rs.Release()
	if rs.Err() != nil || sum != 999*1000/2 || st.Rows != 1000 || st.Batches != 3 || st.Codec != codec.LZ4 || st.Wire == 0 || st.Arrow == 0 {
		t.Errorf("sum %d, stats %+v, %v", sum, st, rs.Err())
	}

	stmt, err := c.Prepare(ctx, "SELECT count(*) FROM nums WHERE id < ?")
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{10, 2500} {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.Append(limit)
		col := b.NewArray()
		b.Release()
		params := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "p", Type: arrow.PrimitiveTypes.Int64}}, nil), []arrow.Array{col}, 1)
		col.Release()
		rs, err := stmt.Query(ctx, params)
		params.Release()
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		for rs.Next() {
			got = rs.RecordBatch().Column(0).(*array.Int64).Value(0)
		}
		rs.Release()
		if rs.Err() != nil || got != limit {
			t.Errorf("id < %d: %d, %v", limit, got, rs.Err())
		}
	}
	if err := stmt.Close(ctx); err != nil {
		t.Fatal(err)
	}

	tables, err := c.Tables(ctx, client.TablesOptions{Columns: true})
	if err != nil || len(tables) != 1 || tables[0].Name != "nums" || tables[0].Columns.NumFields() != 2 {
		t.Fatalf("tables %+v, %v", tables, err)
	}
	if tables, err := c.Tables(ctx, client.TablesOptions{TablePattern: "x%"}); err != nil || len(tables) != 0 {
		t.Errorf("pattern x%%: %+v, %v", tables, err)
	}
	schemas, err := c.Schemas(ctx)
	if err != nil || len(schemas) == 0 {
		t.Errorf("schemas %+v, %v", schemas, err)
	}

	var ce *client.Error
	if _, err := c.Query(ctx, "SELECT nope FROM nums"); !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "invalid SQL: ") {
		t.Errorf("bad SQL: %v", err)
	}
	if err := c.SetResultCodec(ctx, "gzip"); err == nil || !strings.Contains(err.Error(), "refused gzip") {
		t.Errorf("codec gzip: %v", err)
	}
}

// TestSessionCodecHolds: the codec set before a query is the codec of
// its result, every time, on fresh connections. arrow-go's
// SetSessionOptions loses the session cookie about 1 call in 150 (2 in
// 300 under -race), after which the query runs with the default codec.
func TestSessionCodecHolds(t *testing.T) {
	s := startServer(t, server.Config{})
	ctx := context.Background()
	setup := dial(t, s.URI(), client.Options{})
	if _, err := ingest(t, setup, "t", 100, client.Create); err != nil {
		t.Fatal(err)
	}
	n := 300
	if testing.Short() {
		n = 100
	}
	for i := range n {
		c, err := client.Dial(s.URI(), client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SetResultCodec(ctx, "lz4"); err != nil {
			t.Fatal(err)
		}
		rs, err := c.Query(ctx, "SELECT id FROM t")
		if err != nil {
			t.Fatal(err)
		}
		for rs.Next() {
		}
		st := rs.Stats()
		rs.Release()
		c.Close()
		if rs.Err() != nil || st.Rows != 100 || st.Codec != codec.LZ4 {
			t.Fatalf("query %d: %d rows, codec %v, %v", i, st.Rows, st.Codec, rs.Err())
		}
	}
}

// TestCancel: cancelling the context of a result being read ends it
// with the context's error, and Release of a result not read to the end
// frees the server's side (startServer's cleanup checks its memory).
func TestCancel(t *testing.T) {
	s := startServer(t, server.Config{MaxBatchRows: 100})
	c := dial(t, s.URI(), client.Options{Prefetch: 1})
	if _, err := ingest(t, c, "t", 20000, client.Create); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rs, err := c.Query(ctx, "SELECT id, name FROM t")
	if err != nil {
		t.Fatal(err)
	}
	if !rs.Next() {
		t.Fatal(rs.Err())
	}
	cancel()
	for rs.Next() {
	}
	if err := rs.Err(); status.Code(err) != codes.Canceled && !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: %v", err)
	}
	if rs.Stats().Rows >= 20000 {
		t.Errorf("read all %d rows after the cancel", rs.Stats().Rows)
	}
	rs.Release()

	// Released after one batch: the next query on the client still works.
	rs, err = c.Query(context.Background(), "SELECT id FROM t")
	if err != nil || !rs.Next() {
		t.Fatal(err, rs.Err())
	}
	rs.Release()
	if got := count(t, c, "SELECT count(*) FROM t"); got != 20000 {
		t.Errorf("count %d", got)
	}
	// A context already cancelled fails the call itself.
	if _, err := c.Query(ctx, "SELECT 1 FROM t"); status.Code(err) != codes.Canceled && !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

func TestTLSAndToken(t *testing.T) {
	cert, key, _ := testcert.Write(t)
	s := startServer(t, server.Config{TLSCert: cert, TLSKey: key, Tokens: []string{testToken}})
	if !strings.HasPrefix(s.URI(), "grpc+tls://") {
		t.Fatalf("URI %s", s.URI())
	}
	c := dial(t, s.URI(), client.Options{TLSCAFile: cert, Token: testToken})
	if _, err := ingest(t, c, "t", 10, client.Create); err != nil {
		t.Fatal(err)
	}
	if got := count(t, c, "SELECT count(*) FROM t"); got != 10 {
		t.Errorf("count %d", got)
	}
	noToken := dial(t, s.URI(), client.Options{TLSCAFile: cert})
	if _, err := noToken.Query(context.Background(), "SELECT count(*) FROM t"); status.Code(err) != codes.Unauthenticated || !strings.HasPrefix(err.Error(), "not authenticated: ") {
		t.Errorf("no token: %v", err)
	}
	untrusted := dial(t, s.URI(), client.Options{Token: testToken})
	if _, err := untrusted.Query(context.Background(), "SELECT count(*) FROM t"); status.Code(err) != codes.Unavailable || !strings.Contains(err.Error(), s.URI()+" unavailable") {
		t.Errorf("untrusted certificate: %v", err)
	}
	if _, err := client.Dial("grpc://127.0.0.1:1", client.Options{TLSCAFile: cert}); !errors.Is(err, client.ErrOptions) {
		t.Errorf("CA without TLS: %v", err)
	}
	if c.PlainTextToken() || !dial(t, "grpc://192.0.2.1:1", client.Options{Token: "x"}).PlainTextToken() {
		t.Error("PlainTextToken")
	}
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		tls      bool
	}{
		{"grpc://127.0.0.1:31337", "127.0.0.1:31337", false},
		{"grpc+tcp://h:1", "h:1", false},
		{"grpc+tls://example.com:443", "example.com:443", true},
		{"GRPC+TLS://example.com:443/", "example.com:443", true},
		{"localhost:9", "localhost:9", false},
		{"localhost", "localhost:31337", false},
		{"[::1]:5", "[::1]:5", false},
		{"[::1]", "[::1]:31337", false},
	} {
		got, err := client.ParseTarget(tc.in)
		if err != nil || got.Addr != tc.want || got.TLS != tc.tls {
			t.Errorf("%q: got %+v, %v; want %s tls=%v", tc.in, got, err, tc.want, tc.tls)
		}
	}
	for _, bad := range []string{"", "http://h:1", "grpc://", "grpc://h:1/path", "grpc://user@h:1", "h:1:2"} {
		if _, err := client.ParseTarget(bad); !errors.Is(err, client.ErrTarget) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if !(client.Target{Addr: "127.0.0.2:1"}).Loopback() || !(client.Target{Addr: "localhost:1"}).Loopback() || (client.Target{Addr: "10.0.0.1:1"}).Loopback() {
		t.Error("Loopback")
	}
	for text, want := range map[string]string{"auto": "none", "": "none", "none": "none", "lz4": "lz4", "zstd": "zstd"} {
		if _, got, err := (client.Target{Addr: "127.0.0.1:1"}).UploadCodec(text); err != nil || got != want {
			t.Errorf("%s to loopback: %s, %v", text, got, err)
		}
	}
	if _, got, _ := (client.Target{Addr: "192.0.2.1:1"}).UploadCodec("auto"); got != "zstd" {
		t.Errorf("auto to another machine: %s", got)
	}
	if _, _, err := (client.Target{}).UploadCodec("zstd:3"); !errors.Is(err, client.ErrOptions) || !strings.Contains(err.Error(), "no zstd level") {
		t.Errorf("zstd:3: %v", err)
	}
}

// TestServerConstants: the client's copies of the server's names agree
// (the client does not import the server).
func TestServerConstants(t *testing.T) {
	if client.OptionResultCodec != server.OptionResultCodec {
		t.Errorf("OptionResultCodec %q, server's %q", client.OptionResultCodec, server.OptionResultCodec)
	}
	if _, port, _ := net.SplitHostPort(server.DefaultListen); port != client.DefaultPort {
		t.Errorf("DefaultPort %s, server's %s", client.DefaultPort, port)
	}
}

// TestCloseEndsTheSession: a client that set options ends its session
// on Close, so a program that dials once per run does not hold a session
// on the server (against its per-client limit) until it idles out.
func TestCloseEndsTheSession(t *testing.T) {
	s := startServer(t, server.Config{MaxSessionsPerClient: 1})
	ctx := context.Background()
	for i := range 3 {
		c, err := client.Dial(s.URI(), client.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SetResultCodec(ctx, "lz4"); err != nil {
			t.Fatalf("run %d: %v (the previous run's session is still held)", i, err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExec: tables made and filled with SQL, with the rows affected.
func TestExec(t *testing.T) {
	s := startServer(t, server.Config{})
	c := dial(t, s.URI(), client.Options{})
	ctx := context.Background()
	for _, tc := range []struct {
		sql  string
		want int64
	}{
		{`CREATE TABLE t (id BIGINT, name VARCHAR)`, 0},
		{`INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL)`, 3},
		{`CREATE TABLE u AS SELECT id FROM t WHERE name IS NOT NULL`, 2},
		{`TRUNCATE t`, 3},
	} {
		if n, err := c.Exec(ctx, tc.sql); err != nil || n != tc.want {
			t.Fatalf("%s: %d %v, want %d", tc.sql, n, err, tc.want)
		}
	}
	if n := count(t, c, `SELECT count(*) FROM u`); n != 2 {
		t.Fatalf("u has %d rows", n)
	}
	var ce *client.Error
	if _, err := c.Exec(ctx, `SELECT 1`); !errors.As(err, &ce) || ce.What != "invalid SQL" {
		t.Fatalf("a query sent to Exec: %v", err)
	}
}
