package column

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal"
)

// Dictionary-encoded input is decoded into the value type. A builder
// resolves a dictionary once, the first time an input batch hands it
// over: its value bytes and offsets as raw slices, its offsets checked
// once (monotone, within the data), so that each row then costs an id
// range check and a copy. The dictionary is retained while cached, so
// that its memory cannot be reused under the cache, and dropped when a
// different dictionary arrives (readers that reuse one set of arrays
// across batches hand over new dictionaries) and at Finish.

// dictCache is one builder's resolved dictionary.
type dictCache struct {
	data arrow.ArrayData // retained; nil when empty
	n    int             // entries
	// validity of the entries (nil: none null), at bit offset off
	bits []byte
	off  int
	// fixed-width values from byte off*w, or bit off for booleans
	vals []byte
	// variable-width values: offsets[off : off+n+1] index bytes
	offs32 []int32
	offs64 []int64
	bytes  []byte
	maxLen int64 // the longest variable-width entry
}

// get resolves d's dictionary, reusing the cache when it is the same.
func (c *dictCache) get(d *array.Dictionary) error {
	dict := d.Dictionary()
	data := dict.Data()
	if c.data == data {
		return nil
	}
	c.release()
	data.Retain()
	c.data = data
	c.n = data.Len()
	c.off = data.Offset()
	if b := data.Buffers()[0]; b != nil && data.NullN() > 0 {
		c.bits = b.Bytes()
	}
	switch data.DataType().ID() {
	case arrow.STRING, arrow.BINARY:
		c.offs32 = arrow.GetData[int32](bufBytes(data.Buffers()[1]))
		c.bytes = bufBytes(data.Buffers()[2])
		var err error
		c.maxLen, err = checkOffsets(c.offs32, c.off, c.n, len(c.bytes))
		return err
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		c.offs64 = arrow.GetData[int64](bufBytes(data.Buffers()[1]))
		c.bytes = bufBytes(data.Buffers()[2])
		var err error
		c.maxLen, err = checkOffsets(c.offs64, c.off, c.n, len(c.bytes))
		return err
	default:
		if len(data.Buffers()) < 2 {
			return fmt.Errorf("%w: dictionary values of type %s", ErrUnsupported, data.DataType())
		}
		c.vals = bufBytes(data.Buffers()[1])
	}
	return nil
}

// checkOffsets checks once what every row then relies on, and returns
// the longest entry.
func checkOffsets[O Offset](offs []O, off, n, dataLen int) (int64, error) {
	if n == 0 {
		return 0, nil
	}
	if len(offs) < off+n+1 {
		return 0, fmt.Errorf("%w: dictionary of %d values has %d offsets", ErrCorrupt, n, len(offs)-off)
	}
	o := offs[off : off+n+1]
	if o[0] < 0 || int64(o[n]) > int64(dataLen) {
		return 0, fmt.Errorf("%w: dictionary offsets [%d, %d] outside its %d bytes", ErrCorrupt, o[0], o[n], dataLen)
	}
	var longest O
	for i := range n {
		l := o[i+1] - o[i]
		if l < 0 {
			return 0, fmt.Errorf("%w: dictionary offset %d decreases", ErrCorrupt, i+1)
		}
		longest = max(longest, l)
	}
	return int64(longest), nil
}

func (c *dictCache) release() {
	if c.data != nil {
		c.data.Release()
	}
	*c = dictCache{}
}

func (c *dictCache) valid(id int) bool {
	return c.bits == nil || bitutil.BitIsSet(c.bits, c.off+id)
}

