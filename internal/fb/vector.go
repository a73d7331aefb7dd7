package fb

import "encoding/binary"

// Vector is a checked view of a flatbuffer vector: Len elements of a fixed
// size, all within the buffer. The zero Vector is empty. Indexes outside
// [0, Len) are a bug in the caller and panic.
type Vector struct {
	r        *Reader
	start    int64 // of element 0
	n        int
	elemSize int
}

// Len returns the number of elements. It is at most len(buf)/elemSize.
func (v Vector) Len() int { return v.n }

// elem returns the position of element i of size n, which must fit in the
// element size the vector was made with.
func (v Vector) elem(i, n int) int64 {
	if uint(i) >= uint(v.n) || n > v.elemSize {
		panic("fb: vector index out of range")
	}
	return v.start + int64(i)*int64(v.elemSize)
}

// Table returns element i of a vector of tables.
func (v Vector) Table(i int) Table {
	p := v.elem(i, 4)
	if v.r.err != nil {
		return Table{}
	}
	return v.r.table(v.r.deref(p))
}

// Bytes returns element i of a vector of strings, aliasing the buffer.
func (v Vector) Bytes(i int) []byte {
	p := v.elem(i, 4)
	if v.r.err != nil {
		return nil
	}
	return v.r.bytes(p)
}

// Uint8 returns element i of a vector of bytes.
func (v Vector) Uint8(i int) uint8 { return v.r.buf[v.elem(i, 1)] }

// Int16 returns element i of a vector of shorts.
func (v Vector) Int16(i int) int16 {
	return int16(binary.LittleEndian.Uint16(v.r.buf[v.elem(i, 2):]))
}

// Int32 returns element i of a vector of ints.
func (v Vector) Int32(i int) int32 {
	return int32(binary.LittleEndian.Uint32(v.r.buf[v.elem(i, 4):]))
}

// Int64 returns element i of a vector of longs.
func (v Vector) Int64(i int) int64 {
	return int64(binary.LittleEndian.Uint64(v.r.buf[v.elem(i, 8):]))
}

// Struct returns element i of a vector of structs as a Struct view of
// elemSize bytes.
func (v Vector) Struct(i int) Struct {
	p := v.elem(i, v.elemSize)
	return Struct{b: v.r.buf[p : p+int64(v.elemSize) : p+int64(v.elemSize)]}
}

// Struct is one inline flatbuffer struct. Its field offsets are fixed by the
// schema, so reading outside it is a bug in the caller and panics.
type Struct struct{ b []byte }

// Int32 reads the int at byte offset off.
func (s Struct) Int32(off int) int32 { return int32(binary.LittleEndian.Uint32(s.b[off:])) }

// Int64 reads the long at byte offset off.
func (s Struct) Int64(off int) int64 { return int64(binary.LittleEndian.Uint64(s.b[off:])) }
