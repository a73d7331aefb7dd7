// Package flightipc reads Arrow Flight's FlightData messages as an Arrow
// IPC stream, for quiver's hostile-input-safe batch reader: the server reads
// uploads (ingest, parameters) with it and the client reads results.
// arrow-go's Flight reader allocates whatever a buffer prefix claims.
package flightipc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
)

// Reader turns a sequence of FlightData messages (a DoGet's result, a
// DoPut's upload) into the bytes of an Arrow IPC stream, so quiver's
// stream reader decodes them: it checks
// every length against its limits before allocating, where arrow-go's
// Flight reader allocates whatever a buffer prefix claims (a 100-byte
// message from a broken or hostile server can end the process).
//
// Flight sends each IPC message as one FlightData with the metadata
// flatbuffer in data_header and the body in data_body. Each becomes an
// encapsulated message:
//
//	 0        4        8                 8+M              8+M+B
//	┌────────┬────────┬─────────────────┬────────────────┐
//	│FFFFFFFF│ int32 M│ data_header,    │ data_body      │
//	│        │   LE   │ 0-padded to 8   │ (B bytes)      │
//	└────────┴────────┴─────────────────┴────────────────┘
//
// and the end of the gRPC stream becomes the end-of-stream marker
// FFFFFFFF 00000000. FlightData with no data_header (app metadata only)
// adds nothing. The body is handed out from the message itself, not
// copied into a second buffer.
//
// It counts the bytes that crossed the wire and keeps the stream's own
// error (a gRPC status) apart from what the decoder makes of the cut-off
// bytes, so the caller reports the server's error, not "message cut off".
type Reader struct {
	recv    func() (*flight.FlightData, error)
	maxMeta int64

	head []byte // encapsulation prefix and padded header of the current message
	body []byte // its body, not yet read
	done bool

	err      error // the stream's error, other than io.EOF
	wire     int64 // FlightData bytes received
	messages int   // messages with a data_header

	// The schema message and the first message after it, encapsulated,
	// to tell the result's codec (Codec).
	schemaMsg, firstMsg []byte
}

var endOfStream = []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}

// NewReader reads the messages recv yields until io.EOF; a header longer
// than lim.MaxMetadata (default batch.DefaultLimits') is ErrLimit. Give
// the same limits to the batch.StreamReader over it.
func NewReader(recv func() (*flight.FlightData, error), lim batch.Limits) *Reader {
	maxMeta := lim.MaxMetadata
	if maxMeta <= 0 {
		maxMeta = batch.DefaultLimits.MaxMetadata
	}
	return &Reader{recv: recv, maxMeta: min(maxMeta, 1<<31-8)}
}

func (r *Reader) Read(p []byte) (int, error) {
	for len(r.head) == 0 && len(r.body) == 0 {
		if r.done {
			return 0, io.EOF
		}
		if r.err != nil {
			return 0, r.err
		}
		if err := r.next(); err != nil {
			r.err = err
			return 0, err
		}
	}
	var n int
	if len(r.head) > 0 {
		n = copy(p, r.head)
		r.head = r.head[n:]
	} else {
		n = copy(p, r.body)
		r.body = r.body[n:]
	}
	return n, nil
}

// next receives one FlightData and sets it up to be read.
func (r *Reader) next() error {
	fd, err := r.recv()
	if errors.Is(err, io.EOF) {
		r.head, r.done = endOfStream, true
		return nil
	}
	if err != nil {
		return err
	}
	r.wire += Bytes(fd)
	if len(fd.DataHeader) == 0 {
		if len(fd.DataBody) != 0 {
			return fmt.Errorf("%w: FlightData with a %d-byte body and no header", batch.ErrCorrupt, len(fd.DataBody))
		}
		return nil
	}
	if int64(len(fd.DataHeader)) > r.maxMeta {
		return fmt.Errorf("%w: FlightData header of %d bytes (limit %d)", batch.ErrLimit, len(fd.DataHeader), r.maxMeta)
	}
	padded := (len(fd.DataHeader) + 7) &^ 7
	head := make([]byte, 8, 8+padded)
	binary.LittleEndian.PutUint32(head, 0xffffffff)
	binary.LittleEndian.PutUint32(head[4:], uint32(padded))
	head = append(head, fd.DataHeader...)
	head = append(head, make([]byte, padded-len(fd.DataHeader))...)
	r.head, r.body = head, fd.DataBody
	switch r.messages {
	case 0:
		r.schemaMsg = append(head[:len(head):len(head)], fd.DataBody...)
	case 1:
		r.firstMsg = append(head[:len(head):len(head)], fd.DataBody...)
	}
	r.messages++
	return nil
}

// Codec tells the body compression of the first batch message after
// the schema (every batch of a quiver result has the same). ok is false
// when there was no such message or it does not parse (the decoder then
// reports why).
func (r *Reader) Codec() (k codec.Kind, ok bool) {
	if r.firstMsg == nil {
		return 0, false
	}
	stream := append(append(append([]byte(nil), r.schemaMsg...), r.firstMsg...), endOfStream...)
	found := false
	_, _, err := batch.Inspect(bytes.NewReader(stream), int64(len(stream)), batch.ReadOptions{}, false, func(m *batch.MessageInfo) error {
		if !found {
			k, found = m.Codec, true
		}
		return nil
	})
	return k, found && err == nil
}

// Wire is the FlightData bytes received so far (header, body, app
// metadata).
func (r *Reader) Wire() int64 { return r.wire }

// Err is the stream's own error (a gRPC status), other than its end.
func (r *Reader) Err() error { return r.err }

// Bytes is what one FlightData message carries: its IPC header and body
// and its app metadata.
func Bytes(fd *flight.FlightData) int64 {
	return int64(len(fd.DataHeader) + len(fd.DataBody) + len(fd.AppMetadata))
}

// Prepend returns a recv that yields first, then what recv yields: for a
// DoPut, whose first message the server reads to find the command.
func Prepend(first *flight.FlightData, recv func() (*flight.FlightData, error)) func() (*flight.FlightData, error) {
	return func() (*flight.FlightData, error) {
		if first != nil {
			fd := first
			first = nil
			return fd, nil
		}
		return recv()
	}
}
