package query

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/expr"
)

// convertNode appends to each batch, after its columns, the columns at
// positions cols converted to their engine types (expr.ToEngine), for the
// expressions above it. The planner places one just below each operator
// whose expressions read columns of a stored type that is not an engine
// type — a column passed through unchanged is never converted — and below
// a filter only for what its predicate reads, so columns only the
// projection reads are converted after the filter has cut the rows down.
type convertNode struct {
	in     planNode
	cols   []int         // input positions
	fields []arrow.Field // the columns appended: engine types
	// cached is schema's result while fields has cachedFields entries
	// (the planner appends to fields only while it builds the node).
	cached       *arrow.Schema
	cachedFields int
}

func (n *convertNode) schema() *arrow.Schema {
	if n.cached == nil || n.cachedFields != len(n.fields) {
		in := n.in.schema().Fields()
		n.cached, n.cachedFields = arrow.NewSchema(append(in[:len(in):len(in)], n.fields...), nil), len(n.fields)
	}
	return n.cached
}

func (n *convertNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	in, err := n.in.open(ctx, rt, c)
	if err != nil {
		return nil, err
	}
	return &convertOp{rt: rt, in: in, cols: n.cols, schema: n.schema()}, nil
}

func (n *convertNode) explain(b *strings.Builder, depth int) {
	indent(b, depth)
	in := n.in.schema()
	parts := make([]string, len(n.cols))
	for i, c := range n.cols {
		parts[i] = fmt.Sprintf("%s %s → %s", n.fields[i].Name, in.Field(c).Type, n.fields[i].Type)
	}
	fmt.Fprintf(b, "ToEngine %s\n", strings.Join(parts, ", "))
	n.in.explain(b, depth+1)
}

// convertOp is convertNode running: one conversion per column and batch,
// however many expressions above read the column.
type convertOp struct {
	rt     *runtime
	in     operator
	cols   []int
	schema *arrow.Schema
}

func (o *convertOp) Schema() *arrow.Schema { return o.schema }

func (o *convertOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := o.in.Next(ctx)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return o.apply(ctx, rec)
}

// apply converts one batch (which it does not release).
func (o *convertOp) apply(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	n := int(rec.NumCols())
	cols := make([]arrow.Array, n+len(o.cols))
	copy(cols, rec.Columns())
	for i, c := range o.cols {
		conv, err := expr.ToEngine(ctx, o.rt.mem, rec.Column(c))
		if err != nil {
			releaseAll(cols[n : n+i])
			return nil, &Error{Kind: ErrExec, Msg: "converting column " + rec.ColumnName(c), Err: err}
		}
		cols[n+i] = conv
	}
	out := array.NewRecordBatch(o.schema, cols, rec.NumRows())
	releaseAll(cols[n:])
	return out, nil
}

func (o *convertOp) Close() { o.in.Close() }
