package batch

import (
	"errors"
	"fmt"

	"github.com/quiverdb/quiver/batch/internal/meta"
	"github.com/quiverdb/quiver/codec"
)

// Errors returned for bad bytes match these sentinels with errors.Is; the
// message says what was wrong, with the sizes involved.
var (
	// ErrCorrupt: the bytes are not a valid Arrow IPC message, stream or
	// file (bad framing, metadata, buffer ranges, offsets, or a buffer
	// that does not decompress). codec.ErrCorrupt and meta.ErrCorrupt
	// errors match it too.
	ErrCorrupt = errors.New("batch: corrupt Arrow IPC data")
	// ErrLimit: a length in the bytes is beyond a limit the caller set
	// (Limits); the data may be valid but is refused.
	ErrLimit = errors.New("batch: limit exceeded")
	// ErrUnsupported: valid Arrow IPC that quiver does not read (tensors,
	// big-endian data, unknown compression).
	ErrUnsupported = errors.New("batch: unsupported Arrow IPC feature")
	// ErrSchema: a record does not match the schema of its writer.
	ErrSchema = errors.New("batch: record does not match schema")
)

// corruptf returns an error matching ErrCorrupt.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// limitf returns an error matching ErrLimit.
func limitf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrLimit}, args...)...)
}

// classify makes errors from lower layers match this package's sentinels
// while keeping their own (codec.ErrTooLarge and friends stay matchable).
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrCorrupt), errors.Is(err, ErrLimit), errors.Is(err, ErrUnsupported):
		return err
	case errors.Is(err, meta.ErrUnsupported):
		return fmt.Errorf("%w: %w", ErrUnsupported, err)
	case errors.Is(err, meta.ErrCorrupt), errors.Is(err, codec.ErrCorrupt):
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return err
}
