package colenc

import (
	"encoding/binary"

	"github.com/quiverdb/quiver/internal/rawmem"
)

// Delta: the first value, the smallest difference between neighbours
// (the step), then the n-1 differences minus the step, packed to the bits
// that hold the largest. Sequential ids (every difference 1) are step 1 and
// 0 bits per value; a column that goes up and down pays for the spread of
// its differences, never more than zig-zag coding would. Differences wrap
// at the column width (int32 or int64 arithmetic), so any two values differ
// by something that fits the width and decoding by wrapping addition is
// exact.

// delta is value i minus value i-1, wrapped to the width.
func delta(src []byte, width, i int) int64 {
	if width == 8 {
		return int64(binary.LittleEndian.Uint64(src[8*i:]) - binary.LittleEndian.Uint64(src[8*i-8:]))
	}
	return int64(int32(binary.LittleEndian.Uint32(src[4*i:]) - binary.LittleEndian.Uint32(src[4*i-4:])))
}

// deltaParams returns the smallest delta and the bits of the spread.
func deltaParams(src []byte, width, n int) (step int64, bits uint) {
	if n < 2 {
		return 0, 0
	}
	lo, hi := delta(src, width, 1), delta(src, width, 1)
	for i := 2; i < n; i++ {
		d := delta(src, width, i)
		lo, hi = min(lo, d), max(hi, d)
	}
	return lo, bitsFor(uint64(hi) - uint64(lo))
}

func appendDelta(dst, src []byte, width, n int) []byte {
	var first int64
	if n > 0 {
		first = value(src, width, 0)
	}
	step, bits := deltaParams(src, width, n)
	p := getScratch(max(n-1, 0))
	vals := *p
	for i := range vals {
		vals[i] = uint64(delta(src, width, i+1)) - uint64(step)
	}
	dst = appendHeader(dst, Delta, width, n)
	dst = appendParams(dst, bits, first, step)
	dst = pack(dst, vals, bits)
	putScratch(p)
	return dst
}

// decodeDelta writes the running sum, wrapping at the width.
func decodeDelta(win []byte, h header) {
	if h.n == 0 {
		return
	}
	p := getScratch(h.n - 1)
	vals := *p
	unpack(vals, h.body, h.bits)
	cur, step := uint64(h.param), uint64(h.step)
	store(win, h.width, 0, cur)
	out := win[h.width:]
	switch v64, v32 := rawmem.Words[uint64](out, len(vals)), rawmem.Words[uint32](out, len(vals)); {
	case h.width == 8 && v64 != nil:
		for i, v := range vals {
			cur += step + v
			v64[i] = cur
		}
	case h.width == 4 && v32 != nil:
		for i, v := range vals {
			cur += step + v
			v32[i] = uint32(cur)
		}
	case h.width == 8:
		for _, v := range vals {
			cur += step + v
			binary.LittleEndian.PutUint64(out, cur)
			out = out[8:]
		}
	default:
		for _, v := range vals {
			cur += step + v
			binary.LittleEndian.PutUint32(out, uint32(cur))
			out = out[4:]
		}
	}
	putScratch(p)
}
