package datagen

import (
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestCometValues(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// 20,000 rows in batches of 8192: the last batch is short, and a
	// batch size that is not a multiple of 8 shifts the null phase.
	for _, batch := range []int{8192, 1001} {
		recs := CometRecords(mem, 20000, batch)
		rows := 0
		for _, r := range recs {
			rows += int(r.NumRows())
		}
		if rows != 20000 {
			t.Fatalf("batch %d: %d rows, want 20000", batch, rows)
		}
		for _, row := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 999, 1001, 8191, 8192, 8200, 19999} {
			r := recs[row/batch]
			j := row % batch
			checkInt := func(col int, null bool, want int64) {
				a := r.Column(col).(*array.Int64)
				if a.IsNull(j) != null || (!null && a.Value(j) != want) {
					t.Errorf("batch %d row %d col %s: null=%v value=%d, want null=%v value=%d", batch, row, r.ColumnName(col), a.IsNull(j), a.Value(j), null, want)
				}
			}
			checkStr := func(col int, null bool, want string) {
				a := r.Column(col).(*array.String)
				if a.IsNull(j) != null || (!null && a.Value(j) != want) {
					t.Errorf("batch %d row %d col %s: null=%v value=%q, want null=%v value=%q", batch, row, r.ColumnName(col), a.IsNull(j), a.Value(j), null, want)
				}
			}
			checkInt(0, row%8 == 0, int64(row))
			checkInt(1, row%8 == 1, int64(row%1000))
			checkInt(2, row%8 == 2, int64(row+1))
			checkStr(3, row%8 == 3, "str_a_"+strconv.Itoa(row%100000))
			checkStr(4, row%8 == 4, "str_b_"+strconv.Itoa(row%7919))
			checkStr(5, row%8 == 5, "str_c_"+strconv.Itoa(row))
		}
		for _, r := range recs {
			for _, c := range r.Columns() {
				// Strings have ValidateFull (offsets within data); ints do not.
				if v, ok := c.(interface{ ValidateFull() error }); ok {
					if err := v.ValidateFull(); err != nil {
						t.Fatalf("batch %d: %s", batch, err)
					}
				}
			}
			r.Release()
		}
	}
}

// TestCometNullCounts checks the null counts against the 1-in-8 pattern.
func TestCometNullCounts(t *testing.T) {
	recs := CometRecords(nil, 8192+100, 8192)
	defer release(recs)
	for col := range 6 {
		got := recs[0].Column(col).NullN() + recs[1].Column(col).NullN()
		want := 0
		for row := range 8192 + 100 {
			if row%8 == col {
				want++
			}
		}
		if got != want {
			t.Errorf("col %d: %d nulls, want %d", col, got, want)
		}
	}
}

// TestCometFast guards the "5M rows in a few seconds" requirement with a
// generous bound on 1M rows.
func TestCometFast(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	start := time.Now()
	recs := CometRecords(nil, 1_000_000, DefaultCometBatch)
	took := time.Since(start)
	release(recs)
	if took > 2*time.Second {
		t.Errorf("1M rows took %v", took)
	}
	t.Logf("1M Comet rows in %v", took)
}

func release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}
