package fb

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrInvalid is matched by every error the Reader records: an offset, a
// length or a vtable that does not fit the buffer.
var ErrInvalid = errors.New("fb: invalid flatbuffer")

// Reader is a view over one flatbuffer with a sticky error. It never
// modifies or retains more than the buffer it was given; values read from it
// (Bytes) alias that buffer.
type Reader struct {
	buf []byte
	err error
}

// NewReader returns a Reader over buf.
func NewReader(buf []byte) *Reader { return &Reader{buf: buf} }

// Reset makes r read buf and clears its error.
func (r *Reader) Reset(buf []byte) { r.buf, r.err = buf, nil }

// Err returns the first error recorded by any access, or nil.
func (r *Reader) Err() error { return r.err }

// Len returns the length of the buffer.
func (r *Reader) Len() int { return len(r.buf) }

// Fail records err as the Reader's error if none is recorded yet. Callers
// use it to stop a walk for reasons of their own (a count above a limit).
func (r *Reader) Fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *Reader) failf(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalid}, args...)...)
	}
}

// fits reports whether n bytes at pos lie within the buffer. pos and n are
// int64 so sums of a uint32 offset and a position cannot overflow.
func (r *Reader) fits(pos, n int64) bool {
	return pos >= 0 && n >= 0 && pos <= int64(len(r.buf)) && n <= int64(len(r.buf))-pos
}

// Root returns the root table: the table the uoffset at position 0 points
// to. An empty Table (Exists false) and a recorded error are returned if the
// buffer is too short or the table does not fit.
func (r *Reader) Root() Table {
	if r.err != nil {
		return Table{}
	}
	if !r.fits(0, 4) {
		r.failf("buffer of %d bytes has no root offset", len(r.buf))
		return Table{}
	}
	return r.table(r.deref(0))
}

// deref returns the position a uoffset at pos points to. The caller has
// checked that 4 bytes at pos fit.
func (r *Reader) deref(pos int64) int64 {
	return pos + int64(binary.LittleEndian.Uint32(r.buf[pos:]))
}

// table checks the table at pos and its vtable.
func (r *Reader) table(pos int64) Table {
	if !r.fits(pos, 4) {
		r.failf("table at %d beyond buffer of %d bytes", pos, len(r.buf))
		return Table{}
	}
	vt := pos - int64(int32(binary.LittleEndian.Uint32(r.buf[pos:])))
	if !r.fits(vt, 4) {
		r.failf("table at %d: vtable at %d beyond buffer of %d bytes", pos, vt, len(r.buf))
		return Table{}
	}
	// The object size at vt+2 is not checked: the Go Builder shares a
	// vtable between tables whose field offsets match even when their sizes
	// differ, so fields are checked against the buffer instead.
	vtSize := int64(binary.LittleEndian.Uint16(r.buf[vt:]))
	if vtSize < 4 || vtSize%2 != 0 || !r.fits(vt, vtSize) {
		r.failf("table at %d: vtable at %d has size %d (buffer %d bytes)", pos, vt, vtSize, len(r.buf))
		return Table{}
	}
	return Table{r: r, pos: pos, vt: vt, vtSize: vtSize}
}

// vector checks the vector a uoffset at pos points to.
func (r *Reader) vector(pos int64, elemSize int) Vector {
	start := r.deref(pos)
	if !r.fits(start, 4) {
		r.failf("vector at %d beyond buffer of %d bytes", start, len(r.buf))
		return Vector{}
	}
	n := int64(binary.LittleEndian.Uint32(r.buf[start:]))
	if !r.fits(start+4, n*int64(elemSize)) {
		r.failf("vector at %d: %d elements of %d bytes exceed buffer of %d bytes", start, n, elemSize, len(r.buf))
		return Vector{}
	}
	return Vector{r: r, start: start + 4, n: int(n), elemSize: elemSize}
}

// bytes returns the bytes of the string a uoffset at pos points to.
func (r *Reader) bytes(pos int64) []byte {
	v := r.vector(pos, 1)
	if v.r == nil {
		return nil
	}
	return r.buf[v.start : v.start+int64(v.n) : v.start+int64(v.n)]
}
