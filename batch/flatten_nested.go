package batch

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// addListView writes offsets and sizes of the slice, with offsets rebased
// so the child is cut to the smallest range that covers every view.
func (f *flattener) addListView(d arrow.ArrayData, large bool) error {
	child := d.Children()[0]
	n, off := d.Len(), d.Offset()
	width := 4
	if large {
		width = 8
	}
	get := func(buf []byte, i int) int64 {
		if large {
			return int64(binary.LittleEndian.Uint64(buf[(off+i)*8:]))
		}
		return int64(int32(binary.LittleEndian.Uint32(buf[(off+i)*4:])))
	}
	offsBuf, sizesBuf := bytesOf(d, 1), bytesOf(d, 2)
	lo, hi := int64(-1), int64(0)
	for i := range n {
		if size := get(sizesBuf, i); size > 0 {
			o := get(offsBuf, i)
			if lo < 0 || o < lo {
				lo = o
			}
			hi = max(hi, o+size)
		}
	}
	if lo < 0 {
		lo, hi = 0, 0
	}
	offs, sizes := f.temp(n*width), f.temp(n*width)
	for i := range n {
		o, size := get(offsBuf, i)-lo, get(sizesBuf, i)
		if size <= 0 {
			o, size = 0, 0
		}
		if large {
			binary.LittleEndian.PutUint64(offs[i*8:], uint64(o))
			binary.LittleEndian.PutUint64(sizes[i*8:], uint64(size))
		} else {
			binary.LittleEndian.PutUint32(offs[i*4:], uint32(o))
			binary.LittleEndian.PutUint32(sizes[i*4:], uint32(size))
		}
	}
	f.bufs = append(f.bufs, offs, sizes)
	return f.addSliced(child, lo, hi)
}

// addRunEnd writes the runs that cover the slice, with run ends shifted
// to the slice's start and the last one clamped to its length.
func (f *flattener) addRunEnd(d arrow.ArrayData) error {
	ends, values := d.Children()[0], d.Children()[1]
	n, off := int64(d.Len()), int64(d.Offset())
	if off == 0 && (ends.Len() == 0 || runEndAt(ends, ends.Len()-1) == n) {
		if err := f.add(ends); err != nil {
			return err
		}
		return f.add(values)
	}
	// Physical runs [first, last] cover logical rows [off, off+n).
	first, last := 0, ends.Len()-1
	for first < ends.Len() && runEndAt(ends, first) <= off {
		first++
	}
	for last > first && runEndAt(ends, last-1) >= off+n {
		last--
	}
	if n == 0 {
		first, last = 0, -1
	}
	runs := last - first + 1
	width := ends.DataType().(arrow.FixedWidthDataType).BitWidth() / 8
	buf := memory.NewResizableBuffer(f.alloc)
	buf.Resize(runs * width)
	f.temps = append(f.temps, buf) // its bytes are in f.bufs until reset
	b := buf.Bytes()
	for i := range runs {
		e := min(runEndAt(ends, first+i)-off, n)
		switch width {
		case 2:
			binary.LittleEndian.PutUint16(b[i*2:], uint16(e))
		case 4:
			binary.LittleEndian.PutUint32(b[i*4:], uint32(e))
		default:
			binary.LittleEndian.PutUint64(b[i*8:], uint64(e))
		}
	}
	newEnds := array.NewData(ends.DataType(), runs, []*memory.Buffer{nil, buf}, nil, 0, 0)
	defer newEnds.Release()
	if err := f.add(newEnds); err != nil {
		return err
	}
	return f.addSliced(values, int64(first), int64(first+runs))
}

// runEndAt reads run end i of an int16, int32 or int64 array.
func runEndAt(ends arrow.ArrayData, i int) int64 {
	b := bytesOf(ends, 1)
	i += ends.Offset()
	switch ends.DataType().ID() {
	case arrow.INT16:
		return int64(int16(binary.LittleEndian.Uint16(b[i*2:])))
	case arrow.INT32:
		return int64(int32(binary.LittleEndian.Uint32(b[i*4:])))
	}
	return int64(binary.LittleEndian.Uint64(b[i*8:]))
}
