package cache

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestTestsForOrder: an integer range that drops most rows runs before a
// string set that its estimate says drops more, since a string compare
// costs more per row; a test the bounds prove TRUE is not run.
func TestTestsForOrder(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "day", Type: arrow.FixedWidthTypes.Date32},
		{Name: "mode", Type: arrow.BinaryTypes.String},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	tests, err := rowTests(schema, []Predicate{
		In{Col: 1, Vals: []Value{String("MAIL"), String("SHIP")}},
		Between{Col: 0, Lo: Int(100), Hi: Int(199)},
		Cmp{Col: 2, Op: Ge, Val: Int(0)},
	})
	if err != nil {
		t.Fatal(err)
	}
	e := &entry{stats: []ColumnStats{
		{Rows: 700, HasBounds: true, Min: Int(0), Max: Int(699)},
		{Rows: 700, HasBounds: true, Min: String("AIR"), Max: String("TRUCK")},
		{Rows: 700, HasBounds: true, Min: Int(5), Max: Int(9)},
	}}
	got := (&Scanner{tests: tests}).testsFor(e)
	if len(got) != 2 {
		t.Fatalf("%d tests, want 2 (n >= 0 holds on every row)", len(got))
	}
	if got[0].column() != 0 || got[1].column() != 1 {
		t.Errorf("order: columns %d, %d; want the day range (0) first", got[0].column(), got[1].column())
	}
}
