package batch

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch/internal/meta"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// TestEmptyBufferZeroPrefix: Arrow Java has written empty buffers of
// compressed batches as an 8-byte prefix of 0 instead of no bytes at all;
// both read as empty.
func TestEmptyBufferZeroPrefix(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := datagen.Record(mem, 50, 41)
	defer rec.Release()
	rewritten := 0
	got, err := decodeEditedBody(t, mem, rec, codec.SettingZstd, func(rb *meta.RecordBatch, body []byte) {
		// The body cannot grow inside the edit, so every empty buffer
		// is pointed at a run of 8 zero bytes already in it.
		zeros := bytes.Index(body, make([]byte, 8))
		if zeros < 0 {
			t.Fatal("no run of 8 zero bytes in the body to point at")
		}
		for i, b := range rb.Buffers {
			if b.Length == 0 {
				rb.Buffers[i] = meta.Buffer{Offset: int64(zeros), Length: 8}
				rewritten++
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if rewritten == 0 {
		t.Fatal("no empty buffer to rewrite")
	}
	if !array.RecordEqual(rec, got) {
		t.Fatal("record differs after reading zero-prefixed empty buffers")
	}
}

// TestMinSaving: a buffer is stored raw (prefix -1) when compression does
// not save MinSaving of it, and compressed otherwise; both read back.
func TestMinSaving(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	bld := array.NewInt64Builder(mem)
	defer bld.Release()
	for i := range 4096 {
		bld.Append(int64(i % 16)) // compresses well: saves far more than half
	}
	col := bld.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(int64Schema, []arrow.Array{col}, 4096)
	defer rec.Release()
	for _, c := range []struct {
		minSaving float64
		wantRaw   bool
	}{{0, false}, {0.5, false}, {0.999, true}} {
		enc, err := NewEncoder(int64Schema, WriteOptions{Codec: codec.SettingLZ4, MinSaving: c.minSaving, Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		msgs, err := enc.Encode(rec)
		if err != nil {
			t.Fatal(err)
		}
		m := msgs[0]
		parsed, err := meta.DecodeMessage(m.Meta, meta.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		values := parsed.Record.Buffers[1]
		prefix := int64(binary.LittleEndian.Uint64(m.Body[values.Offset:]))
		if raw := prefix == -1; raw != c.wantRaw {
			t.Errorf("MinSaving %v: prefix %d, want raw=%v", c.minSaving, prefix, c.wantRaw)
		}
		dec, _ := NewDecoder(int64Schema, ReadOptions{Alloc: mem})
		got, err := dec.Decode(m)
		if err != nil {
			t.Fatal(err)
		}
		if !array.RecordEqual(rec, got) {
			t.Errorf("MinSaving %v: record differs", c.minSaving)
		}
		got.Release()
		dec.Release()
		enc.Release()
	}
	if _, err := NewEncoder(int64Schema, WriteOptions{MinSaving: 1}); err == nil {
		t.Error("MinSaving 1 accepted")
	}
}
