package pull

import (
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestRecordsReleasesAndStops(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	make1 := func(n int) arrow.RecordBatch {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for i := range n {
			b.Append(int64(i))
		}
		col := b.NewArray()
		defer col.Release()
		return array.NewRecordBatch(schema, []arrow.Array{col}, int64(n))
	}
	boom := errors.New("boom")
	for _, tc := range []struct {
		end  error
		rows int64
	}{{io.EOF, 5}, {boom, 5}} {
		calls := 0
		r := Records(schema, func() (arrow.RecordBatch, error) {
			calls++
			if calls > 2 {
				return nil, tc.end
			}
			return make1(calls + 1), nil
		})
		n := 0
		for r.Next() {
			n++
		}
		if n != 2 || r.Rows() != tc.rows || !errors.Is(r.Err(), tc.end) && tc.end != io.EOF || tc.end == io.EOF && r.Err() != nil {
			t.Errorf("end %v: %d batches, %d rows, err %v", tc.end, n, r.Rows(), r.Err())
		}
		if r.Next() || calls != 3 {
			t.Errorf("Next after the end called next again (%d calls)", calls)
		}
		r.Release()
	}
}

func TestReleaseCountsReferences(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(mem)
	b.Append(1)
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 1)
	col.Release()
	r := Records(schema, func() (arrow.RecordBatch, error) {
		out := rec
		rec = nil
		if out == nil {
			return nil, io.EOF
		}
		return out, nil
	})
	if !r.Next() {
		t.Fatal("no batch")
	}
	r.Retain()
	r.Release()
	if r.RecordBatch() == nil {
		t.Fatal("the first of two references released the batch")
	}
	r.Release()
	if r.RecordBatch() != nil {
		t.Fatal("the last reference kept the batch")
	}
}
