package expr

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ArithOp is an arithmetic operator.
type ArithOp int

const (
	Add ArithOp = iota
	Sub
	Mul
	Div
	Mod
)

var arithNames = [...]string{"+", "-", "*", "/", "%"}

func (op ArithOp) String() string {
	if op >= 0 && int(op) < len(arithNames) {
		return arithNames[op]
	}
	return fmt.Sprintf("ArithOp(%d)", int(op))
}

type arithExpr struct {
	op   ArithOp
	l, r Expr
	typ  arrow.DataType
}

// Arith is l op r over numbers. Int64 op Int64 is Int64 (division
// truncates toward zero, the sign of % follows the dividend, overflow is
// ErrOverflow); any Float64 operand makes it Float64; otherwise a decimal
// with the scale rules of decimalArithType (an Int64 operand taken as
// decimal(19,0), an Int64 literal as decimal(its digits,0)). Division or
// modulo by zero is ErrDivisionByZero for every type. NULL operands give
// NULL.
func Arith(op ArithOp, l, r Expr) (Expr, error) {
	if op < Add || op > Mod {
		return nil, errorf(ErrType, "unknown arithmetic operator %d", int(op))
	}
	if err := checkEngine(op.String(), l, r); err != nil {
		return nil, err
	}
	if l.Type().ID() == arrow.NULL && r.Type().ID() == arrow.NULL {
		l, r = nullAs(l, typInt64), nullAs(r, typInt64)
	}
	l, r = nullAs(l, r.Type()), nullAs(r, l.Type())
	lt, rt := coercionType(l, r), coercionType(r, l)
	bad := func() error {
		return errorf(ErrType, "cannot apply %s to %s and %s (%s %s %s)", op, l.Type(), r.Type(), paren(l), op, paren(r))
	}
	if e, ok, err := intervalArith(op, l, r); ok { // interval_arith.go
		return e, err
	}
	if e, ok, err := dateArith(op, l, r); ok {
		return e, err
	}
	if !numeric(lt) || !numeric(rt) {
		return nil, bad()
	}
	x := &arithExpr{op: op}
	var err error
	switch {
	case lt.ID() == arrow.INT64 && rt.ID() == arrow.INT64:
		x.typ = typInt64
	case lt.ID() == arrow.FLOAT64 || rt.ID() == arrow.FLOAT64:
		x.typ = typFloat64
		lt, rt = typFloat64, typFloat64
	default:
		ld, _ := asDecimal(lt)
		rd, _ := asDecimal(rt)
		lt, rt = ld, rd
		if x.typ, err = decimalArithType(op, ld, rd); err != nil {
			return nil, err
		}
	}
	if x.l, err = coerceTo(l, lt); err != nil {
		return nil, err
	}
	if x.r, err = coerceTo(r, rt); err != nil {
		return nil, err
	}
	return fold(x), nil
}

// checkEngine fails unless every operand has an engine type.
func checkEngine(op string, es ...Expr) error {
	for _, e := range es {
		if e == nil {
			return errorf(ErrType, "%s: nil operand", op)
		}
		if !isEngine(e.Type()) {
			return errorf(ErrType, "%s: operand %s has type %s, not an engine type", op, e, e.Type())
		}
	}
	return nil
}

func (x *arithExpr) Type() arrow.DataType { return x.typ }
func (x *arithExpr) children() []Expr     { return []Expr{x.l, x.r} }
func (x *arithExpr) String() string       { return text(x) }
func (x *arithExpr) writeText(b *strings.Builder) {
	writeParen(b, x.l)
	b.WriteString(" " + x.op.String() + " ")
	writeParen(b, x.r)
}

// Eval evaluates a left-deep chain (a + b + c + … as SQL parses it) in a
// loop from its innermost node up, each node's result the left operand of
// the next, rather than by recursion: in the same order, with the same
// errors, but with a stack of one frame however long the chain.
func (x *arithExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	spine := []*arithExpr{x}
	for {
		l, ok := spine[len(spine)-1].l.(*arithExpr)
		if !ok {
			break
		}
		spine = append(spine, l)
	}
	n := int(batch.NumRows())
	inner := spine[len(spine)-1]
	l, err := evalOperand(ctx, mem, inner.l, batch)
	if err != nil {
		return nil, err
	}
	for i := len(spine) - 1; i >= 0; i-- {
		y := spine[i]
		r, err := evalOperand(ctx, mem, y.r, batch)
		if err == nil {
			err = ctx.Err() // r may be a literal, which does not look
		}
		if err != nil {
			l.release()
			r.release()
			return nil, err
		}
		out, err := y.apply(ctx, mem, n, l, r)
		l.release()
		r.release()
		if err != nil {
			return nil, err
		}
		l = operand{arr: out, n: n}
	}
	return l.arr, nil
}

