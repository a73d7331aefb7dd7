package server

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// A statement ticket is a handle: 128 random bits (hex) naming a
// statement the server keeps. Nobody can guess another client's ticket,
// the SQL crosses the wire once (in the request, not again in the
// FlightInfo), and the statement is bound to its owner and expires.
const (
	// ticketsPerClient and ticketBytesPerClient bound the statements one
	// client (clientGroup: an IPv4 address, an IPv6 /64) holds; past
	// either, its oldest ticket is dropped (fetching it then fails
	// NotFound). Other clients' tickets are never touched.
	ticketsPerClient     = 1024
	ticketBytesPerClient = 64 << 20
	// ticketSweep is how often expired tickets of clients that stopped
	// calling are swept out.
	ticketSweep = time.Minute
)

// statement is what a ticket runs: SQL and the parameters bound when the
// ticket was issued, for one owner, until expires.
type statement struct {
	handle  string
	sql     string
	params  []any
	owner   owner
	expires time.Time
	size    int64 // what it counts against the byte limits
}

// ticketStore holds the statements tickets name: per client as above,
// and at most maxBytes of them all together (Config.MaxTicketBytes), so
// that many addresses each at their own limit cannot take the server's
// memory. Past maxBytes a client recycles its own oldest tickets; one
// whose own do not make room is refused, and no other client's ticket is
// dropped for it.
type ticketStore struct {
	ttl      time.Duration
	maxBytes int64
	now      func() time.Time

	mu        sync.Mutex
	m         map[string]*statement
	byClient  map[string]*clientTickets // by clientGroup
	bytes     int64                     // of all statements held
	lastSweep time.Time
}

// clientTickets are one client's statements in the order issued, which
// with one TTL for all is also the order they expire in.
type clientTickets struct {
	queue []*statement
	bytes int64
}

func newTicketStore(ttl time.Duration, maxBytes int64) *ticketStore {
	return &ticketStore{ttl: ttl, maxBytes: maxBytes, now: time.Now, m: map[string]*statement{}, byClient: map[string]*clientTickets{}}
}

// issue stores a statement for o and returns it with its handle and
// expiry set.
func (ts *ticketStore) issue(sql string, params []any, o owner) (*statement, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	st := &statement{handle: hex.EncodeToString(b[:]), sql: sql, params: params, owner: o, size: int64(len(sql)) + paramsSize(params)}
	group := clientGroup(o.client)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	now := ts.now()
	st.expires = now.Add(ts.ttl)
	if now.Sub(ts.lastSweep) > ticketSweep {
		ts.sweepLocked(now)
	}
	ct := ts.byClient[group]
	if ct == nil {
		ct = &clientTickets{}
	}
	ts.dropLocked(group, ct, now, -1, -1) // expired ones
	others := ts.bytes - ct.bytes
	if others+st.size > ts.maxBytes && now.Sub(ts.lastSweep) > time.Second {
		// Others' expired tickets may make room; at most once a second,
		// so a refused client cannot make every call walk the store.
		ts.sweepLocked(now)
		others = ts.bytes - ct.bytes
	}
	if others+st.size > ts.maxBytes {
		if len(ct.queue) > 0 {
			ts.byClient[group] = ct
		}
		return nil, status.Errorf(codes.ResourceExhausted,
			"the server holds %d bytes of statements for other clients' tickets, and this one of %d bytes would pass its limit of %d (--max-ticket-bytes): tickets are dropped %s after GetFlightInfo (Config.TicketTTL, quiver serve --ticket-ttl); try again later",
			others, st.size, ts.maxBytes, ts.ttl)
	}
	ts.dropLocked(group, ct, now, ticketsPerClient-1, max(0, min(ticketBytesPerClient, ts.maxBytes-others)-st.size))
	ts.byClient[group] = ct
	ct.queue = append(ct.queue, st)
	ct.bytes += st.size
	ts.bytes += st.size
	ts.m[st.handle] = st
	return st, nil
}

// sweepLocked drops every client's expired statements.
func (ts *ticketStore) sweepLocked(now time.Time) {
	ts.lastSweep = now
	for group, ct := range ts.byClient {
		ts.dropLocked(group, ct, now, -1, -1)
	}
}

// dropLocked drops ct's expired statements, then its oldest until it
// holds at most n statements and bytes bytes (negative: no bound). ct
// may be left empty and out of the map: the caller that adds to it puts
// it back.
func (ts *ticketStore) dropLocked(group string, ct *clientTickets, now time.Time, n int, bytes int64) {
	for len(ct.queue) > 0 {
		st := ct.queue[0]
		if !now.After(st.expires) && (n < 0 || len(ct.queue) <= n) && (bytes < 0 || ct.bytes <= bytes) {
			break
		}
		ct.queue[0] = nil
		ct.queue = ct.queue[1:]
		ct.bytes -= st.size
		ts.bytes -= st.size
		delete(ts.m, st.handle)
	}
	if len(ct.queue) == 0 {
		delete(ts.byClient, group)
	}
}

// get returns the statement handle names if caller may run it. A ticket
// that expired, was dropped, never existed or is another's gives the
// same NotFound, so a caller learns nothing about others' tickets.
func (ts *ticketStore) get(handle string, caller owner) (*statement, error) {
	ts.mu.Lock()
	st := ts.m[handle]
	now := ts.now()
	ts.mu.Unlock()
	if st == nil || now.After(st.expires) || !st.owner.allows(caller) {
		return nil, status.Errorf(codes.NotFound,
			"no statement of yours has this ticket: tickets expire %s after GetFlightInfo (Config.TicketTTL, quiver serve --ticket-ttl), a client (an IPv4 address, an IPv6 /64) holds at most %d (its oldest go first, also when all clients together reach --max-ticket-bytes), and a ticket serves only the session (or, without one, the address and token) that asked for it; call GetFlightInfo again",
			ts.ttl, ticketsPerClient)
	}
	return st, nil
}

// paramsSize is about what params hold: their strings and bytes, and a
// word for each of the others.
func paramsSize(params []any) int64 {
	n := int64(0)
	for _, p := range params {
		switch v := p.(type) {
		case string:
			n += int64(len(v))
		case []byte:
			n += int64(len(v))
		}
		n += 16
	}
	return n
}
