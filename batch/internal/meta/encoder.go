package meta

import (
	flatbuffers "github.com/google/flatbuffers/go"
)

// Encoder writes Message and Footer flatbuffers. It keeps its flatbuffers
// Builder and scratch space between calls, so reuse one per goroutine. The
// zero value is ready to use; an Encoder is not safe for concurrent use.
type Encoder struct {
	b     *flatbuffers.Builder
	stack []flatbuffers.UOffsetT // offsets of finished objects a parent will collect
	path  []int                  // child indexes of the field being encoded
	dicts []DictField            // Schema.Dicts of the schema being encoded
	next  int                    // index in dicts of the next dictionary field
}

// EncodeMessage returns the Message flatbuffer of m in a new slice. See
// Encoder.AppendMessage.
func EncodeMessage(m *Message) ([]byte, error) {
	var e Encoder
	return e.AppendMessage(nil, m)
}

// EncodeFooter returns the Footer flatbuffer of f in a new slice. See
// Encoder.AppendFooter.
func EncodeFooter(f *Footer) ([]byte, error) {
	var e Encoder
	return e.AppendFooter(nil, f)
}

// reset readies the builder for a new flatbuffer.
func (e *Encoder) reset() {
	if e.b == nil {
		e.b = flatbuffers.NewBuilder(1024)
	}
	e.b.Reset()
	e.stack = e.stack[:0]
	e.path = e.path[:0]
	e.dicts, e.next = nil, 0
}

// finish completes the flatbuffer with root as its root table and appends
// it to dst. The flatbuffer's length is a multiple of its largest alignment,
// so it is correctly aligned when it starts at an 8-aligned position.
func (e *Encoder) finish(dst []byte, root flatbuffers.UOffsetT) []byte {
	e.b.Finish(root)
	e.dicts = nil
	return append(dst, e.b.FinishedBytes()...)
}

// popVector writes the offsets pushed since base as a vector of tables (or
// strings), pops them and returns the vector's offset.
func (e *Encoder) popVector(base int) flatbuffers.UOffsetT {
	offs := e.stack[base:]
	e.b.StartVector(4, len(offs), 4)
	for i := len(offs) - 1; i >= 0; i-- {
		e.b.PrependUOffsetT(offs[i])
	}
	e.stack = e.stack[:base]
	return e.b.EndVector(len(offs))
}

// emptyTable writes a table with no fields (Null, Utf8, List, ...).
func (e *Encoder) emptyTable() flatbuffers.UOffsetT {
	e.b.StartObject(0)
	return e.b.EndObject()
}
