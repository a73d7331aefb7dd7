package server

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/flight"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
)

// SetSessionOptions sets the session's options; quiver knows one,
// OptionResultCodec. An option sent with no value goes back to the
// server's default. Unknown names and bad values are reported per option,
// as Flight SQL wants, and leave that option unchanged.
func (q *sqlServer) SetSessionOptions(ctx context.Context, req *flight.SetSessionOptionsRequest) (*flight.SetSessionOptionsResult, error) {
	sess, err := q.s.sessions.getOrCreate(ctx, q.s.defaultCodec)
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
	for name, v := range req.GetSessionOptions() {
		if name != OptionResultCodec {
			fail(name, flight.SetSessionOptionsResultErrorInvalidName)
			continue
		}
		if v == nil || v.GetOptionValue() == nil { // unset
			sess.codec = q.s.defaultCodec
			delete(sess.options, name)
			continue
		}
		sv, ok := v.GetOptionValue().(*pb.SessionOptionValue_StringValue)
		if !ok {
			fail(name, flight.SetSessionOptionsResultErrorInvalidValue)
			continue
		}
		rc, err := parseResultCodec(sv.StringValue)
		if err != nil {
			fail(name, flight.SetSessionOptionsResultErrorInvalidValue)
			continue
		}
		sess.codec = rc
		sess.options[name] = v
	}
	return res, nil
}

// GetSessionOptions returns the session's options, the result codec
// always (the server default when the session has not set it).
func (q *sqlServer) GetSessionOptions(ctx context.Context, req *flight.GetSessionOptionsRequest) (*flight.GetSessionOptionsResult, error) {
	rc := q.s.defaultCodec
	if sess := q.s.sessions.get(ctx); sess != nil {
		rc = sess.resultCodec()
	}
	return &flight.GetSessionOptionsResult{SessionOptions: map[string]*flight.SessionOptionValue{
		OptionResultCodec: {OptionValue: &pb.SessionOptionValue_StringValue{StringValue: rc.String()}},
	}}, nil
}

// CloseSession forgets the session; the next call starts from the
// defaults.
func (q *sqlServer) CloseSession(ctx context.Context, req *flight.CloseSessionRequest) (*flight.CloseSessionResult, error) {
	if sess := q.s.sessions.get(ctx); sess != nil {
		q.s.sessions.close(sess.id)
	}
	return &flight.CloseSessionResult{Status: flight.CloseSessionResultClosed}, nil
}
