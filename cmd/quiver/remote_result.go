package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/internal/flightipc"
)

// fetchStats count what a result's fetch received.
type fetchStats struct {
	Rows, Batches int64
	Wire          int64 // FlightData bytes received (IPC headers, bodies, app metadata)
	Arrow         int64 // Arrow buffer bytes of the decoded batches (arrowsize.Record)
	Codec         codec.Kind
	CodecKnown    bool // a batch message was seen, so Codec is what the server used
}

// Ratio is the result's compression ratio: decoded Arrow bytes over the
// bytes on the wire.
func (s fetchStats) Ratio() float64 {
	if s.Wire == 0 {
		return 0
	}
	return float64(s.Arrow) / float64(s.Wire)
}

// resultStream reads a query's endpoints one after another as one
// array.RecordReader, each through flightIPC and quiver's stream reader.
// A Flight SQL endpoint with no location (or the reuse-connection one)
// is fetched on the connection that planned the query; quiver's servers
// return exactly one such endpoint.
type resultStream struct {
	refs atomic.Int64
	ctx  context.Context
	conn *remoteConn
	eps  []*flight.FlightEndpoint
	opts batch.ReadOptions

	schema *arrow.Schema
	ep     int // endpoint being read
	fr     *flightipc.Reader
	rd     *batch.StreamReader
	cur    arrow.RecordBatch
	err    error
	stats  fetchStats
	wire   int64 // wire bytes of the endpoints already read

	onBatch func(fetchStats) // called after every batch (progress)
}

// openResult starts reading info's endpoints: the first stream is opened
// so the schema is known before the first batch. With no endpoint, the
// schema comes from info.
func openResult(ctx context.Context, conn *remoteConn, info *flight.FlightInfo, opts batch.ReadOptions) (*resultStream, error) {
	for i, ep := range info.Endpoint {
		for _, loc := range ep.Location {
			if loc.GetUri() != flight.LocationReuseConnection && loc.GetUri() != conn.target.String() {
				return nil, fmt.Errorf("endpoint %d of the result is at %s: fetching from other servers is not supported", i, loc.GetUri())
			}
		}
	}
	rs := &resultStream{ctx: ctx, conn: conn, eps: info.Endpoint, opts: opts}
	rs.refs.Store(1)
	if len(rs.eps) == 0 {
		// FlightInfo.schema is an encapsulated Schema message.
		rd, err := batch.NewStreamReader(bytes.NewReader(info.Schema), opts)
		if err != nil {
			return nil, fmt.Errorf("the result's schema: %w", err)
		}
		rs.schema = rd.Schema()
		rd.Release()
		return rs, nil
	}
	if err := rs.openEndpoint(); err != nil {
		return nil, err
	}
	return rs, nil
}

// openEndpoint starts the DoGet of endpoint rs.ep and reads its schema.
func (rs *resultStream) openEndpoint() error {
	ep := rs.eps[rs.ep]
	if ep.Ticket == nil {
		return fmt.Errorf("%w: endpoint %d of the result has no ticket", batch.ErrCorrupt, rs.ep)
	}
	st, err := rs.conn.Client.Client.DoGet(rs.ctx, ep.Ticket)
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
func (rs *resultStream) streamErr(err error) error {
	if rs.fr != nil && rs.fr.Err() != nil {
		return rs.fr.Err()
	}
	return err
}

func (rs *resultStream) Schema() *arrow.Schema { return rs.schema }

func (rs *resultStream) Next() bool {
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
			rs.err = rs.streamErr(err)
			break
		}
		rs.finishEndpoint()
		if rs.ep++; rs.ep < len(rs.eps) {
			rs.err = rs.openEndpoint()
		}
	}
	return false
}

func (rs *resultStream) count(rec arrow.RecordBatch) {
	rs.stats.Rows += rec.NumRows()
	rs.stats.Batches++
	rs.stats.Arrow += arrowsize.Record(rec)
	rs.stats.Wire = rs.wire + rs.fr.Wire()
	if !rs.stats.CodecKnown {
		rs.stats.Codec, rs.stats.CodecKnown = rs.fr.Codec()
	}
	if rs.onBatch != nil {
		rs.onBatch(rs.stats)
	}
}

// finishEndpoint closes the endpoint read to its end.
func (rs *resultStream) finishEndpoint() {
	rs.wire += rs.fr.Wire()
	rs.stats.Wire = rs.wire
	rs.rd.Release()
	rs.rd, rs.fr = nil, nil
}

func (rs *resultStream) RecordBatch() arrow.RecordBatch { return rs.cur }

// Deprecated: use RecordBatch (array.RecordReader still requires it).
func (rs *resultStream) Record() arrow.RecordBatch { return rs.cur }

func (rs *resultStream) Err() error { return rs.err }

// Stats are the counts so far; after the last Next, the whole result's.
func (rs *resultStream) Stats() fetchStats { return rs.stats }

func (rs *resultStream) Retain() { rs.refs.Add(1) }

// Release drops the current batch and the open stream's reader. The
// caller cancels the context given to openResult to end a DoGet it did
// not read to the end.
func (rs *resultStream) Release() {
	if rs.refs.Add(-1) != 0 {
		return
	}
	if rs.cur != nil {
		rs.cur.Release()
		rs.cur = nil
	}
	if rs.rd != nil {
		rs.rd.Release()
		rs.rd = nil
	}
}
