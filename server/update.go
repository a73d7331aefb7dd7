package server

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/internal/flightipc"
	"github.com/quiverdb/quiver/query"
)

// Updates: SQL that changes tables (package query's Exec), sent as
// CommandStatementUpdate (ExecuteUpdate) or as a prepared statement's
// CommandPreparedStatementUpdate, whose upload holds rows of parameters
// (arrow-go's database/sql driver sends db.Exec(sql, args…) so). Both
// arrive through flightService.DoPut.

// DoPutCommandStatementUpdate runs a statement that changes tables or
// views (CREATE TABLE [AS SELECT], INSERT, CREATE [OR REPLACE] VIEW,
// DROP, TRUNCATE) and returns the rows it inserted or removed. With
// Config.Store the change is on disk before this returns, as an ingest
// is. (flightService.DoPut receives the command and calls update.)
func (q *sqlServer) DoPutCommandStatementUpdate(ctx context.Context, cmd flightsql.StatementUpdate) (int64, error) {
	return q.s.update(ctx, cmd.GetQuery(), cmd.GetTransactionId())
}

// update runs a change statement.
func (s *Server) update(ctx context.Context, sql string, txn []byte) (int64, error) {
	if len(txn) != 0 {
		return 0, status.Error(codes.InvalidArgument, "quiver has no transactions")
	}
	if _, _, err := s.caller(ctx); err != nil {
		return 0, err
	}
	if err := s.checkSQL(sql); err != nil {
		return 0, err
	}
	if err := s.checkChange(sql); err != nil {
		return 0, err
	}
	if query.IsSet(sql) {
		// SET needs a session to set: a client without one gets one (and
		// its cookie) here, as with SetSessionOptions
		sess, err := s.sessions.getOrCreate(ctx, s.clientKey(ctx), s.defaultCodec)
		if err != nil {
			return 0, toStatus(err)
		}
		ctx = withSession(ctx, sess)
	}
	return s.runChange(ctx, sql, nil)
}

// checkChange refuses a query sent as an update, saying first what is
// wrong with it if anything is.
func (s *Server) checkChange(sql string) error {
	if query.IsChange(sql) {
		return nil
	}
	if _, err := s.engine.Prepare(sql); err != nil {
		return toStatus(err)
	}
	return status.Error(codes.InvalidArgument, "ExecuteUpdate runs statements that change tables (CREATE TABLE, INSERT, CREATE VIEW, DROP, TRUNCATE); this one is a query: send it with Execute")
}

// runChange runs a change with params, in a query slot (--max-queries):
// an INSERT … SELECT is a query too.
func (s *Server) runChange(ctx context.Context, sql string, params []any) (int64, error) {
	release, err := s.admit(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	sess, err := s.sessions.lookup(ctx)
	if err != nil {
		return 0, err
	}
	n, err := s.engine.Exec(withSession(ctx, sess), sql, params...)
	if err != nil {
		s.metrics.queryErrors.Add(1)
		return 0, toStatus(err)
	}
	s.log.Info("update", "rows", n)
	return n, nil
}

// preparedUpdate runs a prepared change once per row of the parameters
// uploaded (each row a change of its own, so a failing row leaves the
// rows before it made), or once with the parameters bound before when
// the upload has no rows. The upload is read under the limits of bulk
// ingest. It returns the rows all runs inserted or removed.
func (s *Server) preparedUpdate(ctx context.Context, c *pb.CommandPreparedStatementUpdate, rd *flightipc.Reader) (int64, error) {
	o, _, err := s.caller(ctx)
	if err != nil {
		return 0, err
	}
	p, err := s.prepared.get(c.GetPreparedStatementHandle(), o)
	if err != nil {
		return 0, err
	}
	if err := s.checkChange(p.sql); err != nil {
		return 0, err
	}
	release, err := s.admitIngest(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	up := &upload{s: s, what: "parameters"}
	defer func() { returnMemory(up.decoded) }()
	defer up.settle()
	sr, err := s.uploadReader(rd, up)
	if err != nil {
		return 0, fmt.Errorf("reading parameters: %w", err)
	}
	defer sr.Release()
	var total int64
	rows := 0
	for {
		rec, err := sr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return total, fmt.Errorf("reading parameters: %w", err)
		}
		for i := range int(rec.NumRows()) {
			row := rec.NewSlice(int64(i), int64(i+1))
			params, err := rowParams(row)
			row.Release()
			if err == nil && len(params) != p.numParams {
				err = status.Errorf(codes.InvalidArgument, "the statement has %d parameters, %d were bound", p.numParams, len(params))
			}
			var n int64
			if err == nil {
				n, err = s.runChange(ctx, p.sql, params)
			}
			if err != nil {
				rec.Release()
				return total, status.Errorf(status.Code(err), "row %d of parameters: %s (the %d rows before it were applied)", rows+1, status.Convert(err).Message(), rows)
			}
			total += n
			rows++
		}
		rec.Release()
	}
	if rows == 0 {
		return s.runChange(ctx, p.sql, p.bound())
	}
	return total, nil
}
