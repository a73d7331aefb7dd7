package batch

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// recordWriter is what StreamWriter and FileWriter both are.
type recordWriter interface {
	Write(arrow.RecordBatch) error
	Close() error
}

// eachWriter runs f on a StreamWriter and a FileWriter writing to w.
func eachWriter(t *testing.T, mem memory.Allocator, schema *arrow.Schema, w func() io.Writer, f func(t *testing.T, kind string, rw recordWriter)) {
	opts := WriteOptions{Codec: codec.SettingLZ4, Alloc: mem}
	for _, kind := range []string{"stream", "file"} {
		t.Run(kind, func(t *testing.T) {
			var rw recordWriter
			var err error
			if kind == "stream" {
				rw, err = NewStreamWriter(w(), schema, opts)
			} else {
				rw, err = NewFileWriter(w(), schema, opts)
			}
			if err != nil {
				t.Fatal(err)
			}
			f(t, kind, rw)
		})
	}
}

// TestWriterClose: Close alone writes a readable stream or file of the
// schema and no batches; a second Close, and a Write after Close, write
// nothing, and the Write is an error naming the closed writer.
func TestWriterClose(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := datagen.Record(mem, 10, 1)
	defer rec.Release()
	var buf bytes.Buffer
	eachWriter(t, mem, rec.Schema(), func() io.Writer { buf.Reset(); return &buf }, func(t *testing.T, kind string, rw recordWriter) {
		if err := rw.Close(); err != nil {
			t.Fatal(err)
		}
		n := buf.Len()
		if err := rw.Close(); err != nil || buf.Len() != n {
			t.Errorf("second Close: %v, %d bytes more", err, buf.Len()-n)
		}
		err := rw.Write(rec)
		if err == nil || !strings.Contains(err.Error(), "closed "+kind+" writer") {
			t.Errorf("Write after Close: %v, want an error naming the closed %s writer", err, kind)
		}
		if buf.Len() != n {
			t.Errorf("Write after Close wrote %d bytes", buf.Len()-n)
		}
		r, err := OpenRecords(bytes.NewReader(buf.Bytes()), int64(buf.Len()), ReadOptions{Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Release()
		if !r.Schema().Equal(rec.Schema()) {
			t.Errorf("schema %v, want %v", r.Schema(), rec.Schema())
		}
		if r.Next() {
			t.Error("a batch in a writer closed without records")
		}
		if r.Err() != nil {
			t.Error(r.Err())
		}
	})
}

// failingWriter takes limit bytes, then fails every write and counts
// what it was asked to write after the failure.
type failingWriter struct {
	limit, after int
	failed       bool
}

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	if w.failed {
		w.after += len(p)
		return 0, errDiskFull
	}
	if len(p) > w.limit {
		w.failed = true
		return 0, errDiskFull
	}
	w.limit -= len(p)
	return len(p), nil
}

// TestWriterErrorIsSticky: after the underlying writer fails, Write and
// Close return that error and ask it to write nothing more; the encoder's
// memory is released all the same.
func TestWriterErrorIsSticky(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := datagen.Record(mem, 10, 1)
	defer rec.Release()
	fw := &failingWriter{}
	eachWriter(t, mem, rec.Schema(), func() io.Writer { *fw = failingWriter{limit: 100}; return fw }, func(t *testing.T, kind string, rw recordWriter) {
		for i := range 2 {
			if err := rw.Write(rec); !errors.Is(err, errDiskFull) {
				t.Errorf("Write %d: %v, want %v", i, err, errDiskFull)
			}
		}
		for i := range 2 {
			if err := rw.Close(); !errors.Is(err, errDiskFull) {
				t.Errorf("Close %d: %v, want %v", i, err, errDiskFull)
			}
		}
		if fw.after != 0 {
			t.Errorf("%d bytes asked for after the failure", fw.after)
		}
	})
}
