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
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A statement ticket's handle is the SQL text itself, prefixed with its
// kind: the server keeps nothing between GetFlightInfo and DoGet, any
// replica can serve the ticket, and a ticket can be fetched again.
const statementHandlePrefix = "sql:"

// GetFlightInfoStatement plans the query (so bad SQL fails here, before
// any fetch) and returns one endpoint whose ticket runs it.
func (q *sqlServer) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if len(cmd.GetTransactionId()) != 0 {
		return nil, status.Error(codes.InvalidArgument, "quiver has no transactions")
	}
	schema, err := q.s.engine.SchemaContext(ctx, cmd.GetQuery())
	if err != nil {
		q.s.metrics.queryErrors.Add(1)
		return nil, toStatus(err)
	}
	ticket, err := flightsql.CreateStatementQueryTicket([]byte(statementHandlePrefix + cmd.GetQuery()))
	if err != nil {
		return nil, toStatus(err)
	}
	return q.flightInfo(desc, schema, ticket), nil
}

func (q *sqlServer) GetSchemaStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	schema, err := q.s.engine.SchemaContext(ctx, cmd.GetQuery())
	if err != nil {
		return nil, toStatus(err)
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(schema, q.s.mem)}, nil
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

// prepared is a prepared statement: its SQL and the parameters bound to
// it last.
type prepared struct {
	handle    string
	sql       string
	numParams int
	schema    *arrow.Schema // nil until known (statements with parameters)

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

// preparedStore holds prepared statements by handle, at most max; the
// least recently used goes first, and idle ones are dropped.
type preparedStore struct {
	max  int
	idle time.Duration

	mu sync.Mutex
	m  map[string]*prepared
}

func (ps *preparedStore) add(p *prepared) error {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	p.handle = hex.EncodeToString(b[:])
	p.lastUsed = time.Now()
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if len(ps.m) >= ps.max {
		var oldest *prepared
		for _, o := range ps.m {
			o.mu.Lock()
			idle := time.Since(o.lastUsed) > ps.idle
			o.mu.Unlock()
			if idle {
				delete(ps.m, o.handle)
			} else if oldest == nil || o.lastUsed.Before(oldest.lastUsed) {
				oldest = o
			}
		}
		if len(ps.m) >= ps.max && oldest != nil {
			delete(ps.m, oldest.handle)
		}
	}
	ps.m[p.handle] = p
	return nil
}

func (ps *preparedStore) get(handle []byte) (*prepared, error) {
	ps.mu.Lock()
	p := ps.m[string(handle)]
	ps.mu.Unlock()
	if p == nil {
		return nil, status.Errorf(codes.NotFound, "no prepared statement with handle %q (closed, or dropped after being idle)", handle)
	}
	return p, nil
}

func (ps *preparedStore) remove(handle []byte) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	_, ok := ps.m[string(handle)]
	delete(ps.m, string(handle))
	return ok
}

func (q *sqlServer) CreatePreparedStatement(ctx context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	var res flightsql.ActionCreatePreparedStatementResult
	if len(req.GetTransactionId()) != 0 {
		return res, status.Error(codes.InvalidArgument, "quiver has no transactions")
	}
	pr, err := q.s.engine.PrepareContext(ctx, req.GetQuery())
	if err != nil {
		return res, toStatus(err)
	}
	p := &prepared{sql: pr.SQL, numParams: pr.NumParams, schema: pr.Schema}
	if err := q.s.prepared.add(p); err != nil {
		return res, toStatus(err)
	}
	isUpdate := false
	return flightsql.ActionCreatePreparedStatementResult{Handle: []byte(p.handle), DatasetSchema: p.schema, IsUpdate: &isUpdate}, nil
}

func (q *sqlServer) ClosePreparedStatement(ctx context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	q.s.prepared.remove(req.GetPreparedStatementHandle())
	return nil // closing twice is not an error
}

func (q *sqlServer) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	p, err := q.s.prepared.get(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	schema, err := q.s.engine.SchemaContext(ctx, p.sql, p.bound()...)
	if err != nil {
		return nil, toStatus(err)
	}
	// The ticket is the command itself: DoGet finds the statement and
	// its bound parameters by the handle inside.
	return q.flightInfo(desc, schema, desc.Cmd), nil
}

func (q *sqlServer) GetSchemaPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	p, err := q.s.prepared.get(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	schema, err := q.s.engine.SchemaContext(ctx, p.sql, p.bound()...)
	if err != nil {
		return nil, toStatus(err)
	}
	return &flight.SchemaResult{Schema: flight.SerializeSchema(schema, q.s.mem)}, nil
}

// DoPutCommandStatementUpdate refuses DML: quiver's tables change only by
// bulk ingest.
func (q *sqlServer) DoPutCommandStatementUpdate(ctx context.Context, cmd flightsql.StatementUpdate) (int64, error) {
	return 0, status.Error(codes.InvalidArgument, "quiver answers queries only; load data with bulk ingest (CommandStatementIngest, `quiver load`)")
}

// CancelFlightInfo cancels the running fetches of the info's tickets.
func (q *sqlServer) CancelFlightInfo(ctx context.Context, req *flight.CancelFlightInfoRequest) (flight.CancelFlightInfoResult, error) {
	info := req.GetInfo()
	if info == nil {
		return flight.CancelFlightInfoResult{}, status.Error(codes.InvalidArgument, "cancel request without a FlightInfo")
	}
	st := flight.CancelStatusNotCancellable // nothing running: finished, or never fetched
	for _, ep := range info.GetEndpoint() {
		if ep.GetTicket() != nil && q.s.running.cancel(ep.GetTicket().GetTicket()) {
			st = flight.CancelStatusCancelled
		}
	}
	return flight.CancelFlightInfoResult{Status: st}, nil
}

// runningQueries maps tickets to the cancel functions of their running
// fetches.
type runningQueries struct {
	mu sync.Mutex
	m  map[string]map[*int]context.CancelFunc
	n  int
}

func (r *runningQueries) add(ticket []byte, cancel context.CancelFunc) func() {
	key := new(int)
	r.mu.Lock()
	if r.m == nil {
		r.m = map[string]map[*int]context.CancelFunc{}
	}
	set := r.m[string(ticket)]
	if set == nil {
		set = map[*int]context.CancelFunc{}
		r.m[string(ticket)] = set
	}
	set[key] = cancel
	r.n++
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(set, key)
		if len(set) == 0 {
			delete(r.m, string(ticket))
		}
		r.n--
		r.mu.Unlock()
	}
}

func (r *runningQueries) cancel(ticket []byte) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	set := r.m[string(ticket)]
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
