package spill

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// decodeLengths rebuilds a column of type dt (kind k) from its spill form
// s, as decoded from the file. The batch layer has checked s as an Arrow
// array; this checks what Arrow cannot know: that the lengths are not
// negative, that they add up to exactly the bytes of the one run, and
// that there is one run. Errors are plain; the caller names file, batch
// and column and wraps ErrCorrupt.
func decodeLengths(s arrow.ArrayData, k colKind, dt arrow.DataType, mem memory.Allocator) (arrow.ArrayData, error) {
	n := s.Len()
	kids := s.Children()
	if s.Offset() != 0 || len(kids) != 2 || kids[0].Offset() != 0 || kids[0].Len() < n {
		return nil, fmt.Errorf("lengths struct of %d rows at offset %d with %d children", n, s.Offset(), len(kids))
	}
	if kids[0].NullN() != 0 {
		return nil, fmt.Errorf("%d null lengths", kids[0].NullN())
	}
	data, err := runBytes(kids[1], n)
	if err != nil {
		return nil, err
	}
	defer data.Release()
	validity := s.Buffers()[0]
	nulls := s.NullN()
	if nulls == 0 {
		validity = nil
	}
	lens := bufferBytes(kids[0], 1)
	switch k {
	case colLengths:
		return rebuild32(dt, n, arrow.Int32Traits.CastFromBytes(lens)[:n], data, validity, nulls, mem)
	case colLargeLengths:
		return rebuild64(dt, n, arrow.Int64Traits.CastFromBytes(lens)[:n], data, validity, nulls, mem)
	case colViewLengths:
		return rebuildViews(dt, n, arrow.Int32Traits.CastFromBytes(lens)[:n], data, validity, nulls, mem)
	}
	panic("spill: decodeLengths of a column written as it is")
}

// runBytes returns (retained) the bytes of the single run of the REE
// child ree of a lengths struct of n rows.
func runBytes(ree arrow.ArrayData, n int) (*memory.Buffer, error) {
	kids := ree.Children()
	if ree.Offset() != 0 || ree.Len() != n || len(kids) != 2 {
		return nil, fmt.Errorf("bytes run of %d rows at offset %d, want %d rows", ree.Len(), ree.Offset(), n)
	}
	ends, values := kids[0], kids[1]
	runs := min(n, 1)
	if ends.Len() != runs || values.Len() < runs {
		return nil, fmt.Errorf("%d runs over %d values, want %d", ends.Len(), values.Len(), runs)
	}
	if runs == 0 {
		return memory.NewBufferBytes(nil), nil
	}
	if end := binary.LittleEndian.Uint32(bufferBytes(ends, 1)[4*ends.Offset():]); end != uint32(n) {
		return nil, fmt.Errorf("run ends at %d, want %d", int32(end), n)
	}
	if !isValid(values, 0) {
		return nil, fmt.Errorf("the run's value is null")
	}
	var start, end int64
	o := values.Offset()
	switch values.DataType().ID() {
	case arrow.BINARY:
		offs := arrow.Int32Traits.CastFromBytes(bufferBytes(values, 1))
		start, end = int64(offs[o]), int64(offs[o+1])
	case arrow.LARGE_BINARY:
		offs := arrow.Int64Traits.CastFromBytes(bufferBytes(values, 1))
		start, end = offs[o], offs[o+1]
	default:
		return nil, fmt.Errorf("run values of type %s", values.DataType())
	}
	src := values.Buffers()[2]
	if start == end || src == nil {
		return memory.NewBufferBytes(nil), nil
	}
	return memory.SliceBuffer(src, int(start), int(end-start)), nil
}

