package query

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
)

// scanOp reads a cached table through cache.Scan: only the columns the
// query uses are decoded, batches the pushed-down predicate rules out are
// skipped, and with no column selected (count(*)) the batches carry row
// counts only. Columns come as the table stores them; the operators above
// convert to engine types only what their expressions read (op_convert.go).
type scanOp struct {
	rt     *runtime
	s      *cache.Scanner
	table  string
	schema *arrow.Schema // the table's fields
	onDone func(cache.ScanMetrics)
	done   bool
}

func openScan(ctx context.Context, rt *runtime, c *cache.Cache, n *scanNode) (*scanOp, error) {
	s, err := c.Scan(ctx, n.table, n.options(rt))
	if errors.Is(err, cache.ErrNotFound) {
		return nil, &Error{Kind: ErrNoTable, Msg: fmt.Sprintf("%q (dropped since the query was planned)", n.table)}
	}
	if err != nil {
		return nil, err
	}
	return &scanOp{rt: rt, s: s, table: n.table, schema: n.schema(), onDone: n.onDone}, nil
}

func (o *scanOp) Schema() *arrow.Schema { return o.schema }

func (o *scanOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if o.done {
		return nil, io.EOF
	}
	if !o.s.Next() {
		o.finish()
		if err := o.s.Err(); err != nil {
			return nil, &Error{Kind: ErrExec, Msg: "reading table " + o.table, Err: err}
		}
		return nil, io.EOF
	}
	// The scanner owns its batch until the next call; ours shares its
	// arrays under the plan's schema. A table replaced since planning by
	// one of other types fails here rather than in an operator above.
	rec := o.s.RecordBatch()
	for i, col := range rec.Columns() {
		if want := o.schema.Field(i).Type; !arrow.TypeEqual(col.DataType(), want) {
			return nil, &Error{Kind: ErrExec, Msg: fmt.Sprintf("column %s of table %s: the scan returned %s, the table is %s", rec.ColumnName(i), o.table, col.DataType(), want)}
		}
	}
	return array.NewRecordBatch(o.schema, rec.Columns(), rec.NumRows()), nil
}

// finish reports the scan's metrics once.
func (o *scanOp) finish() {
	if !o.done {
		o.done = true
		if o.onDone != nil {
			o.onDone(o.s.Metrics())
		}
	}
}

func (o *scanOp) Close() {
	if o.s != nil {
		o.finish()
		o.s.Release()
		o.s = nil
	}
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}
