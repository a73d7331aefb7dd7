package expr

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// CmpOp is a comparison operator.
type CmpOp int

const (
	Eq CmpOp = iota
	Ne
	Lt
	Le
	Gt
	Ge
)

var (
	cmpNames = [...]string{"=", "<>", "<", "<=", ">", ">="}
	cmpArrow = [...]string{"equal", "not_equal", "less", "less_equal", "greater", "greater_equal"}
)

func (op CmpOp) String() string {
	if op >= 0 && int(op) < len(cmpNames) {
		return cmpNames[op]
	}
	return fmt.Sprintf("CmpOp(%d)", int(op))
}

type compareExpr struct {
	op   CmpOp
	l, r Expr
}

// Compare is l op r, NULL when either side is. The sides are converted to
// their common type (Coerce), and a String literal compared with a Date32
// is read as a date now. Strings compare bytewise; Float64 compares like
// DuckDB and Postgres: NaN equals NaN and is above every other number.
func Compare(op CmpOp, l, r Expr) (Expr, error) {
	if op < Eq || op > Ge {
		return nil, errorf(ErrType, "unknown comparison operator %d", int(op))
	}
	l, r, err := comparable(l, r, func(l, r Expr) string {
		return paren(l) + " " + op.String() + " " + paren(r)
	})
	if err != nil {
		return nil, err
	}
	return fold(&compareExpr{op: op, l: l, r: r}), nil
}

// comparable converts l and r to their common type for a comparison; text
// renders the expression for error messages.
func comparable(l, r Expr, text func(l, r Expr) string) (Expr, Expr, error) {
	if err := checkEngine("comparison", l, r); err != nil {
		return nil, nil, err
	}
	if l.Type().ID() == arrow.NULL && r.Type().ID() == arrow.NULL {
		l, r = nullAs(l, typInt64), nullAs(r, typInt64)
	}
	l, r = nullAs(l, r.Type()), nullAs(r, l.Type())
	var err error
	if l, err = dateFromString(l, r, text); err != nil {
		return nil, nil, err
	}
	if r, err = dateFromString(r, l, text); err != nil {
		return nil, nil, err
	}
	t, err := Coerce(coercionType(l, r), coercionType(r, l))
	if err != nil {
		return nil, nil, errorf(ErrType, "cannot compare %s with %s (%s)", l.Type(), r.Type(), text(l, r))
	}
	cl, err := coerceTo(l, t)
	if err != nil {
		return nil, nil, errorf(ErrType, "cannot compare %s with %s (%s): %v", l.Type(), r.Type(), text(l, r), err)
	}
	cr, err := coerceTo(r, t)
	if err != nil {
		return nil, nil, errorf(ErrType, "cannot compare %s with %s (%s): %v", l.Type(), r.Type(), text(l, r), err)
	}
	return cl, cr, nil
}

// dateFromString reads e as a date (a timestamp, a time, a BLOB) when it
// is a String literal and other is a Date32 (a timestamp, …).
func dateFromString(e, other Expr, text func(l, r Expr) string) (Expr, error) {
	if l, ok := e.(*literal); ok && l.typ.ID() == arrow.STRING && other.Type().ID() == arrow.BINARY {
		// a BLOB meets text as DuckDB's: the text read as a BLOB ('\xAA')
		out, err := convertLiteral(l, typBinary)
		if err != nil {
			return nil, errorf(ErrType, "cannot compare BLOB with %s (%s): %v", l, text(e, other), err)
		}
		return out, nil
	}
	l, ok := e.(*literal)
	if !ok || l.typ.ID() != arrow.STRING || !temporal(other.Type()) && other.Type().ID() != arrow.TIME64 {
		return e, nil
	}
	out, err := convertLiteral(l, other.Type())
	if err != nil {
		what := "date"
		switch other.Type().ID() {
		case arrow.TIMESTAMP:
			what = "timestamp"
		case arrow.TIME64:
			what = "time"
		}
		return nil, errorf(ErrType, "cannot compare %s with %s (%s): not a %s", other.Type(), l, text(e, other), what)
	}
	return out, nil
}

func (x *compareExpr) Type() arrow.DataType { return typBool }
func (x *compareExpr) children() []Expr     { return []Expr{x.l, x.r} }
func (x *compareExpr) String() string       { return text(x) }
func (x *compareExpr) writeText(b *strings.Builder) {
	writeParen(b, x.l)
	b.WriteString(" " + x.op.String() + " ")
	writeParen(b, x.r)
}

func (x *compareExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	ops, err := evalOperands(ctx, mem, batch, x.l, x.r)
	if err != nil {
		return nil, err
	}
	defer releaseAll(ops)
	return compareOperands(ctx, mem, x.op, ops[0], ops[1])
}

// compareOperands compares two operands of the same type.
func compareOperands(ctx context.Context, mem memory.Allocator, op CmpOp, l, r operand) (arrow.Array, error) {
	n := l.n
	if l.allNull() || r.allNull() {
		return nullArray(mem, typBool, n), nil
	}
	switch typeOf(l).ID() {
	case arrow.FLOAT64:
		return compareFloats(mem, op, n, l, r), nil
	case arrow.DECIMAL128:
		return compareDecimals(mem, op, n, l, r), nil
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return compareIntervalOps(mem, op, n, l, r), nil
	case arrow.BOOL:
		if op != Eq && op != Ne {
			return compareBools(mem, op, n, l, r), nil
		}
	}
	out, err := callFunction(ctx, mem, cmpArrow[op], nil, n, l, r)
	if err != nil {
		return nil, errorf(ErrInvalid, "comparing %s with %s: %v", typeOf(l), typeOf(r), err)
	}
	return out, nil
}

