package store

import (
	"context"
	"math/bits"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
)

// TestCoalescingAppendsReplaceFiles: single-row appends with
// cache.TableOptions.Coalesce replace the chunk files of the batches
// they merge, so the directory holds a few files, not one per append,
// and a restart reads every row back.
func TestCoalescingAppendsReplaceFiles(t *testing.T) {
	dir := t.TempDir()
	mem := checked(t)
	s, c := open(t, dir, mem, nil)
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rows := func(from, n int) array.RecordReader {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for i := range n {
			b.Append(int64(from + i))
		}
		col := b.NewArray()
		defer col.Release()
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(n))
		defer rec.Release()
		r, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
		return r
	}
	put(t, s, "t", rows(0, 1000))
	const n, limit = 200, 64
	for i := range n {
		r := rows(1000+i, 1)
		_, err := s.Append(context.Background(), "t", r, cache.TableOptions{Coalesce: limit})
		r.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	info, _ := c.Info("t")
	chunkFiles := 0
	for _, f := range files(t, dir) {
		if strings.HasSuffix(f, ".chunks") {
			chunkFiles++
		}
	}
	if max := 1 + n/limit + bits.Len(limit) + 1; info.Batches > max || chunkFiles > max {
		t.Fatalf("%d batches in %d chunk files after %d appends; want at most %d", info.Batches, chunkFiles, n, max)
	}
	want := contentOf(t, c, "t")
	if want.rows != 1000+n {
		t.Fatalf("%v", want)
	}
	s.Close()
	c.Drop("t")

	s2, c2 := open(t, dir, mem, nil)
	if p := s2.Problems(); len(p) != 0 {
		t.Fatal(p)
	}
	if got := contentOf(t, c2, "t"); got != want {
		t.Fatalf("after reopening: %v, want %v", got, want)
	}
	c2.Drop("t")
}
