package shuffle_test

import (
	"context"
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/shuffle"
	"github.com/quiverdb/quiver/spill"
)

// One exchange end to end, as an engine would run it: map tasks write
// partitioned rows, their statuses are serialized once and decoded by the
// planner, which coalesces the reduce partitions, and reduce tasks read
// their blocks.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	m, _ := spill.NewManager(spill.Config{Dir: dir})
	defer m.Close()

	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	s, _ := shuffle.New(ctx, m, "query-1-join-left", schema, shuffle.Config{
		Maps: 2, Partitions: 4,
		Writer:      shuffle.WriterOptions{Codec: codec.Setting{Kind: codec.LZ4}},
		StatusCodec: codec.Setting{Kind: codec.Zstd, Level: 1},
	})
	defer s.Close() // removes the files when the query ends, fails or is cancelled

	for mi := range 2 { // each map task, on its own goroutine in an engine
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.AppendValues([]int64{1, 2, 3, 4, 5, 6}, nil)
		col := b.NewArray()
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, 6)
		parts := []int32{0, 1, 1, 3, 3, 3} // from query's partitioner; partition 2 stays empty
		w, _ := s.NewMapWriter(mi)
		_ = w.WriteRows(ctx, rec, parts)
		_, _ = s.FinishMap(mi, w) // registers the map's status
		rec.Release()
		col.Release()
		b.Release()
	}

	blob, _ := s.Statuses().Serialized() // built once, shared by every reader
	statuses, _ := shuffle.DecodeStatuses(blob, shuffle.DecodeLimits{})
	totals := shuffle.Totals(statuses)
	fmt.Println("empty partition 2:", totals[2] == 0)

	// An advisory size that holds partitions 0 and 1 together (and the
	// empty 2, which costs nothing), so 3 goes alone.
	target := totals[0] + totals[1]
	ranges := shuffle.Coalesce([][]int64{totals}, shuffle.CoalesceConfig{AdvisorySize: target, MinPartitionSize: 1})
	for _, r := range ranges {
		rd, _ := s.Read(ctx, r, shuffle.MapRange{Start: 0, End: statuses.Maps()}, shuffle.ReadOptions{})
		rows := 0
		for rd.Next() {
			rows += int(rd.RecordBatch().NumRows())
		}
		rd.Release()
		fmt.Printf("partitions %d..%d: %d rows\n", r.Start, r.End, rows)
	}
	// Output:
	// empty partition 2: true
	// partitions 0..3: 6 rows
	// partitions 3..4: 6 rows
}

// An exchange's hash repartition on one goroutine: each batch's rows are
// given partitions by their key, gathered into their partitions' batches,
// and a partition's batch goes on (to the goroutine that owns it, in an
// engine) when it is full, the rest at the end.
func ExampleRepartitioner() {
	ctx := context.Background()
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	hp, _ := shuffle.NewHashPartitioner([]arrow.DataType{arrow.PrimitiveTypes.Int64}, 42, 2)
	defer hp.Release()
	r, _ := shuffle.NewRepartitioner(mem, schema, shuffle.RepartitionConfig{Fanout: 2, BatchRows: 4})
	defer r.Release()
	send := func(p int, b arrow.RecordBatch) error {
		fmt.Printf("partition %d: %v\n", p, b.Column(0))
		return nil
	}
	var ids []uint16
	for batch := range 2 {
		b := array.NewInt64Builder(mem)
		for k := range 5 {
			b.Append(int64(batch*5 + k))
		}
		col := b.NewArray()
		b.Release()
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, 5)
		col.Release()
		ids, _ = hp.Partition(ids[:0], rec.Columns(), 5)
		_ = r.Add(ctx, rec, ids, send)
		rec.Release()
	}
	_ = r.Flush(send)
	// Output:
	// partition 0: [0 3 5 6]
	// partition 1: [1 2 4 7]
	// partition 0: [8]
	// partition 1: [9]
}
