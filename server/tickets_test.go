package server

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// TestTicketsAreHandles: a ticket names the statement with 128 random
// bits; the SQL is not in it, and two plans of the same SQL get two
// tickets.
func TestTicketsAreHandles(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(10, 10))
	cl := ts.client(t)
	ctx := context.Background()
	const sql = `SELECT count(*) FROM nums WHERE name <> 'a rather distinctive marker'`
	a, err := cl.Execute(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	b, err := cl.Execute(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	ta, tb := a.Endpoint[0].Ticket.Ticket, b.Endpoint[0].Ticket.Ticket
	if bytes.Contains(ta, []byte("distinctive marker")) || bytes.Equal(ta, tb) {
		t.Errorf("tickets %q and %q: the SQL in them, or equal", ta, tb)
	}
	if a.Endpoint[0].ExpirationTime == nil {
		t.Error("no expiration time on the endpoint")
	}
	for _, info := range []*flight.FlightInfo{a, b} {
		if got, err := fetchInfo(ctx, cl, info); err != nil || fmt.Sprint(got) != "[10]" {
			t.Errorf("fetch: %v %v", got, err)
		}
	}
}

// TestCancelFlightInfoTouchesOnlyOwnQueries: another client planning the
// same SQL, or holding the first client's FlightInfo, cannot cancel its
// stream. Before tickets were handles, the SQL text was enough.
func TestCancelFlightInfoTouchesOnlyOwnQueries(t *testing.T) {
	const rows = 200000
	ts := startServer(t, Config{MaxBatchRows: 100}, numbersTable(rows, 10000))
	ctx := context.Background()
	const sql = `SELECT id, name FROM nums`
	victim := ts.client(t)
	setCodec(t, victim, ctx, "none") // a session of its own
	info, err := victim.Execute(ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	r, err := victim.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Next() {
		t.Fatal(r.Err())
	}
	got := r.RecordBatch().NumRows()

	for _, attacker := range []struct {
		name string
		cl   *flightsql.Client
	}{
		{"another session", ts.client(t)},
		{"another machine", ts.clientFrom(t, "127.0.0.2", false)},
	} {
		if attacker.name == "another session" {
			setCodec(t, attacker.cl, ctx, "none")
		}
		own, err := attacker.cl.Execute(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := attacker.cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: own}); err != nil || res.Status == flight.CancelStatusCancelled {
			t.Errorf("%s cancelling its own plan of the same SQL: %v %v", attacker.name, res, err)
		}
		if _, err := attacker.cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info}); status.Code(err) != codes.NotFound {
			t.Errorf("%s cancelling the victim's FlightInfo: %v, want NotFound", attacker.name, err)
		}
		if _, err := fetchInfo(ctx, attacker.cl, info); status.Code(err) != codes.NotFound {
			t.Errorf("%s fetching the victim's ticket: %v, want NotFound", attacker.name, err)
		}
	}
	for r.Next() {
		got += r.RecordBatch().NumRows()
	}
	if r.Err() != nil || got != rows {
		t.Fatalf("the victim's stream: %d rows, %v", got, r.Err())
	}
}

// TestTicketsExpire: a ticket can be fetched again until Config.TicketTTL,
// then it is NotFound, naming the limit.
func TestTicketsExpire(t *testing.T) {
	ts := startServer(t, Config{TicketTTL: time.Minute}, numbersTable(10, 10))
	var elapsed atomic.Int64
	start := time.Now()
	ts.tickets.mu.Lock() // the store reads its clock under mu
	ts.tickets.now = func() time.Time { return start.Add(time.Duration(elapsed.Load())) }
	ts.tickets.mu.Unlock()
	cl := ts.client(t)
	ctx := context.Background()
	info, err := cl.Execute(ctx, `SELECT count(*) FROM nums`)
	if err != nil {
		t.Fatal(err)
	}
	if exp := info.Endpoint[0].ExpirationTime.AsTime(); !exp.Equal(start.Add(time.Minute)) {
		t.Errorf("expiration %v, want %v", exp, start.Add(time.Minute))
	}
	for _, at := range []time.Duration{0, 59 * time.Second} {
		elapsed.Store(int64(at))
		if got, err := fetchInfo(ctx, cl, info); err != nil || fmt.Sprint(got) != "[10]" {
			t.Fatalf("fetch %v after planning: %v %v", at, got, err)
		}
	}
	elapsed.Store(int64(61 * time.Second))
	_, err = fetchInfo(ctx, cl, info)
	if status.Code(err) != codes.NotFound || !strings.Contains(err.Error(), "--ticket-ttl") {
		t.Errorf("fetch after the TTL: %v", err)
	}
}

