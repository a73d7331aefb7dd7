package batch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch/internal/meta"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

var int64Schema = arrow.NewSchema([]arrow.Field{{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil)

// hugeClaim builds a record batch message of one int64 row whose values
// buffer claims 1 TiB of LZ4-compressed data in a 16-byte body.
func hugeClaim() Message {
	body := binary.LittleEndian.AppendUint64(nil, 1<<40)
	body = append(body, 0x04, 0x22, 0x4d, 0x18, 0, 0, 0, 0)
	return Message{
		Meta: mustEncode(&meta.Message{
			Version: meta.MetadataV5, Header: meta.HeaderRecordBatch, BodyLength: int64(len(body)),
			Record: &meta.RecordBatch{
				Length:      1,
				Nodes:       []meta.FieldNode{{Length: 1}},
				Buffers:     []meta.Buffer{{}, {Offset: 0, Length: 16}},
				Compression: meta.CompressionLZ4,
			},
		}),
		Body: body,
	}
}

// TestHugeClaimFailsFast: the message that kills arrow-go's reader with
// an out-of-memory fatal error is refused before any allocation.
func TestHugeClaimFailsFast(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dec, err := NewDecoder(int64Schema, ReadOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	m := hugeClaim()
	t.Logf("hostile message: %d metadata bytes + %d body bytes", len(m.Meta), len(m.Body))
	start := time.Now()
	rec, err := dec.Decode(m)
	elapsed := time.Since(start)
	if rec != nil || !errors.Is(err, ErrLimit) {
		t.Fatalf("got %v, %v; want ErrLimit", rec, err)
	}
	t.Logf("refused in %v: %v", elapsed, err)

	// The same through a stream.
	var stream []byte
	enc, _ := NewEncoder(int64Schema, WriteOptions{})
	stream = enc.SchemaMessage().AppendEncapsulated(stream)
	stream = m.AppendEncapsulated(stream)
	r, err := NewStreamReader(bytes.NewReader(stream), ReadOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if _, err := r.Next(); !errors.Is(err, ErrLimit) {
		t.Fatalf("stream: got %v, want ErrLimit", err)
	}
}

// TestLimitsMetadataAndBody: stream framing lengths over the limits are
// refused before the bytes are read.
func TestLimitsMetadataAndBody(t *testing.T) {
	// A prefix claiming 1 GiB of metadata.
	b := binary.LittleEndian.AppendUint32(nil, continuationMarker)
	b = binary.LittleEndian.AppendUint32(b, 1<<30)
	_, err := NewStreamReader(bytes.NewReader(b), ReadOptions{Limits: Limits{MaxMetadata: 1 << 20}})
	if !errors.Is(err, ErrLimit) {
		t.Fatalf("metadata: got %v, want ErrLimit", err)
	}
	// A record batch declaring a body over MaxBody.
	enc, _ := NewEncoder(int64Schema, WriteOptions{})
	var stream []byte
	stream = enc.SchemaMessage().AppendEncapsulated(stream)
	m := hugeClaim()
	stream = Message{Meta: m.Meta}.AppendEncapsulated(stream) // body omitted: must not matter
	r, err := NewStreamReader(bytes.NewReader(stream), ReadOptions{Limits: Limits{MaxBody: 8}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); !errors.Is(err, ErrLimit) {
		t.Fatalf("body: got %v, want ErrLimit", err)
	}
}

// corruptions are edits to a valid record batch message, each of which
// must be rejected with ErrCorrupt and release everything allocated.
var corruptions = map[string]func(rb *meta.RecordBatch, body []byte){
	"buffer past body":    func(rb *meta.RecordBatch, _ []byte) { rb.Buffers[1].Offset = 1 << 40 },
	"negative length":     func(rb *meta.RecordBatch, _ []byte) { rb.Buffers[1].Length = -5 },
	"missing node":        func(rb *meta.RecordBatch, _ []byte) { rb.Nodes = rb.Nodes[:len(rb.Nodes)-1] },
	"extra buffer":        func(rb *meta.RecordBatch, _ []byte) { rb.Buffers = append(rb.Buffers, meta.Buffer{}) },
	"node longer":         func(rb *meta.RecordBatch, _ []byte) { rb.Nodes[1].Length += 1000 },
	"nulls over length":   func(rb *meta.RecordBatch, _ []byte) { rb.Nodes[2].NullCount = rb.Nodes[2].Length + 1 },
	"negative prefix":     negativePrefix,
	"wrong batch length":  func(rb *meta.RecordBatch, _ []byte) { rb.Length++ },
	"short prefix buffer": func(rb *meta.RecordBatch, _ []byte) { rb.Buffers[3].Length = 4 },
}

func negativePrefix(rb *meta.RecordBatch, body []byte) {
	for _, b := range rb.Buffers {
		if b.Length >= 8 {
			binary.LittleEndian.PutUint64(body[b.Offset:], uint64(1<<64-2))
			return
		}
	}
}

func TestCorruptMessages(t *testing.T) {
	for name, edit := range corruptions {
		t.Run(name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rec := datagen.Record(mem, 100, 3)
			defer rec.Release()
			got, err := decodeEditedBody(t, mem, rec, codec.SettingLZ4, edit)
			if got != nil || !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrLimit) {
				t.Fatalf("got %v, %v; want ErrCorrupt", got, err)
			}
			t.Log(err)
		})
	}
}

// TestTruncatedStream: a stream cut at every length fails cleanly (or
// ends early at a message boundary) and leaks nothing.
func TestTruncatedStream(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := datagen.Record(mem, 20, 4)
	defer rec.Release()
	var buf bytes.Buffer
	w, _ := NewStreamWriter(&buf, rec.Schema(), WriteOptions{Codec: codec.SettingZstd, Alloc: mem})
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	full := buf.Bytes()
	for cut := 0; cut < len(full); cut += 7 {
		r, err := NewStreamReader(bytes.NewReader(full[:cut]), ReadOptions{Alloc: mem})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("cut %d: %v", cut, err)
			}
			continue
		}
		for {
			got, err := r.Next()
			if err != nil {
				if err != io.EOF && !errors.Is(err, ErrCorrupt) {
					t.Fatalf("cut %d: %v", cut, err)
				}
				break
			}
			got.Release()
		}
		r.Release()
	}
}

func mustEncode(m *meta.Message) []byte {
	b, err := meta.EncodeMessage(m)
	if err != nil {
		panic(err)
	}
	return b
}

// TestPrefetchError: a bad batch read ahead is reported at its place in
// the stream, after the good batches before it, and ends the stream.
func TestPrefetchError(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	enc, _ := NewEncoder(int64Schema, WriteOptions{Codec: codec.SettingLZ4})
	defer enc.Release()
	b := arrayOfInt64(mem, 1000)
	defer b.Release()
	msgs, err := enc.Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	stream := enc.SchemaMessage().AppendEncapsulated(nil)
	for range 3 {
		stream = msgs[0].AppendEncapsulated(stream)
	}
	stream = hugeClaim().AppendEncapsulated(stream)
	stream = msgs[0].AppendEncapsulated(stream)
	stream = append(stream, endOfStream...)
	r, err := NewStreamReader(bytes.NewReader(stream), ReadOptions{Prefetch: 3, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	for i := range 3 {
		rec, err := r.Next()
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		rec.Release()
	}
	if _, err := r.Next(); !errors.Is(err, ErrLimit) {
		t.Fatalf("batch 3: got %v, want ErrLimit", err)
	}
	if rec, err := r.Next(); err == nil {
		rec.Release()
		t.Fatal("reading on after an error returned a record")
	}
}

func arrayOfInt64(mem memory.Allocator, n int) arrow.RecordBatch {
	bld := array.NewInt64Builder(mem)
	defer bld.Release()
	for i := range n {
		bld.Append(int64(i))
	}
	col := bld.NewArray()
	defer col.Release()
	return array.NewRecordBatch(int64Schema, []arrow.Array{col}, int64(n))
}
