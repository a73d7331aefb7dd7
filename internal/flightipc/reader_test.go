package flightipc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// flightMessages encodes recs as the FlightData a server sends: the
// schema message, then each record's dictionary and record batches.
func flightMessages(t testing.TB, s codec.Setting, recs ...arrow.RecordBatch) []*flight.FlightData {
	t.Helper()
	enc, err := batch.NewEncoder(recs[0].Schema(), batch.WriteOptions{Codec: s})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	clone := func(m batch.Message) *flight.FlightData {
		return &flight.FlightData{DataHeader: bytes.Clone(m.Meta), DataBody: bytes.Clone(m.Body)}
	}
	fds := []*flight.FlightData{clone(enc.SchemaMessage())}
	for _, rec := range recs {
		msgs, err := enc.Encode(rec)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			fds = append(fds, clone(m))
		}
	}
	return fds
}

// replay returns a Recv that hands out fds, then end.
func replay(fds []*flight.FlightData, end error) func() (*flight.FlightData, error) {
	return func() (*flight.FlightData, error) {
		if len(fds) == 0 {
			return nil, end
		}
		fd := fds[0]
		fds = fds[1:]
		return fd, nil
	}
}

func TestFlightIPCRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := datagen.Record(mem, 40, 3) // every type, dictionaries included
	defer rec.Release()
	part := rec.NewSlice(5, 17)
	defer part.Release()
	for _, s := range []codec.Setting{codec.SettingNone, codec.SettingLZ4, {Kind: codec.Zstd, Level: 1}} {
		fds := flightMessages(t, s, rec, part)
		var want int64
		for _, fd := range fds {
			want += int64(len(fd.DataHeader) + len(fd.DataBody))
		}
		// App metadata alone carries nothing for the IPC reader, but
		// counts as bytes received.
		fds = append(fds[:1:1], append([]*flight.FlightData{{AppMetadata: []byte("hello")}}, fds[1:]...)...)
		want += 5
		fr := NewReader(replay(fds, io.EOF), batch.Limits{})
		rd, err := batch.NewStreamReader(fr, batch.ReadOptions{Alloc: mem})
		if err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		for i, w := range []arrow.RecordBatch{rec, part} {
			got, err := rd.Next()
			if err != nil {
				t.Fatalf("%v: record %d: %v", s, i, err)
			}
			if !array.RecordEqual(got, w) {
				t.Errorf("%v: record %d differs", s, i)
			}
			got.Release()
		}
		if _, err := rd.Next(); !errors.Is(err, io.EOF) {
			t.Errorf("%v: after the last record: %v", s, err)
		}
		rd.Release()
		if fr.Wire() != want {
			t.Errorf("%v: %d bytes counted, want %d", s, fr.Wire(), want)
		}
		if k, ok := fr.Codec(); !ok || k != s.Kind {
			t.Errorf("%v: sniffed %v %v", s, k, ok)
		}
	}
}

// TestFlightIPCKeepsTheStreamError: when the server's stream fails, the
// decoder only sees bytes end; the status is kept for the caller.
func TestFlightIPCKeepsTheStreamError(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := datagen.Record(mem, 10, 1)
	defer rec.Release()
	fds := flightMessages(t, codec.SettingLZ4, rec)
	serverErr := status.Error(codes.ResourceExhausted, "memory limit passed")
	fr := NewReader(replay(fds[:1], serverErr), batch.Limits{})
	rd, err := batch.NewStreamReader(fr, batch.ReadOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	if _, err := rd.Next(); err == nil {
		t.Fatal("no error")
	}
	if status.Code(fr.Err()) != codes.ResourceExhausted {
		t.Errorf("stream error %v", fr.Err())
	}
	if _, ok := fr.Codec(); ok {
		t.Error("a codec sniffed from no batch")
	}
}

func TestFlightIPCRefusesBadMessages(t *testing.T) {
	for name, tc := range map[string]struct {
		fd   *flight.FlightData
		want error
	}{
		"body without header": {&flight.FlightData{DataBody: make([]byte, 8)}, batch.ErrCorrupt},
		"header over limit":   {&flight.FlightData{DataHeader: make([]byte, 1025)}, batch.ErrLimit},
	} {
		fr := NewReader(replay([]*flight.FlightData{tc.fd}, io.EOF), batch.Limits{MaxMetadata: 1024})
		_, err := io.ReadAll(fr)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
}

// fuzzLimits keep what fuzzed bytes can make the decoder allocate small.
var fuzzLimits = batch.Limits{MaxMetadata: 1 << 16, MaxBody: 1 << 20, MaxUncompressed: 1 << 22}

// splitMessages reads a fuzz input as FlightData messages: each a
// uint32 LE header length, the header, a uint32 LE body length, the
// body; lengths past the end take what is left.
func splitMessages(b []byte) []*flight.FlightData {
	take := func() []byte {
		if len(b) < 4 {
			b = nil
			return nil
		}
		n := min(int(binary.LittleEndian.Uint32(b)), len(b)-4)
		part := b[4 : 4+n]
		b = b[4+n:]
		return part
	}
	var fds []*flight.FlightData
	for len(b) > 0 {
		fds = append(fds, &flight.FlightData{DataHeader: take(), DataBody: take()})
	}
	return fds
}

func joinMessages(fds []*flight.FlightData) []byte {
	var b []byte
	for _, fd := range fds {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(fd.DataHeader)))
		b = append(b, fd.DataHeader...)
		b = binary.LittleEndian.AppendUint32(b, uint32(len(fd.DataBody)))
		b = append(b, fd.DataBody...)
	}
	return b
}

// FuzzFlightIPC: whatever FlightData a server sends, the client's
// decoding and the codec sniffing return records or an error, never
// panic, and hold no memory after. (TestFlightIPCRoundTrip checks that
// what a real encoder sends reads back whole.)
func FuzzFlightIPC(f *testing.F) {
	// Seeds of a few hundred bytes (one tiny batch per codec, and one
	// with dictionaries): of tens of kilobytes the fuzzer spends its time
	// minimizing them (11 inputs in 2 minutes).
	rec := datagen.Tiny(memory.NewGoAllocator(), 3, 5, datagen.SeedGroups[0]...)
	defer rec.Release()
	for _, s := range []codec.Setting{codec.SettingNone, codec.SettingLZ4, codec.SettingZstd} {
		f.Add(joinMessages(flightMessages(f, s, rec)))
	}
	dict := datagen.Tiny(memory.NewGoAllocator(), 3, 6, "dict", "listdict")
	defer dict.Release()
	f.Add(joinMessages(flightMessages(f, codec.SettingNone, dict)))
	small := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)
	b := array.NewInt64Builder(memory.NewGoAllocator())
	b.AppendValues([]int64{1, 2, 3}, []bool{true, false, true})
	col := b.NewArray()
	one := array.NewRecordBatch(small, []arrow.Array{col}, 3)
	f.Add(joinMessages(flightMessages(f, codec.SettingZstd, one, one)))
	col.Release()
	one.Release()
	b.Release()
	f.Add([]byte{})
	f.Add([]byte{4, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})

	f.Fuzz(func(t *testing.T, data []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		fr := NewReader(replay(splitMessages(data), io.EOF), fuzzLimits)
		rd, err := batch.NewStreamReader(fr, batch.ReadOptions{Alloc: mem, Limits: fuzzLimits})
		if err != nil {
			return
		}
		defer rd.Release()
		for {
			rec, err := rd.Next()
			if err != nil {
				break
			}
			rec.Release()
		}
		fr.Codec()
	})
}
