package cache

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestEncodedInBatchOrder: TableOptions.Encoded sees every batch of a
// PreparePut and a PrepareAppend once, in batch order, with the chunks
// the change's Image holds, although four goroutines encode them.
func TestEncodedInBatchOrder(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	in := allTypesInput(mem)
	defer release(in)
	// The same batches go in ten times and are encoded concurrently:
	// settle their slices' lazily counted NULLs first, which arrow-go
	// writes on the first NullN (a race between the encoders otherwise).
	for _, rec := range in {
		for _, col := range rec.Columns() {
			col.NullN()
		}
	}
	var recs []arrow.RecordBatch
	for range 10 {
		recs = append(recs, in...)
	}
	for _, appending := range []bool{false, true} {
		var got []int
		var chunks [][][]byte
		opts := TableOptions{Concurrency: 4, Encoded: func(i int, c [][]byte) {
			got = append(got, i)
			chunks = append(chunks, c)
		}}
		r, err := array.NewRecordReader(in[0].Schema(), recs)
		if err != nil {
			t.Fatal(err)
		}
		var ch *Change
		if appending {
			ch, err = c.PrepareAppend(t.Context(), "t", r, opts)
		} else {
			ch, err = c.PreparePut(t.Context(), "t", r, opts)
		}
		r.Release()
		if err != nil {
			t.Fatal(err)
		}
		img := ch.Image()
		if len(got) != len(recs) || len(img.Batches) != len(recs) {
			t.Fatalf("append %v: %d calls, %d batches, want %d", appending, len(got), len(img.Batches), len(recs))
		}
		for i := range got {
			if got[i] != i || &chunks[i][0] != &img.Batches[i].Chunks[0] {
				t.Fatalf("append %v: call %d was batch %d (or other chunks)", appending, i, got[i])
			}
		}
		if _, err := ch.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}
