package batch

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch/internal/meta"
)

// flattener turns arrays into the field nodes and buffers of a RecordBatch
// message, in IPC order. Sliced arrays are written compactly: buffers are
// cut to the slice, bitmaps at an unaligned offset are shifted into a
// temporary buffer, offsets are rebased to start at zero, so a message
// never carries a parent buffer's unused bytes (except variadic view data
// and dense union children, which are written whole).
type flattener struct {
	alloc    memory.Allocator
	nodes    []meta.FieldNode
	bufs     [][]byte
	variadic []int64
	temps    []*memory.Buffer // released by reset
}

func (f *flattener) reset() {
	for _, b := range f.temps {
		b.Release()
	}
	clear(f.temps)
	f.temps = f.temps[:0]
	f.nodes = f.nodes[:0]
	clear(f.bufs)
	f.bufs = f.bufs[:0]
	f.variadic = f.variadic[:0]
}

// temp returns a zeroed temporary buffer of n bytes, released by reset.
func (f *flattener) temp(n int) []byte {
	b := memory.NewResizableBuffer(f.alloc)
	b.Resize(n)
	f.temps = append(f.temps, b)
	out := b.Bytes()[:n]
	clear(out)
	return out
}

// bytesOf returns buffer i of d, or nil when it is absent.
func bytesOf(d arrow.ArrayData, i int) []byte {
	bs := d.Buffers()
	if i >= len(bs) || bs[i] == nil {
		return nil
	}
	return bs[i].Bytes()
}

// add flattens one array and its children.
func (f *flattener) add(d arrow.ArrayData) error {
	lay, width := layoutOf(d.DataType())
	length, off := d.Len(), d.Offset()
	nulls := nullCount(d)
	switch lay {
	case layoutNull:
		f.nodes = append(f.nodes, meta.FieldNode{Length: int64(length), NullCount: int64(length)})
		return nil
	case layoutRunEnd, layoutSparseUnion, layoutDenseUnion:
		nulls = 0 // these types have no validity of their own
	}
	if width < 0 {
		return fmt.Errorf("%w: cannot write type %s", ErrUnsupported, d.DataType())
	}
	if lay == layoutFixed && width == 0 && length > 0 {
		// The decoder refuses these (see assembler.build); write nothing
		// it cannot read back.
		return fmt.Errorf("%w: cannot write %d values of %s (width 0)", ErrUnsupported, length, d.DataType())
	}
	f.nodes = append(f.nodes, meta.FieldNode{Length: int64(length), NullCount: int64(nulls)})
	if lay != layoutRunEnd && lay != layoutSparseUnion && lay != layoutDenseUnion {
		f.addValidity(d, nulls)
	}
	switch lay {
	case layoutBool:
		f.bufs = append(f.bufs, f.bitmap(bytesOf(d, 1), off, length))
	case layoutFixed:
		f.bufs = append(f.bufs, fixedSlice(bytesOf(d, 1), off, length, width))
	case layoutVarBinary:
		f.addVarBinary32(d)
	case layoutLargeVar:
		f.addVarBinary64(d)
	case layoutView:
		f.bufs = append(f.bufs, fixedSlice(bytesOf(d, 1), off, length, arrow.ViewHeaderSizeBytes))
		data := d.Buffers()[2:]
		for _, b := range data {
			f.bufs = append(f.bufs, bufBytes(b))
		}
		f.variadic = append(f.variadic, int64(len(data)))
	case layoutList, layoutLargeList:
		return f.addList(d, lay == layoutLargeList)
	case layoutListView, layoutLargeView:
		return f.addListView(d, lay == layoutLargeView)
	case layoutFixedList:
		n := int64(physical(d.DataType()).(*arrow.FixedSizeListType).Len())
		return f.addSliced(d.Children()[0], int64(off)*n, int64(off+length)*n)
	case layoutStruct:
		for _, c := range d.Children() {
			if err := f.addSliced(c, int64(off), int64(off+length)); err != nil {
				return err
			}
		}
	case layoutSparseUnion:
		f.bufs = append(f.bufs, fixedSlice(bytesOf(d, 1), off, length, 1))
		for _, c := range d.Children() {
			if err := f.addSliced(c, int64(off), int64(off+length)); err != nil {
				return err
			}
		}
	case layoutDenseUnion:
		f.bufs = append(f.bufs, fixedSlice(bytesOf(d, 1), off, length, 1))
		f.bufs = append(f.bufs, fixedSlice(bytesOf(d, 2), off, length, 4))
		for _, c := range d.Children() {
			if err := f.add(c); err != nil {
				return err
			}
		}
	case layoutRunEnd:
		return f.addRunEnd(d)
	}
	return nil
}

