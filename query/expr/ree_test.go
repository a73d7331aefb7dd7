package expr

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestRunEndEncodedToEngine: a run-end encoded column, sliced to start
// and end inside runs, reads as its values in their engine type; run
// ends that go backwards or stop short are ErrInvalid, not a panic.
func TestRunEndEncodedToEngine(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	ree := func(ends []int16, vals []int32, valid []bool, n, off int) arrow.Array {
		eb := array.NewInt16Builder(mem)
		eb.AppendValues(ends, nil)
		vb := array.NewInt32Builder(mem)
		vb.AppendValues(vals, valid)
		e, v := eb.NewArray(), vb.NewArray()
		eb.Release()
		vb.Release()
		defer e.Release()
		defer v.Release()
		return array.NewRunEndEncodedArray(e, v, n, off)
	}
	if et, ok := EngineType(arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32)); !ok || et.ID() != arrow.INT64 {
		t.Fatalf("engine type %v %v", et, ok)
	}
	a := ree([]int16{2, 3, 6, 8}, []int32{7, 0, 9, 4}, []bool{true, false, true, true}, 6, 1) // rows 1..6 of 7 7 NULL 9 9 9 4 4
	defer a.Release()
	out, err := ToEngine(ctx, mem, a)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if got := out.String(); got != "[7 (null) 9 9 9 4]" {
		t.Errorf("decoded %s", got)
	}
	short := ree([]int16{2, 3}, []int32{1, 2}, nil, 3, 0)
	long := array.NewData(short.DataType(), 5, []*memory.Buffer{nil}, short.Data().Children(), 0, 0) // runs end at 3, the column claims 5 rows
	short.Release()
	longer := array.MakeFromData(long)
	long.Release()
	if out, err := ToEngine(ctx, mem, longer); !errors.Is(err, ErrInvalid) {
		t.Errorf("runs shorter than the column: %v", err)
		if err == nil {
			out.Release()
		}
	}
	longer.Release()
	back := ree([]int16{2, 1, 4}, []int32{1, 2, 3}, nil, 4, 0)
	if out, err := ToEngine(ctx, mem, back); !errors.Is(err, ErrInvalid) {
		t.Errorf("run ends going backwards: %v", err)
		if err == nil {
			out.Release()
		}
	}
	back.Release()
}
