package spill

import (
	"errors"
	"fmt"
	"syscall"
)

// Errors returned by this package match one of these with errors.Is. The
// messages carry the file, the batch and the sizes involved.
var (
	// ErrCorrupt: a spill file does not hold what was written to it
	// (checksum mismatch, truncation, bytes that do not decode). The
	// message names the file and the batch. It is never retried into a
	// wrong answer.
	ErrCorrupt = errors.New("spill: corrupt spill file")
	// ErrResourceExhausted is matched by both ErrQuota and ErrNoSpace
	// errors: the spill did not fit, whether the limit was ours or the
	// disk's. Servers map it to gRPC ResourceExhausted.
	ErrResourceExhausted = errors.New("spill: resource exhausted")
	// ErrQuota: writing would pass Config.Quota.
	ErrQuota = errors.New("spill: quota exceeded")
	// ErrNoSpace: the file system reported ENOSPC (or EDQUOT).
	ErrNoSpace = errors.New("spill: no space left on device")
	// ErrClosed: the Manager was closed.
	ErrClosed = errors.New("spill: manager closed")
)

// SpaceError reports a write that did not fit. It matches Kind (ErrQuota
// or ErrNoSpace) and ErrResourceExhausted. Its message gives the sizes but
// not the file's path, nor the file system's error, which names the path:
// a server passes the message to its client, who must not learn the
// server's folders. File and Err are there for the server's log.
type SpaceError struct {
	Kind  error  // ErrQuota or ErrNoSpace
	File  string // path of the spill file, which has been removed
	Batch int    // index of the batch being written
	Need  int64  // bytes the write needed
	Quota int64  // Config.Quota (0 = none)
	Used  int64  // bytes the Manager held on disk when it failed
	Err   error  // the file system's error, for ErrNoSpace
}

func (e *SpaceError) Error() string {
	if e.Kind == ErrQuota {
		return fmt.Sprintf("%v (resource exhausted): a spill file's %s needs %d more bytes; quota %d bytes, %d in use (%d free)",
			e.Kind, where(e.Batch), e.Need, e.Quota, e.Used, max(e.Quota-e.Used, 0))
	}
	return fmt.Sprintf("%v (resource exhausted): a spill file's %s needed %d more bytes with %d in use",
		e.Kind, where(e.Batch), e.Need, e.Used)
}

func (e *SpaceError) Is(target error) bool {
	return target == e.Kind || target == ErrResourceExhausted
}

func (e *SpaceError) Unwrap() error { return e.Err }

// Batch numbers of the parts of a file that are not batches, for errors.
const (
	atSchema = -1 // the schema message
	atEnd    = -2 // the end-of-stream marker
)

// corruptf returns an error matching ErrCorrupt that names the file and
// the batch (or atSchema, atEnd).
func corruptf(path string, batch int, format string, args ...any) error {
	return fmt.Errorf("%w: file %s %s: "+format, append([]any{ErrCorrupt, path, where(batch)}, args...)...)
}

func where(batch int) string {
	switch batch {
	case atSchema:
		return "schema message"
	case atEnd:
		return "end-of-stream marker"
	}
	return fmt.Sprintf("batch %d", batch)
}

// isNoSpace reports whether err is the file system saying the disk (or
// the user's disk quota) is full.
func isNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || isQuotaErrno(err)
}
