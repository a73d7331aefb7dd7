package server

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// GetFlightInfoStatement plans the query (so bad SQL fails here, before
// any fetch) and returns one endpoint whose ticket runs it: a handle to
// the statement, kept for its owner until Config.TicketTTL (tickets.go).
func (q *sqlServer) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if len(cmd.GetTransactionId()) != 0 {
		return nil, status.Error(codes.InvalidArgument, "quiver has no transactions")
	}
	o, _, err := q.s.caller(ctx)
	if err != nil {
		return nil, err
	}
	schema, err := q.s.planSchema(ctx, cmd.GetQuery(), nil)
	if err != nil {
		q.s.metrics.queryErrors.Add(1)
		return nil, err
	}
	return q.issue(desc, schema, cmd.GetQuery(), nil, o)
}

func (q *sqlServer) GetSchemaStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	schema, err := q.s.planSchema(ctx, cmd.GetQuery(), nil)
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(schema, q.s.mem)}, nil
}

// issue stores the statement for o and returns the FlightInfo whose one
// endpoint's ticket names it, with the ticket's expiry.
func (q *sqlServer) issue(desc *flight.FlightDescriptor, schema *arrow.Schema, sql string, params []any, o owner) (*flight.FlightInfo, error) {
	st, err := q.s.tickets.issue(sql, params, o)
	if err != nil {
		return nil, toStatus(err)
	}
	ticket, err := flightsql.CreateStatementQueryTicket([]byte(st.handle))
	if err != nil {
		return nil, toStatus(err)
	}
	info := q.flightInfo(desc, schema, ticket)
	info.Endpoint[0].ExpirationTime = timestamppb.New(st.expires)
	return info, nil
}

func (q *sqlServer) flightInfo(desc *flight.FlightDescriptor, schema *arrow.Schema, ticket []byte) *flight.FlightInfo {
	return &flight.FlightInfo{
		Schema:           flight.SerializeSchema(schema, q.s.mem),
		FlightDescriptor: desc,
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: ticket}}},
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
}

// caller is who is calling: its owner identity and its session (nil
// without a cookie). A cookie naming a session the server no longer
// holds is an error, not a silent fall back to the defaults.
func (s *Server) caller(ctx context.Context) (owner, *session, error) {
	sess, err := s.sessions.lookup(ctx)
	if err != nil {
		return owner{}, nil, err
	}
	o := owner{client: s.clientKey(ctx)}
	if sess != nil {
		o.session = sess.id
	}
	return o, sess, nil
}

// planSchema plans sql with params for its result schema. Planning counts
// as a query: it waits for a slot (--max-queries) first, so a burst of
// expensive plans cannot run past the limit.
func (s *Server) planSchema(ctx context.Context, sql string, params []any) (*arrow.Schema, error) {
	if err := s.checkSQL(sql); err != nil {
		return nil, err
	}
	release, err := s.admit(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	sess, err := s.sessions.lookup(ctx)
	if err != nil {
		return nil, err
	}
	schema, err := s.engine.SchemaContext(withSession(ctx, sess), sql, params...)
	return schema, toStatus(err)
}

// checkSQL refuses SQL longer than Config.MaxSQLBytes.
func (s *Server) checkSQL(sql string) error {
	if len(sql) > s.cfg.MaxSQLBytes {
		return status.Errorf(codes.InvalidArgument,
			"the SQL is %d bytes, over this server's limit of %d (Config.MaxSQLBytes, quiver serve --max-sql-bytes)",
			len(sql), s.cfg.MaxSQLBytes)
	}
	return nil
}

// CancelFlightInfo cancels the running fetches of the info's tickets,
// which must be the caller's own: anyone else's ticket, like an expired
// or made-up one, is NotFound.
func (q *sqlServer) CancelFlightInfo(ctx context.Context, req *flight.CancelFlightInfoRequest) (flight.CancelFlightInfoResult, error) {
	info := req.GetInfo()
	if info == nil {
		return flight.CancelFlightInfoResult{}, status.Error(codes.InvalidArgument, "cancel request without a FlightInfo")
	}
	o, _, err := q.s.caller(ctx)
	if err != nil {
		return flight.CancelFlightInfoResult{}, err
	}
	st := flight.CancelStatusNotCancellable // nothing running: finished, or never fetched
	for _, ep := range info.GetEndpoint() {
		if ep.GetTicket() == nil {
			continue
		}
		cmd, err := unpackCommand(ep.GetTicket().GetTicket())
		if err != nil {
			return flight.CancelFlightInfoResult{}, status.Errorf(codes.InvalidArgument, "cancel: unreadable ticket: %v", err)
		}
		tq, ok := cmd.(*pb.TicketStatementQuery)
		if !ok {
			continue // a catalog listing: nothing to cancel
		}
		// A fetch runs on after its ticket expired or was dropped, so the
		// running fetches are asked first, each checked against its owner.
		handle := string(tq.GetStatementHandle())
		if q.s.running.cancel(handle, o) {
			st = flight.CancelStatusCancelled
			continue
		}
		if _, err := q.s.tickets.get(handle, o); err != nil {
			return flight.CancelFlightInfoResult{}, err
		}
	}
	return flight.CancelFlightInfoResult{Status: st}, nil
}

// runningQueries maps statement handles to the running fetches of their
// statements, each with its owner: only the owner may cancel it, whether
// or not its ticket is still held.
type runningQueries struct {
	mu sync.Mutex
	m  map[string]map[*int]runningFetch
	n  int
}

type runningFetch struct {
	cancel context.CancelFunc
	owner  owner
}

func (r *runningQueries) add(handle string, o owner, cancel context.CancelFunc) func() {
	key := new(int)
	r.mu.Lock()
	if r.m == nil {
		r.m = map[string]map[*int]runningFetch{}
	}
	set := r.m[handle]
	if set == nil {
		set = map[*int]runningFetch{}
		r.m[handle] = set
	}
	set[key] = runningFetch{cancel: cancel, owner: o}
	r.n++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(set, key)
		if len(set) == 0 {
			delete(r.m, handle)
		}
		r.n--
		r.mu.Unlock()
	}
}

// cancel cancels the fetches of handle that caller owns and says
// whether there were any.
func (r *runningQueries) cancel(handle string, caller owner) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, f := range r.m[handle] {
		if f.owner.allows(caller) {
			f.cancel()
			n++
		}
	}
	return n > 0
}

func (r *runningQueries) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}
