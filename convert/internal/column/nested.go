package column

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// List builds a List, LargeList or Map column. Its bulk path writes the
// offsets in one pass and appends the children of the whole slice as one
// run: in Arrow the children of adjacent rows are adjacent, including
// the slots a null or empty list may leave (Parquet's layout), which are
// copied as they are and stay unreachable.
type List[O Offset] struct {
	dt      arrow.DataType
	capRows int
	v       validity
	offs    buf
	child   Builder
}

func newList[O Offset](dt, elem arrow.DataType, mem memory.Allocator, capRows int) (*List[O], error) {
	child, err := New(elem, mem, capRows)
	if err != nil {
		return nil, err
	}
	return &List[O]{dt: dt, capRows: capRows, v: newValidity(mem), offs: buf{mem: mem, zero: true}, child: child}, nil
}

// Type is the column's List, LargeList or Map type.
func (b *List[O]) Type() arrow.DataType { return b.dt }

// Len is the rows appended since the last Finish or Reset.
func (b *List[O]) Len() int { return b.v.n }

// Child is the builder of the elements of every row.
func (b *List[O]) Child() Builder { return b.child }

// Bytes counts the offsets, the validity and the child's bytes.
func (b *List[O]) Bytes() int64 {
	return offsetBytes[O](b.v.n) + b.v.bytes() + b.child.Bytes()
}

func (b *List[O]) reserve(n int) {
	w := offsetSize[O]()
	if need := (b.v.n + n + 1) * w; need > len(b.offs.b) {
		b.offs.grow(max(need, (b.capRows+1)*w))
	}
	b.v.ensure(b.v.n + n)
}

func (b *List[O]) offsets() []O { return arrow.GetData[O](b.offs.b) }

// listValues returns arr's children and raw offsets.
func listValues[O Offset](arr arrow.Array) (arrow.Array, []O, error) {
	l, ok := arr.(array.ListLike)
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s input into a list column", ErrUnsupported, arr.DataType())
	}
	return l.ListValues(), arrow.GetData[O](bufBytes(arr.Data().Buffers()[1])), nil
}

// AppendArray appends rows [start, start+n) of arr: their children as
// one run, then the offsets rebased in one pass. For int32 offsets it
// returns ErrOffsets, appending nothing, when the child would pass
// MaxOffset elements.
func (b *List[O]) AppendArray(arr arrow.Array, start, n int, mask Mask) error {
	if n == 0 {
		return nil
	}
	values, offs, err := listValues[O](arr)
	if err != nil {
		return err
	}
	data := arr.Data()
	off := data.Offset() + start
	src := offs[off : off+n+1]
	s0, s1 := src[0], src[n]
	base := b.child.Len()
	if offsetSize[O]() == 4 && int64(base)+int64(s1-s0) > MaxOffset {
		return fmt.Errorf("%w: %d list values plus %d", ErrOffsets, base, s1-s0)
	}
	if err := b.child.AppendArray(values, int(s0), int(s1-s0), Mask{}); err != nil {
		return err
	}
	b.reserve(n)
	delta := O(base) - s0
	dst := b.offsets()[b.v.n+1 : b.v.n+1+n]
	src = src[1:]
	for i := range dst {
		dst[i] = src[i] + delta
	}
	b.v.appendFrom(data, off, n, mask)
	return nil
}

// Measure counts offsets, validity and what the child would add; fits is
// false when the child does not fit or int32 offsets would pass
// MaxOffset.
func (b *List[O]) Measure(arr arrow.Array, start, n int) (int64, bool) {
	if n == 0 {
		return 0, true
	}
	values, offs, err := listValues[O](arr)
	if err != nil {
		return 0, true // AppendArray reports it
	}
	off := arr.Data().Offset() + start
	s0, s1 := offs[off], offs[off+n]
	bytes, fits := b.child.Measure(values, int(s0), int(s1-s0))
	if offsetSize[O]() == 4 && int64(b.child.Len())+int64(s1-s0) > MaxOffset {
		fits = false
	}
	return bytes + int64(n*offsetSize[O]()) + validityBytes(arr, n), fits
}

// AppendNulls appends n null rows: empty lists at the child's end.
func (b *List[O]) AppendNulls(n int) {
	b.reserve(n)
	offs := b.offsets()
	end := O(b.child.Len())
	for i := range n {
		offs[b.v.n+1+i] = end
	}
	b.v.appendNulls(n)
}

// Truncate drops the rows past n and their elements.
func (b *List[O]) Truncate(n int) {
	if n >= b.v.n {
		return
	}
	b.child.Truncate(int(b.offsets()[n]))
	b.v.truncate(n)
}

