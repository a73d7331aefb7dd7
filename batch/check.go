package batch

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// check validates one field's buffers and children against its node. It
// is the whole of the trust boundary for array contents: after it passes,
// every offset, size, view, type id and run end points inside its buffers.
func (a *assembler) check(dt arrow.DataType, lay layout, width int, n, nulls int64, bufs []*memory.Buffer, children []arrow.ArrayData) error {
	hasValidity := lay != layoutNull && lay != layoutRunEnd && lay != layoutSparseUnion && lay != layoutDenseUnion
	if hasValidity && nulls > 0 {
		if !bitmapFits(bufs[0], n) {
			return fmt.Errorf("%d nulls but a validity bitmap of %d bytes for %d rows", nulls, blen(bufs[0]), n)
		}
		// arrow-go takes NullN() on trust (its IPC writer sends an
		// all-zero bitmap when the count says all null); it must be the
		// bitmap's.
		if got := n - int64(bitutil.CountSetBits(bufs[0].Bytes(), 0, int(n))); got != nulls {
			return fmt.Errorf("null count %d, but the validity bitmap has %d nulls in %d rows", nulls, got, n)
		}
	}
	switch lay {
	case layoutBool:
		if !bitmapFits(bufs[1], n) {
			return fmt.Errorf("%d rows need %d value bytes, have %d", n, bitutil.BytesForBits(n), blen(bufs[1]))
		}
	case layoutFixed:
		if need := n * int64(width); blen(bufs[1]) < need {
			return fmt.Errorf("%d rows of %d bytes need %d value bytes, have %d", n, width, need, blen(bufs[1]))
		}
	case layoutVarBinary, layoutList:
		limit := blen(bufs[len(bufs)-1])
		if lay == layoutList {
			limit = int64(children[0].Len())
		}
		return checkOffsets(bufs[1], 4, n, limit)
	case layoutLargeVar, layoutLargeList:
		limit := blen(bufs[len(bufs)-1])
		if lay == layoutLargeList {
			limit = int64(children[0].Len())
		}
		return checkOffsets(bufs[1], 8, n, limit)
	case layoutListView, layoutLargeView:
		w := 4
		if lay == layoutLargeView {
			w = 8
		}
		return checkListViews(bufs[1], bufs[2], w, n, int64(children[0].Len()))
	case layoutView:
		return checkViews(bufs[1], bufs[2:], n)
	case layoutFixedList:
		size := int64(physical(dt).(*arrow.FixedSizeListType).Len())
		if int64(children[0].Len()) < n*size {
			return fmt.Errorf("%d lists of %d need %d child values, have %d", n, size, n*size, children[0].Len())
		}
	case layoutStruct:
		for i, c := range children {
			if int64(c.Len()) < n {
				return fmt.Errorf("struct of %d rows has field %d of %d rows", n, i, c.Len())
			}
		}
	case layoutSparseUnion, layoutDenseUnion:
		return checkUnion(physical(dt).(arrow.UnionType), lay == layoutDenseUnion, bufs, n, children)
	case layoutRunEnd:
		if nulls != 0 {
			// The format gives a run-end encoded array no validity and a
			// null count of 0 (its nulls are null values); arrow-go's
			// ValidateFull refuses any other count.
			return fmt.Errorf("run-end encoded array has null count %d, want 0", nulls)
		}
		return checkRunEnds(children[0], children[1], n)
	}
	return nil
}

// checkOffsets checks n+1 offsets of width bytes: non-decreasing, from
// zero or more, ending at most at limit (data bytes or child length).
func checkOffsets(b *memory.Buffer, width int, n, limit int64) error {
	if n == 0 && blen(b) == 0 {
		return nil
	}
	if need := (n + 1) * int64(width); blen(b) < need {
		return fmt.Errorf("%d rows need %d offset bytes, have %d", n, need, blen(b))
	}
	if width == 4 {
		return checkOffsetRun(arrow.Int32Traits.CastFromBytes(b.Bytes())[:n+1], limit)
	}
	return checkOffsetRun(arrow.Int64Traits.CastFromBytes(b.Bytes())[:n+1], limit)
}

// checkOffsetRun is checkOffsets' loop on a typed slice: it runs for every
// variable-width buffer decoded, so it is kept to one compare per offset.
func checkOffsetRun[T int32 | int64](offs []T, limit int64) error {
	prev := offs[0]
	if prev < 0 {
		return fmt.Errorf("first offset %d is negative", prev)
	}
	for i, o := range offs[1:] {
		if o < prev {
			return fmt.Errorf("offset %d at row %d is below offset %d before it", o, i+1, prev)
		}
		prev = o
	}
	if int64(prev) > limit {
		return fmt.Errorf("last offset %d passes the %d values present", prev, limit)
	}
	return nil
}

func readInt(b []byte, i, width int) int64 {
	switch width {
	case 1:
		return int64(int8(b[i]))
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(b[i*2:])))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(b[i*4:])))
	}
	return int64(binary.LittleEndian.Uint64(b[i*8:]))
}

func checkListViews(offs, sizes *memory.Buffer, width int, n, childLen int64) error {
	if n == 0 {
		return nil
	}
	need := n * int64(width)
	if blen(offs) < need || blen(sizes) < need {
		return fmt.Errorf("%d list views need %d offset and size bytes, have %d and %d", n, need, blen(offs), blen(sizes))
	}
	for i := range int(n) {
		o, s := readInt(offs.Bytes(), i, width), readInt(sizes.Bytes(), i, width)
		if o < 0 || s < 0 || o > childLen || s > childLen-o {
			return fmt.Errorf("list view %d at [%d, +%d) outside the %d child values", i, o, s, childLen)
		}
	}
	return nil
}

