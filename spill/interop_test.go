package spill

import (
	"fmt"
	"os"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/datagen"
)

// TestArrowGoReadsSpillFiles: a spill file is a plain Arrow IPC stream.
// arrow-go's reader, which knows nothing of the checksums or the lengths
// encoding, reads it, and gets the spill form of each record: the struct
// of lengths and one run where a string column was.
func TestArrowGoReadsSpillFiles(t *testing.T) {
	for _, s := range settings {
		for _, tc := range []struct {
			name string
			recs func(memory.Allocator) []arrow.RecordBatch
		}{
			{"strings", func(mem memory.Allocator) []arrow.RecordBatch {
				return []arrow.RecordBatch{stringRecord(mem, 100, 1, 3), stringRecord(mem, 7, 2, 0)}
			}},
			{"alltypes", func(mem memory.Allocator) []arrow.RecordBatch {
				return []arrow.RecordBatch{datagen.Record(mem, 50, 1), datagen.Record(mem, 20, 2)}
			}},
		} {
			t.Run(fmt.Sprintf("codec=%s/%s", s, tc.name), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				m := newTestManager(t, Config{Codec: s}, mem)
				recs := tc.recs(mem)
				defer releaseRecords(recs)
				f := spillAll(t, m, recs...)
				defer f.Remove()
				fh, err := os.Open(f.Path())
				if err != nil {
					t.Fatal(err)
				}
				defer fh.Close()
				r, err := ipc.NewReader(fh, ipc.WithAllocator(mem))
				if err != nil {
					t.Fatal(err)
				}
				defer r.Release()
				if !r.Schema().Equal(f.plan.spill) {
					t.Fatalf("arrow-go schema\n%s\nwant\n%s", r.Schema(), f.plan.spill)
				}
				i := 0
				for ; r.Next(); i++ {
					want := f.plan.toSpill(recs[i], mem)
					if !array.RecordEqual(r.RecordBatch(), want) {
						t.Errorf("batch %d differs from its spill form", i)
					}
					want.Release()
				}
				if err := r.Err(); err != nil || i != len(recs) {
					t.Fatalf("arrow-go read %d batches: %v", i, err)
				}
			})
		}
	}
}
