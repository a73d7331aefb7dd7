package server

import (
	"context"
	"maps"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"

	"github.com/quiverdb/quiver/query"
)

// OptionTimeZone is the session option that sets the session's time
// zone, as SET TimeZone = '…' does: an IANA zone name (Europe/Berlin,
// UTC).
const OptionTimeZone = "TimeZone"

// SetSessionOptions sets the session's options: OptionResultCodec, and
// Spark's two keys for the same thing (OptionSparkCodec,
// OptionSparkZstdLevel; see sparkoptions.go), and OptionTimeZone. An option sent with no
// value goes back to the server's default. Unknown names and bad values
// are reported per option, as Flight SQL wants, and leave that option
// unchanged.
func (q *sqlServer) SetSessionOptions(ctx context.Context, req *flight.SetSessionOptionsRequest) (*flight.SetSessionOptionsResult, error) {
	sess, err := q.s.sessions.getOrCreate(ctx, q.s.clientKey(ctx), q.s.defaultCodec)
	if err != nil {
		return nil, toStatus(err)
	}
	res := &flight.SetSessionOptionsResult{}
	fail := func(name string, v pb.SetSessionOptionsResult_ErrorValue) {
		if res.Errors == nil {
			res.Errors = map[string]*flight.SetSessionOptionsResultError{}
		}
		res.Errors[name] = &flight.SetSessionOptionsResultError{Value: v}
	}
	opts := req.GetSessionOptions()
	if v, ok := opts[OptionTimeZone]; ok {
		opts = maps.Clone(opts)
		delete(opts, OptionTimeZone)
		if v == nil || v.GetOptionValue() == nil {
			sess.q.SetTimeZone(nil) // back to the server's
		} else if loc, err := query.LoadTimeZone(stringOption(v)); err != nil {
			fail(OptionTimeZone, flight.SetSessionOptionsResultErrorInvalidValue)
		} else {
			sess.q.SetTimeZone(loc)
		}
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	ch, bad := parseCodecOptions(opts)
	for name, v := range bad {
		fail(name, v)
	}
	ch.apply(sess, q.s.defaultCodec)
	return res, nil
}

// GetSessionOptions returns the session's options: the result codec
// always (the server default when the session has not set it), and the
// Spark keys the session set.
func (q *sqlServer) GetSessionOptions(ctx context.Context, req *flight.GetSessionOptionsRequest) (*flight.GetSessionOptionsResult, error) {
	sess, err := q.s.sessions.lookup(ctx)
	if err != nil {
		return nil, err
	}
	opts := map[string]*flight.SessionOptionValue{}
	rc := q.s.defaultCodec
	zone := q.s.cfg.TimeZone
	if sess != nil {
		if z := sess.q.TimeZone(); z != nil {
			zone = z
		}
		sess.mu.Lock()
		rc = sess.codec
		for name, v := range sess.options {
			opts[name] = v
		}
		sess.mu.Unlock()
	}
	opts[OptionResultCodec] = &flight.SessionOptionValue{OptionValue: &pb.SessionOptionValue_StringValue{StringValue: rc.String()}}
	if zone == nil {
		zone = time.UTC
	}
	opts[OptionTimeZone] = &flight.SessionOptionValue{OptionValue: &pb.SessionOptionValue_StringValue{StringValue: zone.String()}}
	return &flight.GetSessionOptionsResult{SessionOptions: opts}, nil
}

// CloseSession forgets the session and has the client drop its cookie;
// the next call starts from the defaults.
func (q *sqlServer) CloseSession(ctx context.Context, req *flight.CloseSessionRequest) (*flight.CloseSessionResult, error) {
	if err := q.s.sessions.close(ctx); err != nil {
		return nil, toStatus(err)
	}
	return &flight.CloseSessionResult{Status: flight.CloseSessionResultClosed}, nil
}
