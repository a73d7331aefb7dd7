package query

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // zones on machines without a zoneinfo database

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// The session time zone is where a TIMESTAMP WITH TIME ZONE (an instant)
// meets a wall-clock reading: casts to and from TIMESTAMP, DATE, TIME and
// VARCHAR, comparisons of a TIMESTAMP or DATE with one, EXTRACT/date_part
// (but epoch), date_trunc, date_diff, dayname, monthname, last_day and
// strftime of one, current_date and localtimestamp, and a constant
// INTERVAL of days or months added to one (the calendar's days, 23 or 25
// hours across a DST change, as in DuckDB). Results of that type come out
// labelled with the zone, for clients to show. Zones are names of the
// IANA database Go carries (Europe/Berlin, America/New_York, UTC); the
// database is compiled in (time/tzdata), so no zoneinfo files are needed.
//
// A query's zone is its Session's (WithSession; SET TimeZone = '…' sets
// it), else Options.TimeZone, else UTC.

// Session holds what a client's SET statements change: the time zone.
// Safe for concurrent use.
type Session struct {
	mu   sync.Mutex
	zone *time.Location
}

// TimeZone is the session's zone; nil when it has not set one.
func (s *Session) TimeZone() *time.Location {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.zone
}

// SetTimeZone sets the session's zone (nil: back to the engine's).
func (s *Session) SetTimeZone(loc *time.Location) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.zone = loc
}

type sessionKey struct{}

// WithSession makes the queries and statements run with ctx use s: its
// time zone, and SET statements change it.
func WithSession(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, sessionKey{}, s)
}

func sessionOf(ctx context.Context) *Session {
	if ctx == nil {
		return nil
	}
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// LoadTimeZone finds a zone by its IANA name; an unknown name is
// ErrInvalid naming it.
func LoadTimeZone(name string) (*time.Location, error) {
	n := strings.TrimSpace(name)
	if strings.EqualFold(n, "UTC") || strings.EqualFold(n, "GMT") || n == "Z" {
		return time.UTC, nil
	}
	if n == "" || strings.EqualFold(n, "local") {
		return nil, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf("unknown time zone %q: give a name of the IANA time zone database (Europe/Berlin, America/New_York, UTC)", name)}
	}
	loc, err := time.LoadLocation(n)
	if err != nil {
		return nil, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf("unknown time zone %q: give a name of the IANA time zone database (Europe/Berlin, America/New_York, UTC)", name)}
	}
	return loc, nil
}

// zone is the time zone the statement plans in.
func (b *builder) zone() *time.Location {
	if s := sessionOf(b.ctx); s != nil {
		if z := s.TimeZone(); z != nil {
			return z
		}
	}
	if b.opts.TimeZone != nil {
		return b.opts.TimeZone
	}
	return time.UTC
}

// isTimeZoneVar reports whether a SET names the time zone: TimeZone,
// time_zone (MySQL's), or SET TIME ZONE (rewritten to TimeZone=,
// parse_types.go).
func isTimeZoneVar(name string) bool {
	switch strings.ToLower(name) {
	case "timezone", "time_zone":
		return true
	}
	return false
}

// set runs SET TimeZone = 'zone' on the statement's session.
func (n *changeNode) set(ctx context.Context, s *ast.SetStmt) error {
	sess := sessionOf(ctx)
	for _, v := range s.Variables {
		if !isTimeZoneVar(v.Name) {
			return n.b.at(ErrUnsupported, s, "SET %s: quiver's session settings are TimeZone", v.Name)
		}
		if v.IsGlobal {
			return n.b.at(ErrUnsupported, s, "SET GLOBAL %s: the server's zone is its --time-zone", v.Name)
		}
		name, ok := stringLiteral(v.Value)
		if !ok {
			return n.b.at(ErrInvalid, s, "SET TimeZone needs a zone name in quotes: SET TimeZone = 'Europe/Berlin'")
		}
		loc, err := LoadTimeZone(name)
		if err != nil {
			return err
		}
		if sess == nil {
			return n.b.at(ErrUnsupported, s, "SET TimeZone: no session to set it in (a Flight SQL client keeps one by its cookie; a program passes query.WithSession, or sets Options.TimeZone)")
		}
		sess.SetTimeZone(loc)
	}
	return nil
}

// IsSet reports whether sql is a SET statement (SET TimeZone = '…'),
// which changes the session a caller passes with WithSession.
func IsSet(sql string) bool {
	stmt, err := parseSQL(sql)
	if err != nil {
		return false
	}
	_, ok := stmt.(*ast.SetStmt)
	return ok
}
