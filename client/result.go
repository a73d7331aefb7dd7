package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/internal/flightipc"
)

// Stats count what a result's fetch received.
type Stats struct {
	Rows, Batches int64
	Wire          int64 // FlightData bytes received (IPC headers, bodies, app metadata)
	Arrow         int64 // Arrow buffer bytes of the decoded batches (arrowsize.Record)
	Codec         codec.Kind
	CodecKnown    bool // a batch message was seen, so Codec is what the server used
}

// Result is a query's result as an array.RecordReader: its endpoints
// read one after another, each through quiver's hostile-input-safe
// stream reader. Release ends the fetch on the server if it was not
// read to the end. Next returns false at the end or on an error; Err
// says which (an *Error for the server's).
type Result struct {
	refs    atomic.Int64
	ctx     context.Context
	cancel  context.CancelFunc
	c       *Client
	eps     []*flight.FlightEndpoint
	opts    batch.ReadOptions
	invalid string // what an InvalidArgument means ("invalid SQL")

	schema *arrow.Schema
	ep     int // endpoint being read
	fr     *flightipc.Reader
	rd     *batch.StreamReader
	cur    arrow.RecordBatch
	err    error
	stats  Stats
	wire   int64 // wire bytes of the endpoints already read
}

var _ array.RecordReader = (*Result)(nil)

// Fetch reads the result a FlightInfo describes (one from FlightSQL(),
// for calls this package does not wrap). A Flight SQL endpoint with no
// location (or the reuse-connection one) is fetched on this client;
// quiver's servers return exactly one such endpoint. The first stream is
// opened so the schema is known before the first batch. Cancelling ctx,
// or Release, ends the fetch.
func (c *Client) Fetch(ctx context.Context, info *flight.FlightInfo) (*Result, error) {
	return c.fetch(ctx, info, "invalid request")
}

func (c *Client) fetch(ctx context.Context, info *flight.FlightInfo, invalid string) (*Result, error) {
	for i, ep := range info.Endpoint {
		for _, loc := range ep.Location {
			if loc.GetUri() != flight.LocationReuseConnection && loc.GetUri() != c.target.String() {
				return nil, fmt.Errorf("endpoint %d of the result is at %s: fetching from other servers is not supported", i, loc.GetUri())
			}
		}
	}
	prefetch := c.opts.Prefetch
	if prefetch == 0 {
		prefetch = 2
	}
	opts := batch.ReadOptions{Alloc: c.opts.Alloc, Limits: c.opts.Limits, Prefetch: prefetch}
	ctx, cancel := context.WithCancel(ctx)
	rs := &Result{ctx: ctx, cancel: cancel, c: c, eps: info.Endpoint, opts: opts, invalid: invalid}
	rs.refs.Store(1)
	if len(rs.eps) == 0 {
		// FlightInfo.schema is an encapsulated Schema message.
		rd, err := batch.NewStreamReader(bytes.NewReader(info.Schema), opts)
		if err != nil {
			cancel()
			return nil, fmt.Errorf("the result's schema: %w", err)
		}
		rs.schema = rd.Schema()
		rd.Release()
		return rs, nil
	}
	if err := rs.openEndpoint(); err != nil {
		cancel()
		return nil, c.explain(err, invalid)
	}
	return rs, nil
}

// openEndpoint starts the DoGet of endpoint rs.ep and reads its schema.
func (rs *Result) openEndpoint() error {
	ep := rs.eps[rs.ep]
	if ep.Ticket == nil {
		return fmt.Errorf("%w: endpoint %d of the result has no ticket", batch.ErrCorrupt, rs.ep)
	}
	st, err := rs.c.fs.Client.DoGet(rs.ctx, ep.Ticket)
	if err != nil {
		return err
	}
	rs.fr = flightipc.NewReader(st.Recv, rs.opts.Limits)
	rd, err := batch.NewStreamReader(rs.fr, rs.opts)
	if err != nil {
		return rs.streamErr(err)
	}
	if rs.schema == nil {
		rs.schema = rd.Schema()
	} else if !rd.Schema().Equal(rs.schema) {
		rd.Release()
		return fmt.Errorf("%w: endpoint %d sends schema %s, endpoint 0 sent %s", batch.ErrCorrupt, rs.ep, rd.Schema(), rs.schema)
	}
	rs.rd = rd
	return nil
}

// streamErr prefers the gRPC stream's own error (the server's status)
// to what the decoder made of the bytes it cut off.
func (rs *Result) streamErr(err error) error {
	if rs.fr != nil && rs.fr.Err() != nil {
		return rs.fr.Err()
	}
	return err
}

func (rs *Result) Schema() *arrow.Schema { return rs.schema }

func (rs *Result) Next() bool {
	if rs.cur != nil {
		rs.cur.Release()
		rs.cur = nil
	}
	for rs.err == nil && rs.rd != nil {
		rec, err := rs.rd.Next()
		if err == nil {
			rs.cur = rec
			rs.count(rec)
			return true
		}
		if !errors.Is(err, io.EOF) {
			rs.err = rs.c.explain(rs.streamErr(err), rs.invalid)
			break
		}
		rs.finishEndpoint()
		if rs.ep++; rs.ep < len(rs.eps) {
			rs.err = rs.c.explain(rs.openEndpoint(), rs.invalid)
		}
	}
	return false
}

func (rs *Result) count(rec arrow.RecordBatch) {
	rs.stats.Rows += rec.NumRows()
	rs.stats.Batches++
	rs.stats.Arrow += arrowsize.Record(rec)
	rs.stats.Wire = rs.wire + rs.fr.Wire()
	if !rs.stats.CodecKnown {
		rs.stats.Codec, rs.stats.CodecKnown = rs.fr.Codec()
	}
}

// finishEndpoint closes the endpoint read to its end.
func (rs *Result) finishEndpoint() {
	rs.wire += rs.fr.Wire()
	rs.stats.Wire = rs.wire
	rs.rd.Release()
	rs.rd, rs.fr = nil, nil
}

// RecordBatch is the batch the last Next read, valid until the next
// call to Next or Release (Retain it to keep it).
func (rs *Result) RecordBatch() arrow.RecordBatch { return rs.cur }

// Deprecated: use RecordBatch (array.RecordReader still requires it).
func (rs *Result) Record() arrow.RecordBatch { return rs.cur }

func (rs *Result) Err() error { return rs.err }

// Stats are the counts so far; after the last Next, the whole result's.
func (rs *Result) Stats() Stats { return rs.stats }

func (rs *Result) Retain() { rs.refs.Add(1) }

// Release drops the current batch and the open stream's reader, and
// ends the fetch on the server if it was not read to the end.
func (rs *Result) Release() {
	if rs.refs.Add(-1) != 0 {
		return
	}
	rs.cancel()
	if rs.cur != nil {
		rs.cur.Release()
		rs.cur = nil
	}
	if rs.rd != nil {
		rs.rd.Release()
		rs.rd = nil
	}
}
