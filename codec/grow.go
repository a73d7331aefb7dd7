package codec

import "fmt"

// Helpers every Decompress shares: the caller's n is checked once here, and
// the output window is dst's spare capacity when it is big enough.

// checkSize rejects a negative decoded size. n usually comes from bytes the
// caller read (an Arrow buffer's length prefix), so it is bad input, not a
// bug.
func checkSize(n int) error {
	if n < 0 {
		return fmt.Errorf("%w: negative decoded size %d", ErrCorrupt, n)
	}
	return nil
}

// extend returns dst lengthened by n bytes. It reuses dst's spare capacity
// when that holds n bytes, and otherwise allocates exactly len(dst)+n and
// copies the prefix. The new bytes are not cleared when reused: decoders
// overwrite all of them or fail.
func extend(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst[:len(dst)+n]
	}
	out := make([]byte, len(dst)+n)
	copy(out, dst)
	return out
}
