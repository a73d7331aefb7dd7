package colenc

import (
	"encoding/binary"

	"github.com/quiverdb/quiver/internal/rawmem"
)

// FOR (frame of reference): base = min, then every value - base packed to
// the bits that hold max - min. Differences are taken in uint64, so the
// full int64 range (max - min = 2^64-1) is 64 bits and still exact.

// forParams returns the base and bit width for src.
func forParams(src []byte, width, n int) (base int64, bits uint) {
	if n == 0 {
		return 0, 0
	}
	lo, hi := value(src, width, 0), value(src, width, 0)
	if width == 8 {
		for i := 8; i+8 <= len(src); i += 8 {
			v := int64(binary.LittleEndian.Uint64(src[i:]))
			lo, hi = min(lo, v), max(hi, v)
		}
	} else {
		for i := 4; i+4 <= len(src); i += 4 {
			v := int64(int32(binary.LittleEndian.Uint32(src[i:])))
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo, bitsFor(uint64(hi) - uint64(lo))
}

func appendFOR(dst, src []byte, width, n int) []byte {
	base, bits := forParams(src, width, n)
	dst = appendHeader(dst, FOR, width, n)
	dst = appendParams(dst, bits, base)
	p := getScratch(n)
	vals := *p
	if width == 8 {
		for i := range vals {
			vals[i] = binary.LittleEndian.Uint64(src[8*i:]) - uint64(base)
		}
	} else {
		for i := range vals {
			vals[i] = uint64(int64(int32(binary.LittleEndian.Uint32(src[4*i:])))) - uint64(base)
		}
	}
	dst = pack(dst, vals, bits)
	putScratch(p)
	return dst
}

// The decoders' output loops write one value per iteration; through a
// []byte that is a slice header update and a bounds check per value, about
// half of their time in profiles. When rawmem.Words can view the output
// as words (aligned, little-endian, not the purego build) they write
// through that view instead.

// decodeFOR writes base + v for each packed v, wrapping at the width: in
// the unpacking pass itself when the output is aligned for its width (it
// is when it comes from an allocator), else through scratch.
func decodeFOR(win []byte, h header) {
	base := uint64(h.param)
	if v64 := rawmem.Words[uint64](win, h.n); h.width == 8 && v64 != nil {
		unpackAdd(v64, h.body, h.bits, base)
		return
	}
	if v32 := rawmem.Words[uint32](win, h.n); h.width == 4 && v32 != nil {
		unpackAdd(v32, h.body, h.bits, base)
		return
	}
	p := getScratch(h.n)
	vals := *p
	unpackAdd(vals, h.body, h.bits, base)
	out := win
	if h.width == 8 {
		for _, v := range vals {
			binary.LittleEndian.PutUint64(out, v)
			out = out[8:]
		}
	} else {
		for _, v := range vals {
			binary.LittleEndian.PutUint32(out, uint32(v))
			out = out[4:]
		}
	}
	putScratch(p)
}