// Index is the type of a dictionary's indices.
type Index interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// ids calls f with the indices of rows [start, start+n) of d as []I.
func withIDs(d *array.Dictionary, start, n int, f func(ids any) error) error {
	idx := d.Indices().Data()
	off := idx.Offset() + start
	raw := bufBytes(idx.Buffers()[1])
	switch idx.DataType().ID() {
	case arrow.INT8:
		return f(arrow.GetData[int8](raw)[off : off+n])
	case arrow.UINT8:
		return f(arrow.GetData[uint8](raw)[off : off+n])
	case arrow.INT16:
		return f(arrow.GetData[int16](raw)[off : off+n])
	case arrow.UINT16:
		return f(arrow.GetData[uint16](raw)[off : off+n])
	case arrow.INT32:
		return f(arrow.GetData[int32](raw)[off : off+n])
	case arrow.UINT32:
		return f(arrow.GetData[uint32](raw)[off : off+n])
	case arrow.INT64:
		return f(arrow.GetData[int64](raw)[off : off+n])
	case arrow.UINT64:
		return f(arrow.GetData[uint64](raw)[off : off+n])
	}
	return fmt.Errorf("%w: dictionary index type %s", ErrUnsupported, idx.DataType())
}

func idError(row int, id uint64, n int) error {
	return fmt.Errorf("%w: row %d: dictionary id %d outside the dictionary's %d values", ErrCorrupt, row, int64(id), n)
}

// gather copies dictionary entries of width T for rows [at, at+len(ids))
// of the output; rows already null in out's bitmap (bits, nil: none) are
// skipped, since the ids under them may be anything.
func gather[I Index, T any](dst []T, at int, ids []I, dict []T, c *dictCache, outBits []byte, setNull func(int)) error {
	n := uint64(c.n)
	dst = dst[at : at+len(ids)]
	if outBits == nil && c.bits == nil {
		for i, id := range ids {
			u := uint64(id)
			if u >= n {
				return idError(i, u, c.n)
			}
			dst[i] = dict[u]
		}
		return nil
	}
	for i, id := range ids {
		if outBits != nil && !bitutil.BitIsSet(outBits, at+i) {
			continue
		}
		u := uint64(id)
		if u >= n {
			return idError(i, u, c.n)
		}
		if !c.valid(int(u)) {
			setNull(at + i)
			continue
		}
		dst[i] = dict[u]
	}
	return nil
}

func gatherFixed[T arrow.FixedWidthType](f *Fixed, d *array.Dictionary, start, n int) error {
	dst := reinterpret[T](f.vals.b)
	vals := reinterpret[T](f.dict.vals)
	if len(vals) < f.dict.off+f.dict.n {
		return fmt.Errorf("%w: dictionary of %d values has %d bytes", ErrCorrupt, f.dict.n, len(f.dict.vals))
	}
	vals = vals[f.dict.off : f.dict.off+f.dict.n]
	var outBits []byte
	if f.v.has {
		outBits = f.v.bits.b
	}
	return withIDs(d, start, n, func(ids any) error {
		switch ids := ids.(type) {
		case []int8:
			return gather(dst, f.v.n, ids, vals, &f.dict, outBits, f.v.setNull)
		case []uint8:
			return gather(dst, f.v.n, ids, vals, &f.dict, outBits, f.v.setNull)
		case []int16:
			return gather(dst, f.v.n, ids, vals, &f.dict, outBits, f.v.setNull)
		case []uint16:
			return gather(dst, f.v.n, ids, vals, &f.dict, outBits, f.v.setNull)
		case []int32:
			return gather(dst, f.v.n, ids, vals, &f.dict, outBits, f.v.setNull)
		case []uint32:
			return gather(dst, f.v.n, ids, vals, &f.dict, outBits, f.v.setNull)
		case []int64:
			return gather(dst, f.v.n, ids, vals, &f.dict, outBits, f.v.setNull)
		case []uint64:
			return gather(dst, f.v.n, ids, vals, &f.dict, outBits, f.v.setNull)
		}
		panic("unreachable")
	})
}

