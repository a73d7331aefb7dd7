package query

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/expr"
)

// Values an INSERT stores are converted to their column's type as CAST
// would (package expr's Cast on the engine types, then FromEngine to the
// column's stored type), so an INSERT takes what DuckDB's takes: an
// integer into a DOUBLE or DECIMAL column, a string into a DATE or a
// number, a decimal into an integer (rounded half away from zero).

// coercer converts batches of a source schema to a table's columns.
type coercer struct {
	target *arrow.Schema
	from   []int       // per table column: the source column, or -1 (NULL)
	casts  []expr.Expr // per table column: the CAST of the source's engine value; nil: none needed
}

// newCoercer checks, per column, that the source type converts to the
// column's type, and prepares the CAST that does it.
func (n *changeNode) newCoercer(src, target *arrow.Schema, from []int, at ast.Node) (*coercer, error) {
	co := &coercer{target: target, from: from, casts: make([]expr.Expr, len(from))}
	for i, f := range target.Fields() {
		j := from[i]
		if j < 0 {
			if !f.Nullable {
				return nil, n.b.at(ErrInvalid, at, "column %q is NOT NULL and is given no value", f.Name)
			}
			continue
		}
		st := src.Field(j).Type
		if arrow.TypeEqual(st, f.Type) || st.ID() == arrow.NULL { // NULL: column makes the nulls
			continue
		}
		et, ok := expr.EngineType(f.Type)
		if !ok {
			return nil, n.b.at(ErrUnsupported, at, "column %q is %s: INSERT cannot convert %s values to it yet", f.Name, sqlTypeName(f.Type), sqlTypeName(st))
		}
		sEng, ok := expr.EngineType(st)
		if !ok {
			return nil, n.b.at(ErrUnsupported, at, "column %q: values of type %s cannot be converted to %s", f.Name, sqlTypeName(st), sqlTypeName(f.Type))
		}
		c, err := expr.Cast(expr.Column(0, f.Name, sEng), et)
		if err != nil {
			return nil, n.b.at(ErrInvalid, at, "column %q is %s and cannot take a %s value: %v", f.Name, sqlTypeName(f.Type), sqlTypeName(st), err)
		}
		co.casts[i] = c
	}
	return co, nil
}

// apply converts one source batch (not released) to the table's columns.
func (co *coercer) apply(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch) (out arrow.RecordBatch, err error) {
	rows := int(rec.NumRows())
	cols := make([]arrow.Array, 0, len(co.from))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i, f := range co.target.Fields() {
		col, err := co.column(ctx, mem, rec, i, rows)
		if err != nil {
			return nil, &Error{Kind: ErrExec, Msg: fmt.Sprintf("column %q", f.Name), Err: err}
		}
		cols = append(cols, col)
		if !f.Nullable && col.NullN() > 0 {
			return nil, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf("NULL in column %q, which is NOT NULL", f.Name)}
		}
	}
	return array.NewRecordBatch(co.target, cols, int64(rows)), nil
}

func (co *coercer) column(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, i, rows int) (arrow.Array, error) {
	f := co.target.Field(i)
	j := co.from[i]
	if j < 0 {
		return array.MakeArrayOfNull(mem, f.Type, rows), nil
	}
	src := rec.Column(j)
	if src.DataType().ID() == arrow.NULL && f.Type.ID() != arrow.NULL {
		return array.MakeArrayOfNull(mem, f.Type, rows), nil
	}
	if co.casts[i] == nil {
		src.Retain()
		return src, nil
	}
	eng, err := expr.ToEngine(ctx, mem, src)
	if err != nil {
		return nil, err
	}
	one := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: f.Name, Type: eng.DataType(), Nullable: true}}, nil), []arrow.Array{eng}, int64(rows))
	eng.Release()
	defer one.Release()
	v, err := co.casts[i].Eval(ctx, mem, one)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	return expr.FromEngine(ctx, mem, v, f.Type)
}
