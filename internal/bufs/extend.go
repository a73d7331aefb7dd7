// Package bufs holds the byte-buffer helper the append-style decoders
// (codec, colenc) share, so that their output windows are made one way.
package bufs

// Extend returns dst lengthened by n bytes. It reuses dst's spare capacity
// when that holds n bytes, and otherwise allocates exactly len(dst)+n and
// copies the prefix. The new bytes are not cleared when reused: decoders
// overwrite all of them or fail.
func Extend(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst[:len(dst)+n]
	}
	out := make([]byte, len(dst)+n)
	copy(out, dst)
	return out
}