func (f *Fixed) appendDict(d *array.Dictionary, start, n int, mask Mask) error {
	if err := f.dict.get(d); err != nil {
		return err
	}
	f.Reserve(n)
	at := f.v.n
	// The indices' validity (and the mask) first: the gather skips rows
	// it leaves null.
	f.v.appendFrom(d.Data(), d.Data().Offset()+start, n, mask)
	f.v.n = at
	var err error
	switch f.w {
	case 1:
		err = gatherFixed[uint8](f, d, start, n)
	case 2:
		err = gatherFixed[uint16](f, d, start, n)
	case 4:
		err = gatherFixed[uint32](f, d, start, n)
	case 8:
		err = gatherFixed[uint64](f, d, start, n)
	case 16:
		err = gatherFixed[decimal.Decimal128](f, d, start, n)
	case 32:
		err = gatherFixed[decimal.Decimal256](f, d, start, n)
	default:
		err = f.gatherBytes(d, start, n)
	}
	f.v.n = at + n
	if err != nil {
		f.v.truncate(at)
		return err
	}
	return nil
}

// gatherBytes is the gather for widths without a Go type (fixed-size
// binary of odd width).
func (f *Fixed) gatherBytes(d *array.Dictionary, start, n int) error {
	w, at := f.w, f.v.n
	if len(f.dict.vals) < (f.dict.off+f.dict.n)*w {
		return fmt.Errorf("%w: dictionary of %d values has %d bytes", ErrCorrupt, f.dict.n, len(f.dict.vals))
	}
	for i := range n {
		if f.v.has && !bitutil.BitIsSet(f.v.bits.b, at+i) {
			continue
		}
		id := uint64(d.GetValueIndex(start + i))
		if id >= uint64(f.dict.n) {
			return idError(i, id, f.dict.n)
		}
		if !f.dict.valid(int(id)) {
			f.v.setNull(at + i)
			continue
		}
		src := (f.dict.off + int(id)) * w
		copy(f.vals.b[(at+i)*w:], f.dict.vals[src:src+w])
	}
	return nil
}

func (b *Bool) appendDict(d *array.Dictionary, start, n int, mask Mask) error {
	if err := b.dict.get(d); err != nil {
		return err
	}
	b.Reserve(n)
	at := b.v.n
	b.v.appendFrom(d.Data(), d.Data().Offset()+start, n, mask)
	for i := range n {
		if b.v.has && !bitutil.BitIsSet(b.v.bits.b, at+i) {
			continue
		}
		id := uint64(d.GetValueIndex(start + i))
		if id >= uint64(b.dict.n) {
			b.v.truncate(at)
			return idError(i, id, b.dict.n)
		}
		if !b.dict.valid(int(id)) {
			b.SetNull(at + i)
			continue
		}
		bitutil.SetBitTo(b.vals.b, at+i, bitutil.BitIsSet(b.dict.vals, b.dict.off+int(id)))
	}
	return nil
}

// dictBytes bounds the value bytes rows [start, start+n) of d decode
// to: n times the longest entry when that is small, which costs nothing
// per row, else the exact sum (ids out of range count nothing;
// AppendArray reports them).
func (b *Binary[O]) dictBytes(d *array.Dictionary, start, n int) int64 {
	if err := b.dict.get(d); err != nil {
		return 0
	}
	if bound := int64(n) * b.dict.maxLen; bound <= 4<<20 {
		return bound
	}
	var total int64
	valid := d.Data().Buffers()[0]
	off := d.Data().Offset() + start
	for i := range n {
		if valid != nil && !bitutil.BitIsSet(valid.Bytes(), off+i) {
			continue
		}
		total += b.dict.length(uint64(d.GetValueIndex(start + i)))
	}
	return total
}

// length of entry id, 0 when out of range.
func (c *dictCache) length(id uint64) int64 {
	if id >= uint64(c.n) {
		return 0
	}
	i := c.off + int(id)
	if c.offs32 != nil {
		return int64(c.offs32[i+1] - c.offs32[i])
	}
	return c.offs64[i+1] - c.offs64[i]
}

