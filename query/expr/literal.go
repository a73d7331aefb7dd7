package expr

import (
	"context"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/arrow/scalar"
)

// literal is a constant. Exactly one value field is meaningful, chosen by
// typ: b (Boolean), i (Int64, days for Date32, microseconds for
// timestamps), f (Float64), d
// (Decimal128), s (String), iv (INTERVAL); none when null.
type literal struct {
	typ  arrow.DataType
	null bool
	b    bool
	i    int64
	f    float64
	d    decimal128.Num
	s    string
	iv   interval
	sc   scalar.Scalar // the same value for arrow-go's compute functions
	text string        // how String spells it when not from the value
}

func newLiteral(l literal) *literal {
	l.sc = l.makeScalar()
	return &l
}

// Literal returns a constant: nil (an untyped NULL), bool, int64 (also int
// and int32), float64 or string. Decimals and dates have their own
// constructors (DecimalLiteral, DateLiteral).
func Literal(v any) (Expr, error) {
	switch x := v.(type) {
	case nil:
		return NullLiteral(typNull), nil
	case bool:
		return newLiteral(literal{typ: typBool, b: x}), nil
	case int64:
		return newLiteral(literal{typ: typInt64, i: x}), nil
	case int:
		return newLiteral(literal{typ: typInt64, i: int64(x)}), nil
	case int32:
		return newLiteral(literal{typ: typInt64, i: int64(x)}), nil
	case float64:
		return newLiteral(literal{typ: typFloat64, f: x}), nil
	case string:
		return newLiteral(literal{typ: typString, s: x}), nil
	}
	return nil, errorf(ErrType, "unsupported literal %v of Go type %T", v, v)
}

// NullLiteral is a NULL of type typ (arrow.Null for an untyped NULL).
func NullLiteral(typ arrow.DataType) Expr {
	return newLiteral(literal{typ: typ, null: true})
}

// DecimalLiteral is the decimal unscaled × 10^-scale of type
// decimal(precision, scale).
func DecimalLiteral(unscaled decimal128.Num, precision, scale int32) Expr {
	return newLiteral(literal{typ: decimalType(precision, scale), d: unscaled})
}

// DateLiteral is the date days after 1970-01-01 (before it if negative).
func DateLiteral(days int32) Expr {
	return newLiteral(literal{typ: typDate32, i: int64(days)})
}

func (l *literal) Type() arrow.DataType { return l.typ }
func (l *literal) children() []Expr     { return nil }

func (l *literal) Eval(_ context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	return l.materialize(mem, int(batch.NumRows()))
}

func (l *literal) materialize(mem memory.Allocator, n int) (arrow.Array, error) {
	if err := reserve(mem, l.repeatedSize(n), l); err != nil {
		return nil, err
	}
	if l.null {
		return nullArray(mem, l.typ, n), nil
	}
	a, err := scalar.MakeArrayFromScalar(l.sc, n, mem)
	if err != nil {
		return nil, errorf(ErrInvalid, "literal %s: %v", l, err)
	}
	return a, nil
}

func (l *literal) scalar() scalar.Scalar { return l.sc }

func (l *literal) makeScalar() scalar.Scalar {
	if l.null {
		return scalar.MakeNullScalar(l.typ)
	}
	switch l.typ.ID() {
	case arrow.BOOL:
		return scalar.NewBooleanScalar(l.b)
	case arrow.INT64:
		return scalar.NewInt64Scalar(l.i)
	case arrow.FLOAT64:
		return scalar.NewFloat64Scalar(l.f)
	case arrow.DECIMAL128:
		return scalar.NewDecimal128Scalar(l.d, l.typ)
	case arrow.STRING:
		return scalar.NewStringScalar(l.s)
	case arrow.DATE32:
		return scalar.NewDate32Scalar(arrow.Date32(l.i))
	case arrow.TIMESTAMP:
		return scalar.NewTimestampScalar(arrow.Timestamp(l.i), l.typ)
	case arrow.TIME64:
		return scalar.NewTime64Scalar(arrow.Time64(l.i), l.typ)
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return scalar.NewMonthDayNanoIntervalScalar(l.iv)
	case arrow.BINARY:
		return scalar.NewBinaryScalar(memory.NewBufferBytes([]byte(l.s)), typBinary)
	}
	return scalar.MakeNullScalar(l.typ)
}

