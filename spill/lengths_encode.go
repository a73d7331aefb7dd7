package spill

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// encodeLengths returns the spill form of the string or binary column d
// (kind k): Struct{lengths, bytes: REE with one run holding every
// non-null value's bytes, concatenated}. Nulls keep the column's validity
// on the struct and get length 0, so the bytes under a null slot (arrow
// allows some) are not written. The value bytes are a zero-copy slice of
// d's data when they are already contiguous, as they are for Utf8 and
// Binary columns without such bytes.
func encodeLengths(d arrow.ArrayData, k colKind, mem memory.Allocator) arrow.ArrayData {
	n := d.Len()
	width := 4
	if k == colLargeLengths {
		width = 8
	}
	lens := newBuffer(mem, n*width)
	defer lens.Release()
	var data *memory.Buffer
	switch k {
	case colLengths:
		data = lengths[int32](d, lens.Bytes(), mem)
	case colLargeLengths:
		data = lengths[int64](d, lens.Bytes(), mem)
	case colViewLengths:
		data = viewLengths(d, lens.Bytes(), mem)
	}
	defer data.Release()

	st := lengthsType(k).(*arrow.StructType)
	lengthsData := array.NewData(st.Field(0).Type, n, []*memory.Buffer{nil, lens}, nil, 0, 0)
	defer lengthsData.Release()
	ree := oneRun(st.Field(1).Type.(*arrow.RunEndEncodedType), n, data, mem)
	defer ree.Release()
	validity := validitySlice(d, mem)
	if validity != nil {
		defer validity.Release()
	}
	return array.NewData(st, n, []*memory.Buffer{validity}, []arrow.ArrayData{lengthsData, ree}, nullCountOf(d), 0)
}

// newBuffer returns a buffer of n bytes from mem.
func newBuffer(mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(n)
	return b
}

// validitySlice returns d's validity bitmap starting at bit 0, or nil when
// d has no nulls: a zero-copy slice at a byte-aligned offset, else a
// shifted copy.
func validitySlice(d arrow.ArrayData, mem memory.Allocator) *memory.Buffer {
	v := d.Buffers()[0]
	if v == nil || nullCountOf(d) == 0 {
		return nil
	}
	n := int(bitutil.BytesForBits(int64(d.Len())))
	if d.Offset()%8 == 0 {
		return memory.SliceBuffer(v, d.Offset()/8, n)
	}
	out := newBuffer(mem, n)
	bitutil.CopyBitmap(v.Bytes(), d.Offset(), d.Len(), out.Bytes(), 0)
	return out
}

// nullCountOf returns d's null count, counting the bitmap when it is not
// known (slices).
func nullCountOf(d arrow.ArrayData) int {
	if n := d.NullN(); n >= 0 {
		return n
	}
	v := d.Buffers()[0]
	if v == nil {
		return 0
	}
	return d.Len() - bitutil.CountSetBits(v.Bytes(), d.Offset(), d.Len())
}

// isValid reports whether row i (relative to d's offset) is not null.
func isValid(d arrow.ArrayData, i int) bool {
	v := d.Buffers()[0]
	return v == nil || bitutil.BitIsSet(v.Bytes(), d.Offset()+i)
}

// bufferBytes returns the bytes of buffer i of d, nil when absent.
func bufferBytes(d arrow.ArrayData, i int) []byte {
	bs := d.Buffers()
	if i >= len(bs) || bs[i] == nil {
		return nil
	}
	return bs[i].Bytes()
}

