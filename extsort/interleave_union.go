package extsort

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Unions, which arrow-go cannot concatenate: type codes are copied like
// any fixed-width buffer; a sparse union's children are gathered row for
// row with it, a dense union's each get the rows that point into them.

func interleaveSparseUnion(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, segs []segment, rows int) (arrow.ArrayData, error) {
	ut := dt.(*arrow.SparseUnionType)
	children := make([]arrow.ArrayData, len(ut.Fields()))
	fields := make([]arrow.Array, len(srcs))
	for i := range children {
		for k, a := range srcs {
			fields[k] = a.(*array.SparseUnion).Field(i)
		}
		c, err := interleaveData(mem, ut.Fields()[i].Type, fields, segs, rows)
		if err != nil {
			releaseData(children[:i])
			return nil, err
		}
		children[i] = c
	}
	codes := interleaveFixed(mem, srcs, segs, rows, 1)
	d := array.NewData(dt, rows, []*memory.Buffer{nil, codes}, children, 0, 0)
	releaseData(children)
	return releasing(d, codes), nil
}

func interleaveDenseUnion(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, segs []segment, rows int) (arrow.ArrayData, error) {
	ut := dt.(*arrow.DenseUnionType)
	nf := len(ut.Fields())
	per := make([]Interleave, nf) // rows of each child, from the sources' children
	offBuf := newBuffer(mem, rows*4)
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	at := 0
	for _, s := range segs {
		a := srcs[s.src].(*array.DenseUnion)
		for i := s.start; i < s.start+s.n; i++ {
			c := a.ChildID(i)
			o := int(a.ValueOffset(i))
			if c < 0 || c >= nf || o < 0 || o >= a.Field(c).Len() {
				offBuf.Release()
				return nil, fmt.Errorf("%w: dense union row %d points at child %d row %d", ErrInput, i, c, o)
			}
			offs[at] = int32(per[c].rows)
			per[c].Add(s.src, o)
			at++
		}
	}
	children := make([]arrow.ArrayData, nf)
	fields := make([]arrow.Array, len(srcs))
	for c := range children {
		for k, a := range srcs {
			fields[k] = a.(*array.DenseUnion).Field(c)
		}
		d, err := interleaveData(mem, ut.Fields()[c].Type, fields, per[c].segs, per[c].rows)
		if err != nil {
			releaseData(children[:c])
			offBuf.Release()
			return nil, err
		}
		children[c] = d
	}
	codes := interleaveFixed(mem, srcs, segs, rows, 1)
	d := array.NewData(dt, rows, []*memory.Buffer{nil, codes, offBuf}, children, 0, 0)
	releaseData(children)
	return releasing(d, codes, offBuf), nil
}

func releaseData(ds []arrow.ArrayData) {
	for _, d := range ds {
		if d != nil {
			d.Release()
		}
	}
}
