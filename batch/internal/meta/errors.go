package meta

import (
	"fmt"

	"github.com/quiverdb/quiver/internal/fb"
)

// corruptf returns an error matching ErrCorrupt.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// unsupportedf returns an error matching ErrUnsupported.
func unsupportedf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)
}

// readErr turns the reader's sticky error, if any, into an ErrCorrupt error
// naming what was being read.
func readErr(r *fb.Reader, what string) error {
	if err := r.Err(); err != nil {
		return fmt.Errorf("%w: reading %s: %w", ErrCorrupt, what, err)
	}
	return nil
}
