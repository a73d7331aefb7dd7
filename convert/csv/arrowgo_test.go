package csv_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowcsv "github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/convert/csv"
	"github.com/quiverdb/quiver/datagen/lineitem"
)

// TestAgainstArrowGo: on lineitem-shaped CSV with its TPC-H schema,
// every column equals what arrow-go's csv.Reader reads.
func TestAgainstArrowGo(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var buf bytes.Buffer
	if _, err := lineitem.Write(&buf, 0, 20_000, 1); err != nil {
		t.Fatal(err)
	}
	schema := lineitem.Schema()
	ar := arrowcsv.NewReader(bytes.NewReader(buf.Bytes()), schema, arrowcsv.WithHeader(true), arrowcsv.WithChunk(5000), arrowcsv.WithAllocator(mem))
	defer ar.Release()
	var want []arrow.RecordBatch
	for ar.Next() {
		rec := ar.RecordBatch()
		rec.Retain()
		want = append(want, rec)
	}
	if ar.Err() != nil {
		t.Fatal(ar.Err())
	}
	for _, conc := range []int{1, 2} {
		r, err := csv.NewReader(bytes.NewReader(buf.Bytes()), csv.Options{Schema: schema, Concurrency: conc, ChunkBytes: 64 << 10, Convert: convert.Config{Alloc: mem}})
		if err != nil {
			t.Fatal(err)
		}
		var got []arrow.RecordBatch
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, rec)
		}
		for i := range schema.NumFields() {
			a, b := concat(t, mem, got, i), concat(t, mem, want, i)
			if !array.Equal(a, b) {
				t.Errorf("conc %d: column %s differs", conc, schema.Field(i).Name)
			}
			a.Release()
			b.Release()
		}
		for _, rec := range got {
			rec.Release()
		}
		r.Release()
	}
	for _, rec := range want {
		rec.Release()
	}
	// Inference agrees on the types a reader would want.
	r, err := csv.NewReader(bytes.NewReader(buf.Bytes()), csv.Options{InferDecimal: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	t.Log(r.Schema())
}

func concat(t *testing.T, mem memory.Allocator, recs []arrow.RecordBatch, col int) arrow.Array {
	var parts []arrow.Array
	for _, r := range recs {
		parts = append(parts, r.Column(col))
	}
	a, err := array.Concatenate(parts, mem)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
