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

	"github.com/quiverdb/quiver/query"
)

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

// preparedPerClient bounds the prepared statements one client (clientGroup)
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
	client := clientGroup(p.owner.client)
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
			} else if clientGroup(o.owner.client) == client && (oldest == nil || o.used().Before(oldest.used())) {
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
	client := clientGroup(p.owner.client)
	if ps.byClient[client]--; ps.byClient[client] <= 0 {
		delete(ps.byClient, client)
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
	isUpdate := query.IsChange(p.sql)
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
	pr, err := s.engine.PrepareContext(ctx, sql)
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
