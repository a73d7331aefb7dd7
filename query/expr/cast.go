package expr

import (
	"context"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// castExpr is CAST(e AS to); implicit marks the casts coercion inserts.
type castExpr struct {
	e        Expr
	to       arrow.DataType
	implicit bool
	try      bool // TRY_CAST: a value that does not convert is NULL
}

// Cast converts e to the engine type to. Allowed: between Int64, Float64
// and decimals; Boolean to and from Int64; DATE to and from the
// timestamps, and between the timestamps (the session zone is UTC); a
// timestamp to TIME (its time of day);
// String to every type and every type to String; NULL to anything. Numeric casts round half away from zero
// (Float64 or Decimal to Int64, to a smaller decimal scale) and fail with
// ErrOverflow when the value does not fit; strings that do not parse fail
// with ErrInvalidCast naming the value. A literal is converted at once.
func Cast(e Expr, to arrow.DataType) (Expr, error) {
	if !isEngine(to) || to.ID() == arrow.NULL {
		return nil, errorf(ErrType, "cannot cast to %s: not an engine type", to)
	}
	if err := checkEngine("CAST", e); err != nil {
		return nil, err
	}
	if !canCast(e.Type(), to) {
		return nil, errorf(ErrType, "cannot cast %s to %s (CAST(%s AS %s))", e.Type(), to, e, sqlType(to))
	}
	if arrow.TypeEqual(e.Type(), to) {
		return e, nil
	}
	if l, ok := e.(*literal); ok {
		return convertLiteral(l, to)
	}
	return &castExpr{e: e, to: to}, nil
}

// TryCast is TRY_CAST(e AS to): Cast, except that a value that does not
// convert (does not parse, does not fit) gives NULL instead of an error.
func TryCast(e Expr, to arrow.DataType) (Expr, error) {
	if !isEngine(to) || to.ID() == arrow.NULL {
		return nil, errorf(ErrType, "cannot cast to %s: not an engine type", to)
	}
	if err := checkEngine("TRY_CAST", e); err != nil {
		return nil, err
	}
	if !canCast(e.Type(), to) {
		return nil, errorf(ErrType, "cannot cast %s to %s (TRY_CAST(%s AS %s))", e.Type(), to, e, sqlType(to))
	}
	if arrow.TypeEqual(e.Type(), to) {
		return e, nil
	}
	return fold(&castExpr{e: e, to: to, try: true}), nil
}

func canCast(from, to arrow.DataType) bool {
	switch {
	case arrow.TypeEqual(from, to), from.ID() == arrow.NULL,
		from.ID() == arrow.STRING, to.ID() == arrow.STRING,
		numeric(from) && numeric(to):
		return true
	case from.ID() == arrow.BOOL:
		return to.ID() == arrow.INT64
	case to.ID() == arrow.BOOL:
		return from.ID() == arrow.INT64
	case from.ID() == arrow.TIMESTAMP:
		return to.ID() == arrow.TIMESTAMP || to.ID() == arrow.DATE32 || to.ID() == arrow.TIME64
	case to.ID() == arrow.TIMESTAMP:
		return from.ID() == arrow.DATE32
	}
	return false
}

func (c *castExpr) Type() arrow.DataType { return c.to }
func (c *castExpr) children() []Expr     { return []Expr{c.e} }
func (c *castExpr) String() string       { return text(c) }
func (c *castExpr) writeText(b *strings.Builder) {
	if c.try {
		b.WriteString("TRY_")
	}
	b.WriteString("CAST(")
	writeExpr(b, c.e)
	b.WriteString(" AS " + sqlType(c.to) + ")")
}

func (c *castExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	a, err := evalArray(ctx, mem, c.e, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	out, err := castArray(ctx, mem, a, c.to)
	if err != nil && c.try {
		return tryCastRows(ctx, mem, a, c.to)
	}
	if e, ok := err.(*Error); ok {
		return nil, &Error{Kind: e.Kind, Msg: e.Msg + " (in " + c.String() + ")"}
	}
	return out, err
}

// castArray converts a to the engine type to (our kernels throughout: see
// the package documentation for why not arrow-go's cast).
func castArray(ctx context.Context, mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	from := a.DataType()
	switch {
	case arrow.TypeEqual(from, to):
		a.Retain()
		return a, nil
	case from.ID() == arrow.NULL:
		return nullArray(mem, to, a.Len()), nil
	case to.ID() == arrow.STRING:
		return castToString(mem, a)
	case from.ID() == arrow.STRING:
		return castFromString(mem, a.(*array.String), to)
	}
	switch x := a.(type) {
	case *array.Int64:
		return castInt64(mem, x, to)
	case *array.Float64:
		return castFloat64(mem, x, to)
	case *array.Decimal128:
		return castDecimal(mem, x, to)
	case *array.Boolean:
		if to.ID() == arrow.INT64 {
			return mapBool(mem, x)
		}
	case *array.Timestamp:
		if to.ID() == arrow.TIME64 {
			return castTimestampToTime(mem, x)
		}
		return castTimestamp(mem, x, to)
	case *array.Date32:
		if to.ID() == arrow.TIMESTAMP {
			return castDateToTimestamp(mem, x, to)
		}
	}
	return nil, errorf(ErrType, "cannot cast %s to %s", from, to)
}

func castInt64(mem memory.Allocator, a *array.Int64, to arrow.DataType) (arrow.Array, error) {
	switch to.ID() {
	case arrow.FLOAT64:
		return mapFixed(mem, to, a, a.Int64Values(), func(v int64) (float64, error) { return float64(v), nil })
	case arrow.DECIMAL128:
		d := to.(*arrow.Decimal128Type)
		return mapFixed(mem, to, a, a.Int64Values(), func(v int64) (num, error) {
			n, ok := int64ToDecimal(v, d.Precision, d.Scale)
			if !ok {
				return n, errorf(ErrOverflow, "value %d out of range for %s", v, sqlType(to))
			}
			return n, nil
		})
	case arrow.BOOL:
		return boolsOf(mem, a, func(i int) bool { return a.Value(i) != 0 }), nil
	}
	return nil, errorf(ErrType, "cannot cast int64 to %s", to)
}

func castFloat64(mem memory.Allocator, a *array.Float64, to arrow.DataType) (arrow.Array, error) {
	switch to.ID() {
	case arrow.INT64:
		return mapFixed(mem, to, a, a.Float64Values(), func(v float64) (int64, error) {
			r := math.RoundToEven(v) // as DuckDB (nearbyint): 2.5 → 2, 3.5 → 4
			if !(r >= -(1<<63) && r < 1<<63) {
				return 0, errorf(ErrOverflow, "value %s out of range for BIGINT", formatFloat(v))
			}
			return int64(r), nil
		})
	case arrow.DECIMAL128:
		d := to.(*arrow.Decimal128Type)
		return mapFixed(mem, to, a, a.Float64Values(), func(v float64) (num, error) {
			n, ok := floatToDecimal(v, d.Precision, d.Scale)
			if !ok {
				return n, errorf(ErrOverflow, "value %s out of range for %s", formatFloat(v), sqlType(to))
			}
			return n, nil
		})
	}
	return nil, errorf(ErrType, "cannot cast float64 to %s", to)
}

func castDecimal(mem memory.Allocator, a *array.Decimal128, to arrow.DataType) (arrow.Array, error) {
	from := a.DataType().(*arrow.Decimal128Type)
	switch to.ID() {
	case arrow.INT64:
		return mapFixed(mem, to, a, a.Values(), func(v num) (int64, error) {
			r, ok := decimalToInt64(v, from.Scale)
			if !ok {
				return 0, errorf(ErrOverflow, "value %s out of range for BIGINT", formatDecimal(v, from.Scale))
			}
			return r, nil
		})
	case arrow.FLOAT64:
		return mapFixed(mem, to, a, a.Values(), func(v num) (float64, error) {
			return decimalToFloat(v, from.Scale), nil
		})
	case arrow.DECIMAL128:
		d := to.(*arrow.Decimal128Type)
		if d.Scale == from.Scale && d.Precision >= from.Precision {
			return relabel(a, to), nil
		}
		return mapFixed(mem, to, a, a.Values(), func(v num) (num, error) {
			r, ok := rescale(v, d.Scale-from.Scale)
			if !ok || !fits(r, d.Precision) {
				return r, errorf(ErrOverflow, "value %s out of range for %s", formatDecimal(v, from.Scale), sqlType(to))
			}
			return r, nil
		})
	}
	return nil, errorf(ErrType, "cannot cast %s to %s", from, to)
}

// relabel is a with the same buffers and another type of the same layout.
func relabel(a arrow.Array, typ arrow.DataType) arrow.Array {
	d := a.Data()
	nd := array.NewData(typ, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
	out := array.MakeFromData(nd)
	nd.Release()
	return out
}

func mapBool(mem memory.Allocator, a *array.Boolean) (arrow.Array, error) {
	validity, nulls := combineValidity(mem, a.Len(), a)
	buf, out := newValues[int64](mem, a.Len())
	for i := range out {
		out[i] = 0
		if a.Value(i) {
			out[i] = 1
		}
	}
	return makeArray(typInt64, a.Len(), validity, nulls, buf), nil
}

// boolsOf is a Boolean array with in's validity and value f(i).
func boolsOf(mem memory.Allocator, in arrow.Array, f func(i int) bool) arrow.Array {
	n := in.Len()
	validity, nulls := combineValidity(mem, n, in)
	out := newBits(mem, n)
	bits := out.Bytes()
	v := validityOf(in)
	for i := 0; i < n; i++ {
		if v.valid(i) && f(i) {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return makeArray(typBool, n, validity, nulls, out)
}

// tryCastRows is TRY_CAST's way once a batch has a value that does not
// convert: each row is cast on its own, a failure giving NULL.
func tryCastRows(ctx context.Context, mem memory.Allocator, a arrow.Array, to arrow.DataType) (arrow.Array, error) {
	lits := make([]*literal, a.Len())
	for i := range lits {
		if err := ctx.Err(); err != nil && i%1024 == 0 {
			return nil, err
		}
		one := array.NewSlice(a, int64(i), int64(i+1))
		out, err := castArray(ctx, mem, one, to)
		one.Release()
		if err != nil {
			lits[i] = newLiteral(literal{typ: to, null: true})
			continue
		}
		lits[i] = literalAt(out, 0)
		out.Release()
	}
	return concatLiterals(mem, to, lits)
}
