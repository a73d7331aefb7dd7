package client

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/protobuf/proto"

	"github.com/quiverdb/quiver/batch"
)

// OptionResultCodec is the session option that chooses the body
// compression of the results that follow (server.OptionResultCodec,
// which a test keeps equal): none, lz4, zstd:N or auto.
const OptionResultCodec = "quiver.result.codec"

// SetResultCodec sets the codec of the results that follow on this
// client's session: none, lz4, zstd, zstd:N or auto. A server that
// refuses the value, or does not know the option, is an error naming it.
func (c *Client) SetResultCodec(ctx context.Context, value string) error {
	return c.SetOptions(ctx, map[string]any{OptionResultCodec: value})
}

// SetOptions sets session options; any the server refuses is an error
// naming the option and why.
func (c *Client) SetOptions(ctx context.Context, opts map[string]any) error {
	res, err := SetSessionOptions(ctx, c.fs, opts)
	c.session.Store(true)
	if err != nil {
		return c.explain(err, "invalid session option")
	}
	for name, e := range res.GetErrors() {
		switch e.GetValue() {
		case flight.SetSessionOptionsResultErrorInvalidName:
			return fmt.Errorf("the server does not know the session option %q (is it a quiver server?)", name)
		case flight.SetSessionOptionsResultErrorInvalidValue:
			return fmt.Errorf("the server refused %v for the session option %q", opts[name], name)
		}
		return fmt.Errorf("the server could not set the session option %q to %v: %v", name, opts[name], e.GetValue())
	}
	return nil
}

// SetSessionOptions is flightsql.Client.SetSessionOptions without its
// race, for any arrow-go Flight SQL client with a cookie middleware; it
// returns the server's result as it is. Use it, never arrow-go's method.
//
// arrow-go's cookie middleware takes a stream's Set-Cookie when the
// stream finishes, and a goroutine watching the stream's context races
// that: when it wins (gRPC cancels the context as the stream completes)
// the headers are dropped, the session cookie is lost and the next call
// runs in a new session, without the option (about 1 call in 150, more
// under -race). Reading the response headers before the body hands them
// to the middleware at once, on this goroutine.
func SetSessionOptions(ctx context.Context, fc *flightsql.Client, opts map[string]any) (*flight.SetSessionOptionsResult, error) {
	vals, err := flight.NewSessionOptionValues(opts)
	if err != nil {
		return nil, err
	}
	body, err := proto.Marshal(&flight.SetSessionOptionsRequest{SessionOptions: vals})
	if err != nil {
		return nil, err
	}
	stream, err := fc.Client.DoAction(ctx, &flight.Action{Type: flight.SetSessionOptionsActionType, Body: body})
	if err != nil {
		return nil, err
	}
	if _, err := stream.Header(); err != nil {
		return nil, err
	}
	msg, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	var res flight.SetSessionOptionsResult
	if err := proto.Unmarshal(msg.GetBody(), &res); err != nil {
		return nil, fmt.Errorf("%w: the server's SetSessionOptions result: %v", batch.ErrCorrupt, err)
	}
	return &res, flight.ReadUntilEOF(stream)
}