// TestTicketsOfCookielessClients: a client that keeps no cookies fetches
// its tickets (arrow-rs and other clients without a cookie jar), and a
// client on another address cannot.
func TestTicketsOfCookielessClients(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(10, 10))
	ctx := context.Background()
	plain := ts.clientFrom(t, "127.0.0.1", false)
	info, err := plain.Execute(ctx, `SELECT count(*) FROM nums`)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fetchInfo(ctx, plain, info); err != nil || fmt.Sprint(got) != "[10]" {
		t.Fatalf("own ticket: %v %v", got, err)
	}
	// A session started after the plan does not lose the ticket.
	withCookies := ts.client(t)
	info, err = withCookies.Execute(ctx, `SELECT count(*) FROM nums`)
	if err != nil {
		t.Fatal(err)
	}
	setCodec(t, withCookies, ctx, "lz4")
	if got, err := fetchInfo(ctx, withCookies, info); err != nil || fmt.Sprint(got) != "[10]" {
		t.Fatalf("ticket planned before the session: %v %v", got, err)
	}
	other := ts.clientFrom(t, "127.0.0.2", false)
	if _, err := fetchInfo(ctx, other, info); status.Code(err) != codes.NotFound {
		t.Errorf("another address fetching: %v, want NotFound", err)
	}
}

