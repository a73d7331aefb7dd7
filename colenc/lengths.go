package colenc

import (
	"fmt"
	"math"

	"github.com/quiverdb/quiver/internal/rawmem"
)

// Lengths: an Arrow offsets buffer (n+1 offsets for n strings) as its first
// offset and the n lengths offsets[i+1]-offsets[i], packed to the bits that
// hold the longest. Offsets must start at or above 0 and never decrease;
// decoding rejects a buffer whose offsets would pass the column's maximum
// (2^31-1 for 32-bit offsets, 2^63-1 for 64-bit ones).

// lengthsBits returns the bit width of the lengths, and false when src is
// not a valid offsets buffer.
func lengthsBits(src []byte, width, n int) (uint, bool) {
	if n == 0 {
		return 0, true
	}
	if value(src, width, 0) < 0 {
		return 0, false
	}
	var or uint64
	for i := 1; i < n; i++ {
		// Compare, don't subtract: a difference of two int64s can wrap
		// to a positive length.
		cur, prev := value(src, width, i), value(src, width, i-1)
		if cur < prev {
			return 0, false
		}
		or |= uint64(cur - prev)
	}
	return bitsFor(or), true
}

func appendLengths(dst, src []byte, width, n int) ([]byte, bool) {
	bits, ok := lengthsBits(src, width, n)
	if !ok {
		return dst, false
	}
	var first int64
	if n > 0 {
		first = value(src, width, 0)
	}
	m := max(n-1, 0)
	p := getScratch(m)
	vals := *p
	for i := range vals {
		vals[i] = uint64(value(src, width, i+1) - value(src, width, i))
	}
	dst = appendHeader(dst, Lengths, width, n)
	dst = appendParams(dst, bits, first)
	dst = pack(dst, vals, bits)
	putScratch(p)
	return dst, true
}

// decodeLengths rebuilds the offsets, checking each against the maximum.
func decodeLengths(win []byte, h header) error {
	if h.n == 0 {
		return nil
	}
	if h.param < 0 {
		return fmt.Errorf("%w: lengths: first offset %d is negative", ErrCorrupt, h.param)
	}
	limit := uint64(math.MaxInt64)
	if h.width == 4 {
		limit = math.MaxInt32
	}
	p := getScratch(h.n - 1)
	defer putScratch(p)
	vals := *p
	unpack(vals, h.body, h.bits)
	cur := uint64(h.param)
	store(win, h.width, 0, cur)
	// Lengths of bits bits cannot pass limit when even n of the largest
	// would not: then the loop needs no test per value.
	maxLen := ^uint64(0) >> (64 - max(h.bits, 1))
	if h.bits == 0 {
		maxLen = 0
	}
	unchecked := h.bits < 32 && cur <= limit && uint64(len(vals)) <= (limit-cur)/max(maxLen, 1)
	out := win[h.width:]
	switch v64, v32 := rawmem.Words[uint64](out, len(vals)), rawmem.Words[uint32](out, len(vals)); {
	case unchecked && h.width == 8 && v64 != nil:
		for i, v := range vals {
			cur += v
			v64[i] = cur
		}
	case unchecked && h.width == 4 && v32 != nil:
		for i, v := range vals {
			cur += v
			v32[i] = uint32(cur)
		}
	default:
		for i, v := range vals {
			if v > limit-cur {
				return fmt.Errorf("%w: lengths: offset %d + length %d passes %d", ErrCorrupt, cur, v, limit)
			}
			cur += v
			store(win, h.width, i+1, cur)
		}
	}
	return nil
}