// rebuild32 turns lengths back into int32 offsets (a prefix sum, checked
// at each step so that a hostile length can neither overflow nor point
// past the bytes) and returns the Utf8 or Binary array.
func rebuild32(dt arrow.DataType, n int, lens []int32, data *memory.Buffer, validity *memory.Buffer, nulls int, mem memory.Allocator) (arrow.ArrayData, error) {
	total := int64(data.Len())
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("%d value bytes for a %s column (int32 offsets)", total, dt)
	}
	offsBuf := newBuffer(mem, (n+1)*4)
	defer offsBuf.Release()
	offs := arrow.Int32Traits.CastFromBytes(offsBuf.Bytes())
	var sum int32
	offs[0] = 0
	for i, l := range lens {
		if l < 0 || l > int32(total)-sum {
			return nil, fmt.Errorf("row %d: length %d with %d of %d value bytes used", i, l, sum, total)
		}
		sum += l
		offs[i+1] = sum
	}
	if int64(sum) != total {
		return nil, fmt.Errorf("lengths add up to %d, the run holds %d bytes", sum, total)
	}
	return array.NewData(dt, n, []*memory.Buffer{validity, offsBuf, data}, nil, nulls, 0), nil
}

// rebuild64 is rebuild32 for LargeUtf8 and LargeBinary.
func rebuild64(dt arrow.DataType, n int, lens []int64, data *memory.Buffer, validity *memory.Buffer, nulls int, mem memory.Allocator) (arrow.ArrayData, error) {
	total := int64(data.Len())
	offsBuf := newBuffer(mem, (n+1)*8)
	defer offsBuf.Release()
	offs := arrow.Int64Traits.CastFromBytes(offsBuf.Bytes())
	var sum int64
	offs[0] = 0
	for i, l := range lens {
		if l < 0 || l > total-sum {
			return nil, fmt.Errorf("row %d: length %d with %d of %d value bytes used", i, l, sum, total)
		}
		sum += l
		offs[i+1] = sum
	}
	if sum != total {
		return nil, fmt.Errorf("lengths add up to %d, the run holds %d bytes", sum, total)
	}
	return array.NewData(dt, n, []*memory.Buffer{validity, offsBuf, data}, nil, nulls, 0), nil
}

// rebuildViews makes StringView or BinaryView views over the run's bytes:
// values of up to 12 bytes inline, longer ones pointing into the run,
// which is cut into data buffers of at most 2 GiB (view offsets are
// int32) at value boundaries.
func rebuildViews(dt arrow.DataType, n int, lens []int32, data *memory.Buffer, validity *memory.Buffer, nulls int, mem memory.Allocator) (arrow.ArrayData, error) {
	total := int64(data.Len())
	viewsBuf := newBuffer(mem, n*arrow.ViewHeaderSizeBytes)
	defer viewsBuf.Release()
	views := arrow.ViewHeaderTraits.CastFromBytes(viewsBuf.Bytes())
	clear(viewsBuf.Bytes())
	bytes := data.Bytes()
	var pos, chunk int64 // chunk: where the current data buffer starts in the run
	var cuts []int64     // starts of the data buffers after the first
	for i, l := range lens {
		if l < 0 || int64(l) > total-pos {
			return nil, fmt.Errorf("row %d: length %d with %d of %d value bytes used", i, l, pos, total)
		}
		v := bytes[pos : pos+int64(l)]
		views[i].SetBytes(v)
		if !arrow.IsViewInline(int(l)) {
			if pos+int64(l)-chunk > math.MaxInt32 {
				chunk = pos
				cuts = append(cuts, pos)
			}
			views[i].SetIndexOffset(int32(len(cuts)), int32(pos-chunk))
		}
		pos += int64(l)
	}
	if pos != total {
		return nil, fmt.Errorf("lengths add up to %d, the run holds %d bytes", pos, total)
	}
	bufs := []*memory.Buffer{validity, viewsBuf}
	start := int64(0)
	for _, c := range append(cuts, total) {
		b := memory.SliceBuffer(data, int(start), int(c-start))
		defer b.Release()
		bufs = append(bufs, b)
		start = c
	}
	return array.NewData(dt, n, bufs, nil, nulls, 0), nil
}