// lengths fills lens with the value lengths of a Utf8 or Binary column
// (O int32) or a LargeUtf8 or LargeBinary one (O int64), 0 under a null,
// and returns its value bytes: the slice of its data they span when no
// null hides bytes, else the non-null values gathered.
func lengths[O int32 | int64](d arrow.ArrayData, lens []byte, mem memory.Allocator) *memory.Buffer {
	n := d.Len()
	if n == 0 {
		return newBuffer(mem, 0)
	}
	offs := arrow.GetData[O](bufferBytes(d, 1))[d.Offset() : d.Offset()+n+1]
	out := arrow.GetData[O](lens)[:n]
	hasNulls := nullCountOf(d) > 0
	var total int64
	for i := range n {
		l := offs[i+1] - offs[i]
		if hasNulls && !isValid(d, i) {
			l = 0
		}
		out[i] = l
		total += int64(l)
	}
	src := d.Buffers()[2]
	first, last := int64(offs[0]), int64(offs[n])
	if total == last-first {
		if src == nil || total == 0 {
			return newBuffer(mem, 0)
		}
		return memory.SliceBuffer(src, int(first), int(total))
	}
	buf := newBuffer(mem, int(total))
	dst, b := buf.Bytes(), src.Bytes()
	pos := 0
	for i, l := range out {
		if l != 0 {
			pos += copy(dst[pos:], b[offs[i]:offs[i+1]])
		}
	}
	return buf
}

// viewLengths fills lens with the lengths of a view column and gathers
// its non-null values' bytes, inline or not, into one buffer: the
// compaction views need anyway (a view may point anywhere in any of its
// buffers, shared or not).
func viewLengths(d arrow.ArrayData, lens []byte, mem memory.Allocator) *memory.Buffer {
	n := d.Len()
	views := viewHeaders(d)
	out := arrow.Int32Traits.CastFromBytes(lens)
	hasNulls := nullCountOf(d) > 0
	var total int64
	for i := range n {
		l := 0
		if !hasNulls || isValid(d, i) {
			l = views[i].Len()
		}
		out[i] = int32(l)
		total += int64(l)
	}
	buf := newBuffer(mem, int(total))
	dst := buf.Bytes()
	pos := 0
	for i := range n {
		if out[i] > 0 {
			pos += copy(dst[pos:], viewBytes(d, &views[i]))
		}
	}
	return buf
}

// viewHeaders returns the views of d's rows.
func viewHeaders(d arrow.ArrayData) []arrow.ViewHeader {
	if d.Len() == 0 {
		return nil
	}
	return arrow.ViewHeaderTraits.CastFromBytes(bufferBytes(d, 1))[d.Offset() : d.Offset()+d.Len()]
}

// viewBytes returns the bytes a (trusted) view refers to.
func viewBytes(d arrow.ArrayData, v *arrow.ViewHeader) []byte {
	if v.IsInline() {
		return v.InlineBytes()
	}
	off := int(v.BufferOffset())
	return bufferBytes(d, 2+int(v.BufferIndex()))[off : off+v.Len()]
}

// oneRun returns a run-end encoded array of logical length n whose one
// run (none when n is 0) holds data as a single Binary or LargeBinary
// value.
func oneRun(t *arrow.RunEndEncodedType, n int, data *memory.Buffer, mem memory.Allocator) arrow.ArrayData {
	runs := min(n, 1)
	ends := newBuffer(mem, runs*4)
	defer ends.Release()
	if runs == 1 {
		binary.LittleEndian.PutUint32(ends.Bytes(), uint32(n))
	}
	endsData := array.NewData(t.RunEnds(), runs, []*memory.Buffer{nil, ends}, nil, 0, 0)
	defer endsData.Release()

	large := t.Encoded().ID() == arrow.LARGE_BINARY
	width := 4
	if large {
		width = 8
	}
	offs := newBuffer(mem, (runs+1)*width)
	defer offs.Release()
	clear(offs.Bytes())
	if runs == 1 {
		if large {
			binary.LittleEndian.PutUint64(offs.Bytes()[8:], uint64(data.Len()))
		} else {
			binary.LittleEndian.PutUint32(offs.Bytes()[4:], uint32(data.Len()))
		}
	}
	values := array.NewData(t.Encoded(), runs, []*memory.Buffer{nil, offs, data}, nil, 0, 0)
	defer values.Release()
	return array.NewData(t, n, []*memory.Buffer{nil}, []arrow.ArrayData{endsData, values}, 0, 0)
}
