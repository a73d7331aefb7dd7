package batch

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

func TestOpenRecordsReadsFilesAndStreams(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// One dictionary for both batches: the file format cannot replace one.
	whole := datagen.Record(mem, 30, 1)
	recs := []arrow.RecordBatch{whole, whole.NewSlice(5, 12)}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	schema := recs[0].Schema()
	opts := WriteOptions{Codec: codec.SettingLZ4, Alloc: mem}
	var file, stream bytes.Buffer
	fw, err := NewFileWriter(&file, schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	sw, err := NewStreamWriter(&stream, schema, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := fw.Write(r); err != nil {
			t.Fatal(err)
		}
		if err := sw.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"file": file.Bytes(), "stream": stream.Bytes()} {
		r, err := OpenRecords(bytes.NewReader(b), int64(len(b)), ReadOptions{Alloc: mem})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		n := 0
		for r.Next() {
			if !array.RecordEqual(r.RecordBatch(), recs[n]) {
				t.Errorf("%s: batch %d differs", name, n)
			}
			n++
		}
		if r.Err() != nil || n != len(recs) {
			t.Errorf("%s: %d batches, err %v", name, n, r.Err())
		}
		r.Release()

		// Cut inside the last batch: the first batch reads, then an error.
		cut := b[:len(b)-len(b)/4]
		r, err = OpenRecords(bytes.NewReader(cut), int64(len(cut)), ReadOptions{Alloc: mem})
		if err != nil {
			continue // a file without its footer fails at open
		}
		for r.Next() {
		}
		if r.Err() == nil {
			t.Errorf("%s cut short: no error", name)
		}
		r.Release()
	}
}
