package cache

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/bufs"
)

// narrowCol is a decimal128 column the cache stored narrowed (every value
// fits in 64 bits), decoded to its 64-bit values without widening: the
// row filter compares these, and widens only the rows it keeps.
type narrowCol struct {
	vals     []int64        // one per row; the decoder's scratch
	validity *memory.Buffer // nil when no row is NULL
	nulls    int
}

func (n *narrowCol) release() {
	if n.validity != nil {
		n.validity.Release()
		n.validity = nil
	}
}

// validBytes is the validity bitmap, nil when no row is NULL.
func (n *narrowCol) validBytes() []byte {
	if n.validity == nil {
		return nil
	}
	return n.validity.Bytes()
}

// narrow decodes src as a narrowCol into buf's memory (grown as needed),
// when it is a decimal128 chunk whose values part is narrowed; ok is false
// for any other chunk, which the caller decodes as usual.
func (d *chunkDecoder) narrow(dt arrow.DataType, src []byte, limit int64, buf []int64) (col narrowCol, ok bool, err error) {
	if dt.ID() != arrow.DECIMAL128 {
		return col, false, nil
	}
	c, err := parseChunk(src, limit)
	if err != nil {
		return col, false, err
	}
	if c.form != formFixed {
		return col, false, corrupt("chunk form %d for a %s column (form %d)", c.form, dt, formFixed)
	}
	s := c.specs[1]
	if s.flags&partNarrowed == 0 {
		return col, false, nil
	}
	if s.final != 16*c.rows {
		return col, false, corrupt("part 1 holds %d bytes, the column needs %d", s.final, 16*c.rows)
	}
	if col.validity, err = d.validity(c); err != nil {
		return col, false, err
	}
	col.nulls = c.nulls
	if cap(buf) < c.rows {
		buf = make([]int64, c.rows)
	}
	col.vals = buf[:c.rows]
	if err := d.narrowInto(arrow.Int64Traits.CastToBytes(col.vals), c, 1); err != nil {
		col.release()
		return narrowCol{}, false, err
	}
	return col, true, nil
}

// narrowed decodes a partNarrowed part into out: its 64-bit values
// (after the codec and colenc) sign-extended to 128 bits.
func (d *chunkDecoder) narrowed(out []byte, c chunk, i int) error {
	n := len(out) / 16
	d.wide = resizeDiscarding(d.wide, 8*n)
	if err := d.narrowInto(d.wide, c, i); err != nil {
		return err
	}
	// Both are 8-byte aligned: out comes from the allocator, d.wide from
	// make.
	widenInto(arrow.Uint64Traits.CastFromBytes(out)[:2*n], arrow.Int64Traits.CastFromBytes(d.wide)[:n])
	return nil
}

// widenInto sign-extends vals into wide, two words (low, high) a value.
func widenInto(wide []uint64, vals []int64) {
	for j, v := range vals {
		wide[2*j], wide[2*j+1] = uint64(v), uint64(v>>63)
	}
}

// narrowInto decodes narrowed part i's 64-bit values into out, exactly its
// length; out must not be the decoder's scratch. Unencoded stored bytes
// are copied, since they may lie at any alignment.
func (d *chunkDecoder) narrowInto(out []byte, c chunk, i int) error {
	inner, err := d.inner(c, i, len(out))
	if err != nil {
		return err
	}
	switch {
	case c.specs[i].flags&partEncoded != 0:
		return decodeInto(out, inner, i)
	case len(inner) != len(out):
		return corrupt("part %d: %d narrowed bytes for %d values", i, len(inner), len(out)/8)
	}
	copy(out, inner)
	return nil
}

// widen returns the decimal128 array of type dt holding the rows sel names
// of col (every row when all is true).
func (col *narrowCol) widen(mem memory.Allocator, dt arrow.DataType, sel []int32, all bool) arrow.Array {
	n := len(sel)
	if all {
		n = len(col.vals)
	}
	values := bufs.NewDirty(mem, 16*n) // every value written below
	out := arrow.Uint64Traits.CastFromBytes(values.Bytes())
	if all {
		widenInto(out, col.vals)
	} else {
		for j, r := range sel {
			v := col.vals[r]
			out[2*j], out[2*j+1] = uint64(v), uint64(v>>63)
		}
	}
	var validity *memory.Buffer
	nulls := 0
	switch {
	case col.validity == nil:
	case all:
		validity, nulls = col.validity, col.nulls
		validity.Retain()
	default:
		validity = memory.NewResizableBuffer(mem)
		validity.Resize(int(bitutil.BytesForBits(int64(n))))
		bits, src := validity.Bytes(), col.validity.Bytes()
		clear(bits)
		for j, r := range sel {
			if bitutil.BitIsSet(src, int(r)) {
				bitutil.SetBit(bits, j)
			}
		}
		nulls = n - bitutil.CountSetBits(bits, 0, n)
	}
	data := array.NewData(dt, n, []*memory.Buffer{validity, values}, nil, nulls, 0)
	if validity != nil {
		validity.Release()
	}
	values.Release()
	defer data.Release()
	return array.MakeFromData(data)
}

// narrowBuf is the k-th buffer for a narrowCol's values (nil the first
// time); keepNarrowBuf keeps what narrow grew it to for the next batch.
func (d *chunkDecoder) narrowBuf(k int) []int64 {
	if k < len(d.narrows) {
		return d.narrows[k]
	}
	return nil
}

func (d *chunkDecoder) keepNarrowBuf(k int, b []int64) {
	for len(d.narrows) <= k {
		d.narrows = append(d.narrows, nil)
	}
	d.narrows[k] = b
}
