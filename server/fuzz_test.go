package server

import (
	"encoding/binary"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/internal/datagen"
	"github.com/quiverdb/quiver/internal/flightipc"
	"github.com/quiverdb/quiver/internal/pull"
)

// splitFlightData cuts fuzz input into FlightData messages: each is a
// uint16 header length, the header, a uint16 body length, the body.
func splitFlightData(data []byte) []*flight.FlightData {
	var out []*flight.FlightData
	take := func() []byte {
		if len(data) < 2 {
			data = nil
			return nil
		}
		n := int(binary.LittleEndian.Uint16(data))
		data = data[2:]
		n = min(n, len(data))
		b := data[:n]
		data = data[n:]
		return b
	}
	for len(data) > 0 {
		out = append(out, &flight.FlightData{DataHeader: take(), DataBody: take()})
	}
	return out
}

func joinFlightData(msgs []batch.Message) []byte {
	var b []byte
	for _, m := range msgs {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(m.Meta)))
		b = append(b, m.Meta...)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(m.Body)))
		b = append(b, m.Body...)
	}
	return b
}

// FuzzUpload feeds arbitrary FlightData to the path DoPut reads uploads
// with (ingest and parameters): it never panics, never leaks, and reads
// what a real client sends.
func FuzzUpload(f *testing.F) {
	mem := memory.NewGoAllocator()
	rec := datagen.Tiny(mem, 3, 1, datagen.SeedGroups[0]...) // a few hundred bytes: larger seeds leave the fuzzer minimizing
	enc, err := batch.NewEncoder(rec.Schema(), batch.WriteOptions{})
	if err != nil {
		f.Fatal(err)
	}
	msgs := []batch.Message{enc.SchemaMessage()}
	body, err := enc.Encode(rec)
	if err != nil {
		f.Fatal(err)
	}
	for _, m := range body {
		msgs = append(msgs, batch.Message{Meta: append([]byte(nil), m.Meta...), Body: append([]byte(nil), m.Body...)})
	}
	f.Add(joinFlightData(msgs))
	f.Add(joinFlightData(msgs[:1]))
	f.Add([]byte{})
	enc.Release()
	rec.Release()

	f.Fuzz(func(t *testing.T, data []byte) {
		checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer checked.AssertSize(t, 0)
		fds := splitFlightData(data)
		rd := flightipc.NewReader(func() (*flight.FlightData, error) {
			if len(fds) == 0 {
				return nil, io.EOF
			}
			fd := fds[0]
			fds = fds[1:]
			return fd, nil
		}, batch.Limits{})
		sr, err := batch.NewStreamReader(rd, batch.ReadOptions{Alloc: checked, Limits: uploadLimits})
		if err != nil {
			return
		}
		defer sr.Release()
		r := pull.Records(sr.Schema(), sr.Next)
		defer r.Release()
		for r.Next() {
			if rec := r.RecordBatch(); rec.NumRows() > 0 {
				first := rec.NewSlice(0, 1)
				rowParams(first) // parameters are read from such uploads too
				first.Release()
			}
		}
	})
}
