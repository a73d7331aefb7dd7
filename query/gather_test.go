package query

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestSelectionMatchesRowByRow: the bitmap walk selects exactly the rows
// that are valid and TRUE, at every offset and length.
func TestSelectionMatchesRowByRow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	b := array.NewBooleanBuilder(mem)
	for range 300 {
		switch rng.IntN(4) {
		case 0:
			b.AppendNull()
		case 1:
			b.Append(false)
		default:
			b.Append(true)
		}
	}
	whole := b.NewBooleanArray()
	b.Release()
	defer whole.Release()
	for _, bounds := range [][2]int64{{0, 300}, {0, 0}, {0, 5}, {8, 300}, {3, 290}, {16, 17}, {1, 9}, {255, 300}} {
		m := array.NewSlice(whole, bounds[0], bounds[1]).(*array.Boolean)
		var want []int32
		for i := range m.Len() {
			if m.IsValid(i) && m.Value(i) {
				want = append(want, int32(i))
			}
		}
		got := selection(nil, m)
		if len(got) != len(want) || (len(want) > 0 && !equalInts(got, want)) {
			t.Errorf("rows %v: selected %v, want %v", bounds, got, want)
		}
		m.Release()
	}
}

func equalInts(a, b []int32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestGatherMatchesTake: the filter's gather gives what arrow-go's take
// gives, for every type it has a loop for (and falls back for others),
// on whole and sliced columns with NULLs.
func TestGatherMatchesTake(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	recs := typedRecords(mem, 200, 200)
	defer recs[0].Release()
	var cols []arrow.Array
	cols = append(cols, recs[0].Columns()...)
	for _, j := range []struct {
		typ  arrow.DataType
		json string
	}{
		{arrow.BinaryTypes.String, `["a", null, "", "longer than eight", "é", null, "z"]`},
		{arrow.BinaryTypes.Binary, `["YQ==", null, "", "AAEC"]`},
		{arrow.BinaryTypes.LargeBinary, `["YQ==", null, "AAEC", ""]`},
		{arrow.FixedWidthTypes.Boolean, `[true, null, false, true, true, null, false, false, true]`},
		{arrow.FixedWidthTypes.Date32, `[1, null, -5, 7]`},
		{arrow.FixedWidthTypes.Timestamp_us, `[1577836800000000, null, 1000000]`},
		{arrow.ListOf(arrow.PrimitiveTypes.Int64), `[[1, 2], null, [], [3]]`}, // arrow-go's take
	} {
		a, _, err := array.FromJSON(mem, j.typ, strings.NewReader(j.json))
		if err != nil {
			t.Fatalf("%s: %v", j.typ, err)
		}
		defer a.Release()
		cols = append(cols, a)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	for _, whole := range cols {
		for _, lo := range []int{0, 1, 3} {
			if lo >= whole.Len() {
				continue
			}
			col := array.NewSlice(whole, int64(lo), int64(whole.Len()))
			var sel []int32
			for i := range col.Len() {
				if rng.IntN(3) > 0 {
					sel = append(sel, int32(i))
				}
			}
			if len(sel) == 0 {
				sel = []int32{0}
			}
			name := col.DataType().String()
			rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "c", Type: col.DataType(), Nullable: true}}, nil), []arrow.Array{col}, int64(col.Len()))
			got, err := gatherRecord(ctx, mem, rec, sel)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			idx := array.NewInt32Data(array.NewData(arrow.PrimitiveTypes.Int32, len(sel),
				[]*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(sel))}, nil, 0, 0))
			want, err := takeArray(compute.WithAllocator(ctx, mem), col, idx)
			if err != nil {
				t.Fatalf("%s: take: %v", name, err)
			}
			same := array.ApproxEqual(got.Column(0), want, array.WithNaNsEqual(true), array.WithAbsTolerance(0))
			if !same || got.Column(0).NullN() != want.NullN() {
				t.Errorf("%s from row %d: gathered %v, take gives %v", name, lo, got.Column(0), want)
			}
			got.Release()
			want.Release()
			idx.Release()
			rec.Release()
			col.Release()
		}
	}
}
