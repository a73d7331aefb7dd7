package batch

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/batch/internal/meta"
)

// Message is one encapsulated Arrow IPC message split in its two parts:
// Meta is the Message flatbuffer (unpadded) and Body the 8-byte-aligned
// body. Flight sends the two parts as FlightData.data_header and
// data_body; streams and files write them encapsulated (see doc.go).
type Message struct {
	Meta []byte
	Body []byte
}

const (
	continuationMarker = 0xFFFFFFFF
	prefixLen          = 8 // continuation marker + int32 metadata length
	alignment          = 8
)

// padLen is how many zero bytes bring n up to a multiple of 8.
func padLen(n int64) int64 { return (alignment - n%alignment) % alignment }

// paddedMetaLen is the metadata length recorded in the prefix: the
// flatbuffer plus the padding that 8-aligns the body.
func paddedMetaLen(meta int) int { return meta + int(padLen(int64(prefixLen+meta))) }

// EncapsulatedLen is the number of bytes AppendEncapsulated adds.
func (m Message) EncapsulatedLen() int { return prefixLen + paddedMetaLen(len(m.Meta)) + len(m.Body) }

// AppendEncapsulated appends the message in the IPC encapsulation format:
// continuation marker, padded metadata length, metadata, padding, body.
func (m Message) AppendEncapsulated(dst []byte) []byte {
	padded := paddedMetaLen(len(m.Meta))
	dst = binary.LittleEndian.AppendUint32(dst, continuationMarker)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(padded))
	dst = append(dst, m.Meta...)
	for range padded - len(m.Meta) {
		dst = append(dst, 0)
	}
	return append(dst, m.Body...)
}

// writeMessage writes m encapsulated with at most two Write calls (prefix
// and metadata, then body) and returns the bytes written and the padded
// metadata length a file footer records.
func writeMessage(w io.Writer, m Message, scratch []byte) (int64, int32, []byte, error) {
	scratch = Message{Meta: m.Meta}.AppendEncapsulated(scratch[:0])
	if _, err := w.Write(scratch); err != nil {
		return 0, 0, scratch, err
	}
	if len(m.Body) > 0 {
		if _, err := w.Write(m.Body); err != nil {
			return 0, 0, scratch, err
		}
	}
	return int64(len(scratch) + len(m.Body)), int32(len(scratch)), scratch, nil
}

// endOfStream is the marker that ends an IPC stream.
var endOfStream = []byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}

// readMetaPrefix reads the prefix of the next message and returns the
// padded metadata length. It accepts the pre-1.0 form without a
// continuation marker. A clean EOF or the end-of-stream marker return
// io.EOF.
func readMetaPrefix(r io.Reader, lim Limits) (int64, error) {
	var p [4]byte
	if _, err := io.ReadFull(r, p[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return 0, io.EOF
		}
		return 0, corruptf("message prefix cut off: %v", err)
	}
	n := binary.LittleEndian.Uint32(p[:])
	if n == continuationMarker {
		if _, err := io.ReadFull(r, p[:]); err != nil {
			return 0, corruptf("message length cut off after continuation marker: %v", err)
		}
		n = binary.LittleEndian.Uint32(p[:])
	}
	if n == 0 {
		return 0, io.EOF
	}
	size := int64(int32(n))
	if size < 0 {
		return 0, corruptf("negative metadata length %d", size)
	}
	if size > lim.MaxMetadata {
		return 0, limitf("metadata length %d exceeds limit %d", size, lim.MaxMetadata)
	}
	return size, nil
}

// splitMetaPrefix reads the prefix of the encapsulated message at the
// front of b (a file block) and returns its metadata flatbuffer, padding
// included, and the bytes after it.
func splitMetaPrefix(b []byte, lim Limits) (meta, rest []byte, err error) {
	if len(b) < 4 {
		return nil, nil, corruptf("message prefix cut off: %d bytes", len(b))
	}
	n := binary.LittleEndian.Uint32(b)
	b = b[4:]
	if n == continuationMarker {
		if len(b) < 4 {
			return nil, nil, corruptf("message length cut off after continuation marker")
		}
		n = binary.LittleEndian.Uint32(b)
		b = b[4:]
	}
	size := int64(int32(n))
	switch {
	case size <= 0:
		return nil, nil, corruptf("metadata length %d where a message was expected", size)
	case size > lim.MaxMetadata:
		return nil, nil, limitf("metadata length %d exceeds limit %d", size, lim.MaxMetadata)
	case size > int64(len(b)):
		return nil, nil, corruptf("metadata of %d bytes runs past the %d bytes present", size, len(b))
	}
	return b[:size], b[size:], nil
}

// checkBodyLen validates a body length read from metadata.
func checkBodyLen(n int64, lim Limits) error {
	if n < 0 {
		return corruptf("negative body length %d", n)
	}
	if n > lim.MaxBody {
		return limitf("body length %d exceeds limit %d", n, lim.MaxBody)
	}
	return nil
}

// CustomMetadata returns the custom_metadata of the Message flatbuffer in
// m.Meta (empty when it has none), checked against DefaultLimits. It reads
// nothing else, so it is cheap next to Decoder.Decode.
func (m Message) CustomMetadata() (arrow.Metadata, error) {
	_, md, err := meta.DecodeMessageHead(m.Meta, DefaultLimits.meta())
	if err != nil {
		return arrow.Metadata{}, classify(err)
	}
	return md, nil
}

// SplitEncapsulated cuts the encapsulated message at the front of b (the
// inverse of AppendEncapsulated) and returns it with the bytes after it.
// The returned Meta keeps its zero padding, which decoders accept; both
// parts alias b. The metadata and body lengths are checked against lim and
// against the bytes present. At an end-of-stream marker (or an empty b) it
// returns io.EOF and the bytes after the marker.
func SplitEncapsulated(b []byte, lim Limits) (Message, []byte, error) {
	lim = lim.withDefaults()
	switch {
	case len(b) == 0:
		return Message{}, nil, io.EOF
	case len(b) >= 8 && binary.LittleEndian.Uint32(b) == continuationMarker && binary.LittleEndian.Uint32(b[4:]) == 0:
		return Message{}, b[8:], io.EOF
	case len(b) >= 4 && binary.LittleEndian.Uint32(b) == 0:
		return Message{}, b[4:], io.EOF // pre-1.0 end-of-stream
	}
	mb, rest, err := splitMetaPrefix(b, lim)
	if err != nil {
		return Message{}, nil, err
	}
	n, _, err := meta.DecodeMessageHead(mb, lim.meta())
	if err != nil {
		return Message{}, nil, classify(err)
	}
	if err := checkBodyLen(n, lim); err != nil {
		return Message{}, nil, err
	}
	if n > int64(len(rest)) {
		return Message{}, nil, corruptf("message body of %d bytes runs past the %d bytes present", n, len(rest))
	}
	return Message{Meta: mb, Body: rest[:n:n]}, rest[n:], nil
}
