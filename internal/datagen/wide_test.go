package datagen

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestWideValues(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	recs := WideRecords(mem, 12, 2500, 1000)
	defer release(recs)
	if len(recs) != 3 || recs[2].NumRows() != 500 || recs[0].NumCols() != 12 {
		t.Fatalf("%d records", len(recs))
	}
	for _, row := range []int{0, 1, 9, 10, 999, 1000, 1234, 2499} {
		for _, col := range []int{0, 1, 11} {
			a := recs[row/1000].Column(col).(*array.Int64)
			null := (row+col)%10 == 0
			want := int64(row)*int64(col+1) + wideNoise(row, col)
			if a.IsNull(row%1000) != null || !null && a.Value(row%1000) != want {
				t.Errorf("row %d col %d: null=%v value=%d, want null=%v value=%d", row, col, a.IsNull(row%1000), a.Value(row%1000), null, want)
			}
		}
	}
	seen := map[int64]bool{}
	for row := range 1000 {
		seen[wideNoise(row, 3)] = true
	}
	if len(seen) != 16 {
		t.Errorf("noise takes %d values, want 16", len(seen))
	}
}
