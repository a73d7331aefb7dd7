package server

import (
	"context"
	"errors"
	"io"
	"net"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/flight"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/quiverdb/quiver/internal/flightipc"
)

// flightService is arrow-go's Flight SQL service with DoGet and DoPut
// replaced: arrow-go writes every result uncompressed (and cannot be told
// otherwise) and reads every upload with its trusting IPC reader. Every
// other call goes to arrow-go's dispatch, which calls sqlServer.
type flightService struct {
	flight.FlightServer
	s *Server
}

// DoGet runs statement and prepared-statement tickets through quiver's
// result writer; catalog tickets (small, fixed results) go to arrow-go.
func (f *flightService) DoGet(ticket *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	cmd, err := unpackCommand(ticket.GetTicket())
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "unreadable ticket: %v", err)
	}
	switch c := cmd.(type) {
	case *pb.TicketStatementQuery:
		o, sess, err := f.s.caller(stream.Context())
		if err != nil {
			return err
		}
		st, err := f.s.tickets.get(string(c.GetStatementHandle()), o)
		if err != nil {
			return err
		}
		return f.s.runQuery(stream, st, sess)
	case *pb.CommandPreparedStatementQuery:
		// quiver's tickets name statements; this one names a prepared
		// statement directly, as its tickets did before they were bound
		// to their owner.
		return status.Error(codes.InvalidArgument, "not a ticket this server issued: fetch the ticket GetFlightInfo returned for the prepared statement")
	}
	return f.FlightServer.DoGet(ticket, stream)
}

func unpackCommand(b []byte) (proto.Message, error) {
	var a anypb.Any
	if err := proto.Unmarshal(b, &a); err != nil {
		return nil, err
	}
	return a.UnmarshalNew()
}

// runQuery runs stmt and streams its result on stream with the session's
// codec (sess nil: the server's default).
func (s *Server) runQuery(stream flight.FlightService_DoGetServer, stmt *statement, sess *session) (err error) {
	ctx := stream.Context()
	start := time.Now()
	// Admitted before planning: Query plans, and a plan can cost as much
	// as a run.
	release, err := s.admit(ctx)
	if err != nil {
		return err
	}
	defer release()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer s.running.add(stmt.handle, stmt.owner, cancel)()

	rc := s.defaultCodec
	if sess != nil {
		rc = sess.resultCodec()
	}
	var addr = peerAddr(ctx)
	setting := rc.forClient(addr, userAgent(ctx))
	sql, params := stmt.sql, stmt.params

	var st sendStats
	defer func() {
		s.metrics.query(st, err, stream.Context().Err() != nil || errors.Is(ctx.Err(), context.Canceled))
		s.log.Info("query", "sql", abbreviate(sql), "codec", setting.String(), "rows", st.Rows, "batches", st.Batches,
			"raw_bytes", st.RawBytes, "sent_bytes", st.Sent, "ms", time.Since(start).Milliseconds(), "peer", addr, "err", err)
	}()
	res, err := s.engine.Query(withSession(ctx, sess), sql, params...)
	if err != nil {
		return toStatus(err)
	}
	defer res.Release()
	w := &resultWriter{send: stream.Send, setting: setting, maxRows: s.cfg.MaxBatchRows, maxBytes: s.cfg.MaxMessageBytes, mem: s.mem}
	st, err = w.write(ctx, res)
	return s.queryStatus(sql, err) // spilllog.go
}

// peerAddr is the client's address; nil when gRPC does not know it
// (auto then compresses, as for a remote peer).
func peerAddr(ctx context.Context) net.Addr {
	if p, ok := peer.FromContext(ctx); ok {
		return p.Addr
	}
	return nil
}

// abbreviate cuts s for a log line, at a rune boundary.
func abbreviate(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Handshake answers a client's handshake with one empty response. quiver
// authenticates every call by its bearer token (checked before this runs),
// so there is nothing to exchange; but some clients handshake before their
// first call and wait for a reply (arrow-go's default closes without one).
func (f *flightService) Handshake(stream flight.FlightService_HandshakeServer) error {
	if _, err := stream.Recv(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return stream.Send(&flight.HandshakeResponse{})
}

// DoPut handles bulk ingest, prepared-statement parameters (with
// quiver's reader) and updates (SQL that changes tables). Every message is awaited at most
// Config.UploadIdle (upload_idle.go).
func (f *flightService) DoPut(stream flight.FlightService_DoPutServer) error {
	in := &idleRecv{recv: stream.Recv, idle: f.s.cfg.UploadIdle}
	first, err := in.Recv()
	if err != nil {
		return err
	}
	desc := first.GetFlightDescriptor()
	if desc == nil {
		return status.Error(codes.InvalidArgument, "DoPut: the first message carries no FlightDescriptor")
	}
	cmd, err := unpackCommand(desc.GetCmd())
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "DoPut: unreadable command: %v", err)
	}
	rd := flightipc.NewReader(flightipc.Prepend(first, in.Recv), uploadLimits)
	switch c := cmd.(type) {
	case *pb.CommandStatementIngest:
		n, ingestErr := f.s.ingest(stream.Context(), c, rd)
		ingestErr = streamError(rd, ingestErr)
		out, err := proto.Marshal(&pb.DoPutUpdateResult{RecordCount: n})
		if err != nil {
			return toStatus(err)
		}
		if err := stream.Send(&flight.PutResult{AppMetadata: out}); err != nil {
			return err
		}
		return toStatus(ingestErr)
	case *pb.CommandPreparedStatementQuery:
		if err := f.s.bindParameters(stream.Context(), c, rd); err != nil {
			return toStatus(streamError(rd, err))
		}
		out, err := proto.Marshal(&pb.DoPutPreparedStatementResult{PreparedStatementHandle: c.GetPreparedStatementHandle()})
		if err != nil {
			return toStatus(err)
		}
		return stream.Send(&flight.PutResult{AppMetadata: out})
	case *pb.CommandStatementUpdate:
		n, err := f.s.update(stream.Context(), c.GetQuery(), c.GetTransactionId()) // update.go
		if err != nil {
			return err
		}
		out, err := proto.Marshal(&pb.DoPutUpdateResult{RecordCount: n})
		if err != nil {
			return toStatus(err)
		}
		return stream.Send(&flight.PutResult{AppMetadata: out})
	case *pb.CommandPreparedStatementUpdate:
		n, err := f.s.preparedUpdate(stream.Context(), c, rd) // update.go
		if err != nil {
			return toStatus(streamError(rd, err))
		}
		out, err := proto.Marshal(&pb.DoPutUpdateResult{RecordCount: n})
		if err != nil {
			return toStatus(err)
		}
		return stream.Send(&flight.PutResult{AppMetadata: out})
	case *pb.CommandStatementSubstraitPlan:
		return status.Error(codes.InvalidArgument, "quiver takes SQL, not Substrait plans")
	}
	return status.Errorf(codes.InvalidArgument, "DoPut: unsupported command %T", cmd)
}

// streamError is the upload stream's own error, a gRPC status (the
// client went away, or went quiet past UploadIdle), when reading it
// failed: the decoder that met the cut-off bytes calls it a cut-off
// message. rd's errors of its own (limits, bad framing) are left to err.
func streamError(rd *flightipc.Reader, err error) error {
	if err == nil || rd.Err() == nil {
		return err
	}
	if _, ok := status.FromError(rd.Err()); ok {
		return rd.Err()
	}
	return err
}
