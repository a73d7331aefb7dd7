package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

type column struct {
	index int
	name  string
	typ   arrow.DataType
}

// Column is column index of the batch, named name (for String), of type
// typ: an engine type for a column other expressions read, any type for
// one a query only passes through. Eval fails with ErrInvalid when the
// batch has no such column or the column is not of type typ.
func Column(index int, name string, typ arrow.DataType) Expr {
	return &column{index: index, name: name, typ: typ}
}

func (c *column) Type() arrow.DataType { return c.typ }
func (c *column) String() string       { return c.name }
func (c *column) children() []Expr     { return nil }

func (c *column) Eval(_ context.Context, _ memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	if c.index < 0 || c.index >= int(batch.NumCols()) {
		return nil, errorf(ErrInvalid, "column %s: index %d outside a batch of %d columns", c.name, c.index, batch.NumCols())
	}
	a := batch.Column(c.index)
	if !arrow.TypeEqual(a.DataType(), c.typ) {
		return nil, errorf(ErrInvalid, "column %s: batch column %d is %s, expected %s", c.name, c.index, a.DataType(), c.typ)
	}
	if a.Len() != int(batch.NumRows()) {
		return nil, errorf(ErrInvalid, "column %s: %d rows in a batch of %d", c.name, a.Len(), batch.NumRows())
	}
	a.Retain()
	return a, nil
}
