package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/take"
)

// Cutting batches down to the rows a CASE or COALESCE operand needs.

// project returns batch with the columns needed does not want replaced by
// NULL columns.
func project(batch arrow.RecordBatch, needed func(int) bool) arrow.RecordBatch {
	n := batch.NumRows()
	fields := make([]arrow.Field, batch.NumCols())
	arrs := make([]arrow.Array, batch.NumCols())
	for i := range fields {
		f := batch.Schema().Field(i)
		switch {
		case !needed(i):
			f.Type, f.Nullable = arrow.Null, true
			arrs[i] = array.NewNull(int(n))
		default:
			arrs[i] = batch.Column(i)
			arrs[i].Retain()
		}
		fields[i] = f
	}
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, n)
	for _, a := range arrs {
		a.Release()
	}
	return out
}

// filterBatch keeps the rows of batch that rows names (ascending), in
// the columns needed wants (the others are NULL columns): a take by row
// numbers (internal/take), which costs a copy per kept value where
// arrow-go's filter by mask cost several times that in TPC-H Q14's CASE.
func filterBatch(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch, rows []int32, needed func(int) bool) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, batch.NumCols())
	for i := range cols {
		if !needed(i) {
			cols[i] = array.NewNull(len(rows))
			continue
		}
		c, err := take.Array(ctx, mem, batch.Column(i), rows)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, errorf(ErrInvalid, "filtering column %d: %v", i, err)
		}
		cols[i] = c
	}
	out := array.NewRecordBatch(batch.Schema(), cols, int64(len(rows)))
	for _, c := range cols {
		c.Release()
	}
	return out, nil
}
