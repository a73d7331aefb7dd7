package take

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestMask: masks of every length around a byte and a word, sliced at
// every offset, with NULLs, ANDed in place, choose the rows TRUE in all of
// them, as Selection of each and a row-by-row check say.
func TestMask(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(1, 2))
	boolean := func(n int, nullP float64) *array.Boolean {
		b := array.NewBooleanBuilder(mem)
		defer b.Release()
		for range n {
			if r.Float64() < nullP {
				b.AppendNull()
			} else {
				b.Append(r.IntN(4) != 0)
			}
		}
		return b.NewBooleanArray()
	}
	for _, n := range []int{1, 7, 8, 9, 63, 64, 65, 200} {
		for off := range 10 {
			var masks []*array.Boolean
			for k := range 3 {
				whole := boolean(n+off+3, float64(k)*0.2)
				masks = append(masks, array.NewSlice(whole, int64(off+k%2), int64(off+k%2+n)).(*array.Boolean))
				whole.Release()
			}
			m := NewMask(masks[0])
			for _, b := range masks[1:] {
				m.And(b)
			}
			var want []int32
			for i := range n {
				in := true
				for _, b := range masks {
					in = in && b.IsValid(i) && b.Value(i)
				}
				if in {
					want = append(want, int32(i))
				}
			}
			got := m.Selection(nil)
			if fmt.Sprint(got) != fmt.Sprint(want) || m.Count() != len(want) {
				t.Errorf("n %d offset %d: %v (count %d), want %v", n, off, got, m.Count(), want)
			}
			if len(want) == 0 && got != nil {
				t.Errorf("n %d offset %d: empty selection %v", n, off, got)
			}
			for _, b := range masks {
				b.Release()
			}
		}
	}
}

// TestMaskOfNoRows: a boolean array of no rows may have no values buffer
// (a constant over an empty batch); NewMask, And and Selection take it. They
// dereferenced the missing buffer: SELECT count(*) FROM empty WHERE 7 IS
// NULL panicked.
func TestMaskOfNoRows(t *testing.T) {
	empty := array.NewBooleanData(array.NewData(arrow.FixedWidthTypes.Boolean, 0, []*memory.Buffer{nil, nil}, nil, 0, 0))
	defer empty.Release()
	m := NewMask(empty)
	m.And(empty)
	if m.Count() != 0 || len(m.Selection(nil)) != 0 || len(Selection(nil, empty)) != 0 {
		t.Errorf("count %d, selection %v", m.Count(), m.Selection(nil))
	}
}
