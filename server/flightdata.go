package server

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow/flight"
)

// flightDataReader turns the FlightData messages of a DoPut into the bytes
// of an Arrow IPC stream (each message encapsulated: FFFFFFFF, int32
// metadata length, metadata padded to 8, body), so quiver's own stream
// reader, which checks every length against its limits, decodes what
// clients send. arrow-go's reader trusts the lengths in its input.
type flightDataReader struct {
	recv  func() (*flight.FlightData, error)
	first *flight.FlightData // already received by the caller
	buf   []byte
	off   int
	done  bool
}

var eos = []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}

func (r *flightDataReader) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.done {
			return 0, io.EOF
		}
		if err := r.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// fill encapsulates the next message with a header into r.buf.
func (r *flightDataReader) fill() error {
	fd := r.first
	r.first = nil
	if fd == nil {
		var err error
		fd, err = r.recv()
		if errors.Is(err, io.EOF) {
			r.buf, r.off, r.done = append(r.buf[:0], eos...), 0, true
			return nil
		}
		if err != nil {
			return err
		}
	}
	r.buf, r.off = r.buf[:0], 0
	if len(fd.DataHeader) == 0 {
		return nil // app metadata only: nothing for the IPC reader
	}
	padded := (len(fd.DataHeader) + 7) &^ 7
	r.buf = binary.LittleEndian.AppendUint32(r.buf, 0xffffffff)
	r.buf = binary.LittleEndian.AppendUint32(r.buf, uint32(padded))
	r.buf = append(r.buf, fd.DataHeader...)
	r.buf = append(r.buf, make([]byte, padded-len(fd.DataHeader))...)
	r.buf = append(r.buf, fd.DataBody...)
	return nil
}
