package codec

import "fmt"

// noneCodec stores bytes as they are. It exists so that every buffer goes
// through one interface and one set of length checks.
type noneCodec struct{}

func (noneCodec) Setting() Setting { return SettingNone }

func (noneCodec) CompressBound(n int) int { return n }

func (noneCodec) Compress(dst, src []byte) []byte { return append(dst, src...) }

// Decompress copies src after checking it is exactly the n bytes promised.
func (noneCodec) Decompress(dst, src []byte, n int) ([]byte, error) {
	if err := checkSize(n); err != nil {
		return dst, err
	}
	switch {
	case len(src) > n:
		return dst, fmt.Errorf("%w: none: %d bytes stored, %d expected", ErrTooLarge, len(src), n)
	case len(src) < n:
		return dst, fmt.Errorf("%w: none: %d bytes stored, %d expected", ErrTooSmall, len(src), n)
	}
	return append(dst, src...), nil
}
