package server

import (
	"context"
	"errors"
	"syscall"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query"
	"github.com/quiverdb/quiver/spill"
	"github.com/quiverdb/quiver/store"
)

// toStatus maps an error to the gRPC status a client acts on: what the
// client sent is wrong (InvalidArgument), names nothing (NotFound), needs
// more than the server gives it (ResourceExhausted), was cancelled; the
// server's own data is damaged (DataLoss); anything else is Internal. The
// message is the error's own, which names the construct, table or size.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	return status.Error(codeOf(err), err.Error())
}

func codeOf(err error) codes.Code {
	if st, ok := status.FromError(err); ok {
		return st.Code()
	}
	var tooLarge *messageTooLargeError
	switch {
	case errors.Is(err, context.Canceled):
		return codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		return codes.DeadlineExceeded
	case errors.Is(err, query.ErrNoTable), errors.Is(err, cache.ErrNotFound):
		return codes.NotFound
	// A query's spill past its quota or a full disk comes as an execution
	// error: what it needed is the server's to give.
	case errors.Is(err, spill.ErrResourceExhausted):
		return codes.ResourceExhausted
	case errors.Is(err, spill.ErrCorrupt):
		return codes.DataLoss
	case errors.Is(err, query.ErrSyntax), errors.Is(err, query.ErrUnsupported),
		errors.Is(err, query.ErrInvalid), errors.Is(err, query.ErrExec):
		return codes.InvalidArgument
	case errors.Is(err, query.ErrMemory), errors.Is(err, cache.ErrBudget),
		errors.Is(err, batch.ErrLimit), errors.As(err, &tooLarge):
		return codes.ResourceExhausted
	case errors.Is(err, cache.ErrSchema):
		return codes.InvalidArgument
	case errors.Is(err, cache.ErrConflict):
		return codes.Aborted
	case errors.Is(err, cache.ErrNameClash):
		return codes.AlreadyExists
	case errors.Is(err, batch.ErrCorrupt), errors.Is(err, batch.ErrUnsupported):
		return codes.InvalidArgument // bytes a client sent
	case errors.Is(err, cache.ErrCorrupt), errors.Is(err, store.ErrCorrupt):
		return codes.DataLoss
	// --data-dir: a full disk is the server's to fix; a table loaded at
	// start cannot be appended to until it is replaced.
	case errors.Is(err, syscall.ENOSPC):
		return codes.ResourceExhausted
	case errors.Is(err, store.ErrNotStored):
		return codes.FailedPrecondition
	}
	return codes.Internal
}
