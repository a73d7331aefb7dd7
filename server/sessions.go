package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/query"
)

// sessionCookie is the cookie Flight SQL clients keep a session in (the
// name arrow-go's and Arrow C++'s session middlewares use, so their cookie
// middlewares carry it).
const sessionCookie = "arrow_flight_session_id"

// OptionResultCodec is the session option that chooses the result codec:
// "none", "lz4", "zstd:N" or "auto".
const OptionResultCodec = "quiver.result.codec"

// session is one client's settings, found by its cookie. quiver keeps its
// own small store rather than arrow-go's session middleware, which
// panics when its store fails and never expires a session.
type session struct {
	id     string
	client string // clientGroup of the call that created it

	mu         sync.Mutex
	codec      resultCodec
	sparkLevel int                                   // OptionSparkZstdLevel; 0: unset
	options    map[string]*flight.SessionOptionValue // the Spark keys set, as sent
	lastUsed   time.Time                             // guarded by sessions.mu

	// q is what the session's SQL sets (SET TimeZone) and its queries
	// read; safe on its own.
	q *query.Session
}

func (s *session) resultCodec() resultCodec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.codec
}

// sessions holds the live sessions: at most max, at most perClient of
// them created by one client (clientGroup), each dropped after idle. A
// session in use is never dropped to make room: past a limit a new
// session is refused (a client at its own limit may reclaim its own
// session unused for reclaimAfter), so a client flooding the server cannot
// change another's settings. A call naming a session the server no
// longer holds fails (gone) rather than silently running with the
// defaults.
type sessions struct {
	max, perClient int
	idle           time.Duration
	now            func() time.Time

	mu        sync.Mutex
	m         map[string]*session
	byClient  map[string]*clientSessions
	lastSweep time.Time
}

// clientSessions is what the store knows of one client.
type clientSessions struct {
	n           int
	lastReclaim time.Time
}

func newSessions(max, perClient int, idle time.Duration) *sessions {
	return &sessions{max: max, perClient: perClient, idle: idle, now: time.Now, m: map[string]*session{}, byClient: map[string]*clientSessions{}}
}

