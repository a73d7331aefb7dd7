package colenc

import (
	"encoding/binary"
	"sync"
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
func unpack(out []uint64, src []byte, bits uint) {
	if bits == 0 {
		clear(out)
		return
	}
	if 64%bits == 0 {
		unpackWords(out, src, bits)
		return
	}
	mask := ^uint64(0) >> (64 - bits)
	var acc uint64
	var have uint // unread bits in acc, at its bottom
	pos := 0
	for i := range out {
		if have >= bits {
			out[i] = acc & mask
			acc >>= bits
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
		out[i] = (acc | w<<have) & mask
		acc = w >> (bits - have)
		have += 64 - bits
	}
}

// unpackWords is unpack for widths dividing 64 (1, 2, 4, 8, 16, 32, 64):
// no value straddles two words, so each word yields 64/bits values by
// shifts alone, with no test per value.
func unpackWords(out []uint64, src []byte, bits uint) {
	per := int(64 / bits)
	mask := ^uint64(0) >> (64 - bits)
	i := 0
	for ; i+per <= len(out) && len(src) >= 8; i += per {
		w := binary.LittleEndian.Uint64(src)
		src = src[8:]
		vals := out[i : i+per]
		for k := range vals {
			vals[k] = w & mask
			w >>= bits % 64
		}
	}
	// The last, partial word.
	var w uint64
	for j := len(src) - 1; j >= 0; j-- {
		w = w<<8 | uint64(src[j])
	}
	for ; i < len(out); i++ {
		out[i] = w & mask
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
