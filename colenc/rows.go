package colenc

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/quiverdb/quiver/internal/bufs"
)

// DecodeRows appends the values at the given positions (value indexes,
// any order, repeats allowed) of the buffer src encodes to dst, width
// bytes each, and returns the extended slice: what Decode followed by a
// gather gives, without decoding the rest. A scan whose filter keeps a
// few rows of a batch reads only those: Plain copies them and FOR
// unpacks each from its own bit offset, since a packed value's place is
// i*bits; Delta, whose values are running sums, sums its deltas up to
// each row in turn when the rows ascend (a scan's selection), else decodes
// the whole buffer into scratch first. Lengths (an offsets buffer) is refused: a gathered
// offset means nothing. src is untrusted as in Decode (limit bounds the
// decoded size the header may claim); a position past the values is an
// error too. Failures match ErrCorrupt and return dst unchanged.
func DecodeRows(dst, src []byte, limit int, rows []int32) ([]byte, error) {
	h, err := parseHeader(src, limit)
	if err != nil {
		return dst, err
	}
	if h.enc == Lengths {
		return dst, fmt.Errorf("%w: lengths: offsets cannot be decoded by rows", ErrCorrupt)
	}
	for _, r := range rows {
		if r < 0 || int(r) >= h.n {
			return dst, fmt.Errorf("%w: row %d of %d values", ErrCorrupt, r, h.n)
		}
	}
	start := len(dst)
	out := bufs.Extend(dst, len(rows)*h.width)
	win := out[start:]
	switch h.enc {
	case Plain:
		w := h.width
		for j, r := range rows {
			copy(win[j*w:j*w+w], h.body[int(r)*w:])
		}
	case FOR:
		base := uint64(h.param)
		for j, r := range rows {
			store(win, h.width, j, base+packedAt(h.body, int(r), h.bits))
		}
	case Delta:
		if slices.IsSorted(rows) { // a scan's selection: one running sum, nothing else written
			deltaRows(win, h, rows)
			break
		}
		p := deltaScratch.Get().(*[]byte)
		all := bufs.Extend((*p)[:0], h.n*h.width)
		decodeDelta(all, h)
		w := h.width
		for j, r := range rows {
			copy(win[j*w:j*w+w], all[int(r)*w:])
		}
		*p = all
		deltaScratch.Put(p)
	}
	return out, nil
}

// packedAt is value i of a payload of bits-wide values, which holds at
// least packedLen(i+1, bits) bytes.
func packedAt(src []byte, i int, bits uint) uint64 {
	if bits == 0 {
		return 0
	}
	start := uint64(i) * uint64(bits)
	pos, sh := int(start>>3), uint(start&7)
	mask := ^uint64(0) >> (64 - bits)
	if pos+8 <= len(src) {
		w := binary.LittleEndian.Uint64(src[pos:]) >> sh
		if sh+bits > 64 { // a 58- to 64-bit value reaching into a ninth byte
			w |= uint64(src[pos+8]) << (64 - sh)
		}
		return w & mask
	}
	// Fewer than 8 bytes left, so the value and its offset fit in them.
	var w uint64
	for j := len(src) - 1; j >= pos; j-- {
		w = w<<8 | uint64(src[j])
	}
	return w >> sh & mask
}

// deltaRows is DecodeRows of a Delta buffer at ascending rows: the deltas
// unpacked, then summed up to each row in turn, storing only the rows'
// values.
func deltaRows(win []byte, h header, rows []int32) {
	if h.n == 0 || len(rows) == 0 {
		return
	}
	p := getScratch(h.n - 1)
	vals := *p
	unpack(vals, h.body, h.bits)
	cur, step := uint64(h.param), uint64(h.step) // value 0
	i := 0                                       // cur is value i
	for j, r := range rows {
		for _, v := range vals[i:r] {
			cur += step + v
		}
		i = int(r)
		store(win, h.width, j, cur)
	}
	putScratch(p)
}

// deltaScratch holds a Delta buffer decoded whole for DecodeRows.
var deltaScratch = sync.Pool{New: func() any { return new([]byte) }}
