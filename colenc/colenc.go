package colenc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/internal/bufs"
)

// Version is the format version this package writes and the only one it
// reads.
const Version = 1

// Encoding names a column encoding. Its numeric value is stable: it is the
// second byte of every encoded buffer.
type Encoding uint8

const (
	// Plain stores the values as they are.
	Plain Encoding = 0
	// Delta stores the first value, the smallest difference between
	// neighbours, and each difference minus that, bit-packed.
	Delta Encoding = 1
	// FOR (frame of reference) stores the minimum and value-min, bit-packed.
	FOR Encoding = 2
	// Lengths stores an offsets buffer as its first offset and the
	// non-negative differences between neighbours, bit-packed.
	Lengths Encoding = 3
)

var encodingNames = [...]string{Plain: "plain", Delta: "delta", FOR: "for", Lengths: "lengths"}

// String returns the name ParseEncoding reads: "plain", "delta", "for" or
// "lengths".
func (e Encoding) String() string {
	if int(e) < len(encodingNames) {
		return encodingNames[e]
	}
	return "Encoding(" + strconv.Itoa(int(e)) + ")"
}

// ParseEncoding reads a name String returns (case-insensitive).
func ParseEncoding(s string) (Encoding, error) {
	for e, name := range encodingNames {
		if strings.EqualFold(strings.TrimSpace(s), name) {
			return Encoding(e), nil
		}
	}
	return 0, fmt.Errorf("colenc: unknown encoding %q (want plain, delta, for or lengths)", s)
}

// Errors. Every decode failure matches ErrCorrupt; ErrLimit matches it too.
var (
	ErrCorrupt = errors.New("colenc: corrupt input")
	// ErrLimit: the header claims more decoded bytes than the caller's limit.
	ErrLimit error = &limitError{}
)

type limitError struct{}

func (*limitError) Error() string        { return "colenc: decoded size over the limit" }
func (*limitError) Is(target error) bool { return target == ErrCorrupt }

// Header sizes: version, tag, width, count; then for the bit-packed
// encodings an 8-byte parameter (base, first value or first offset), for
// Delta a second one (the smallest delta), and a bit-width byte.
const (
	plainHeaderLen  = 7
	packedHeaderLen = 16
	deltaHeaderLen  = 24
)

func headerLen(enc Encoding) int {
	switch enc {
	case Plain:
		return plainHeaderLen
	case Delta:
		return deltaHeaderLen
	}
	return packedHeaderLen
}

// checkWidth panics on a width other than 4 or 8: widths come from the
// caller's schema, not from bytes, so a bad one is a bug.
func checkWidth(width int, src []byte) int {
	if width != 4 && width != 8 {
		panic(fmt.Sprintf("colenc: width %d, want 4 or 8", width))
	}
	if len(src)%width != 0 {
		panic(fmt.Sprintf("colenc: %d bytes is not a whole number of %d-byte values", len(src), width))
	}
	n := len(src) / width
	if uint64(n) > math.MaxUint32 {
		panic(fmt.Sprintf("colenc: %d values, at most 2^32-1 fit in a buffer", n))
	}
	return n
}

