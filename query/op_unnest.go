package query

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/take"
	"github.com/quiverdb/quiver/query/expr"
)

// unnestNode makes one row per element of a list: each input row is
// repeated once per element of list (evaluated on it), with the element
// appended as a last column; a NULL or empty list gives no row, as in
// DuckDB. The projection above reads the element there and the other
// columns as they were (build_nested.go's planUnnest).
type unnestNode struct {
	in   planNode
	list expr.Expr      // a list, stored or read out of a struct or list
	name string         // of the element column
	typ  arrow.DataType // the elements' read type (expr.ListElementType)
	// read: the input columns the steps above read (unnestReads); the
	// others come out as NULLs of their type, not copied per element.
	// nil: all.
	read map[int]bool
}

// unnestBatchRows bounds the rows of a batch out: a row of a long list
// is spread over several.
const unnestBatchRows = 8192

func (n *unnestNode) schema() *arrow.Schema {
	fields := append(n.in.schema().Fields(), arrow.Field{Name: n.name, Type: n.typ, Nullable: true})
	return arrow.NewSchema(fields, nil)
}

func (n *unnestNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	in, err := n.in.open(ctx, rt, c)
	if err != nil {
		return nil, err
	}
	return &unnestOp{n: n, in: in, rt: rt, schema: n.schema()}, nil
}

func (n *unnestNode) explain(b *strings.Builder, depth int) {
	indent(b, depth)
	fmt.Fprintf(b, "Unnest %s\n", n.list)
	n.in.explain(b, depth+1)
}

type unnestOp struct {
	n      *unnestNode
	in     operator
	rt     *runtime
	schema *arrow.Schema
	cur    arrow.RecordBatch // the input batch being expanded
	list   arrow.Array       // its list, evaluated
	row    int               // the next row of cur to expand
	at     int64             // its next element (a position in the list's values; -1: its first)
	rows   []int32
	elems  []int64
}

func (o *unnestOp) Schema() *arrow.Schema { return o.schema }

func (o *unnestOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if o.cur == nil {
			rec, err := o.in.Next(ctx)
			if err != nil {
				return nil, err
			}
			list, err := o.n.list.Eval(ctx, o.rt.mem, rec)
			if err != nil {
				rec.Release()
				return nil, execError(err, o.n.list)
			}
			o.cur, o.list, o.row, o.at = rec, list, 0, -1
		}
		l, ok := o.list.(array.ListLike)
		if !ok {
			return nil, fmt.Errorf("%w: unnest of %s: got a %s array, not a list", ErrExec, o.n.list, o.list.DataType())
		}
		o.rows, o.elems = o.rows[:0], o.elems[:0]
		for o.row < l.Len() && len(o.rows) < unnestBatchRows {
			if l.IsNull(o.row) {
				o.row++
				continue
			}
			start, end := l.ValueOffsets(o.row)
			o.at = max(o.at, start)
			for ; o.at < end && len(o.rows) < unnestBatchRows; o.at++ {
				o.rows = append(o.rows, int32(o.row))
				o.elems = append(o.elems, o.at)
			}
			if o.at >= end {
				o.row, o.at = o.row+1, -1
			}
		}
		if len(o.rows) == 0 {
			o.release()
			continue
		}
		out, err := o.expand(ctx)
		if o.row >= l.Len() {
			o.release()
		}
		return out, err
	}
}

// expand makes the batch of o.rows and o.elems.
func (o *unnestOp) expand(ctx context.Context) (arrow.RecordBatch, error) {
	n := len(o.rows)
	cols := make([]arrow.Array, 0, o.cur.NumCols()+1)
	defer func() { releaseAll(cols) }()
	for i, c := range o.cur.Columns() {
		if o.n.read != nil && !o.n.read[i] {
			cols = append(cols, array.MakeArrayOfNull(o.rt.mem, c.DataType(), n))
			continue
		}
		rep, err := take.Array(ctx, o.rt.mem, c, o.rows)
		if err != nil {
			return nil, fmt.Errorf("%w: unnest: column %q: %w", ErrExec, o.cur.ColumnName(i), err)
		}
		cols = append(cols, rep)
	}
	elem, err := expr.TakeElements(ctx, o.rt.mem, o.list, o.elems)
	if err != nil {
		return nil, fmt.Errorf("%w: unnest of %s: %w", ErrExec, o.n.list, err)
	}
	cols = append(cols, elem)
	return array.NewRecordBatch(o.schema, cols, int64(n)), nil
}

func (o *unnestOp) release() {
	if o.cur != nil {
		o.cur.Release()
		o.list.Release()
		o.cur, o.list = nil, nil
	}
}

func (o *unnestOp) Close() {
	o.release()
	o.in.Close()
}
