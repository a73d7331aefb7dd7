package batch_test

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// TestPrefetch: decoding ahead returns the same records in the same order,
// across dictionary replacements, and a reader released early leaks
// nothing.
func TestPrefetch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var recs []arrow.RecordBatch
	for i := range 9 {
		recs = append(recs, datagen.Record(mem, 100+i*13, uint64(20+i))) // each has its own dictionaries
	}
	defer releaseAll(recs)
	data := writeQuiver(t, recs, batch.WriteOptions{Codec: codec.SettingLZ4, Alloc: mem}, false)
	for _, prefetch := range []int{2, 4, 16} {
		got := readQuiverStream(t, data, batch.ReadOptions{Prefetch: prefetch, Alloc: mem})
		assertEqualRecords(t, recs, got)
		releaseAll(got)

		r, err := batch.NewStreamReader(bytes.NewReader(data), batch.ReadOptions{Prefetch: prefetch, Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		rec.Release()
		r.Release() // batches still decoding ahead are dropped
	}
}
