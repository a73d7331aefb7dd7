package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/server"
)

// quiverSide is quiver's Flight SQL server, started in-process on a
// loopback port over a cache holding the benchmark's tables.
type quiverSide struct {
	cache *cache.Cache
	srv   *server.Server
	done  chan error
}

// startQuiver loads tables into a cache with its default codec and serves
// them with the server's defaults (message and batch caps, auto codec).
func startQuiver(ctx context.Context, mem memory.Allocator, tables map[string]peerResult) (*quiverSide, error) {
	c, err := cache.New(cache.Options{Budget: 1 << 62, Alloc: mem})
	if err != nil {
		return nil, err
	}
	for name, t := range tables {
		rr, err := array.NewRecordReader(t.schema, t.recs)
		if err != nil {
			return nil, err
		}
		_, err = c.Put(ctx, name, rr, cache.TableOptions{})
		rr.Release()
		if err != nil {
			return nil, fmt.Errorf("bench: loading %s into the cache: %w", name, err)
		}
	}
	srv, err := server.New(server.Config{
		Listen: "127.0.0.1:0",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Alloc:  mem,
	}, c)
	if err != nil {
		return nil, err
	}
	if err := srv.Listen(); err != nil {
		return nil, err
	}
	q := &quiverSide{cache: c, srv: srv, done: make(chan error, 1)}
	go func() { q.done <- srv.Serve() }()
	return q, nil
}

func (q *quiverSide) addr() string { return q.srv.Addr().String() }

// stop shuts the server down and empties the cache, so that its memory
// goes back to the allocator.
func (q *quiverSide) stop() error {
	q.srv.Shutdown(context.Background())
	err := <-q.done
	for _, name := range q.cache.Tables() {
		q.cache.Drop(name)
	}
	return err
}

// dialQuiver connects a Flight SQL client to addr, with gRPC's default
// message limits, and sets the session's result codec through package
// client: arrow-go's own SetSessionOptions loses the session cookie about
// one call in 150, and the cells it served measured the default codec.
func dialQuiver(ctx context.Context, addr, resultCodec string) (*flightsql.Client, error) {
	c, err := client.Dial(addr, client.Options{})
	if err != nil {
		return nil, fmt.Errorf("bench: quiver client: %w", err)
	}
	if err := c.SetResultCodec(ctx, resultCodec); err != nil {
		c.Close()
		return nil, fmt.Errorf("bench: setting %s = %q: %w", client.OptionResultCodec, resultCodec, err)
	}
	return c.FlightSQL(), nil
}

// quiverOpen plans sql once and returns how to fetch its result: a DoGet
// of the statement's ticket on the session's codec.
func quiverOpen(ctx context.Context, cl *flightsql.Client, sql string) (openFunc, error) {
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		return nil, fmt.Errorf("bench: quiver: %s: %w", sql, err)
	}
	if len(info.GetEndpoint()) != 1 {
		return nil, fmt.Errorf("bench: quiver: %s: %d endpoints, want 1", sql, len(info.GetEndpoint()))
	}
	t := info.GetEndpoint()[0].GetTicket()
	return func(ctx context.Context) (flight.FlightService_DoGetClient, error) {
		return cl.Client.DoGet(ctx, t)
	}, nil
}

// selectSQL is the query that returns schema's columns of table.
func selectSQL(table string, schema *arrow.Schema) string {
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = f.Name
	}
	return "SELECT " + strings.Join(names, ", ") + " FROM " + table
}
