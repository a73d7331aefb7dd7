package cache

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/zeebo/xxh3"

	"github.com/quiverdb/quiver/hll"
)

// Distinct counts: Put adds every non-null value of a column to a
// HyperLogLog sketch (package hll) while it encodes the batch; each
// encoding goroutine keeps its own sketch per column and merges it into
// the put's when it ends, so the cost per batch is one hash and one max
// per value and no lock. An Append merges its sketches into a copy of the
// table's. A table keeps one sketch per column, 4 KiB at most, outside
// the footprint like the statistics.
//
// Values hash by what they are, not how they are stored, so that equal
// values hash equal in every column type (a join key may be int32 on one
// side and int64 on the other):
//
//	integers, dates, times,    hll.Mix of the value as a 64-bit integer
//	timestamps, durations,     (unsigned ones below 2^63 equal the signed),
//	booleans (0, 1)            in the column's own unit
//	floats                     as the integer when integral and in int64's
//	                           range (2.0 as 2), else Mix of the float64
//	                           bits, -0.0 as 0 and every NaN as one
//	decimals                   the unscaled integer at the column's scale:
//	                           as an integer when it fits 64 bits, else
//	                           xxh3 of its 16 (or 32) little-endian bytes
//	strings, binary (every     xxh3 of the bytes
//	layout), fixed-size binary
//	dictionary arrays          as their values
//
// Other types (lists, structs, intervals…) get no sketch: their distinct
// count is unknown (-1).
//
// These hashes are part of the stored format: a store keeps sketches on
// disk (package store) and an Append merges new batches' into them, so a
// change to how any value hashes must bump hll.Version (old sketches then
// read as unknown, never merged with new ones). TestDistinctHashesPinned
// fails on such a change.

// sketchable reports whether columns of type dt get a sketch.
func sketchable(dt arrow.DataType) bool {
	if d, ok := dt.(*arrow.DictionaryType); ok {
		return sketchable(d.ValueType)
	}
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION,
		arrow.BOOL, arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY,
		arrow.STRING_VIEW, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		return true
	}
	return false
}

// newSketches returns an empty sketch per column of schema, nil for the
// columns that get none.
func newSketches(schema *arrow.Schema) []*hll.Sketch {
	s := make([]*hll.Sketch, schema.NumFields())
	for i, f := range schema.Fields() {
		if sketchable(f.Type) {
			s[i] = &hll.Sketch{}
		}
	}
	return s
}

// hasher collects a batch column's hashes for one InsertMany.
type hasher struct {
	hs []uint64
}

// add inserts arr's non-null values into s.
func (h *hasher) add(s *hll.Sketch, arr arrow.Array) {
	if s == nil || arr.Len() == arr.NullN() {
		return
	}
	if n := arr.Len(); n > hashWindow { // bound the buffer: 8 bytes a row
		for at := 0; at < n; at += hashWindow {
			part := array.NewSlice(arr, int64(at), int64(min(at+hashWindow, n)))
			h.add(s, part)
			part.Release()
		}
		return
	}
	h.hs = h.hs[:0]
	h.hash(arr)
	s.InsertMany(h.hs)
}

// hashWindow is the most rows hashed into the buffer at once.
const hashWindow = 64 << 10

// push appends one hash. A window's hashes are held at once (8 bytes a
// row, the buffer reused window after window), then inserted in one loop.
func (h *hasher) push(x uint64) { h.hs = append(h.hs, x) }

// hash appends the hashes of arr's non-null values.
func (h *hasher) hash(arr arrow.Array) {
	switch a := arr.(type) {
	case *array.Int8:
		hashInts(h, a, a.Values())
	case *array.Int16:
		hashInts(h, a, a.Values())
	case *array.Int32:
		hashInts(h, a, a.Values())
	case *array.Int64:
		hashInts(h, a, a.Values())
	case *array.Date32:
		hashInts(h, a, a.Values())
	case *array.Date64:
		hashInts(h, a, a.Values())
	case *array.Time32:
		hashInts(h, a, a.Values())
	case *array.Time64:
		hashInts(h, a, a.Values())
	case *array.Timestamp:
		hashInts(h, a, a.Values())
	case *array.Duration:
		hashInts(h, a, a.Values())
	case *array.Decimal32:
		hashInts(h, a, a.Values())
	case *array.Decimal64:
		hashInts(h, a, a.Values())
	case *array.Uint8:
		hashInts(h, a, a.Values())
	case *array.Uint16:
		hashInts(h, a, a.Values())
	case *array.Uint32:
		hashInts(h, a, a.Values())
	case *array.Uint64:
		hashInts(h, a, a.Values())
	case *array.Boolean:
		for i := range a.Len() {
			if a.IsValid(i) {
				h.push(hll.Mix(uint64(b2i(a.Value(i)))))
			}
		}
	case *array.Float16:
		for i, x := range a.Values() {
			if a.IsValid(i) {
				h.push(hashFloat(float64(x.Float32())))
			}
		}
	case *array.Float32:
		for i, x := range a.Values() {
			if a.IsValid(i) {
				h.push(hashFloat(float64(x)))
			}
		}
	case *array.Float64:
		for i, x := range a.Values() {
			if a.IsValid(i) {
				h.push(hashFloat(x))
			}
		}
	case *array.Decimal128:
		for i, x := range a.Values() {
			if a.IsValid(i) {
				h.push(hashDecimal128(x))
			}
		}
	case *array.Decimal256:
		for i, x := range a.Values() {
			if a.IsValid(i) {
				h.push(hashDecimal256(x))
			}
		}
	case *array.String:
		hashOffsets(h, a, a.ValueOffsets(), dataBuffer(a))
	case *array.LargeString:
		hashOffsets(h, a, a.ValueOffsets(), dataBuffer(a))
	case *array.Binary:
		hashOffsets(h, a, a.ValueOffsets(), dataBuffer(a))
	case *array.LargeBinary:
		hashOffsets(h, a, a.ValueOffsets(), dataBuffer(a))
	case *array.StringView:
		for i := range a.Len() {
			if a.IsValid(i) {
				h.push(xxh3.HashString(a.Value(i)))
			}
		}
	case *array.BinaryView:
		for i := range a.Len() {
			if a.IsValid(i) {
				h.push(xxh3.Hash(a.Value(i)))
			}
		}
	case *array.FixedSizeBinary:
		for i := range a.Len() {
			if a.IsValid(i) {
				h.push(xxh3.Hash(a.Value(i)))
			}
		}
	case *array.Dictionary:
		h.hashDictionary(a)
	}
}

