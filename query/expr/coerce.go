package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Coerce returns the common type of two engine types, the type both sides
// of a comparison, an arithmetic operator, a CASE, a COALESCE or an IN list
// are converted to:
//
//   - equal types: that type; NULL with T: T
//   - two decimals: scale max(s1, s2), precision max(p1-s1, p2-s2) + scale
//     (at most 38), so both convert without loss when they fit
//   - Int64 with Decimal: Decimal, the Int64 taken as decimal(19,0)
//   - Int64 or Decimal with Float64: Float64
//   - Date32 with a timestamp, TIMESTAMP with TIMESTAMP WITH TIME ZONE:
//     the timestamp (with the zone when either has it)
//
// Anything else (Date32, String and Boolean meet only themselves) is
// ErrType.
func Coerce(a, b arrow.DataType) (arrow.DataType, error) {
	if !isEngine(a) || !isEngine(b) {
		return nil, errorf(ErrType, "no common type for %s and %s", a, b)
	}
	switch {
	case a.ID() == arrow.NULL:
		return b, nil
	case b.ID() == arrow.NULL:
		return a, nil
	case a.ID() == arrow.DECIMAL128 || b.ID() == arrow.DECIMAL128:
		da, oka := asDecimal(a)
		db, okb := asDecimal(b)
		if oka && okb {
			s := max(da.Scale, db.Scale)
			p := max(da.Precision-da.Scale, db.Precision-db.Scale) + s
			return decimalType(min(p, maxPrecision), s), nil
		}
		if numeric(a) && numeric(b) {
			return typFloat64, nil
		}
	case arrow.TypeEqual(a, b):
		return a, nil
	case temporal(a) && temporal(b):
		// DATE meets a timestamp as its midnight; TIMESTAMP meets
		// TIMESTAMP WITH TIME ZONE in the session zone, UTC.
		if isTZ(a) || isTZ(b) {
			return typTimestampTZ, nil
		}
		return typTimestamp, nil
	case numeric(a) && numeric(b):
		return typFloat64, nil
	}
	return nil, errorf(ErrType, "no common type for %s and %s", a, b)
}

// numeric reports whether dt is Int64, Float64 or a decimal.
func numeric(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT64, arrow.FLOAT64, arrow.DECIMAL128:
		return true
	}
	return false
}

// temporal reports whether dt is Date32 or a timestamp.
func temporal(dt arrow.DataType) bool {
	return dt.ID() == arrow.DATE32 || dt.ID() == arrow.TIMESTAMP
}

// asDecimal is dt as a decimal type: a decimal as is, Int64 as
// decimal(19,0).
func asDecimal(dt arrow.DataType) (*arrow.Decimal128Type, bool) {
	switch dt.ID() {
	case arrow.DECIMAL128:
		return dt.(*arrow.Decimal128Type), true
	case arrow.INT64:
		return decimalType(19, 0), true
	}
	return nil, false
}

// coercionType is e's type when it meets other: an Int64 literal next to a
// decimal counts as decimal(digits, 0), so `1 - l_discount` stays narrow
// (DuckDB types integer literals the same way).
func coercionType(e, other Expr) arrow.DataType {
	if l, ok := e.(*literal); ok && !l.null && l.typ.ID() == arrow.INT64 && other.Type().ID() == arrow.DECIMAL128 {
		return decimalType(digits(l.i), 0)
	}
	return e.Type()
}

// coerceTo returns e as type to: e itself when it already is, a literal
// converted now (so a bad constant fails at plan time), or an implicit
// cast.
func coerceTo(e Expr, to arrow.DataType) (Expr, error) {
	if arrow.TypeEqual(e.Type(), to) {
		return e, nil
	}
	if l, ok := e.(*literal); ok {
		c, err := convertLiteral(l, to)
		if err == nil && numeric(l.typ) && numeric(to) {
			c.text = l.String() // EXPLAIN shows 24 as written, not 24.00
		}
		return c, err
	}
	return &castExpr{e: e, to: to, implicit: true}, nil
}

// convertLiteral casts a literal with the same kernels Eval uses.
func convertLiteral(l *literal, to arrow.DataType) (*literal, error) {
	if l.null {
		return newLiteral(literal{typ: to, null: true}), nil
	}
	mem := memory.DefaultAllocator
	a, err := l.materialize(mem, 1)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	out, err := castArray(context.Background(), mem, a, to)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return literalAt(out, 0), nil
}

// nullAs gives an untyped NULL a type; other expressions are returned as
// they are.
func nullAs(e Expr, typ arrow.DataType) Expr {
	if e.Type().ID() == arrow.NULL {
		if _, ok := e.(*literal); ok {
			return NullLiteral(typ)
		}
	}
	return e
}
