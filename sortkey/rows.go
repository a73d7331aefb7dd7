package sortkey

import (
	"bytes"
	"encoding/binary"
	"math"
)

// Rows holds normalized keys in one flat buffer with an offset per key, so
// that encoding a batch allocates nothing per row and a million keys are
// two slices, not a million. The zero value is empty and ready; Reset keeps
// the memory for the next batch.
type Rows struct {
	data    []byte
	offsets []uint32 // len = Len()+1 once anything is appended; offsets[0] = 0
}

// Len is the number of keys.
func (r *Rows) Len() int {
	if len(r.offsets) == 0 {
		return 0
	}
	return len(r.offsets) - 1
}

// Row returns key i. It aliases the Rows' buffer: it is valid until the
// next Encode into r or Reset.
func (r *Rows) Row(i int) []byte {
	return r.data[r.offsets[i]:r.offsets[i+1]:r.offsets[i+1]]
}

// Compare orders key i of r against key j of s, as bytes.Compare does.
func (r *Rows) Compare(i int, s *Rows, j int) int {
	return bytes.Compare(r.Row(i), s.Row(j))
}

// Prefix returns the first 8 bytes of key i big-endian, zero-padded: when
// Prefix(i) < Prefix(j), key i sorts before key j, and only equal prefixes
// need the full comparison. A sort that keeps the prefix next to the row
// number compares most pairs without touching the key buffer.
func (r *Rows) Prefix(i int) uint64 { return Prefix(r.Row(i)) }

// Prefix is the first 8 bytes of key, big-endian, zero-padded.
func Prefix(key []byte) uint64 {
	if len(key) >= 8 {
		return binary.BigEndian.Uint64(key)
	}
	var b [8]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

// Append appends one key as it is: for keys kept from elsewhere (a
// top-k's threshold) and for sorting byte strings that are not this
// package's encodings.
func (r *Rows) Append(key []byte) {
	if len(r.offsets) == 0 {
		r.offsets = append(r.offsets, 0)
	}
	r.data = append(r.data, key...)
	if len(r.data) > maxRowsBytes {
		panic("sortkey: Rows.Append past 4 GiB")
	}
	r.offsets = append(r.offsets, uint32(len(r.data)))
}

// Reset empties r, keeping its memory.
func (r *Rows) Reset() {
	r.data = r.data[:0]
	r.offsets = r.offsets[:0]
}

// DataBytes is the bytes of keys held.
func (r *Rows) DataBytes() int { return len(r.data) }

// Size is the memory r holds, for accounting against a memory limit.
func (r *Rows) Size() int64 { return int64(cap(r.data)) + 4*int64(cap(r.offsets)) }

// maxRowsBytes bounds one Rows' buffer: offsets are uint32.
const maxRowsBytes = math.MaxUint32
