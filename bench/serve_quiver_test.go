package bench

import (
	"context"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/flightipc"
)

// TestDialQuiverCodecHolds: every session dialQuiver sets up serves the
// codec it was asked for. With arrow-go's SetSessionOptions about one
// dial in 150 lost its session cookie and the cell measured the server's
// default (none on loopback) under the name of the codec asked for.
func TestDialQuiverCodecHolds(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(mem)
	for i := range 4096 {
		b.Append(int64(i % 17))
	}
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	col.Release()
	ctx := context.Background()
	q, err := startQuiver(ctx, mem, map[string]peerResult{"t": {schema: schema, recs: []arrow.RecordBatch{rec}}})
	rec.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := q.stop(); err != nil {
			t.Error(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for mem.CurrentAlloc() != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		mem.AssertSize(t, 0)
	}()
	n := 300
	if testing.Short() {
		n = 100
	}
	for i := range n {
		cl, err := dialQuiver(ctx, q.addr(), "lz4")
		if err != nil {
			t.Fatal(err)
		}
		open, err := quiverOpen(ctx, cl, "SELECT id FROM t")
		if err != nil {
			t.Fatal(err)
		}
		st, err := open(ctx)
		if err != nil {
			t.Fatal(err)
		}
		fr := flightipc.NewReader(st.Recv, batch.Limits{})
		rd, err := batch.NewStreamReader(fr, batch.ReadOptions{Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := rd.Next()
			if err != nil {
				break
			}
			rec.Release()
		}
		rd.Release()
		cl.Close()
		if kind, ok := fr.Codec(); !ok || kind != codec.LZ4 {
			t.Fatalf("dial %d: result codec %v (known %v), want lz4", i, kind, ok)
		}
	}
}