func (b *Binary[O]) appendDict(d *array.Dictionary, start, n int, mask Mask) error {
	if err := b.dict.get(d); err != nil {
		return err
	}
	if b.dict.offs32 == nil && b.dict.offs64 == nil {
		return fmt.Errorf("%w: dictionary of %s into %s", ErrUnsupported, d.Dictionary().DataType(), b.dt)
	}
	at := b.v.n
	b.Reserve(n, 0)
	b.v.appendFrom(d.Data(), d.Data().Offset()+start, n, mask)
	b.v.n = at
	var outBits []byte
	if b.v.has {
		outBits = b.v.bits.b
	}
	err := withIDs(d, start, n, func(ids any) error {
		switch ids := ids.(type) {
		case []int8:
			return gatherBinary(b, ids, outBits)
		case []uint8:
			return gatherBinary(b, ids, outBits)
		case []int16:
			return gatherBinary(b, ids, outBits)
		case []uint16:
			return gatherBinary(b, ids, outBits)
		case []int32:
			return gatherBinary(b, ids, outBits)
		case []uint32:
			return gatherBinary(b, ids, outBits)
		case []int64:
			return gatherBinary(b, ids, outBits)
		case []uint64:
			return gatherBinary(b, ids, outBits)
		}
		panic("unreachable")
	})
	if err != nil {
		b.v.n = at + n
		b.v.truncate(at)
		b.data.n = int(b.offsets()[at])
		return err
	}
	b.v.n = at + n
	return nil
}

// gatherBinary decodes ids into b's rows from b.v.n on, in two passes:
// the first checks the ids and sums the bytes, so that the second copies
// into memory reserved once and exactly (a bound such as rows × longest
// entry can overstate the bytes many times, and allocating and zeroing
// the excess costs more than the pass). Short entries are copied as one
// 16-byte move into slack reserved past the data, rather than a call to
// memmove each.
func gatherBinary[I Index, O Offset](b *Binary[O], ids []I, outBits []byte) error {
	c := &b.dict
	at, nd := b.v.n, uint64(c.n)
	var total int64
	for i, id := range ids {
		if outBits != nil && !bitutil.BitIsSet(outBits, at+i) {
			continue
		}
		u := uint64(id)
		if u >= nd {
			return idError(i, u, c.n)
		}
		total += c.length(u)
	}
	if offsetSize[O]() == 4 && int64(b.data.n)+total > MaxOffset {
		return fmt.Errorf("%w: %d bytes of data plus %d", ErrOffsets, b.data.n, total)
	}
	b.Reserve(0, int(total)+16)
	if c.offs32 != nil {
		return copyEntries(b, ids, c.offs32[c.off:c.off+c.n+1], outBits)
	}
	return copyEntries(b, ids, c.offs64[c.off:c.off+c.n+1], outBits)
}

func copyEntries[I Index, O, D Offset](b *Binary[O], ids []I, doffs []D, outBits []byte) error {
	c := &b.dict
	at, nd := b.v.n, uint64(c.n)
	dst := b.offsets()[at+1 : at+1+len(ids)]
	data, pos := b.data.b, b.data.n
	src := c.bytes
	for i, id := range ids {
		if outBits != nil && !bitutil.BitIsSet(outBits, at+i) {
			dst[i] = O(pos) // null row: its id may be anything
			continue
		}
		u := uint64(id)
		if u >= nd {
			return idError(i, u, c.n)
		}
		if c.bits != nil && !c.valid(int(u)) {
			b.v.setNull(at + i)
			outBits = b.v.bits.b
			dst[i] = O(pos)
			continue
		}
		s, e := int(doffs[u]), int(doffs[u+1])
		if l := e - s; l <= 16 && s+16 <= len(src) && pos+16 <= len(data) {
			*(*[16]byte)(data[pos : pos+16]) = *(*[16]byte)(src[s : s+16])
			pos += l
		} else {
			pos += copy(data[pos:], src[s:e])
		}
		dst[i] = O(pos)
	}
	b.data.n = pos
	return nil
}