func typeOf(o operand) arrow.DataType {
	if o.arr != nil {
		return o.arr.DataType()
	}
	return o.lit.typ
}

// cmpFloat orders floats for SQL: NaN equals itself and sorts above
// +Infinity; -0 equals 0.
func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	}
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	}
	return -1
}

// compareFloats is our kernel for Float64: arrow-go's comparisons follow
// IEEE 754, where NaN is unordered and unequal to itself.
func compareFloats(mem memory.Allocator, op CmpOp, n int, l, r operand) arrow.Array {
	validity, nulls := combineValidity(mem, n, l.arr, r.arr)
	out := newBits(mem, n)
	bits := out.Bytes()
	ls, rs := sideOf(l, litFloat), sideOf(r, litFloat)
	want := cmpTable[op]
	for i := 0; i < n; i++ {
		if want[cmpFloat(ls.at(i), rs.at(i))+1] {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return makeArray(typBool, n, validity, nulls, out)
}

// cmpTable is, per operator, the outcome for a comparison result of -1, 0
// and 1.
var cmpTable = [...][3]bool{
	Eq: {false, true, false},
	Ne: {true, false, true},
	Lt: {true, false, false},
	Le: {true, true, false},
	Gt: {false, false, true},
	Ge: {false, true, true},
}

// compareDecimals is our kernel for decimals of one type: arrow-go's is
// correct but about half as fast (BenchmarkKernels).
func compareDecimals(mem memory.Allocator, op CmpOp, n int, l, r operand) arrow.Array {
	validity, nulls := combineValidity(mem, n, l.arr, r.arr)
	out := newBits(mem, n)
	bits := out.Bytes()
	want := cmpTable[op]
	ls, rs := sideOf(l, litNum), sideOf(r, litNum)
	set := func(i int, c int) {
		if want[c+1] {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	switch {
	case rs.konst && !ls.konst:
		cmpConst128(ls.vals[:n], rs.c, want, bits)
	case ls.konst && !rs.konst:
		// c op v is v (op reversed) c: swap the < and > outcomes.
		cmpConst128(rs.vals[:n], ls.c, [3]bool{want[2], want[1], want[0]}, bits)
	default:
		for i := 0; i < n; i++ {
			set(i, cmp128(ls.at(i), rs.at(i)))
		}
	}
	return makeArray(typBool, n, validity, nulls, out)
}

// cmpConst128 sets bit i of bits when vals[i] compared with c gives an
// outcome want accepts (want[0]: less, [1]: equal, [2]: greater). It is
// the hot loop of filters such as l_discount BETWEEN 0.05 AND 0.07: the
// comparison is written out inline, about four times faster than a call
// per value.
func cmpConst128(vals []num, c num, want [3]bool, bits []byte) {
	if fits64(c) && allFit64(vals) {
		cmpConst64(vals, int64(c.LowBits()), want, bits)
		return
	}
	ch, cl := c.HighBits(), c.LowBits()
	lt, eq, gt := want[0], want[1], want[2]
	for i, v := range vals {
		vh, vl := v.HighBits(), v.LowBits()
		var ok bool
		switch {
		case vh < ch:
			ok = lt
		case vh > ch:
			ok = gt
		case vl < cl:
			ok = lt
		case vl > cl:
			ok = gt
		default:
			ok = eq
		}
		if ok {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
}

// fits64 reports whether a 128-bit value is its low 64 bits sign-extended.
func fits64(v num) bool { return v.HighBits() == int64(v.LowBits())>>63 }

func allFit64(vals []num) bool {
	for _, v := range vals {
		if !fits64(v) {
			return false
		}
	}
	return true
}

// cmpConst64 is cmpConst128 when every value and c fit in 64 bits (any
// decimal of up to 18 digits): a branch-free loop, since the outcome of
// comparing data with a constant is as good as random and mispredicted
// branches cost more than the comparison.
func cmpConst64(vals []num, c int64, want [3]bool, bits []byte) {
	wl, we, wg := b2u(want[0]), b2u(want[1]), b2u(want[2])
	for i, v := range vals {
		a := int64(v.LowBits())
		l, g := b2u(a < c), b2u(a > c)
		e := (l | g) ^ 1
		bits[i>>3] |= byte((l&wl | e&we | g&wg) << (i & 7))
	}
}

// b2u is 1 for true, 0 for false; the compiler emits a SETcc, not a branch.
func b2u(b bool) uint64 {
	var x uint64
	if b {
		x = 1
	}
	return x
}

// compareBools orders booleans (FALSE < TRUE), which arrow-go's ordering
// comparisons do not accept.
func compareBools(mem memory.Allocator, op CmpOp, n int, l, r operand) arrow.Array {
	validity, nulls := combineValidity(mem, n, l.arr, r.arr)
	out := newBits(mem, n)
	bits := out.Bytes()
	lv, rv := boolAt(l), boolAt(r)
	want := cmpTable[op]
	for i := 0; i < n; i++ {
		if want[boolInt(lv(i))-boolInt(rv(i))+1] {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return makeArray(typBool, n, validity, nulls, out)
}

// boolAt reads a Boolean operand by row.
func boolAt(o operand) func(int) bool {
	if o.lit != nil {
		return func(int) bool { return o.lit.b }
	}
	a := o.arr.(*array.Boolean)
	return a.Value
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