// lookup returns the session the call's cookie names: nil without a
// cookie, an error when the server does not hold that session (expired,
// closed, or from before a restart).
func (ss *sessions) lookup(ctx context.Context) (*session, error) {
	id := cookieValue(ctx, sessionCookie)
	if id == "" {
		return nil, nil
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.m[id]
	now := ss.now()
	if s != nil && now.Sub(s.lastUsed) > ss.idle {
		ss.dropLocked(s)
		s = nil
	}
	if s == nil {
		return nil, ss.gone(id)
	}
	s.lastUsed = now
	return s, nil
}

// gone is the error for a cookie naming a session the server does not
// hold.
func (ss *sessions) gone(id string) error {
	return status.Errorf(codes.FailedPrecondition,
		"session %.8s… has expired (unused for %s, closed, or the server restarted): set its options again (SetSessionOptions starts a new session), or drop the %s cookie to use the server's defaults",
		id, ss.idle, sessionCookie)
}

// getOrCreate returns the call's session, creating one (and telling the
// client its cookie) when it has none or names one that is gone. client
// is the caller's clientKey; its sessions count by its clientGroup.
func (ss *sessions) getOrCreate(ctx context.Context, client string, defaults resultCodec) (*session, error) {
	client = clientGroup(client)
	if s, _ := ss.lookup(ctx); s != nil {
		return s, nil
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	s := &session{id: hex.EncodeToString(b[:]), client: client, codec: defaults, options: map[string]*flight.SessionOptionValue{}, q: &query.Session{}}
	ss.mu.Lock()
	now := ss.now()
	cs := ss.byClient[client]
	if cs == nil {
		cs = &clientSessions{}
	}
	if len(ss.m) >= ss.max || cs.n >= ss.perClient {
		ss.sweepLocked(now)
	}
	if len(ss.m) >= ss.max || cs.n >= ss.perClient {
		ss.reclaimLocked(client, cs, now)
	}
	switch {
	case len(ss.m) >= ss.max:
		n := len(ss.m)
		ss.mu.Unlock()
		return nil, status.Errorf(codes.ResourceExhausted,
			"the server holds %d sessions, its limit (Config.MaxSessions): none is dropped while in use; try again when idle ones expire (after %s unused) or are closed",
			n, ss.idle)
	case cs.n >= ss.perClient:
		n := cs.n
		ss.mu.Unlock()
		return nil, status.Errorf(codes.ResourceExhausted,
			"this client (%s) holds %d sessions, the most one client may (Config.MaxSessionsPerClient, quiver serve --max-sessions-per-client): close the ones it no longer uses (CloseSession), or wait for them to expire after %s unused",
			clientIP(client), n, ss.idle)
	}
	s.lastUsed = now
	ss.m[s.id] = s
	cs.n++
	ss.byClient[client] = cs
	ss.mu.Unlock()
	c := http.Cookie{Name: sessionCookie, Value: s.id}
	if err := grpc.SetHeader(ctx, metadata.Pairs("set-cookie", c.String())); err != nil {
		return nil, err
	}
	return s, nil
}

// sweepLocked drops the sessions idle past the limit, at most once a
// second: a client hammering a full store must not make every call walk
// all of it.
func (ss *sessions) sweepLocked(now time.Time) {
	if now.Sub(ss.lastSweep) < time.Second {
		return
	}
	ss.lastSweep = now
	for _, s := range ss.m {
		if now.Sub(s.lastUsed) > ss.idle {
			ss.dropLocked(s)
		}
	}
}

// reclaimAfter is how long a session must have been unused before its
// own client, at a limit, may reclaim it for a new one: a program that
// starts a session per run and never closes it (a CLI in a loop) keeps
// working, while a flood of fresh sessions is refused. The reclaimed
// session's next call fails (gone), it does not change settings silently.
const reclaimAfter = time.Minute

// reclaimLocked drops client's least recently used session if it has been
// unused for reclaimAfter; at most once a second per client, as
// sweepLocked (a flooding client cannot hold back another's reclaim).
func (ss *sessions) reclaimLocked(client string, cs *clientSessions, now time.Time) {
	if now.Sub(cs.lastReclaim) < time.Second {
		return
	}
	cs.lastReclaim = now
	var oldest *session
	for _, s := range ss.m {
		if s.client == client && (oldest == nil || s.lastUsed.Before(oldest.lastUsed)) {
			oldest = s
		}
	}
	if oldest != nil && now.Sub(oldest.lastUsed) >= reclaimAfter {
		ss.dropLocked(oldest)
	}
}

// dropLocked forgets s, and its client once it has no session left.
func (ss *sessions) dropLocked(s *session) {
	delete(ss.m, s.id)
	if cs := ss.byClient[s.client]; cs != nil {
		if cs.n--; cs.n <= 0 {
			delete(ss.byClient, s.client)
		}
	}
}

// close forgets the call's session, if it names one, and tells the
// client's cookie middleware to drop the cookie (so its next call runs
// with the defaults instead of failing as a gone session).
func (ss *sessions) close(ctx context.Context) error {
	id := cookieValue(ctx, sessionCookie)
	if id == "" {
		return nil
	}
	ss.mu.Lock()
	if s := ss.m[id]; s != nil {
		ss.dropLocked(s)
	}
	ss.mu.Unlock()
	c := http.Cookie{Name: sessionCookie, Value: "", MaxAge: -1}
	return grpc.SetHeader(ctx, metadata.Pairs("set-cookie", c.String()))
}

func (ss *sessions) len() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.m)
}

// clientIP is the address part of a clientKey, for messages (the token
// digest stays out of them).
func clientIP(client string) string {
	_, ip, _ := strings.Cut(client, "@")
	return ip
}

// cookieValue returns the value of the named cookie in the call's
// metadata, or "".
func cookieValue(ctx context.Context, name string) string {
	md, ok := metadata.FromIncomingContext(ctx)
	if !ok {
		return ""
	}
	h := http.Header{}
	for _, v := range md.Get("cookie") {
		h.Add("Cookie", v)
	}
	c, err := (&http.Request{Header: h}).Cookie(name)
	if err != nil {
		return ""
	}
	return c.Value
}

// withSession is ctx carrying the session's SQL settings (its time
// zone) to the engine; ctx itself without a session.
func withSession(ctx context.Context, sess *session) context.Context {
	if sess == nil {
		return ctx
	}
	return query.WithSession(ctx, sess.q)
}
