package batch

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/internal/datagen"
)

// TestAdmit: Admit sees what each batch decodes to before it is
// allocated, and its error stops the read with nothing held.
func TestAdmit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := datagen.Tiny(memory.NewGoAllocator(), 50, 3, "i64", "str")
	defer rec.Release()
	var buf bytes.Buffer
	w, err := NewStreamWriter(&buf, rec.Schema(), WriteOptions{Codec: codec.SettingZstd})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	stream := buf.Bytes()

	var seen []int64
	r, err := NewStreamReader(bytes.NewReader(stream), ReadOptions{Alloc: mem, Admit: func(n int64) error {
		seen = append(seen, n)
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	for {
		got, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n := arrowsize.Record(got); n > seen[len(seen)-1] {
			t.Errorf("batch of %d decoded bytes admitted as %d", n, seen[len(seen)-1])
		}
		got.Release()
	}
	r.Release()
	if len(seen) != 3 {
		t.Fatalf("Admit called %d times for 3 batches", len(seen))
	}

	stop := errors.New("over the caller's budget")
	calls := 0
	r, err = NewStreamReader(bytes.NewReader(stream), ReadOptions{Alloc: mem, Admit: func(n int64) error {
		if calls++; calls == 2 {
			if before := mem.CurrentAlloc(); before != 0 {
				t.Errorf("%d bytes held when the second batch was admitted, after the first was released", before)
			}
			return stop
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	first, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	first.Release()
	if _, err := r.Next(); !errors.Is(err, stop) {
		t.Fatalf("second batch: %v, want the Admit error", err)
	}
}
