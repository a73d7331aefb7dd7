package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
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
	"google.golang.org/protobuf/proto"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/flightipc"
)

// testServer is a real server on a loopback port over a cache whose
// memory, and the server's, is checked for leaks when the test ends.
type testServer struct {
	*Server
	mem   *memory.CheckedAllocator
	cache *cache.Cache
	done  chan error
}

func startServer(t *testing.T, cfg Config, tables ...func(*testing.T, *cache.Cache, memory.Allocator)) *testServer {
	t.Helper()
	return startServerBudget(t, cfg, 256<<20, tables...)
}

func startServerBudget(t *testing.T, cfg Config, budget int64, tables ...func(*testing.T, *cache.Cache, memory.Allocator)) *testServer {
	t.Helper()
	return startServerOn(t, memory.NewGoAllocator(), cfg, budget, tables...)
}

// poisonAllocator overwrites every buffer it frees, as a recycling
// allocator's next user would: whatever still reads a freed buffer reads
// 0xAA.
type poisonAllocator struct{ memory.Allocator }

func (p poisonAllocator) Free(b []byte) {
	for i := range b {
		b[i] = 0xAA
	}
	p.Allocator.Free(b)
}

// startServerOn is startServerBudget over the allocator under (checked
// for leaks as ever).
func startServerOn(t *testing.T, under memory.Allocator, cfg Config, budget int64, tables ...func(*testing.T, *cache.Cache, memory.Allocator)) *testServer {
	t.Helper()
	mem := memory.NewCheckedAllocator(under)
	c, err := cache.New(cache.Options{Alloc: mem, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	for _, load := range tables {
		load(t, c, mem)
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	cfg.Alloc = mem
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s, err := New(cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ts := &testServer{Server: s, mem: mem, cache: c, done: make(chan error, 1)}
	go func() { ts.done <- s.Serve() }()
	t.Cleanup(func() {
		s.Shutdown(context.Background())
		if err := <-ts.done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		for _, name := range c.Tables() {
			c.Drop(name)
		}
		// Streams end on the server a moment after the client sees them
		// end: wait for their memory to come back.
		deadline := time.Now().Add(5 * time.Second)
		for mem.CurrentAlloc() != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		mem.AssertSize(t, 0)
	})
	return ts
}

// client connects a Flight SQL client that keeps session cookies.
func (ts *testServer) client(t *testing.T, opts ...grpc.DialOption) *flightsql.Client {
	t.Helper()
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)
	cl, err := flightsql.NewClient(ts.Addr().String(), nil, []flight.ClientMiddleware{flight.NewClientCookieMiddleware()}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// numbersTable loads "nums": n rows in batches of batchRows: id int64
// 0..n-1, name utf8 "row <id>", val float64 id/4, and grp int64 id%7.
func numbersTable(n, batchRows int) func(*testing.T, *cache.Cache, memory.Allocator) {
	return func(t *testing.T, c *cache.Cache, mem memory.Allocator) {
		schema := arrow.NewSchema([]arrow.Field{
			{Name: "id", Type: arrow.PrimitiveTypes.Int64},
			{Name: "name", Type: arrow.BinaryTypes.String},
			{Name: "val", Type: arrow.PrimitiveTypes.Float64},
			{Name: "grp", Type: arrow.PrimitiveTypes.Int64},
		}, nil)
		var recs []arrow.RecordBatch
		for start := 0; start < n; start += batchRows {
			b := array.NewRecordBuilder(mem, schema)
			for i := start; i < min(n, start+batchRows); i++ {
				b.Field(0).(*array.Int64Builder).Append(int64(i))
				b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("row %d", i))
				b.Field(2).(*array.Float64Builder).Append(float64(i) / 4)
				b.Field(3).(*array.Int64Builder).Append(int64(i % 7))
			}
			recs = append(recs, b.NewRecordBatch())
			b.Release()
		}
		putRecords(t, c, "nums", schema, recs)
	}
}

func putRecords(t *testing.T, c *cache.Cache, name string, schema *arrow.Schema, recs []arrow.RecordBatch) {
	t.Helper()
	r, err := array.NewRecordReader(schema, recs)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	for _, rec := range recs {
		rec.Release()
	}
	if _, err := c.Put(context.Background(), name, r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
}

// fetch runs sql and returns its rows as text lines ("a|b|c").
func fetch(t *testing.T, cl *flightsql.Client, ctx context.Context, sql string) ([]string, error) {
	t.Helper()
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		return nil, err
	}
	return fetchInfo(ctx, cl, info)
}

func fetchInfo(ctx context.Context, cl *flightsql.Client, info *flight.FlightInfo) ([]string, error) {
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var out []string
	for r.Next() {
		rec := r.RecordBatch()
		for i := range int(rec.NumRows()) {
			cells := make([]string, rec.NumCols())
			for j, col := range rec.Columns() {
				cells[j] = col.ValueStr(i)
			}
			out = append(out, strings.Join(cells, "|"))
		}
	}
	return out, r.Err()
}

// rawResult is a result as it crossed the wire.
type rawResult struct {
	stream   []byte // the FlightData as an Arrow IPC stream
	messages []*flight.FlightData
	infos    []batch.MessageInfo
}

// fetchRaw fetches sql's result without decoding it, and describes its
// messages with quiver's inspector.
func fetchRaw(t *testing.T, cl *flightsql.Client, ctx context.Context, sql string) rawResult {
	t.Helper()
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	st, err := cl.Client.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	var res rawResult
	rd := flightipc.NewReader(func() (*flight.FlightData, error) {
		fd, err := st.Recv()
		if err == nil {
			res.messages = append(res.messages, fd)
		}
		return fd, err
	}, batch.Limits{})
	if res.stream, err = io.ReadAll(rd); err != nil {
		t.Fatal(err)
	}
	_, _, err = batch.Inspect(bytes.NewReader(res.stream), int64(len(res.stream)), batch.ReadOptions{}, true, func(m *batch.MessageInfo) error {
		res.infos = append(res.infos, *m)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// setCodec sets the session's result codec.
func setCodec(t *testing.T, cl *flightsql.Client, ctx context.Context, value string) *flight.SetSessionOptionsResult {
	t.Helper()
	res, err := setOptions(ctx, cl, map[string]any{OptionResultCodec: value})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// setOptions sets session options through the client package, whose
// SetSessionOptions avoids the cookie race in arrow-go's (about 1 call in
// 150 loses the session).
func setOptions(ctx context.Context, cl *flightsql.Client, opts map[string]any) (*flight.SetSessionOptionsResult, error) {
	return client.SetSessionOptions(ctx, cl, opts)
}

// doAction runs one action with a request and a one-message result
// (the other session actions), waiting for the response headers before
// reading on as client.SetSessionOptions does, so that the cookie
// middleware has seen them.
func doAction(ctx context.Context, cl *flightsql.Client, typ string, req, res proto.Message) error {
	body, err := proto.Marshal(req)
	if err != nil {
		return err
	}
	stream, err := cl.Client.DoAction(ctx, &flight.Action{Type: typ, Body: body})
	if err != nil {
		return err
	}
	if _, err := stream.Header(); err != nil {
		return err
	}
	msg, err := stream.Recv()
	if err != nil {
		return err
	}
	if err := proto.Unmarshal(msg.GetBody(), res); err != nil {
		return err
	}
	return flight.ReadUntilEOF(stream)
}

func codecKinds(infos []batch.MessageInfo) []codec.Kind {
	var kinds []codec.Kind
	for _, m := range infos {
		if !m.Dictionary {
			kinds = append(kinds, m.Codec)
		}
	}
	return kinds
}

// wideStrings loads "wide": n rows of one utf8 column s, strLen bytes
// each, in batches of batchRows.
func wideStrings(n, batchRows, strLen int) func(*testing.T, *cache.Cache, memory.Allocator) {
	return func(t *testing.T, c *cache.Cache, mem memory.Allocator) {
		schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
		var recs []arrow.RecordBatch
		buf := make([]byte, strLen)
		x := uint64(1)
		for start := 0; start < n; start += batchRows {
			b := array.NewStringBuilder(mem)
			for range min(n-start, batchRows) {
				for j := range buf {
					x = x*6364136223846793005 + 1442695040888963407
					buf[j] = 'a' + byte(x>>59)
				}
				b.Append(string(buf))
			}
			col := b.NewArray()
			b.Release()
			recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len())))
			col.Release()
		}
		putRecords(t, c, "wide", schema, recs)
	}
}

// clientFrom connects a Flight SQL client from the loopback address ip
// (127.0.0.2: another machine, as far as the server can tell); cookies
// says whether it keeps session cookies.
func (ts *testServer) clientFrom(t *testing.T, ip string, cookies bool, opts ...grpc.DialOption) *flightsql.Client {
	t.Helper()
	dial := func(ctx context.Context, addr string) (net.Conn, error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
		return d.DialContext(ctx, "tcp", addr)
	}
	var mw []flight.ClientMiddleware
	if cookies {
		mw = append(mw, flight.NewClientCookieMiddleware())
	}
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithContextDialer(dial)}, opts...)
	cl, err := flightsql.NewClient(ts.Addr().String(), nil, mw, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	return cl
}

// sessionCodec is the session's quiver.result.codec as GetSessionOptions
// reports it.
func sessionCodec(ctx context.Context, cl *flightsql.Client) (string, error) {
	var res flight.GetSessionOptionsResult
	if err := doAction(ctx, cl, flight.GetSessionOptionsActionType, &flight.GetSessionOptionsRequest{}, &res); err != nil {
		return "", err
	}
	return res.GetSessionOptions()[OptionResultCodec].GetStringValue(), nil
}
