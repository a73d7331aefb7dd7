package cache

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/colenc"
)

// Decoding a few rows of a chunk. When a scan's row filter (a runtime
// join filter, most often) keeps a small share of a batch, the columns it
// did not test are needed at those rows only. A fixed-width column is
// then decoded at those rows alone: after the block codec (which works on
// whole parts), colenc reads each kept value from its own place
// (colenc.DecodeRows), and a narrowed decimal is widened for the kept
// rows only. TPC-H Q8 keeps 1.3% of lineitem's rows this way, and
// unpacking the other 98.7% was the largest cost of its scan.

// rowsShare is the largest share of a batch's rows decodeRows is used
// for: past it, decoding the whole column and taking the rows is about
// as fast (FOR unpacks a value in under a nanosecond in a run, a few
// apart).
const rowsShare = 0.25

// decodeRows returns the array of type dt holding the rows sel names of
// the column a chunk holds, or ok false when the column is not one this
// path takes (not fixed-width, with NULLs, booleans); the caller then
// decodes it whole. The chunk is checked as decode checks it.
func (d *chunkDecoder) decodeRows(dt arrow.DataType, src []byte, limit int64, sel []int32) (arr arrow.Array, ok bool, err error) {
	f := formOf(dt)
	if f.form != formFixed || f.width == 0 {
		return nil, false, nil
	}
	c, err := parseChunk(src, limit)
	if err != nil {
		return nil, false, err
	}
	if c.form != formFixed {
		return nil, false, corrupt("chunk form %d for a %s column (form %d)", c.form, dt, formFixed)
	}
	if c.nulls > 0 {
		return nil, false, nil
	}
	if c.specs[0].final != 0 {
		return nil, false, corrupt("a validity bitmap in a column without nulls")
	}
	s := c.specs[1]
	if s.final != c.rows*f.width {
		return nil, false, corrupt("part 1 holds %d bytes, the column needs %d", s.final, c.rows*f.width)
	}
	narrowed := s.flags&partNarrowed != 0
	width := f.width // of the values before widening
	if narrowed {
		width = 8
	}
	for _, r := range sel {
		if r < 0 || int(r) >= c.rows {
			return nil, false, corrupt("row %d of a %d-row chunk", r, c.rows)
		}
	}
	inner, err := d.inner(c, 1, c.rows*width)
	if err != nil {
		return nil, false, err
	}
	buf := d.partBuffer(len(sel) * f.width)
	out := buf.Bytes()
	vals := out
	if narrowed {
		d.wide = resizeDiscarding(d.wide, 8*len(sel))
		vals = d.wide
	}
	if s.flags&partEncoded != 0 {
		n, _, _, err := colenc.DecodedLen(inner, c.rows*width)
		if err == nil && n != c.rows*width {
			err = corrupt("part 1 decodes to %d values, the column has %d", n/width, c.rows)
		}
		if err != nil {
			buf.Release()
			return nil, false, err
		}
		got, err := colenc.DecodeRows(vals[:0:len(vals)], inner, c.rows*width, sel)
		if err == nil && len(got) != len(vals) {
			err = corrupt("part 1 decodes to %d values, the column has %d", len(got)/width, c.rows)
		}
		if err != nil {
			buf.Release()
			return nil, false, corrupt("part 1: %v", err)
		}
	} else {
		if len(inner) != c.rows*width {
			buf.Release()
			return nil, false, corrupt("part 1: %d bytes for %d values of %d", len(inner), c.rows, width)
		}
		for j, r := range sel {
			copy(vals[j*width:j*width+width], inner[int(r)*width:])
		}
	}
	if narrowed {
		widenInto(arrow.Uint64Traits.CastFromBytes(out)[:2*len(sel)], arrow.Int64Traits.CastFromBytes(vals)[:len(sel)])
	}
	data := array.NewData(dt, len(sel), []*memory.Buffer{nil, buf}, nil, 0, 0)
	buf.Release()
	defer data.Release()
	return array.MakeFromData(data), true, nil
}