// hashInts is the hot loop of every integer-like type: branch-free, a
// null row's hash is written and then overwritten.
func hashInts[T signed | unsigned | decimalInt](h *hasher, a arrow.Array, vals []T) {
	n := len(h.hs)
	h.hs = slices.Grow(h.hs, len(vals))[:n+len(vals)]
	hs := h.hs[n:]
	if a.NullN() == 0 {
		for i, x := range vals {
			hs[i] = hll.Mix(uint64(x))
		}
		return
	}
	bits, off := a.NullBitmapBytes(), a.Data().Offset()
	k := 0
	for i, x := range vals {
		hs[k] = hll.Mix(uint64(x))
		j := off + i
		k += int(bits[j>>3] >> (j & 7) & 1)
	}
	h.hs = h.hs[:n+k]
}

type decimalInt interface {
	~int32 | ~int64
}

func hashOffsets[O int32 | int64](h *hasher, a arrow.Array, offs []O, data []byte) {
	n := len(h.hs)
	rows := len(offs) - 1
	h.hs = slices.Grow(h.hs, rows)[:n+rows]
	hs := h.hs[n:]
	if a.NullN() == 0 {
		for i := range hs {
			hs[i] = xxh3.Hash(data[offs[i]:offs[i+1]])
		}
		return
	}
	v := validity{bits: a.NullBitmapBytes(), off: a.Data().Offset()}
	k := 0
	for i := range rows {
		if v.valid(i) {
			hs[k] = xxh3.Hash(data[offs[i]:offs[i+1]])
			k++
		}
	}
	h.hs = h.hs[:n+k]
}

// hashFloat hashes integral floats as integers and folds -0.0 and NaNs.
func hashFloat(f float64) uint64 {
	switch {
	case f != f:
		return hll.Mix(0x7ff8000000000001) // one NaN
	case f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63:
		return hll.Mix(uint64(int64(f))) // -0.0 too
	}
	return hll.Mix(math.Float64bits(f))
}

func hashDecimal128(n decimal128.Num) uint64 {
	lo, hi := n.LowBits(), n.HighBits()
	if hi == int64(lo)>>63 {
		return hll.Mix(lo)
	}
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], lo)
	binary.LittleEndian.PutUint64(b[8:], uint64(hi))
	return xxh3.Hash(b[:])
}

func hashDecimal256(n decimal256.Num) uint64 {
	l := n.Array() // little-endian limbs
	ext := uint64(int64(l[1]) >> 63)
	if l[2] == ext && l[3] == ext {
		return hashDecimal128(decimal128.New(int64(l[1]), l[0]))
	}
	var b [32]byte
	for i, x := range l {
		binary.LittleEndian.PutUint64(b[8*i:], x)
	}
	return xxh3.Hash(b[:])
}

// hashDictionary hashes the dictionary once and each row by its index.
func (h *hasher) hashDictionary(d *array.Dictionary) {
	dict := d.Dictionary()
	dh := hasher{hs: make([]uint64, 0, dict.Len())}
	dh.hash(dict)                 // the valid entries' hashes, in order
	at := make([]int, dict.Len()) // dictionary index → its hash in dh.hs, or -1
	k := 0
	for i := range at {
		at[i] = -1
		if dict.IsValid(i) {
			at[i] = k
			k++
		}
	}
	for i := range d.Len() {
		if d.IsValid(i) {
			if j := at[d.GetValueIndex(i)]; j >= 0 {
				h.push(dh.hs[j])
			}
		}
	}
}

// sketcher is one encoding goroutine's sketches, per column.
type sketcher struct {
	sketches []*hll.Sketch
	h        hasher
}

func (s *sketcher) add(i int, arr arrow.Array) { s.h.add(s.sketches[i], arr) }

// mergeSketches merges a goroutine's sketches into the put's.
func (b *builder) mergeSketches(s *sketcher) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, sk := range s.sketches {
		if b.sketches[i] != nil {
			b.sketches[i].Merge(sk)
		}
	}
}
