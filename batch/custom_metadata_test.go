package batch

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// encodeStreamWithMetadata encodes recs as an lz4 stream whose every
// message carries md.
func encodeStreamWithMetadata(t testing.TB, mem memory.Allocator, recs []arrow.RecordBatch, md arrow.Metadata) []byte {
	t.Helper()
	enc, err := NewEncoder(recs[0].Schema(), WriteOptions{Codec: codec.SettingLZ4, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	enc.SetCustomMetadata(md)
	out := enc.SchemaMessage().AppendEncapsulated(nil)
	for _, r := range recs {
		msgs, err := enc.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			out = m.AppendEncapsulated(out)
		}
	}
	return append(out, endOfStream...)
}

func TestCustomMetadataOnEveryMessage(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	a, b := datagen.Record(mem, 40, 1), datagen.Record(mem, 7, 2) // b's dictionaries differ: replacement messages
	defer a.Release()
	defer b.Release()
	md := arrow.NewMetadata([]string{"k", "quiver.x"}, []string{"v", "0123456789abcdef"})
	stream := encodeStreamWithMetadata(t, mem, []arrow.RecordBatch{a, b}, md)

	// Split it back into messages: each carries md, and the pieces put
	// together again give the same bytes.
	var again []byte
	rest := stream
	n := 0
	for {
		m, r, err := SplitEncapsulated(rest, Limits{})
		if err == io.EOF {
			again = append(again, endOfStream...)
			if len(r) != 0 {
				t.Fatalf("%d bytes after the end-of-stream marker", len(r))
			}
			break
		}
		if err != nil {
			t.Fatalf("message %d: %v", n, err)
		}
		got, err := m.CustomMetadata()
		if err != nil {
			t.Fatal(err)
		}
		if !got.Equal(md) {
			t.Fatalf("message %d: custom metadata %v, want %v", n, got, md)
		}
		again = m.AppendEncapsulated(again)
		rest = r
		n++
	}
	if n < 5 { // schema, at least one dictionary, two records
		t.Fatalf("only %d messages", n)
	}
	if !bytes.Equal(again, stream) {
		t.Fatal("split and re-encapsulated stream differs from the original")
	}

	// Readers that do not know the keys still read the stream: ours and
	// arrow-go's.
	sr, err := NewStreamReader(bytes.NewReader(stream), ReadOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Release()
	for i, want := range []arrow.RecordBatch{a, b} {
		got, err := sr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !array.RecordEqual(got, want) {
			t.Fatalf("record %d differs", i)
		}
		got.Release()
	}
	ar, err := ipc.NewReader(bytes.NewReader(stream), ipc.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	defer ar.Release()
	for i := 0; ar.Next(); i++ {
		if ar.RecordBatch().NumRows() != []int64{40, 7}[i] {
			t.Fatalf("arrow-go record %d has %d rows", i, ar.RecordBatch().NumRows())
		}
	}
	if err := ar.Err(); err != nil {
		t.Fatalf("arrow-go: %v", err)
	}
}

func TestCustomMetadataUnsetIsAbsent(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := datagen.Record(mem, 5, 3)
	defer rec.Release()
	enc, err := NewEncoder(rec.Schema(), WriteOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	plain, err := enc.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	plainLen := len(plain[len(plain)-1].Meta)
	enc.SetCustomMetadata(arrow.NewMetadata([]string{"a"}, []string{"b"}))
	enc.SetCustomMetadata(arrow.Metadata{}) // set back: nothing written
	msgs, err := enc.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	m := msgs[len(msgs)-1]
	md, err := m.CustomMetadata()
	if err != nil || md.Len() != 0 {
		t.Fatalf("custom metadata %v, %v; want none", md, err)
	}
	if len(m.Meta) != plainLen {
		t.Fatalf("metadata is %d bytes, %d without custom metadata", len(m.Meta), plainLen)
	}
}

func TestSplitEncapsulatedTruncated(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := datagen.Record(mem, 10, 4)
	defer rec.Release()
	stream := encodeStreamWithMetadata(t, mem, []arrow.RecordBatch{rec}, arrow.NewMetadata([]string{"k"}, []string{"v"}))
	first, _, err := SplitEncapsulated(stream, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	whole := first.EncapsulatedLen()
	// Every cut inside the first message fails as corrupt, never panics
	// and never returns a message.
	for n := 1; n < whole; n++ {
		_, _, err := SplitEncapsulated(stream[:n], Limits{})
		if !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut at %d of %d: %v, want ErrCorrupt", n, whole, err)
		}
	}
	if _, _, err := SplitEncapsulated(stream[:whole], Limits{}); err != nil {
		t.Fatalf("whole message: %v", err)
	}
	// A metadata length past the limit is refused before anything else.
	if _, _, err := SplitEncapsulated(stream, Limits{MaxMetadata: 8}); !errors.Is(err, ErrLimit) {
		t.Fatalf("MaxMetadata 8: %v, want ErrLimit", err)
	}
}

func FuzzSplitEncapsulated(f *testing.F) {
	mem := memory.NewGoAllocator()
	rec := datagen.Tiny(mem, 3, 5, datagen.SeedGroups[0]...) // a few hundred bytes: larger seeds leave the fuzzer minimizing
	defer rec.Release()
	stream := encodeStreamWithMetadata(f, mem, []arrow.RecordBatch{rec}, arrow.NewMetadata([]string{"k"}, []string{"v"}))
	f.Add(stream)
	f.Add(stream[:40])
	f.Add(endOfStream)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x10, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		for range 64 {
			m, rest, err := SplitEncapsulated(b, Limits{MaxMetadata: 1 << 16, MaxBody: 1 << 20})
			if err != nil {
				return
			}
			if len(rest) >= len(b) {
				t.Fatalf("no progress: %d bytes left of %d", len(rest), len(b))
			}
			if _, err := m.CustomMetadata(); err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrLimit) {
				t.Fatalf("custom metadata error %v matches no sentinel", err)
			}
			b = rest
		}
	})
}
