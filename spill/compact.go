package spill

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// compact returns d (retained) or a copy of it whose view arrays, at any
// depth, hold only the bytes of the rows that will be written. The batch
// layer already cuts sliced arrays of every other layout to the slice,
// but writes a view array's data buffers whole: a 10-row slice of a view
// column over a 100 MB buffer would spill 100 MB (DataFusion #19414).
// Dictionaries are left as they are (the encoder writes each once, not
// per batch).
func compact(d arrow.ArrayData, mem memory.Allocator) arrow.ArrayData {
	return compactRows(d, 0, d.Len(), mem)
}

// compactRows is compact for an array of which only the rows [lo, hi)
// (relative to its offset) are written: a child of a sliced parent.
func compactRows(d arrow.ArrayData, lo, hi int, mem memory.Allocator) arrow.ArrayData {
	switch physicalID(d.DataType()) {
	case arrow.STRING_VIEW, arrow.BINARY_VIEW:
		return gcViews(d, lo, hi, mem)
	case arrow.DICTIONARY:
		d.Retain()
		return d
	}
	kids := d.Children()
	clo, chi, cut := childRows(d, lo, hi)
	var out []arrow.ArrayData
	for i, c := range kids {
		var nc arrow.ArrayData
		if cut {
			nc = compactRows(c, clo, chi, mem)
		} else {
			nc = compactRows(c, 0, c.Len(), mem)
		}
		if nc == c && out == nil {
			nc.Release()
			continue
		}
		if out == nil {
			out = make([]arrow.ArrayData, len(kids))
			for j := range i {
				out[j] = kids[j]
				out[j].Retain()
			}
		}
		out[i] = nc
	}
	if out == nil {
		d.Retain()
		return d
	}
	defer releaseData(out)
	return array.NewData(d.DataType(), d.Len(), d.Buffers(), out, d.NullN(), d.Offset())
}

// childRows returns the rows of d's children that its rows [lo, hi) use,
// as the batch layer cuts them; cut is false where it writes children
// whole (dense unions, run-end encoded values).
func childRows(d arrow.ArrayData, lo, hi int) (clo, chi int, cut bool) {
	o := d.Offset()
	switch t := physicalType(d.DataType()).(type) {
	case *arrow.StructType, *arrow.SparseUnionType:
		return o + lo, o + hi, true
	case *arrow.FixedSizeListType:
		k := int(t.Len())
		return (o + lo) * k, (o + hi) * k, true
	case *arrow.ListType, *arrow.MapType:
		if lo == hi {
			return 0, 0, true
		}
		offs := arrow.Int32Traits.CastFromBytes(bufferBytes(d, 1))
		return int(offs[o+lo]), int(offs[o+hi]), true
	case *arrow.LargeListType:
		if lo == hi {
			return 0, 0, true
		}
		offs := arrow.Int64Traits.CastFromBytes(bufferBytes(d, 1))
		return int(offs[o+lo]), int(offs[o+hi]), true
	case *arrow.ListViewType:
		offs, sizes := arrow.Int32Traits.CastFromBytes(bufferBytes(d, 1)), arrow.Int32Traits.CastFromBytes(bufferBytes(d, 2))
		return viewSpan(hi-lo, func(i int) (int, int) { return int(offs[o+lo+i]), int(sizes[o+lo+i]) })
	case *arrow.LargeListViewType:
		offs, sizes := arrow.Int64Traits.CastFromBytes(bufferBytes(d, 1)), arrow.Int64Traits.CastFromBytes(bufferBytes(d, 2))
		return viewSpan(hi-lo, func(i int) (int, int) { return int(offs[o+lo+i]), int(sizes[o+lo+i]) })
	}
	return 0, 0, false
}

// viewSpan is the smallest child range covering n list views.
func viewSpan(n int, at func(int) (off, size int)) (lo, hi int, cut bool) {
	lo = -1
	for i := range n {
		if off, size := at(i); size > 0 {
			if lo < 0 || off < lo {
				lo = off
			}
			hi = max(hi, off+size)
		}
	}
	if lo < 0 {
		return 0, 0, true
	}
	return lo, hi, true
}

func releaseData(ds []arrow.ArrayData) {
	for _, d := range ds {
		if d != nil {
			d.Release()
		}
	}
}

// physicalType is dt's storage type (dt unless it is an extension).
func physicalType(dt arrow.DataType) arrow.DataType {
	for {
		ext, ok := dt.(arrow.ExtensionType)
		if !ok {
			return dt
		}
		dt = ext.StorageType()
	}
}

func physicalID(dt arrow.DataType) arrow.Type { return physicalType(dt).ID() }

// gcViews copies the bytes that the rows [lo, hi) of a view array use
// into new data buffers (at most 2 GiB each; views address them with
// int32 offsets), unless the array's data buffers hold no more than that
// already. Rows outside [lo, hi) become empty views: nothing writes them.
func gcViews(d arrow.ArrayData, lo, hi int, mem memory.Allocator) arrow.ArrayData {
	views := viewHeaders(d)
	var used int64
	for i := lo; i < hi; i++ {
		if !views[i].IsInline() && isValid(d, i) {
			used += int64(views[i].Len())
		}
	}
	var have int64
	for _, b := range d.Buffers()[2:] {
		if b != nil {
			have += int64(b.Len())
		}
	}
	if used >= have {
		d.Retain()
		return d
	}
	n := d.Len()
	viewsBuf := newBuffer(mem, n*arrow.ViewHeaderSizeBytes)
	defer viewsBuf.Release()
	clear(viewsBuf.Bytes())
	out := arrow.ViewHeaderTraits.CastFromBytes(viewsBuf.Bytes())
	var bufs []*memory.Buffer
	var fill []int // bytes used of each of bufs
	var cur []byte
	for i := lo; i < hi; i++ {
		if !isValid(d, i) {
			continue // a zero view: length 0
		}
		out[i] = views[i]
		if views[i].IsInline() {
			continue
		}
		l := views[i].Len()
		if len(cur)+l > cap(cur) || cur == nil {
			// The next buffer holds the rest, up to 2 GiB.
			size := int(min(used, math.MaxInt32))
			b := newBuffer(mem, size)
			defer b.Release()
			bufs, fill = append(bufs, b), append(fill, 0)
			cur = b.Bytes()[:0:size]
		}
		out[i].SetIndexOffset(int32(len(bufs)-1), int32(len(cur)))
		cur = append(cur, viewBytes(d, &views[i])...)
		fill[len(fill)-1] = len(cur)
		used -= int64(l)
	}
	for j, b := range bufs {
		if fill[j] < b.Len() { // cut short where a value did not fit
			bufs[j] = memory.SliceBuffer(b, 0, fill[j])
			defer bufs[j].Release()
		}
	}
	validity := validitySlice(d, mem)
	if validity != nil {
		defer validity.Release()
	}
	return array.NewData(d.DataType(), n, append([]*memory.Buffer{validity, viewsBuf}, bufs...), nil, nullCountOf(d), 0)
}
