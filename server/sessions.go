package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
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
	id string

	mu       sync.Mutex
	codec    resultCodec
	options  map[string]*flight.SessionOptionValue
	lastUsed time.Time
}

func (s *session) resultCodec() resultCodec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.codec
}

// sessions holds the live sessions, at most max, each dropped after idle.
type sessions struct {
	max  int
	idle time.Duration
	now  func() time.Time

	mu sync.Mutex
	m  map[string]*session
}

func newSessions(max int, idle time.Duration) *sessions {
	return &sessions{max: max, idle: idle, now: time.Now, m: map[string]*session{}}
}

// get returns the session the call's cookie names, or nil.
func (ss *sessions) get(ctx context.Context) *session {
	id := cookieValue(ctx, sessionCookie)
	if id == "" {
		return nil
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.m[id]
	if s == nil {
		return nil
	}
	now := ss.now()
	if now.Sub(s.lastUsed) > ss.idle {
		delete(ss.m, id)
		return nil
	}
	s.lastUsed = now
	return s
}

// getOrCreate returns the call's session, creating one (and telling the
// client its cookie) when there is none.
func (ss *sessions) getOrCreate(ctx context.Context, defaults resultCodec) (*session, error) {
	if s := ss.get(ctx); s != nil {
		return s, nil
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	s := &session{id: hex.EncodeToString(b[:]), codec: defaults, options: map[string]*flight.SessionOptionValue{}}
	ss.mu.Lock()
	now := ss.now()
	s.lastUsed = now
	if len(ss.m) >= ss.max {
		ss.evictLocked(now)
	}
	ss.m[s.id] = s
	ss.mu.Unlock()
	c := http.Cookie{Name: sessionCookie, Value: s.id}
	if err := grpc.SetHeader(ctx, metadata.Pairs("set-cookie", c.String())); err != nil {
		return nil, err
	}
	return s, nil
}

// evictLocked drops the idle sessions, then the least recently used ones,
// until there is room for one more.
func (ss *sessions) evictLocked(now time.Time) {
	for id, s := range ss.m {
		if now.Sub(s.lastUsed) > ss.idle {
			delete(ss.m, id)
		}
	}
	for len(ss.m) >= ss.max {
		var oldest *session
		for _, s := range ss.m {
			if oldest == nil || s.lastUsed.Before(oldest.lastUsed) {
				oldest = s
			}
		}
		delete(ss.m, oldest.id)
	}
}

func (ss *sessions) close(id string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	_, ok := ss.m[id]
	delete(ss.m, id)
	return ok
}

func (ss *sessions) len() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.m)
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
