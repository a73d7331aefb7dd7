package server

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/flight"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
)

// SetSessionOptions sets the session's options: OptionResultCodec, and
// Spark's two keys for the same thing (OptionSparkCodec,
// OptionSparkZstdLevel; see sparkoptions.go). An option sent with no
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
	sess.mu.Lock()
	defer sess.mu.Unlock()
	ch, bad := parseCodecOptions(req.GetSessionOptions())
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
	if sess != nil {
		sess.mu.Lock()
		rc = sess.codec
		for name, v := range sess.options {
			opts[name] = v
		}
		sess.mu.Unlock()
	}
	opts[OptionResultCodec] = &flight.SessionOptionValue{OptionValue: &pb.SessionOptionValue_StringValue{StringValue: rc.String()}}
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
