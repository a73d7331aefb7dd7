package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/quiverdb/quiver/query"
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
	// Engine.Schema takes no context yet: a caller gone while it waited
	// for its slot is not planned for.
	if err := ctx.Err(); err != nil {
		return nil, toStatus(err)
	}
	schema, err := s.engine.Schema(sql, params...)
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

// prepared is a prepared statement: its SQL, its owner and the
// parameters bound to it last.
type prepared struct {
	handle    string
	sql       string
	numParams int
	schema    *arrow.Schema // nil until known (statements with parameters)
	owner     owner

	mu       sync.Mutex
	params   []any
	lastUsed time.Time
}

func (p *prepared) bound() []any {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lastUsed = time.Now()
	return p.params
}

func (p *prepared) used() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastUsed
}

// preparedPerClient bounds the prepared statements one client (clientKey)
// holds; past it, its least recently used one is closed.
const preparedPerClient = 1024

// preparedStore holds prepared statements by handle, at most max. Idle
// ones are dropped; past a client's share its own least recently used
// goes; another client's statement in use is never dropped to make room:
// past max a new one is refused.
type preparedStore struct {
	max  int
	idle time.Duration

	mu       sync.Mutex
	m        map[string]*prepared
	byClient map[string]int
}

func (ps *preparedStore) add(p *prepared) error {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	p.handle = hex.EncodeToString(b[:])
	p.lastUsed = time.Now()
	client := p.owner.client
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.byClient == nil {
		ps.byClient = map[string]int{}
	}
	if len(ps.m) >= ps.max || ps.byClient[client] >= preparedPerClient {
		var oldest *prepared // the client's own least recently used
		for _, o := range ps.m {
			if time.Since(o.used()) > ps.idle {
				ps.dropLocked(o)
			} else if o.owner.client == client && (oldest == nil || o.used().Before(oldest.used())) {
				oldest = o
			}
		}
		if (len(ps.m) >= ps.max || ps.byClient[client] >= preparedPerClient) && oldest != nil {
			ps.dropLocked(oldest)
		}
		if len(ps.m) >= ps.max {
			return status.Errorf(codes.ResourceExhausted,
				"the server holds %d prepared statements, its limit (Config.MaxSessions): close the ones no longer used (ClosePreparedStatement); idle ones are dropped after %s",
				len(ps.m), ps.idle)
		}
	}
	ps.m[p.handle] = p
	ps.byClient[client]++
	return nil
}

func (ps *preparedStore) dropLocked(p *prepared) {
	delete(ps.m, p.handle)
	if ps.byClient[p.owner.client]--; ps.byClient[p.owner.client] <= 0 {
		delete(ps.byClient, p.owner.client)
	}
}

// get returns the statement handle names if caller may use it; another's
// statement gives the same NotFound as a closed one.
func (ps *preparedStore) get(handle []byte, caller owner) (*prepared, error) {
	ps.mu.Lock()
	p := ps.m[string(handle)]
	ps.mu.Unlock()
	if p == nil || !p.owner.allows(caller) {
		return nil, status.Errorf(codes.NotFound, "no prepared statement of yours with handle %q (closed, dropped after being idle %s, or prepared by another session or client)", handle, ps.idle)
	}
	return p, nil
}

func (ps *preparedStore) remove(handle []byte, caller owner) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if p := ps.m[string(handle)]; p != nil && p.owner.allows(caller) {
		ps.dropLocked(p)
	}
}

func (q *sqlServer) CreatePreparedStatement(ctx context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	var res flightsql.ActionCreatePreparedStatementResult
	if len(req.GetTransactionId()) != 0 {
		return res, status.Error(codes.InvalidArgument, "quiver has no transactions")
	}
	o, _, err := q.s.caller(ctx)
	if err != nil {
		return res, err
	}
	pr, err := q.s.prepare(ctx, req.GetQuery())
	if err != nil {
		return res, err
	}
	p := &prepared{sql: pr.SQL, numParams: pr.NumParams, schema: pr.Schema, owner: o}
	if err := q.s.prepared.add(p); err != nil {
		return res, toStatus(err)
	}
	isUpdate := false
	return flightsql.ActionCreatePreparedStatementResult{Handle: []byte(p.handle), DatasetSchema: p.schema, IsUpdate: &isUpdate}, nil
}

// prepare plans sql as a prepared statement, admitted as planSchema is.
func (s *Server) prepare(ctx context.Context, sql string) (*query.Prepared, error) {
	if err := s.checkSQL(sql); err != nil {
		return nil, err
	}
	release, err := s.admit(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	if err := ctx.Err(); err != nil {
		return nil, toStatus(err)
	}
	pr, err := s.engine.Prepare(sql)
	return pr, toStatus(err)
}

func (q *sqlServer) ClosePreparedStatement(ctx context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	o, _, err := q.s.caller(ctx)
	if err != nil {
		return err
	}
	q.s.prepared.remove(req.GetPreparedStatementHandle(), o)
	return nil // closing twice is not an error
}

// GetFlightInfoPreparedStatement plans the statement with its bound
// parameters and issues a ticket for the pair: binding other parameters
// later does not change what an issued ticket runs.
func (q *sqlServer) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	o, _, err := q.s.caller(ctx)
	if err != nil {
		return nil, err
	}
	p, err := q.s.prepared.get(cmd.GetPreparedStatementHandle(), o)
	if err != nil {
		return nil, err
	}
	params := p.bound()
	schema, err := q.s.planSchema(ctx, p.sql, params)
	if err != nil {
		return nil, err
	}
	return q.issue(desc, schema, p.sql, params, o)
}

func (q *sqlServer) GetSchemaPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	o, _, err := q.s.caller(ctx)
	if err != nil {
		return nil, err
	}
	p, err := q.s.prepared.get(cmd.GetPreparedStatementHandle(), o)
	if err != nil {
		return nil, err
	}
	schema, err := q.s.planSchema(ctx, p.sql, p.bound())
	if err != nil {
		return nil, err
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(schema, q.s.mem)}, nil
}

// DoPutCommandStatementUpdate refuses DML: quiver's tables change only by
// bulk ingest.
func (q *sqlServer) DoPutCommandStatementUpdate(ctx context.Context, cmd flightsql.StatementUpdate) (int64, error) {
	return 0, status.Error(codes.InvalidArgument, "quiver answers queries only; load data with bulk ingest (CommandStatementIngest, `quiver load`)")
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
		stmt, err := q.s.tickets.get(string(tq.GetStatementHandle()), o)
		if err != nil {
			return flight.CancelFlightInfoResult{}, err
		}
		if q.s.running.cancel(stmt.handle) {
			st = flight.CancelStatusCancelled
		}
	}
	return flight.CancelFlightInfoResult{Status: st}, nil
}

// runningQueries maps statement handles to the cancel functions of their
// running fetches.
type runningQueries struct {
	mu sync.Mutex
	m  map[string]map[*int]context.CancelFunc
	n  int
}

func (r *runningQueries) add(handle string, cancel context.CancelFunc) func() {
	key := new(int)
	r.mu.Lock()
	if r.m == nil {
		r.m = map[string]map[*int]context.CancelFunc{}
	}
	set := r.m[handle]
	if set == nil {
		set = map[*int]context.CancelFunc{}
		r.m[handle] = set
	}
	set[key] = cancel
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

func (r *runningQueries) cancel(handle string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	set := r.m[handle]
	for _, c := range set {
		c()
	}
	return len(set) > 0
}

func (r *runningQueries) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}
