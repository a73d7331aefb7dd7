package client

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Error is a server's error as one line a person can act on: what the
// gRPC code means for the call ("invalid SQL", "not found"), then the
// server's message. It keeps the status, so status.Code reads the code.
type Error struct {
	What   string         // what the code means for the call
	Hint   string         // what to do about it; callers (a CLI) may set it
	Status *status.Status // the server's status
}

func (e *Error) Error() string {
	s := e.What + ": " + e.Status.Message()
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// GRPCStatus makes status.Code and status.FromError read the status.
func (e *Error) GRPCStatus() *status.Status { return e.Status }

// Code is the status's code.
func (e *Error) Code() codes.Code { return e.Status.Code() }

// explain turns a gRPC status error into an *Error; invalid names what
// an InvalidArgument means for the call ("invalid SQL"). Other errors,
// and the context's own, are returned as they are.
func (c *Client) explain(err error, invalid string) error {
	var ce *Error
	if err == nil || errors.As(err, &ce) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	// The status itself, not status.FromError, whose message for a
	// wrapped status is the whole chain.
	var se interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &se) || se.GRPCStatus().Code() == codes.OK {
		return err
	}
	st := se.GRPCStatus()
	e := &Error{Status: st}
	switch st.Code() {
	case codes.InvalidArgument:
		e.What = invalid
	case codes.NotFound:
		e.What = "not found"
	case codes.AlreadyExists:
		e.What = "already exists"
	case codes.Unauthenticated:
		e.What = "not authenticated"
	case codes.PermissionDenied:
		e.What = "permission denied"
	case codes.ResourceExhausted:
		e.What = "over a server limit"
	case codes.FailedPrecondition:
		e.What = "failed precondition"
	case codes.Aborted:
		e.What = "aborted"
	case codes.Unimplemented:
		e.What = "not supported by the server"
	case codes.Unavailable:
		e.What = "server " + c.target.String() + " unavailable"
	case codes.DeadlineExceeded:
		e.What = "deadline exceeded"
	case codes.Canceled:
		e.What = "cancelled"
	case codes.DataLoss:
		e.What = "data loss on the server"
	default:
		e.What = "server error (" + st.Code().String() + ")"
	}
	return e
}