// checkViews checks that every non-inline view points inside its data
// buffer.
func checkViews(views *memory.Buffer, data []*memory.Buffer, n int64) error {
	if n == 0 {
		return nil
	}
	if need := n * int64(arrow.ViewHeaderSizeBytes); blen(views) < need {
		return fmt.Errorf("%d views need %d bytes, have %d", n, need, blen(views))
	}
	vb := views.Bytes()
	for i := range int(n) {
		v := vb[i*arrow.ViewHeaderSizeBytes:]
		size := int64(int32(binary.LittleEndian.Uint32(v)))
		if size < 0 {
			return fmt.Errorf("view %d has negative length %d", i, size)
		}
		if size <= arrow.ViewPrefixLen+8 {
			// Inline: the bytes after the value are padding and must be
			// zero, or two equal values would compare unequal.
			for _, p := range v[4+size : arrow.ViewHeaderSizeBytes] {
				if p != 0 {
					return fmt.Errorf("inline view %d of %d bytes has non-zero padding", i, size)
				}
			}
			continue
		}
		idx := int64(int32(binary.LittleEndian.Uint32(v[8:])))
		off := int64(int32(binary.LittleEndian.Uint32(v[12:])))
		if idx < 0 || idx >= int64(len(data)) {
			return fmt.Errorf("view %d names data buffer %d of %d", i, idx, len(data))
		}
		if off < 0 || off+size > blen(data[idx]) {
			return fmt.Errorf("view %d at [%d, +%d) outside data buffer %d of %d bytes", i, off, size, idx, blen(data[idx]))
		}
		// The view repeats the value's first bytes; comparisons trust them.
		if !bytes.Equal(v[4:4+arrow.ViewPrefixLen], data[idx].Bytes()[off:off+arrow.ViewPrefixLen]) {
			return fmt.Errorf("view %d prefix % x differs from its data % x", i, v[4:8], data[idx].Bytes()[off:off+4])
		}
	}
	return nil
}

func checkUnion(ut arrow.UnionType, dense bool, bufs []*memory.Buffer, n int64, children []arrow.ArrayData) error {
	if n == 0 {
		return nil
	}
	if blen(bufs[0]) < n {
		return fmt.Errorf("%d rows need %d type id bytes, have %d", n, n, blen(bufs[0]))
	}
	if dense && blen(bufs[1]) < n*4 {
		return fmt.Errorf("%d rows need %d dense offset bytes, have %d", n, n*4, blen(bufs[1]))
	}
	if !dense {
		// arrow-go slices every child of a sparse union to the union's
		// rows when it builds the array, used by a row or not.
		for i, c := range children {
			if int64(c.Len()) < n {
				return fmt.Errorf("sparse union of %d rows has child %d of %d rows", n, i, c.Len())
			}
		}
	}
	codes := ut.ChildIDs()
	ids := bufs[0].Bytes()
	last := make([]int64, len(children)) // dense: offsets per child only grow
	for i := range int(n) {
		code := int8(ids[i])
		if code < 0 || int(code) >= len(codes) || codes[code] == arrow.InvalidUnionChildID {
			return fmt.Errorf("row %d has type id %d, not in the union", i, code)
		}
		child := children[codes[code]]
		if dense {
			o := readInt(bufs[1].Bytes(), i, 4)
			if o < 0 || o >= int64(child.Len()) {
				return fmt.Errorf("row %d points at offset %d of a %d-row child", i, o, child.Len())
			}
			if o < last[codes[code]] {
				return fmt.Errorf("row %d has offset %d, below the %d before it for the same child", i, o, last[codes[code]])
			}
			last[codes[code]] = o
		}
	}
	return nil
}

// checkRunEnds checks run ends: no nulls, positive, strictly increasing,
// the last one covering n, and one value per run.
func checkRunEnds(ends, values arrow.ArrayData, n int64) error {
	runs := ends.Len()
	if n == 0 {
		return nil
	}
	if ends.NullN() != 0 {
		return fmt.Errorf("run ends contain %d nulls", ends.NullN())
	}
	if runs == 0 || values.Len() < runs {
		return fmt.Errorf("%d runs and %d values for %d rows", runs, values.Len(), n)
	}
	prev := int64(0)
	for i := range runs {
		e := runEndAt(ends, i)
		if e <= prev {
			return fmt.Errorf("run end %d at run %d does not pass %d", e, i, prev)
		}
		prev = e
	}
	if prev < n {
		return fmt.Errorf("runs end at %d, before the %d rows", prev, n)
	}
	return nil
}

// checkIndices checks that every valid dictionary index is in range.
func checkIndices(idx *memory.Buffer, indexType arrow.DataType, n, nulls int64, validity *memory.Buffer, dictLen int) error {
	width := indexType.(arrow.FixedWidthDataType).BitWidth() / 8
	unsigned := !arrow.IsSignedInteger(indexType.ID())
	if n == 0 {
		return nil
	}
	b := idx.Bytes()
	var vb []byte
	if nulls > 0 && validity != nil {
		vb = validity.Bytes()
	}
	for i := range int(n) {
		if vb != nil && !bitutil.BitIsSet(vb, i) {
			continue
		}
		v := readInt(b, i, width)
		if unsigned && width < 8 {
			v &= 1<<(8*width) - 1
		}
		if v < 0 || v >= int64(dictLen) {
			return fmt.Errorf("row %d has dictionary index %d, dictionary has %d values", i, v, dictLen)
		}
	}
	return nil
}
