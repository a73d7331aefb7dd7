package take

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/datagen"
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
		got := Selection(nil, m)
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

// TestRecordMatchesRowByRow: every type datagen.Record builds that Supported
// accepts is taken to the selected rows, value for value and null for
// null, on whole and sliced columns: through the loops here, arrow-go's
// take, or concatenated runs. The rest are refused with an error. Each
// column is taken twice: at an ascending selection (a filter's) and at
// rows in random order with repeats (a hash join's pairs).
func TestRecordMatchesRowByRow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	whole := datagen.Record(mem, 300, 11)
	defer whole.Release()
	rng := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	for c, f := range whole.Schema().Fields() {
		for _, lo := range []int64{0, 1, 3, 9} {
			col := array.NewSlice(whole.Column(c), lo, whole.NumRows())
			var sel []int32
			for i := range col.Len() {
				if rng.IntN(3) > 0 {
					sel = append(sel, int32(i))
				}
			}
			if lo%2 == 1 { // pairs of a join: any order, repeated rows, runs
				sel = sel[:0]
				for len(sel) < col.Len() {
					r := int32(rng.IntN(col.Len()))
					for k := range 1 + rng.IntN(3) {
						sel = append(sel, min(r+int32(k), int32(col.Len()-1)))
					}
				}
			}
			rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{f}, nil), []arrow.Array{col}, int64(col.Len()))
			got, err := Record(ctx, mem, rec, sel)
			switch {
			case !Supported(f.Type):
				if err == nil {
					got.Release()
					t.Errorf("%s: took a type Supported refuses", f.Name)
				}
			case err != nil:
				t.Errorf("%s from row %d: %v", f.Name, lo, err)
			default:
				g := got.Column(0)
				if g.Len() != len(sel) {
					t.Errorf("%s from row %d: %d rows, want %d", f.Name, lo, g.Len(), len(sel))
				}
				for i, r := range sel {
					if i >= g.Len() || !array.SliceEqual(g, int64(i), int64(i+1), col, int64(r), int64(r+1)) {
						t.Errorf("%s from row %d: row %d is not row %d", f.Name, lo, i, r)
						break
					}
				}
				got.Release()
			}
			rec.Release()
			col.Release()
		}
	}
}
