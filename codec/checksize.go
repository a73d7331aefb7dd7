package codec

import "fmt"

// Helpers every Decompress shares: the caller's n is checked once here; the
// output window is dst's spare capacity when it is big enough
// (bufs.Extend).

// checkSize rejects a negative decoded size. n usually comes from bytes the
// caller read (an Arrow buffer's length prefix), so it is bad input, not a
// bug.
func checkSize(n int) error {
	if n < 0 {
		return fmt.Errorf("%w: negative decoded size %d", ErrCorrupt, n)
	}
	return nil
}
