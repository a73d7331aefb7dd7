package datagen

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestRecordEveryType: Record fills every column of AllTypes with valid
// arrays, about a fifth of the rows null where the type has a validity
// bitmap, runs longer than one row in the run-end encoded column, and the
// same record for the same seed.
func TestRecordEveryType(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const n = 2000
	a, b, c := Record(mem, n, 1), Record(mem, n, 1), Record(mem, n, 2)
	defer a.Release()
	defer b.Release()
	defer c.Release()
	if !array.RecordEqual(a, b) {
		t.Error("the same seed gave two records")
	}
	if array.RecordEqual(a, c) {
		t.Error("seeds 1 and 2 gave the same record")
	}
	if int(a.NumCols()) != len(AllTypes().Fields()) || a.NumRows() != n {
		t.Fatalf("%d columns, %d rows", a.NumCols(), a.NumRows())
	}
	for i, f := range a.Schema().Fields() {
		col := a.Column(i)
		if col.Len() != n {
			t.Errorf("%s: %d rows", f.Name, col.Len())
		}
		// arrow-go's validator wants a validity buffer slot that its own
		// builder does not give run-end encoded arrays.
		if err := array.ValidateFull(col); err != nil && f.Type.ID() != arrow.RUN_END_ENCODED {
			t.Errorf("%s: %v", f.Name, err)
		}
		nulls := col.NullN()
		switch {
		case f.Type.ID() == arrow.NULL:
			if nulls != n {
				t.Errorf("%s: %d nulls", f.Name, nulls)
			}
		case !hasValidity(f.Type):
			// Unions and run-end encoded arrays count no nulls of their own.
		case nulls < n/10 || nulls > n*3/10:
			t.Errorf("%s: %d nulls in %d rows, want about %d", f.Name, nulls, n, n/5)
		}
	}
	ree := a.Column(a.Schema().FieldIndices("ree")[0]).(*array.RunEndEncoded)
	if runs := ree.RunEndsArr().Len(); runs < n/4 || runs > n*3/4 {
		t.Errorf("ree: %d runs in %d rows, want about half as many", runs, n)
	}
}

// TestTinyNamedColumns: Tiny holds the named columns of AllTypes in the
// given order, without metadata, and every SeedGroups name is a column.
func TestTinyNamedColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, g := range SeedGroups {
		rec := Tiny(mem, 3, 1, g...)
		if int(rec.NumCols()) != len(g) || rec.NumRows() != 3 || rec.Schema().HasMetadata() {
			t.Errorf("%v: %d columns, %d rows, metadata %v", g, rec.NumCols(), rec.NumRows(), rec.Schema().HasMetadata())
		}
		for i, name := range g {
			if rec.Schema().Field(i).Name != name {
				t.Errorf("%v: column %d is %s", g, i, rec.Schema().Field(i).Name)
			}
		}
		rec.Release()
	}
}
