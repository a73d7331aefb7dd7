package query

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/expr"
)

// scanOp reads a cached table through cache.Scan: only the columns the
// query uses are decoded, batches the pushed-down predicate rules out are
// skipped, and with no column selected (count(*)) the batches carry row
// counts only. Columns are converted to engine types as they arrive.
type scanOp struct {
	rt     *runtime
	s      *cache.Scanner
	table  string
	schema *arrow.Schema // engine types
	onDone func(cache.ScanMetrics)
	done   bool
}

func openScan(ctx context.Context, rt *runtime, c *cache.Cache, n *scanNode) (*scanOp, error) {
	s, err := c.Scan(ctx, n.table, cache.ScanOptions{Columns: n.columns, Filter: n.pushed, Concurrency: n.concurrency})
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
	rec := o.s.RecordBatch()
	cols := make([]arrow.Array, rec.NumCols())
	for i, col := range rec.Columns() {
		conv, err := expr.ToEngine(ctx, o.rt.mem, col)
		if err != nil {
			releaseAll(cols[:i])
			return nil, &Error{Kind: ErrExec, Msg: fmt.Sprintf("column %s of table %s", rec.ColumnName(i), o.table), Err: err}
		}
		cols[i] = conv
	}
	out := array.NewRecordBatch(o.schema, cols, rec.NumRows())
	releaseAll(cols)
	return out, nil
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
