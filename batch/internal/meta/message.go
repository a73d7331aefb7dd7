package meta

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	flatbuffers "github.com/google/flatbuffers/go"
)

// The Message table, the root of every encapsulated IPC message:
//
//	Message { version: MetadataVersion (short); header: MessageHeader (union:
//	          Schema, DictionaryBatch, RecordBatch, Tensor, SparseTensor);
//	          bodyLength: long; custom_metadata: [KeyValue]; }

// String returns the format's name of the header type.
func (h HeaderType) String() string {
	switch h {
	case HeaderNone:
		return "NONE"
	case HeaderSchema:
		return "Schema"
	case HeaderDictionaryBatch:
		return "DictionaryBatch"
	case HeaderRecordBatch:
		return "RecordBatch"
	case HeaderTensor:
		return "Tensor"
	case HeaderSparseTensor:
		return "SparseTensor"
	}
	return "HeaderType(" + strconv.Itoa(int(h)) + ")"
}

// AppendMessage appends the Message flatbuffer of m to dst and returns the
// extended slice; a prefix already in dst is kept. It writes metadata
// version V5 whatever m.Version says, and only the flatbuffer: the caller
// adds the continuation marker, the length and the padding. The
// flatbuffer's length is a multiple of its alignment, so it stays aligned
// when it starts at an 8-aligned offset.
//
// A Schema message needs m.Schema.Dicts to match the schema (see NewSchema).
// Types quiver cannot write are reported as ErrUnsupported; a Message whose
// Header does not match the field that is set is a bug and panics.
func (e *Encoder) AppendMessage(dst []byte, m *Message) ([]byte, error) {
	e.reset()
	var hdr flatbuffers.UOffsetT
	switch m.Header {
	case HeaderSchema:
		var err error
		if hdr, err = e.schema(m.Schema); err != nil {
			return dst, err
		}
	case HeaderRecordBatch:
		if m.Record == nil {
			panic("meta: RecordBatch message without a RecordBatch")
		}
		hdr = e.recordBatch(m.Record)
	case HeaderDictionaryBatch:
		if m.Dictionary == nil {
			panic("meta: DictionaryBatch message without a DictionaryBatch")
		}
		hdr = e.dictionaryBatch(m.Dictionary)
	default:
		return dst, unsupportedf("writing a %v message", m.Header)
	}
	md := e.metadata(m.Metadata, nil)
	e.b.StartObject(messageSlots)
	e.b.PrependInt64Slot(messageBodyLength, m.BodyLength, 0)
	e.b.PrependUOffsetTSlot(messageHeader, hdr, 0)
	e.b.PrependUOffsetTSlot(messageCustomMetadata, md, 0)
	e.b.PrependInt16Slot(messageVersion, MetadataV5, -1)
	e.b.PrependByteSlot(messageHeaderType, byte(m.Header), 0)
	return e.finish(dst, e.b.EndObject()), nil
}

// DecodeMessage decodes a Message flatbuffer (without its encapsulation
// prefix; trailing padding is fine). Errors match ErrCorrupt for bytes that
// are not a valid message and ErrUnsupported for valid ones quiver does not
// read (metadata versions before V4, tensors, big-endian schemas, codecs,
// types or features newer than quiver). Counts are checked against lim
// (zero fields take DefaultLimits) and against the bytes present before
// anything they size is allocated; buffers must lie within the body length
// the message declares. The result does not alias buf.
func DecodeMessage(buf []byte, lim Limits) (*Message, error) {
	d := newDecoder(buf, lim)
	t := d.r.Root()
	tag, hdr := t.Union(messageHeaderType, messageHeader)
	m := &Message{
		Version:    t.Int16(messageVersion, 0),
		Header:     HeaderType(tag),
		BodyLength: t.Int64(messageBodyLength, 0),
	}
	if err := readErr(&d.r, "Message"); err != nil {
		return nil, err
	}
	if err := checkVersion(m.Version); err != nil {
		return nil, err
	}
	if m.BodyLength < 0 {
		return nil, corruptf("Message body length %d", m.BodyLength)
	}
	var err error
	switch m.Header {
	case HeaderNone:
		return nil, corruptf("Message without a header")
	case HeaderSchema:
		m.Schema, err = d.schema(hdr)
	case HeaderRecordBatch:
		m.Record, err = d.recordBatch(hdr, m.BodyLength)
	case HeaderDictionaryBatch:
		m.Dictionary, err = d.dictionaryBatch(hdr, m.BodyLength)
	default:
		return nil, unsupportedf("%v message", m.Header)
	}
	if err != nil {
		return nil, err
	}
	if m.Metadata, err = d.metadata(t, messageCustomMetadata, "Message"); err != nil {
		return nil, err
	}
	return m, nil
}

// checkVersion accepts metadata versions V4 and V5.
func checkVersion(v int16) error {
	if v != MetadataV4 && v != MetadataV5 {
		return unsupportedf("metadata version %d (V%d), want V4 or V5", v, v+1)
	}
	return nil
}

// DecodeMessageHead reads only what framing needs from a Message
// flatbuffer: the body length and the message's custom_metadata. It
// neither decodes nor checks the header (see DecodeMessage), so it costs
// a few table lookups; the same bounds apply to what it does read.
func DecodeMessageHead(buf []byte, lim Limits) (bodyLength int64, md arrow.Metadata, err error) {
	d := newDecoder(buf, lim)
	t := d.r.Root()
	bodyLength = t.Int64(messageBodyLength, 0)
	if err := readErr(&d.r, "Message"); err != nil {
		return 0, arrow.Metadata{}, err
	}
	if bodyLength < 0 {
		return 0, arrow.Metadata{}, corruptf("Message body length %d", bodyLength)
	}
	if md, err = d.metadata(t, messageCustomMetadata, "Message"); err != nil {
		return 0, arrow.Metadata{}, err
	}
	return bodyLength, md, nil
}
