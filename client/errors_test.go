package client

import (
	"context"
	"fmt"
	"io"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestExplainGivesEachCodeAMeaning(t *testing.T) {
	c := &Client{target: Target{Addr: "h:1"}}
	for code, want := range map[codes.Code]string{
		codes.InvalidArgument:   "invalid SQL: m",
		codes.NotFound:          "not found: m",
		codes.AlreadyExists:     "already exists: m",
		codes.Unauthenticated:   "not authenticated: m",
		codes.ResourceExhausted: "over a server limit: m",
		codes.Unavailable:       "server grpc://h:1 unavailable: m",
		codes.Unimplemented:     "not supported by the server: m",
		codes.Internal:          "server error (Internal): m",
	} {
		err := c.explain(fmt.Errorf("wrapped: %w", status.Error(code, "m")), "invalid SQL")
		if err.Error() != want || status.Code(err) != code {
			t.Errorf("%v: got %q (code %v), want %q", code, err, status.Code(err), want)
		}
		// Explaining twice changes nothing.
		if again := c.explain(err, "other"); again != err {
			t.Errorf("%v: explained twice: %q", code, again)
		}
	}
	e := &Error{What: "w", Hint: "do this", Status: status.New(codes.NotFound, "m")}
	if e.Error() != "w: m; do this" {
		t.Errorf("with a hint: %q", e)
	}
	for _, plain := range []error{io.ErrUnexpectedEOF, context.Canceled, nil} {
		if c.explain(plain, "x") != plain {
			t.Errorf("%v changed", plain)
		}
	}
}
