package sortkey

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Variable-length encoding (doc.go): 0x01, the bytes with 00 escaped as
// 00 FF, then 00 01.
const (
	escapeByte = 0xFF
	termByte   = 0x01
)

// valuesOf returns an accessor of row i's bytes for the string, binary and
// view types, reading the buffers directly (no per-row interface call into
// arrow-go).
func valuesOf(col arrow.Array) func(i int) []byte {
	d := col.Data()
	if d.Len() == 0 {
		return nil // never called: there are no rows
	}
	bufs := d.Buffers()
	off := d.Offset()
	switch col.DataType().ID() {
	case arrow.STRING, arrow.BINARY:
		offs := arrow.Int32Traits.CastFromBytes(bufs[1].Bytes())[off : off+d.Len()+1]
		data := bufBytes(bufs[2])
		return func(i int) []byte { return data[offs[i]:offs[i+1]] }
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		offs := arrow.Int64Traits.CastFromBytes(bufs[1].Bytes())[off : off+d.Len()+1]
		data := bufBytes(bufs[2])
		return func(i int) []byte { return data[offs[i]:offs[i+1]] }
	case arrow.STRING_VIEW, arrow.BINARY_VIEW:
		views := arrow.ViewHeaderTraits.CastFromBytes(bufs[1].Bytes())[off : off+d.Len()]
		data := bufs[2:]
		return func(i int) []byte {
			v := &views[i]
			if v.IsInline() {
				return v.InlineBytes()
			}
			start := int(v.BufferOffset())
			return data[v.BufferIndex()].Bytes()[start : start+v.Len()]
		}
	}
	panic("sortkey: valuesOf " + col.DataType().String())
}

func bufBytes(b *memory.Buffer) []byte {
	if b == nil {
		return nil
	}
	return b.Bytes()
}

// addVarLengths adds each row's encoded length: 1 for NULL, else the
// value's bytes, one more per zero byte, the null byte and the terminator.
func addVarLengths(value func(int) []byte, col arrow.Array, lens []uint32) {
	nulls := col.NullN() > 0
	for i := range lens {
		if nulls && col.IsNull(i) {
			lens[i]++
			continue
		}
		v := value(i)
		lens[i] += uint32(3 + len(v) + bytes.Count(v, zero))
	}
}

var zero = []byte{0}

// writeVar writes each row's encoding at buf[cur[i]:] and advances cur[i].
func writeVar(value func(int) []byte, col arrow.Array, f SortField, buf []byte, cur []uint32) {
	nulls := col.NullN() > 0
	nb := f.nullByte()
	for i, o := range cur {
		if nulls && col.IsNull(i) {
			buf[o] = nb
			cur[i] = o + 1
			continue
		}
		buf[o] = validByte
		end := escape(buf, int(o)+1, value(i))
		if f.Desc {
			invert(buf[o+1 : end])
		}
		cur[i] = uint32(end)
	}
}

// escape writes v at buf[at:] with each 00 as 00 FF, then 00 01, and
// returns where it ended.
func escape(buf []byte, at int, v []byte) int {
	for {
		z := bytes.IndexByte(v, 0)
		if z < 0 {
			break
		}
		at += copy(buf[at:], v[:z])
		buf[at], buf[at+1] = 0, escapeByte
		at += 2
		v = v[z+1:]
	}
	at += copy(buf[at:], v)
	buf[at], buf[at+1] = 0, termByte
	return at + 2
}
