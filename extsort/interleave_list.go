package extsort

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Lists and maps: a stretch of rows is a stretch of the child, so the
// child is gathered through the same code as any column (dictionaries
// inside lists get unified, strings copied in bulk), and the offsets are
// rebased.

// childArrays returns each source's child array, whole (offsets index into
// it); the caller releases them.
func childArrays(srcs []arrow.Array) []arrow.Array {
	out := make([]arrow.Array, len(srcs))
	for k, a := range srcs {
		out[k] = array.MakeFromData(a.Data().Children()[0])
	}
	return out
}

func interleaveList[T int32 | int64](mem memory.Allocator, dt arrow.DataType, child arrow.DataType, srcs []arrow.Array, segs []segment, rows, width int, cast func([]byte) []T) (arrow.ArrayData, error) {
	offsetsOf := func(a arrow.Array) []T {
		d := a.Data()
		return cast(d.Buffers()[1].Bytes())[d.Offset():]
	}
	var cg Interleave
	for _, s := range segs {
		o := offsetsOf(srcs[s.src])
		cg.AddRange(s.src, int(o[s.start]), int(o[s.start+s.n]-o[s.start]))
	}
	if width == 4 && cg.rows > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d list values in %d rows", ErrTooLarge, cg.rows, rows)
	}
	offBuf := newBuffer(mem, (rows+1)*width)
	offs := cast(offBuf.Bytes())
	offs[0] = 0
	at := 0
	var pos T
	for _, s := range segs {
		o := offsetsOf(srcs[s.src])
		base := o[s.start]
		for k := 1; k <= s.n; k++ {
			offs[at+k] = o[s.start+k] - base + pos
		}
		pos += o[s.start+s.n] - base
		at += s.n
	}
	children := childArrays(srcs)
	defer releaseAll(children)
	c, err := interleaveData(mem, child, children, cg.segs, cg.rows)
	if err != nil {
		offBuf.Release()
		return nil, err
	}
	defer c.Release()
	valid, nulls := interleaveValidity(mem, srcs, segs, rows)
	d := array.NewData(dt, rows, []*memory.Buffer{valid, offBuf}, []arrow.ArrayData{c}, nulls, 0)
	return releasing(d, valid, offBuf), nil
}

func interleaveFixedSizeList(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, segs []segment, rows int) (arrow.ArrayData, error) {
	t := dt.(*arrow.FixedSizeListType)
	size := int(t.Len())
	var cg Interleave
	for _, s := range segs {
		off := srcs[s.src].Data().Offset()
		cg.AddRange(s.src, (off+s.start)*size, s.n*size)
	}
	children := childArrays(srcs)
	defer releaseAll(children)
	c, err := interleaveData(mem, t.Elem(), children, cg.segs, cg.rows)
	if err != nil {
		return nil, err
	}
	defer c.Release()
	valid, nulls := interleaveValidity(mem, srcs, segs, rows)
	d := array.NewData(dt, rows, []*memory.Buffer{valid}, []arrow.ArrayData{c}, nulls, 0)
	return releasing(d, valid), nil
}
