package codec

import (
	"bytes"
	"fmt"
)

// checked wraps a codec in invariants builds: every Compress is decoded
// again and compared with its input, and every successful Decompress is
// checked to have appended exactly n bytes. A mismatch is a bug in quiver
// (or in a library under it), so it panics.
type checked struct{ Codec }

func (c checked) Compress(dst, src []byte) []byte {
	start := len(dst)
	prefix := bytes.Clone(dst)
	out := c.Codec.Compress(dst, src)
	if !bytes.Equal(out[:start], prefix) {
		panic("codec invariants: Compress changed the prefix of dst")
	}
	back, err := c.Codec.Decompress(nil, out[start:], len(src))
	if err != nil || !bytes.Equal(back, src) {
		panic(fmt.Sprintf("codec invariants: %s does not round-trip %d bytes: %v", c.Setting(), len(src), err))
	}
	return out
}

func (c checked) Decompress(dst, src []byte, n int) ([]byte, error) {
	start := len(dst)
	out, err := c.Codec.Decompress(dst, src, n)
	if err == nil && len(out)-start != n {
		panic(fmt.Sprintf("codec invariants: %s appended %d bytes, want %d", c.Setting(), len(out)-start, n))
	}
	return out, err
}