func (b *List[O]) setLens() {
	if len(b.offs.b) == 0 {
		b.offs.grow((b.capRows + 1) * offsetSize[O]())
	}
	b.offs.n = (b.v.n + 1) * offsetSize[O]()
}

// Finish hands over validity and offsets, with the child's data as the
// one child, and empties the builder.
func (b *List[O]) Finish() arrow.ArrayData {
	n := b.v.n
	b.setLens()
	valid, nulls := b.v.finish()
	offs := b.offs.finish()
	return finishData(b.dt, n, []*memory.Buffer{valid, offs}, []arrow.ArrayData{b.child.Finish()}, nulls)
}

// Snapshot returns the rows as array data over the builder's buffers
// (Builder.Snapshot).
func (b *List[O]) Snapshot() arrow.ArrayData {
	n := b.v.n
	b.setLens()
	valid, nulls := b.v.snapshot()
	offs := b.offs.snapshot()
	return finishData(b.dt, n, []*memory.Buffer{valid, offs}, []arrow.ArrayData{b.child.Snapshot()}, nulls)
}

// Reset empties the builder and its child, keeping their memory.
func (b *List[O]) Reset() { b.v.reset(); b.offs.n = 0; b.child.Reset() }

// Release frees the builder's and its child's memory.
func (b *List[O]) Release() { b.v.release(); b.offs.release(); b.child.Release() }

// FixedList builds a FixedSizeList column: size children per row, the
// children of a slice appended as one run.
type FixedList struct {
	dt    *arrow.FixedSizeListType
	size  int
	v     validity
	child Builder
}

func newFixedList(dt *arrow.FixedSizeListType, mem memory.Allocator, capRows int) (*FixedList, error) {
	child, err := New(dt.Elem(), mem, capRows*int(dt.Len()))
	if err != nil {
		return nil, err
	}
	return &FixedList{dt: dt, size: int(dt.Len()), v: newValidity(mem), child: child}, nil
}

// Type is the column's FixedSizeList type.
func (b *FixedList) Type() arrow.DataType { return b.dt }

// Len is the rows appended since the last Finish or Reset.
func (b *FixedList) Len() int { return b.v.n }

// Child is the builder of the elements, a fixed number per row.
func (b *FixedList) Child() Builder { return b.child }

// Bytes counts the validity and the child's bytes.
func (b *FixedList) Bytes() int64 { return b.v.bytes() + b.child.Bytes() }

// AppendArray appends rows [start, start+n) of arr: their elements as one
// run, then the validity.
func (b *FixedList) AppendArray(arr arrow.Array, start, n int, mask Mask) error {
	if n == 0 {
		return nil
	}
	l, ok := arr.(*array.FixedSizeList)
	if !ok {
		return fmt.Errorf("%w: %s input into a fixed-size list column", ErrUnsupported, arr.DataType())
	}
	off := l.Data().Offset() + start
	if err := b.child.AppendArray(l.ListValues(), off*b.size, n*b.size, Mask{}); err != nil {
		return err
	}
	b.v.appendFrom(l.Data(), off, n, mask)
	return nil
}

// Measure counts the validity and what the child would add for the rows'
// elements; fits is the child's.
func (b *FixedList) Measure(arr arrow.Array, start, n int) (int64, bool) {
	l, ok := arr.(*array.FixedSizeList)
	if !ok {
		return 0, true
	}
	off := l.Data().Offset() + start
	bytes, fits := b.child.Measure(l.ListValues(), off*b.size, n*b.size)
	return bytes + validityBytes(arr, n), fits
}

// AppendNulls appends n null rows and their elements, null too: a
// fixed-size list keeps its slots.
func (b *FixedList) AppendNulls(n int) {
	b.child.AppendNulls(n * b.size)
	b.v.appendNulls(n)
}

// Truncate drops the rows past n and their elements.
func (b *FixedList) Truncate(n int) {
	if n >= b.v.n {
		return
	}
	b.child.Truncate(n * b.size)
	b.v.truncate(n)
}

// Finish hands over the validity, with the child's data as the one
// child, and empties the builder.
func (b *FixedList) Finish() arrow.ArrayData {
	n := b.v.n
	valid, nulls := b.v.finish()
	return finishData(b.dt, n, []*memory.Buffer{valid}, []arrow.ArrayData{b.child.Finish()}, nulls)
}

// Snapshot returns the rows as array data over the builder's buffers
// (Builder.Snapshot).
func (b *FixedList) Snapshot() arrow.ArrayData {
	valid, nulls := b.v.snapshot()
	return finishData(b.dt, b.v.n, []*memory.Buffer{valid}, []arrow.ArrayData{b.child.Snapshot()}, nulls)
}

