package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var noColumns = arrow.NewSchema(nil, nil)

// fold evaluates e at plan time when every operand is a literal and
// returns the result as a literal, so `DATE '1998-12-01' - INTERVAL '90
// days'` reaches the scan as a constant it can prune with. When evaluation
// fails (1 / 0) e is kept: the error belongs to the rows that reach it, and
// a CASE may never send one there.
func fold(e node) Expr {
	for _, c := range e.children() {
		if _, ok := c.(*literal); !ok {
			return e
		}
	}
	batch := array.NewRecordBatch(noColumns, nil, 1)
	defer batch.Release()
	a, err := e.Eval(context.Background(), memory.DefaultAllocator, batch)
	if err != nil {
		return e
	}
	defer a.Release()
	if a.Len() != 1 {
		return e
	}
	if a.DataType().ID() == arrow.NULL {
		return NullLiteral(e.Type())
	}
	l := literalAt(a, 0)
	if !arrow.TypeEqual(l.typ, e.Type()) {
		return e
	}
	return l
}