// apply computes l op r.
func (x *arithExpr) apply(ctx context.Context, mem memory.Allocator, n int, l, r operand) (arrow.Array, error) {
	if l.allNull() || r.allNull() {
		return nullArray(mem, x.typ, n), nil
	}
	if out, ok := fastArith(x, mem, n, l, r); ok {
		return out, nil
	}
	switch x.typ.ID() {
	case arrow.INT64:
		return binaryOwn(x, mem, n, l, r, litInt, int64Kernel(x.op))
	case arrow.FLOAT64:
		if x.op == Mod {
			return binaryOwn(x, mem, n, l, r, litFloat, floatMod)
		}
		return x.arrow(ctx, mem, [...]string{"add", "subtract", "multiply", "divide"}[x.op], n, l, r)
	}
	return x.decimal(mem, n, l, r)
}

// arrow runs one of arrow-go's checked arithmetic functions and names this
// expression in its errors.
func (x *arithExpr) arrow(ctx context.Context, mem memory.Allocator, fn string, n int, l, r operand) (arrow.Array, error) {
	out, err := callFunction(ctx, mem, fn, nil, n, l, r)
	if err == nil {
		return out, nil
	}
	switch {
	case errors.Is(err, arrow.ErrInvalid) && strings.Contains(err.Error(), "overflow"):
		return nil, x.fail(codeOverflow)
	case errors.Is(err, arrow.ErrInvalid) && strings.Contains(err.Error(), "divide by zero"):
		return nil, x.fail(codeDivZero)
	}
	return nil, errorf(ErrInvalid, "%s: %v", x, err)
}

func (x *arithExpr) fail(code errCode) error {
	switch {
	case code == codeDivZero:
		return errorf(ErrDivisionByZero, "division by zero in %s", x)
	case x.typ.ID() == arrow.DECIMAL128:
		return errorf(ErrOverflow, "decimal overflow in %s: the result does not fit %s", x, sqlType(x.typ))
	}
	return errorf(ErrOverflow, "integer overflow in %s", x)
}

// binaryOwn runs one of our kernels over two non-NULL-literal operands.
func binaryOwn[T arrow.FixedWidthType](x *arithExpr, mem memory.Allocator, n int, l, r operand, lit func(*literal) T, fn func(a, b T) (T, errCode)) (arrow.Array, error) {
	out, code, _ := binaryFixed(mem, x.typ, n, l.arr, r.arr, sideOf(l, lit), sideOf(r, lit), fn)
	if code != codeOK {
		return nil, x.fail(code)
	}
	return out, nil
}

func litInt(l *literal) int64     { return l.i }
func litFloat(l *literal) float64 { return l.f }
func litNum(l *literal) num       { return l.d }

// int64Kernel is our kernel for every Int64 operator: arrow-go v18.8's
// checked add and subtract miss overflows toward minus infinity
// (MinInt64 + -1 passes), its multiply raises overflow on the values under
// NULLs, and its divide returns MinInt64 for MinInt64 / -1.
func int64Kernel(op ArithOp) func(a, b int64) (int64, errCode) {
	switch op {
	case Add:
		return func(a, b int64) (int64, errCode) {
			s := a + b
			if (a^s)&(b^s) < 0 {
				return 0, codeOverflow
			}
			return s, codeOK
		}
	case Sub:
		return func(a, b int64) (int64, errCode) {
			d := a - b
			if (a^b)&(a^d) < 0 {
				return 0, codeOverflow
			}
			return d, codeOK
		}
	case Mul:
		return mulInt64
	case Div:
		return func(a, b int64) (int64, errCode) {
			switch {
			case b == 0:
				return 0, codeDivZero
			case b == -1 && a == math.MinInt64:
				return 0, codeOverflow
			}
			return a / b, codeOK
		}
	}
	return func(a, b int64) (int64, errCode) {
		switch b {
		case 0:
			return 0, codeDivZero
		case -1:
			return 0, codeOK
		}
		return a % b, codeOK
	}
}

// mulInt64 multiplies with an overflow check from the high word of the
// 128-bit product.
func mulInt64(a, b int64) (int64, errCode) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if a < 0 {
		hi -= uint64(b)
	}
	if b < 0 {
		hi -= uint64(a)
	}
	if hi != uint64(int64(lo)>>63) {
		return 0, codeOverflow
	}
	return int64(lo), codeOK
}

func floatMod(a, b float64) (float64, errCode) {
	if b == 0 {
		return 0, codeDivZero
	}
	return math.Mod(a, b), codeOK
}