func bufBytes(b *memory.Buffer) []byte {
	if b == nil {
		return nil
	}
	return b.Bytes()
}

// addSliced flattens the rows [i, j) of a child array.
func (f *flattener) addSliced(c arrow.ArrayData, i, j int64) error {
	if i == 0 && j == int64(c.Len()) {
		return f.add(c)
	}
	s := array.NewSliceData(c, i, j)
	defer s.Release()
	return f.add(s)
}

func (f *flattener) addValidity(d arrow.ArrayData, nulls int) {
	if nulls == 0 {
		f.bufs = append(f.bufs, nil)
		return
	}
	f.bufs = append(f.bufs, f.bitmap(bytesOf(d, 0), d.Offset(), d.Len()))
}

// bitmap returns length bits of src starting at bit off, as bytes starting
// at bit 0: a subslice when off is byte-aligned, else a shifted copy.
func (f *flattener) bitmap(src []byte, off, length int) []byte {
	n := int(bitutil.BytesForBits(int64(length)))
	if off%8 == 0 {
		return src[off/8 : off/8+n]
	}
	dst := f.temp(n)
	bitutil.CopyBitmap(src, off, length, dst, 0)
	return dst
}

func fixedSlice(src []byte, off, length, width int) []byte {
	if length == 0 {
		return nil
	}
	return src[off*width : (off+length)*width]
}

func (f *flattener) addVarBinary32(d arrow.ArrayData) {
	offs := arrow.Int32Traits.CastFromBytes(bytesOf(d, 1))
	if d.Len() == 0 {
		f.bufs = append(f.bufs, nil, nil)
		return
	}
	offs = offs[d.Offset() : d.Offset()+d.Len()+1]
	first, last := offs[0], offs[len(offs)-1]
	f.bufs = append(f.bufs, f.rebased32(offs, first), bytesOf(d, 2)[first:last])
}

func (f *flattener) addVarBinary64(d arrow.ArrayData) {
	offs := arrow.Int64Traits.CastFromBytes(bytesOf(d, 1))
	if d.Len() == 0 {
		f.bufs = append(f.bufs, nil, nil)
		return
	}
	offs = offs[d.Offset() : d.Offset()+d.Len()+1]
	first, last := offs[0], offs[len(offs)-1]
	f.bufs = append(f.bufs, f.rebased64(offs, first), bytesOf(d, 2)[first:last])
}

// rebased32 returns offs as bytes, shifted to start at zero.
func (f *flattener) rebased32(offs []int32, first int32) []byte {
	if first == 0 {
		return arrow.Int32Traits.CastToBytes(offs)
	}
	out := f.temp(len(offs) * 4)
	for i, o := range offs {
		binary.LittleEndian.PutUint32(out[i*4:], uint32(o-first))
	}
	return out
}

func (f *flattener) rebased64(offs []int64, first int64) []byte {
	if first == 0 {
		return arrow.Int64Traits.CastToBytes(offs)
	}
	out := f.temp(len(offs) * 8)
	for i, o := range offs {
		binary.LittleEndian.PutUint64(out[i*8:], uint64(o-first))
	}
	return out
}

func (f *flattener) addList(d arrow.ArrayData, large bool) error {
	child := d.Children()[0]
	if d.Len() == 0 {
		f.bufs = append(f.bufs, nil)
		return f.addSliced(child, 0, 0)
	}
	var first, last int64
	if large {
		offs := arrow.Int64Traits.CastFromBytes(bytesOf(d, 1))[d.Offset() : d.Offset()+d.Len()+1]
		first, last = offs[0], offs[len(offs)-1]
		f.bufs = append(f.bufs, f.rebased64(offs, first))
	} else {
		offs := arrow.Int32Traits.CastFromBytes(bytesOf(d, 1))[d.Offset() : d.Offset()+d.Len()+1]
		first, last = int64(offs[0]), int64(offs[len(offs)-1])
		f.bufs = append(f.bufs, f.rebased32(offs, int32(first)))
	}
	return f.addSliced(child, first, last)
}

// nullCount returns d's null count, counting the validity bitmap when the
// count is unknown (as it is for slices).
func nullCount(d arrow.ArrayData) int {
	if n := d.NullN(); n >= 0 {
		return n
	}
	v := bytesOf(d, 0)
	if v == nil {
		return 0
	}
	return d.Len() - bitutil.CountSetBits(v, d.Offset(), d.Len())
}
