package server

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/codec"
)

// TestSessionFloodKeepsOtherSessions: a client creating sessions until
// the store is full is refused; it does not evict another client's
// session, whose codec stays what it chose (it silently fell back to
// auto when floods evicted the least recently used).
func TestSessionFloodKeepsOtherSessions(t *testing.T) {
	ts := startServer(t, Config{MaxSessions: 100, MaxSessionsPerClient: 1000}, numbersTable(100, 100))
	ctx := context.Background()
	victim := ts.client(t)
	setCodec(t, victim, ctx, "zstd:3")

	flooder := ts.clientFrom(t, "127.0.0.2", false) // no cookies: a new session per call
	refused := 0
	for range 300 {
		_, err := setOptions(ctx, flooder, map[string]any{OptionResultCodec: "none"})
		switch {
		case status.Code(err) == codes.ResourceExhausted && strings.Contains(err.Error(), "MaxSessions"):
			refused++
		case err != nil:
			t.Fatal(err)
		}
	}
	if refused != 201 {
		t.Errorf("%d of 300 new sessions refused, want 201 (100 held, one the victim's)", refused)
	}
	if got, err := sessionCodec(ctx, victim); err != nil || got != "zstd:3" {
		t.Fatalf("the victim's codec after the flood: %q %v", got, err)
	}
	res := fetchRaw(t, victim, ctx, `SELECT id, name FROM nums`)
	if kinds := codecKinds(res.infos); len(kinds) == 0 || kinds[0] != codec.Zstd {
		t.Errorf("the victim's result codecs: %v", kinds)
	}
}

// TestSessionsPerClient: one client (address) holds at most
// MaxSessionsPerClient; another address is not held back by it.
func TestSessionsPerClient(t *testing.T) {
	ts := startServer(t, Config{MaxSessionsPerClient: 5})
	ctx := context.Background()
	flooder := ts.clientFrom(t, "127.0.0.2", false)
	for i := range 6 {
		_, err := setOptions(ctx, flooder, map[string]any{OptionResultCodec: "none"})
		if i < 5 && err != nil {
			t.Fatalf("session %d: %v", i+1, err)
		}
		if i == 5 && (status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "--max-sessions-per-client") || !strings.Contains(err.Error(), "127.0.0.2")) {
			t.Fatalf("session 6: %v", err)
		}
	}
	other := ts.client(t)
	setCodec(t, other, ctx, "lz4")
	if got, err := sessionCodec(ctx, other); err != nil || got != "lz4" {
		t.Errorf("another client: %q %v", got, err)
	}
}

// TestExpiredSessionIsAnError: a call naming a session the server no
// longer holds fails with FailedPrecondition instead of silently running
// with the defaults; setting the options again starts a new session.
func TestExpiredSessionIsAnError(t *testing.T) {
	ts := startServer(t, Config{SessionIdle: time.Hour}, numbersTable(100, 100))
	var elapsed atomic.Int64
	start := time.Now()
	ts.sessions.mu.Lock() // the store reads its clock under mu
	ts.sessions.now = func() time.Time { return start.Add(time.Duration(elapsed.Load())) }
	ts.sessions.mu.Unlock()
	cl := ts.client(t)
	ctx := context.Background()
	setCodec(t, cl, ctx, "lz4")
	elapsed.Store(int64(61 * time.Minute))
	_, err := fetch(t, cl, ctx, `SELECT count(*) FROM nums`)
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("query in an expired session: %v", err)
	}
	if _, err := sessionCodec(ctx, cl); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("GetSessionOptions in an expired session: %v", err)
	}
	setCodec(t, cl, ctx, "lz4")
	if got, err := fetch(t, cl, ctx, `SELECT count(*) FROM nums`); err != nil || fmt.Sprint(got) != "[100]" {
		t.Fatalf("after setting the options again: %v %v", got, err)
	}
	res := fetchRaw(t, cl, ctx, `SELECT id FROM nums`)
	if kinds := codecKinds(res.infos); len(kinds) == 0 || kinds[0] != codec.LZ4 {
		t.Errorf("codecs in the new session: %v", kinds)
	}
}

// TestCloseSessionDropsTheCookie: after CloseSession the client's next
// call runs with the defaults, not into a gone session.
func TestCloseSessionDropsTheCookie(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(100, 100))
	cl := ts.client(t)
	ctx := context.Background()
	setCodec(t, cl, ctx, "lz4")
	var res flight.CloseSessionResult
	if err := doAction(ctx, cl, flight.CloseSessionActionType, &flight.CloseSessionRequest{}, &res); err != nil {
		t.Fatal(err)
	}
	if got, err := sessionCodec(ctx, cl); err != nil || got != "auto" {
		t.Errorf("codec after CloseSession: %q %v", got, err)
	}
	if ts.sessions.len() != 0 {
		t.Errorf("%d sessions held after CloseSession", ts.sessions.len())
	}
}

// TestClientReclaimsItsOwnUnusedSession: a client at its limit whose
// oldest session has been unused a while (a CLI run that never closed
// it) gets a new session in its place; that old session's next call
// fails instead of running with other settings.
func TestClientReclaimsItsOwnUnusedSession(t *testing.T) {
	ts := startServer(t, Config{MaxSessionsPerClient: 2}, numbersTable(10, 10))
	ctx := context.Background()
	first := ts.clientFrom(t, "127.0.0.2", true)
	setCodec(t, first, ctx, "lz4")
	second := ts.clientFrom(t, "127.0.0.2", true)
	setCodec(t, second, ctx, "lz4")
	third := ts.clientFrom(t, "127.0.0.2", true)
	if _, err := setOptions(ctx, third, map[string]any{OptionResultCodec: "none"}); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("a third session while both are fresh: %v", err)
	}
	// The first goes unused for longer than reclaimAfter.
	ts.sessions.mu.Lock()
	var oldest *session
	for _, s := range ts.sessions.m {
		if oldest == nil || s.lastUsed.Before(oldest.lastUsed) {
			oldest = s
		}
	}
	oldest.lastUsed = oldest.lastUsed.Add(-2 * reclaimAfter)
	for _, cs := range ts.sessions.byClient {
		cs.lastReclaim = time.Time{}
	}
	ts.sessions.mu.Unlock()
	setCodec(t, third, ctx, "none")
	if _, err := fetch(t, first, ctx, `SELECT count(*) FROM nums`); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("the reclaimed session's next query: %v, want FailedPrecondition", err)
	}
	if got, err := sessionCodec(ctx, second); err != nil || got != "lz4" {
		t.Errorf("the other session: %q %v", got, err)
	}
}