// value returns the i-th signed value of a little-endian buffer.
func value(src []byte, width, i int) int64 {
	if width == 4 {
		return int64(int32(binary.LittleEndian.Uint32(src[4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(src[8*i:]))
}

func appendHeader(dst []byte, enc Encoding, width, n int) []byte {
	dst = append(dst, Version, byte(enc), byte(width))
	return binary.LittleEndian.AppendUint32(dst, uint32(n))
}

func appendParams(dst []byte, bits uint, params ...int64) []byte {
	for _, p := range params {
		dst = binary.LittleEndian.AppendUint64(dst, uint64(p))
	}
	return append(dst, byte(bits))
}

// packedLen is the payload size of n values of the given bit width.
func packedLen(n int, bits uint) int { return int((uint64(n)*uint64(bits) + 7) / 8) }

// bitsFor is the number of bits that hold v (0 for 0).
func bitsFor(v uint64) uint {
	b := uint(0)
	for v != 0 {
		b++
		v >>= 1
	}
	return b
}

// Encode appends src, a buffer of little-endian signed integers of width 4
// or 8 bytes, encoded with enc, to dst and returns the extended slice.
// Bytes already in dst are preserved. Lengths needs an offsets buffer:
// first offset >= 0 and offsets non-decreasing; when src is not one, Encode
// writes Plain instead (the tag byte says which). Encode panics on a width
// other than 4 or 8, a src that is not a whole number of values, or an
// unknown enc: those are the caller's bugs.
func Encode(dst, src []byte, width int, enc Encoding) []byte {
	n := checkWidth(width, src)
	switch enc {
	case Plain:
		return appendPlain(dst, src, width, n)
	case FOR:
		return appendFOR(dst, src, width, n)
	case Delta:
		return appendDelta(dst, src, width, n)
	case Lengths:
		if out, ok := appendLengths(dst, src, width, n); ok {
			return out
		}
		return appendPlain(dst, src, width, n)
	}
	panic(fmt.Sprintf("colenc: Encode with unknown encoding %d", enc))
}

// EncodedLen is the number of bytes Encode appends for src and enc.
func EncodedLen(src []byte, width int, enc Encoding) int {
	n := checkWidth(width, src)
	switch enc {
	case Plain:
		return plainHeaderLen + len(src)
	case FOR:
		_, bits := forParams(src, width, n)
		return packedHeaderLen + packedLen(n, bits)
	case Delta:
		_, bits := deltaParams(src, width, n)
		return deltaHeaderLen + packedLen(max(n-1, 0), bits)
	case Lengths:
		bits, ok := lengthsBits(src, width, n)
		if !ok {
			return plainHeaderLen + len(src)
		}
		return packedHeaderLen + packedLen(max(n-1, 0), bits)
	}
	panic(fmt.Sprintf("colenc: EncodedLen with unknown encoding %d", enc))
}

// Choose returns the encoding that makes src smallest among Plain, Delta
// and FOR, or Plain unless the winner is at least 25% smaller than Plain
// (a smaller gain does not pay for the decode pass). Lengths is never
// chosen: callers that hold an offsets buffer ask for it by name.
func Choose(width int, src []byte) Encoding {
	n := checkWidth(width, src)
	plain := plainHeaderLen + len(src)
	_, forBits := forParams(src, width, n)
	best, size := FOR, packedHeaderLen+packedLen(n, forBits)
	_, deltaBits := deltaParams(src, width, n)
	if d := deltaHeaderLen + packedLen(max(n-1, 0), deltaBits); d < size {
		best, size = Delta, d
	}
	if 4*size <= 3*plain {
		return best
	}
	return Plain
}

// header is a checked header.
type header struct {
	enc   Encoding
	width int
	n     int    // values decoded
	param int64  // FOR base, Delta first value, Lengths first offset
	step  int64  // Delta: the smallest delta
	bits  uint   // bit width of packed values
	body  []byte // payload, exactly as long as the header says
}

// parseHeader checks every field against the bytes present and limit
// before anything is allocated.
func parseHeader(src []byte, limit int) (header, error) {
	var h header
	if len(src) < plainHeaderLen {
		return h, fmt.Errorf("%w: %d bytes, a header needs %d", ErrCorrupt, len(src), plainHeaderLen)
	}
	if src[0] != Version {
		return h, fmt.Errorf("%w: version %d, want %d", ErrCorrupt, src[0], Version)
	}
	h.enc, h.width = Encoding(src[1]), int(src[2])
	if h.enc > Lengths {
		return h, fmt.Errorf("%w: unknown encoding tag %d", ErrCorrupt, src[1])
	}
	if h.width != 4 && h.width != 8 {
		return h, fmt.Errorf("%w: value width %d, want 4 or 8", ErrCorrupt, h.width)
	}
	count := uint64(binary.LittleEndian.Uint32(src[3:]))
	if limit < 0 || count*uint64(h.width) > uint64(limit) {
		return h, fmt.Errorf("%w: %d values of %d bytes, limit %d bytes", ErrLimit, count, h.width, limit)
	}
	h.n = int(count)
	if h.enc == Plain {
		h.body = src[plainHeaderLen:]
		if len(h.body) != h.n*h.width {
			return h, fmt.Errorf("%w: plain: %d values of %d bytes need %d bytes, have %d", ErrCorrupt, h.n, h.width, h.n*h.width, len(h.body))
		}
		return h, nil
	}
	hl := headerLen(h.enc)
	if len(src) < hl {
		return h, fmt.Errorf("%w: %s: %d bytes, the header needs %d", ErrCorrupt, h.enc, len(src), hl)
	}
	h.param = int64(binary.LittleEndian.Uint64(src[7:]))
	if h.enc == Delta {
		h.step = int64(binary.LittleEndian.Uint64(src[15:]))
	}
	h.bits = uint(src[hl-1])
	if h.bits > uint(8*h.width) {
		return h, fmt.Errorf("%w: %s: %d-bit values in a %d-byte column", ErrCorrupt, h.enc, h.bits, h.width)
	}
	if h.width == 4 && (h.param != int64(int32(h.param)) || h.step != int64(int32(h.step))) {
		return h, fmt.Errorf("%w: %s: parameters %d, %d do not fit 32 bits", ErrCorrupt, h.enc, h.param, h.step)
	}
	packed := h.n
	if h.enc != FOR {
		packed = max(h.n-1, 0)
	}
	h.body = src[hl:]
	if want := packedLen(packed, h.bits); len(h.body) != want {
		return h, fmt.Errorf("%w: %s: %d %d-bit values need %d bytes, have %d", ErrCorrupt, h.enc, packed, h.bits, want, len(h.body))
	}
	return h, nil
}

// Decode appends the values src encodes, as a little-endian buffer, to dst
// and returns the extended slice. src is untrusted: the header is checked
// against the bytes present, and the decoded size against limit, before
// anything is allocated. Failures match ErrCorrupt (ErrLimit when the
// decoded size is over limit) and return dst unchanged.
func Decode(dst, src []byte, limit int) ([]byte, error) {
	h, err := parseHeader(src, limit)
	if err != nil {
		return dst, err
	}
	start := len(dst)
	out := bufs.Extend(dst, h.n*h.width)
	win := out[start:]
	switch h.enc {
	case Plain:
		copy(win, h.body)
	case FOR:
		decodeFOR(win, h)
	case Delta:
		decodeDelta(win, h)
	case Lengths:
		if err := decodeLengths(win, h); err != nil {
			return dst, err
		}
	}
	return out, nil
}

// DecodedLen reads the header of src and returns the decoded size in bytes,
// the encoding and the value width, with the same checks as Decode.
func DecodedLen(src []byte, limit int) (n int, enc Encoding, width int, err error) {
	h, err := parseHeader(src, limit)
	if err != nil {
		return 0, 0, 0, err
	}
	return h.n * h.width, h.enc, h.width, nil
}

// store writes v as the i-th value of a little-endian buffer.
func store(dst []byte, width, i int, v uint64) {
	if width == 4 {
		binary.LittleEndian.PutUint32(dst[4*i:], uint32(v))
		return
	}
	binary.LittleEndian.PutUint64(dst[8*i:], v)
}
