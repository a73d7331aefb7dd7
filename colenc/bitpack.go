package colenc

import (
	"encoding/binary"
	"sync"

	"github.com/quiverdb/quiver/internal/rawmem"
)

// Bit packing: values of b bits (0..64) laid end to end, least significant
// bit first, in little-endian bytes; value i occupies bits [i*b, (i+1)*b)
// of the payload. The payload is ceil(n*b/8) bytes; bits past the last
// value in the final byte are zero when we write them and ignored when we
// read them.

// pack appends vals, each of which must fit in bits, packed to bits each.
func pack(dst []byte, vals []uint64, bits uint) []byte {
	if bits == 0 {
		return dst
	}
	var acc uint64
	var have uint // bits of acc in use
	for _, v := range vals {
		acc |= v << have
		have += bits
		if have >= 64 {
			dst = binary.LittleEndian.AppendUint64(dst, acc)
			have -= 64
			// the bits of v that did not fit; v >> 64 is 0 in Go
			acc = v >> (bits - have)
		}
	}
	for ; have > 0; have -= min(have, 8) {
		dst = append(dst, byte(acc))
		acc >>= 8
	}
	return dst
}

// unpack fills out with len(out) values of bits each from src, which must
// hold at least packedLen(len(out), bits) bytes.
func unpack(out []uint64, src []byte, bits uint) { unpackAdd(out, src, bits, 0) }

// unpackAdd is unpack with base added to every value (wrapping), stored as
// T: frame-of-reference decoding in the same pass as the unpacking.
func unpackAdd[T uint32 | uint64](out []T, src []byte, bits uint, base uint64) {
	if bits == 0 {
		for i := range out {
			out[i] = T(base)
		}
		return
	}
	// unpackWords' serial shifts lose to unpackLoads (BenchmarkPack: 8.4
	// against 4.4 µs for 8192 values of 8 bits), which takes up to 56.
	if bits == 64 {
		unpackWords(out, src, bits, base)
		return
	}
	done := 0
	if bits <= 56 {
		done = unpackLoads(out, src, bits, base)
	}
	unpackFrom(out[done:], src, uint(done)*bits, bits, base)
}

// unpackLoads unpacks the values of the whole groups of 8 that can be read
// with 8-byte loads inside src, and returns how many values that is. A
// group of 8 values of b bits is b bytes long, so every group starts on a
// byte and value k of a group sits at the same byte and bit offset in
// each: one load, shift and mask per value, independent of the others, so
// the loop runs several values at once where a running accumulator would
// wait on each. A value of up to 56 bits plus its offset of up to 7 bits
// fits in the 64 bits loaded.
//
// The loads are rawmem.Load64, unchecked: the slice expression of each
// group is checked, and every load of the group lies inside it, so the
// per-load checks the compiler cannot remove (off[k] is not a constant to
// it) would only cost time: 0.71 → 0.48 ns a value, 10 bits, 8192 values
// (BenchmarkPack).
func unpackLoads[T uint32 | uint64](out []T, src []byte, bits uint, base uint64) int {
	b := int(bits)
	// Group g reads bytes [g*b, g*b+off[7]+8), within [g*b, g*b+b+8).
	groups := min(len(out)/8, (len(src)-8)/b)
	if groups <= 0 {
		return 0
	}
	mask := ^uint64(0) >> (64 - bits)
	var off [8]int
	var sh [8]uint
	for k := range 8 {
		off[k], sh[k] = k*b/8, uint(k*b%8)
	}
	for g := range groups {
		in := src[g*b : g*b+b+8] // off[k]+8 <= b+8: every load below is inside
		o := out[g*8 : g*8+8 : g*8+8]
		o[0] = T(base + rawmem.Load64(in, off[0])>>(sh[0]&63)&mask)
		o[1] = T(base + rawmem.Load64(in, off[1])>>(sh[1]&63)&mask)
		o[2] = T(base + rawmem.Load64(in, off[2])>>(sh[2]&63)&mask)
		o[3] = T(base + rawmem.Load64(in, off[3])>>(sh[3]&63)&mask)
		o[4] = T(base + rawmem.Load64(in, off[4])>>(sh[4]&63)&mask)
		o[5] = T(base + rawmem.Load64(in, off[5])>>(sh[5]&63)&mask)
		o[6] = T(base + rawmem.Load64(in, off[6])>>(sh[6]&63)&mask)
		o[7] = T(base + rawmem.Load64(in, off[7])>>(sh[7]&63)&mask)
	}
	return groups * 8
}

// unpackFrom is unpackAdd starting at bit offset start of src, for any
// width, one value after the other through an accumulator.
func unpackFrom[T uint32 | uint64](out []T, src []byte, start, bits uint, base uint64) {
	if len(out) == 0 {
		return
	}
	mask := ^uint64(0) >> (64 - bits)
	pos := int(start >> 3)
	var acc uint64
	var have uint // unread bits in acc, at its bottom
	if skip := start & 7; skip != 0 {
		acc, have, pos = uint64(src[pos])>>skip, 8-skip, pos+1
	}
	for i := range out {
		if have >= bits {
			out[i] = T(base + acc&mask)
			acc >>= bits % 64
			have -= bits
			continue
		}
		var w uint64
		if pos+8 <= len(src) {
			w = binary.LittleEndian.Uint64(src[pos:])
			pos += 8
		} else {
			for j := len(src) - 1; j >= pos; j-- {
				w = w<<8 | uint64(src[j])
			}
			pos = len(src)
		}
		out[i] = T(base + (acc|w<<have)&mask)
		acc = w >> (bits - have)
		have += 64 - bits
	}
}

// unpackWords is unpackAdd for widths dividing 64 (unpackAdd uses it for
// 64 only; unpackLoads is faster for the others): no value straddles two
// words, so each word yields 64/bits values by shifts alone.
func unpackWords[T uint32 | uint64](out []T, src []byte, bits uint, base uint64) {
	per := int(64 / bits)
	mask := ^uint64(0) >> (64 - bits)
	i := 0
	for ; i+per <= len(out) && len(src) >= 8; i += per {
		w := binary.LittleEndian.Uint64(src)
		src = src[8:]
		vals := out[i : i+per]
		for k := range vals {
			vals[k] = T(base + w&mask)
			w >>= bits % 64
		}
	}
	// The last, partial word.
	var w uint64
	for j := len(src) - 1; j >= 0; j-- {
		w = w<<8 | uint64(src[j])
	}
	for ; i < len(out); i++ {
		out[i] = T(base + w&mask)
		w >>= bits % 64
	}
}

// scratch holds the unpacked values of one buffer; pooled because a
// 8192-value column needs 64 KiB of it per call.
var scratchPool = sync.Pool{New: func() any { return new([]uint64) }}

func getScratch(n int) *[]uint64 {
	p := scratchPool.Get().(*[]uint64)
	if cap(*p) < n {
		*p = make([]uint64, n)
	}
	*p = (*p)[:n]
	return p
}

func putScratch(p *[]uint64) {
	if cap(*p) <= 1<<20 { // don't keep buffers for outsized columns
		scratchPool.Put(p)
	}
}
