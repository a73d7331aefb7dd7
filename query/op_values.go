package query

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
)

// A SELECT without FROM (SELECT 1 + 1) reads one row of no columns, as in
// every SQL engine: its scanNode has no table (noTable), and opens as a
// oneRowOp. WHERE, GROUP BY, aggregates, ORDER BY and LIMIT then apply to
// that row as they would to a table's (SELECT 1 WHERE false is no row,
// SELECT count(*) is 1).

// noTableInfo is what the builder sees of the missing table.
var noTableInfo = cache.TableInfo{Schema: arrow.NewSchema(nil, nil)}

// noTable reports whether n is the row of a SELECT without FROM.
func (n *scanNode) noTable() bool { return n.table == "" }

// oneRowOp yields one batch of one row and no columns.
type oneRowOp struct {
	onDone func(cache.ScanMetrics)
	done   bool
}

func (o *oneRowOp) Schema() *arrow.Schema { return noTableInfo.Schema }

func (o *oneRowOp) Next(context.Context) (arrow.RecordBatch, error) {
	if o.done {
		return nil, io.EOF
	}
	o.done = true
	if o.onDone != nil {
		o.onDone(cache.ScanMetrics{Batches: 1, Rows: 1})
	}
	return array.NewRecordBatch(noTableInfo.Schema, nil, 1), nil
}

func (o *oneRowOp) Close() {}

// scanNoTable reports whether the query being built has no FROM.
func (b *builder) scanNoTable() bool { return b.table == "" && b.joined == nil }