// Reset empties the builder and its child, keeping their memory.
func (b *FixedList) Reset() { b.v.reset(); b.child.Reset() }

// Release frees the builder's and its child's memory.
func (b *FixedList) Release() { b.v.release(); b.child.Release() }

// Struct builds a struct column field by field. Each field's validity is
// ANDed with the struct's, so the fields of a null struct come out null,
// as arrow-go's StructBuilder.AppendNull leaves them.
type Struct struct {
	dt       *arrow.StructType
	v        validity
	children []Builder
}

func newStruct(dt *arrow.StructType, mem memory.Allocator, capRows int) (*Struct, error) {
	b := &Struct{dt: dt, v: newValidity(mem)}
	for _, f := range dt.Fields() {
		c, err := New(f.Type, mem, capRows)
		if err != nil {
			b.Release()
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		b.children = append(b.children, c)
	}
	return b, nil
}

// Type is the column's struct type.
func (b *Struct) Type() arrow.DataType { return b.dt }

// Len is the rows appended since the last Finish or Reset.
func (b *Struct) Len() int { return b.v.n }

// Field is the builder of field i.
func (b *Struct) Field(i int) Builder { return b.children[i] }

// Bytes counts the validity and every field's bytes.
func (b *Struct) Bytes() int64 {
	n := b.v.bytes()
	for _, c := range b.children {
		n += c.Bytes()
	}
	return n
}

// AppendArray appends rows [start, start+n) of arr: the struct's validity
// first, then each field's rows masked by it. When a field fails, the
// fields before it and the validity are truncated back: nothing is
// appended.
func (b *Struct) AppendArray(arr arrow.Array, start, n int, mask Mask) error {
	if n == 0 {
		return nil
	}
	s, ok := arr.(*array.Struct)
	if !ok {
		return fmt.Errorf("%w: %s input into a struct column", ErrUnsupported, arr.DataType())
	}
	at := b.v.n
	b.v.appendFrom(s.Data(), s.Data().Offset()+start, n, mask)
	m := b.v.mask(at)
	for i, c := range b.children {
		if err := c.AppendArray(s.Field(i), start, n, m); err != nil {
			for _, d := range b.children[:i] {
				d.Truncate(at)
			}
			b.v.truncate(at)
			return fmt.Errorf("field %s: %w", b.dt.Field(i).Name, err)
		}
	}
	return nil
}

// Measure counts the validity and every field's measure; it fits when
// every field fits.
func (b *Struct) Measure(arr arrow.Array, start, n int) (int64, bool) {
	s, ok := arr.(*array.Struct)
	if !ok {
		return 0, true
	}
	bytes, fits := validityBytes(arr, n), true
	for i, c := range b.children {
		cb, cf := c.Measure(s.Field(i), start, n)
		bytes += cb
		fits = fits && cf
	}
	return bytes, fits
}

// AppendNulls appends n null rows to the struct and every field.
func (b *Struct) AppendNulls(n int) {
	for _, c := range b.children {
		c.AppendNulls(n)
	}
	b.v.appendNulls(n)
}

// Truncate drops the rows past n from the struct and every field.
func (b *Struct) Truncate(n int) {
	for _, c := range b.children {
		c.Truncate(n)
	}
	b.v.truncate(n)
}

// Finish hands over the validity, with every field's data as children,
// and empties the builder.
func (b *Struct) Finish() arrow.ArrayData {
	n := b.v.n
	valid, nulls := b.v.finish()
	children := make([]arrow.ArrayData, len(b.children))
	for i, c := range b.children {
		children[i] = c.Finish()
	}
	return finishData(b.dt, n, []*memory.Buffer{valid}, children, nulls)
}

// Snapshot returns the rows as array data over the builder's buffers
// (Builder.Snapshot).
func (b *Struct) Snapshot() arrow.ArrayData {
	valid, nulls := b.v.snapshot()
	children := make([]arrow.ArrayData, len(b.children))
	for i, c := range b.children {
		children[i] = c.Snapshot()
	}
	return finishData(b.dt, b.v.n, []*memory.Buffer{valid}, children, nulls)
}

// Reset empties the builder and its fields, keeping their memory.
func (b *Struct) Reset() {
	b.v.reset()
	for _, c := range b.children {
		c.Reset()
	}
}

// Release frees the builder's and its fields' memory.
func (b *Struct) Release() {
	b.v.release()
	for _, c := range b.children {
		c.Release()
	}
}
