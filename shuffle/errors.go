package shuffle

import (
	"errors"
	"fmt"
)

// Errors returned by this package match one of these with errors.Is; the
// messages carry the sizes and the limit involved.
var (
	// ErrCorrupt: serialized statuses or a map output file (index or
	// block) do not hold what a writer of this package writes.
	ErrCorrupt = errors.New("shuffle: corrupt")
	// ErrLimit: serialized input claims more than the caller's limits
	// allow (maps, partitions, bytes); the message names the limit.
	ErrLimit = errors.New("shuffle: limit exceeded")
	// ErrRemoved: a map output held in memory was read after Remove.
	ErrRemoved = errors.New("shuffle: map output removed")
)

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

func limitf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrLimit}, args...)...)
}