// TestPreparedStatementsBelongToTheirSession: another session cannot
// execute, bind or close a statement whose handle it learned.
func TestPreparedStatementsBelongToTheirSession(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(10, 10))
	ctx := context.Background()
	owner, other := ts.client(t), ts.client(t)
	setCodec(t, owner, ctx, "none")
	setCodec(t, other, ctx, "none")
	stmt, err := owner.Prepare(ctx, `SELECT count(*) FROM nums`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close(ctx)
	desc, err := commandDescriptor(&pb.CommandPreparedStatementQuery{PreparedStatementHandle: stmt.Handle()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Client.GetFlightInfo(ctx, desc); status.Code(err) != codes.NotFound {
		t.Errorf("another session executing the handle: %v, want NotFound", err)
	}
	info, err := stmt.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fetchInfo(ctx, owner, info); err != nil || fmt.Sprint(got) != "[10]" {
		t.Errorf("owner: %v %v", got, err)
	}
}

// commandDescriptor is the FlightDescriptor of a Flight SQL command.
func commandDescriptor(cmd proto.Message) (*flight.FlightDescriptor, error) {
	a, err := anypb.New(cmd)
	if err != nil {
		return nil, err
	}
	b, err := proto.Marshal(a)
	if err != nil {
		return nil, err
	}
	return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b}, nil
}

// TestTicketStoreBoundsEachClient: past ticketsPerClient or
// ticketBytesPerClient a client's own oldest tickets go, no one else's;
// expired tickets of clients that stopped calling are swept.
func TestTicketStoreBoundsEachClient(t *testing.T) {
	ts := newTicketStore(time.Hour, DefaultMaxTicketBytes)
	now := time.Unix(1000, 0)
	ts.now = func() time.Time { return now }
	a, b := owner{client: "@10.0.0.1"}, owner{client: "@10.0.0.2"}
	bFirst, err := ts.issue("SELECT 1", nil, b)
	if err != nil {
		t.Fatal(err)
	}
	var aTickets []*statement
	for range ticketsPerClient + 1 {
		st, err := ts.issue("SELECT 2", nil, a)
		if err != nil {
			t.Fatal(err)
		}
		aTickets = append(aTickets, st)
	}
	if _, err := ts.get(aTickets[0].handle, a); status.Code(err) != codes.NotFound {
		t.Errorf("a's oldest ticket past the count: %v", err)
	}
	if _, err := ts.get(aTickets[1].handle, a); err != nil {
		t.Errorf("a's second ticket: %v", err)
	}
	if _, err := ts.get(bFirst.handle, b); err != nil {
		t.Errorf("b's ticket after a's flood: %v", err)
	}
	big := strings.Repeat("x", ticketBytesPerClient/2)
	for range 2 {
		if _, err := ts.issue(big, []any{"p"}, a); err != nil {
			t.Fatal(err)
		}
	}
	if n, bytes := len(ts.byClient[a.client].queue), ts.byClient[a.client].bytes; bytes > ticketBytesPerClient || n != 1 {
		t.Errorf("a holds %d tickets, %d bytes after two of half the byte limit each", n, bytes)
	}
	now = now.Add(2 * time.Hour)
	if _, err := ts.get(bFirst.handle, b); status.Code(err) != codes.NotFound {
		t.Errorf("b's ticket after its TTL: %v", err)
	}
	if _, err := ts.issue("SELECT 3", nil, a); err != nil {
		t.Fatal(err)
	}
	if _, held := ts.byClient[b.client]; held || len(ts.m) != 1 {
		t.Errorf("after the sweep: b held %v, %d tickets", held, len(ts.m))
	}
}

// TestPreparedStatementFloodKeepsOthers: a client preparing statements
// past the store's limit recycles its own; another's statement stays (the
// least recently used of anyone's was dropped).
func TestPreparedStatementFloodKeepsOthers(t *testing.T) {
	ts := startServer(t, Config{MaxSessions: 10}, numbersTable(10, 10))
	ctx := context.Background()
	victim := ts.client(t)
	stmt, err := victim.Prepare(ctx, `SELECT count(*) FROM nums`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close(ctx)
	flooder := ts.clientFrom(t, "127.0.0.2", false)
	refused := 0
	for range 20 {
		if _, err := flooder.Prepare(ctx, `SELECT 1 FROM nums`); status.Code(err) == codes.ResourceExhausted {
			refused++
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if ts.prepared.mu.Lock(); len(ts.prepared.m) > 10 || refused != 0 {
		t.Errorf("%d statements held, %d of 20 refused; want at most 10, none refused", len(ts.prepared.m), refused)
	}
	ts.prepared.mu.Unlock()
	info, err := stmt.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fetchInfo(ctx, victim, info); err != nil || fmt.Sprint(got) != "[10]" {
		t.Errorf("the victim's statement: %v %v", got, err)
	}
}

// TestTicketStoreServerCap: past Config.MaxTicketBytes, all clients
// together, a client holding no tickets is refused, naming the limit,
// and no other client's ticket is dropped for it; a client holding some
// recycles its own oldest; tickets expiring make room again. Before the
// cap, each of 100 addresses could hold 64 MiB.
func TestTicketStoreServerCap(t *testing.T) {
	const limit = 64 << 10
	ts := startServer(t, Config{MaxTicketBytes: limit, TicketTTL: time.Minute}, numbersTable(10, 10))
	var elapsed atomic.Int64
	start := time.Now()
	ts.tickets.mu.Lock()
	ts.tickets.now = func() time.Time { return start.Add(time.Duration(elapsed.Load())) }
	ts.tickets.mu.Unlock()
	ctx := context.Background()
	sql := `SELECT count(*) FROM nums WHERE name <> '` + strings.Repeat("x", 10<<10) + `'`
	a, b := ts.clientFrom(t, "127.0.0.1", false), ts.clientFrom(t, "127.0.0.2", false)
	var infos []*flight.FlightInfo
	for range limit / len(sql) {
		info, err := a.Execute(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	_, err := b.Execute(ctx, sql)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "its limit of 65536 (--max-ticket-bytes)") {
		t.Errorf("another client past the server's limit: %v", err)
	}
	if got, err := fetchInfo(ctx, a, infos[0]); err != nil || fmt.Sprint(got) != "[10]" {
		t.Errorf("the first client's oldest ticket after the refusal: %v %v", got, err)
	}
	if _, err := a.Execute(ctx, sql); err != nil {
		t.Errorf("the first client recycling its own tickets: %v", err)
	}
	if _, err := fetchInfo(ctx, a, infos[0]); status.Code(err) != codes.NotFound {
		t.Errorf("the first client's oldest ticket after it recycled: %v, want NotFound", err)
	}
	if ts.tickets.mu.Lock(); ts.tickets.bytes > limit {
		t.Errorf("the store holds %d bytes, past its limit of %d", ts.tickets.bytes, limit)
	}
	ts.tickets.mu.Unlock()
	elapsed.Store(int64(2 * time.Minute))
	info, err := b.Execute(ctx, sql)
	if err != nil {
		t.Fatalf("after the first client's tickets expired: %v", err)
	}
	if got, err := fetchInfo(ctx, b, info); err != nil || fmt.Sprint(got) != "[10]" {
		t.Errorf("fetch: %v %v", got, err)
	}
}

// TestTicketStoreGroupsIPv6: addresses of one IPv6 /64 share one
// client's limits (a host picks its address from its /64 freely); the
// next /64 and IPv4 addresses count apart. Ownership stays per address.
func TestTicketStoreGroupsIPv6(t *testing.T) {
	ts := newTicketStore(time.Hour, DefaultMaxTicketBytes)
	a1, a2 := owner{client: "@2001:db8::1"}, owner{client: "@2001:db8::ffff:2"}
	other := owner{client: "@2001:db8:0:1::1"}
	first, err := ts.issue("SELECT 1", nil, a1)
	if err != nil {
		t.Fatal(err)
	}
	otherFirst, err := ts.issue("SELECT 1", nil, other)
	if err != nil {
		t.Fatal(err)
	}
	for range ticketsPerClient - 1 {
		if _, err := ts.issue("SELECT 2", nil, a2); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ts.get(first.handle, a2); status.Code(err) != codes.NotFound {
		t.Errorf("another address of the /64 fetching the ticket: %v, want NotFound", err)
	}
	if _, err := ts.get(first.handle, a1); err != nil {
		t.Errorf("the /64's %d tickets: %v", ticketsPerClient, err)
	}
	if _, err := ts.issue("SELECT 2", nil, a2); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.get(first.handle, a1); status.Code(err) != codes.NotFound {
		t.Errorf("past the /64's ticket count, its oldest ticket: %v, want NotFound", err)
	}
	if _, err := ts.get(otherFirst.handle, other); err != nil {
		t.Errorf("the next /64's ticket: %v", err)
	}
}

// TestCancelAfterTheTicketExpired: a fetch runs on after its ticket
// expires (a query longer than --ticket-ttl), and its owner can still
// cancel it; another client still cannot.
func TestCancelAfterTheTicketExpired(t *testing.T) {
	const rows = 200000
	ts := startServer(t, Config{MaxBatchRows: 100, TicketTTL: time.Minute}, numbersTable(rows, 10000))
	var elapsed atomic.Int64
	start := time.Now()
	ts.tickets.mu.Lock()
	ts.tickets.now = func() time.Time { return start.Add(time.Duration(elapsed.Load())) }
	ts.tickets.mu.Unlock()
	ctx := context.Background()
	owner := ts.client(t)
	setCodec(t, owner, ctx, "none")
	info, err := owner.Execute(ctx, `SELECT id, name FROM nums`)
	if err != nil {
		t.Fatal(err)
	}
	r, err := owner.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Next() {
		t.Fatal(r.Err())
	}
	elapsed.Store(int64(2 * time.Minute))
	other := ts.clientFrom(t, "127.0.0.2", false)
	if _, err := other.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info}); status.Code(err) != codes.NotFound {
		t.Errorf("another client cancelling: %v, want NotFound", err)
	}
	res, err := owner.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	if err != nil || res.Status != flight.CancelStatusCancelled {
		t.Fatalf("the owner cancelling after the TTL: %v %v", res, err)
	}
	got := r.RecordBatch().NumRows()
	for r.Next() {
		got += r.RecordBatch().NumRows()
	}
	if r.Err() == nil || got == rows {
		t.Errorf("the stream went on: %d of %d rows, %v", got, rows, r.Err())
	}
}