func (l *literal) String() string {
	if l.text != "" {
		return l.text
	}
	if l.null {
		return "NULL"
	}
	switch l.typ.ID() {
	case arrow.BOOL:
		if l.b {
			return "TRUE"
		}
		return "FALSE"
	case arrow.INT64:
		return strconv.FormatInt(l.i, 10)
	case arrow.FLOAT64:
		return formatFloat(l.f)
	case arrow.DECIMAL128:
		return formatDecimal(l.d, l.typ.(*arrow.Decimal128Type).Scale)
	case arrow.STRING:
		return quote(l.s)
	case arrow.DATE32:
		return "DATE '" + formatDate(int32(l.i)) + "'"
	case arrow.TIMESTAMP:
		if isTZ(l.typ) {
			return "TIMESTAMPTZ '" + formatTimestamp(l.i, true) + "'"
		}
		return "TIMESTAMP '" + formatTimestamp(l.i, false) + "'"
	case arrow.TIME64:
		return "TIME '" + formatTime(l.i) + "'"
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return "INTERVAL '" + formatInterval(l.iv) + "'"
	case arrow.BINARY:
		return "CAST(" + quote(formatBlob([]byte(l.s))) + " AS BLOB)"
	}
	return "?"
}

// quote is s as an SQL string literal.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// value is the literal as a Go value, as Inspect reports it.
func (l *literal) value() any {
	if l.null {
		return nil
	}
	switch l.typ.ID() {
	case arrow.BOOL:
		return l.b
	case arrow.INT64:
		return l.i
	case arrow.FLOAT64:
		return l.f
	case arrow.DECIMAL128:
		return l.d
	case arrow.STRING:
		return l.s
	case arrow.DATE32:
		return int32(l.i)
	case arrow.TIMESTAMP, arrow.TIME64:
		return l.i
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return l.iv
	case arrow.BINARY:
		return []byte(l.s)
	}
	return nil
}

// literalAt returns row i of a (an engine type) as a literal.
func literalAt(a arrow.Array, i int) *literal {
	typ := a.DataType()
	if a.IsNull(i) {
		return newLiteral(literal{typ: typ, null: true})
	}
	l := literal{typ: typ}
	switch x := a.(type) {
	case *array.Boolean:
		l.b = x.Value(i)
	case *array.Int64:
		l.i = x.Value(i)
	case *array.Float64:
		l.f = x.Value(i)
	case *array.Decimal128:
		l.d = x.Value(i)
	case *array.String:
		l.s = strings.Clone(x.Value(i))
	case *array.Date32:
		l.i = int64(x.Value(i))
	case *array.Timestamp:
		l.i = int64(x.Value(i))
	case *array.Time64:
		l.i = int64(x.Value(i))
	case *array.MonthDayNanoInterval:
		l.iv = x.Value(i)
	case *array.Binary:
		l.s = string(x.Value(i))
	default:
		l.null = true
	}
	return newLiteral(l)
}

// concatLiterals is an array holding the literals' values (of type typ).
func concatLiterals(mem memory.Allocator, typ arrow.DataType, lits []*literal) (arrow.Array, error) {
	b := array.NewBuilder(mem, typ)
	defer b.Release()
	for _, l := range lits {
		if l.null {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.BooleanBuilder:
			bb.Append(l.b)
		case *array.Int64Builder:
			bb.Append(l.i)
		case *array.Float64Builder:
			bb.Append(l.f)
		case *array.Decimal128Builder:
			bb.Append(l.d)
		case *array.StringBuilder:
			bb.Append(l.s)
		case *array.Date32Builder:
			bb.Append(arrow.Date32(l.i))
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(l.i))
		case *array.Time64Builder:
			bb.Append(arrow.Time64(l.i))
		case *array.MonthDayNanoIntervalBuilder:
			bb.Append(l.iv)
		case *array.BinaryBuilder:
			bb.Append([]byte(l.s))
		default:
			return nil, errorf(ErrType, "no literal array of %s", typ)
		}
	}
	return b.NewArray(), nil
}
