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
	// Ten copies of the batches, each built on its own: the encoders run
	// concurrently, and arrow-go fills some of an array's state on first
	// use (a slice's NULL count, a dictionary array's dictionary), which
	// races when two encoders read the same array.
	var in, recs []arrow.RecordBatch
	for range 10 {
		in = allTypesInput(mem)
		defer release(in)
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
