package expr

import (
	"context"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// negateExpr keeps its type: asking the operand would walk a chain of
// minus signs down to its end, at every level.
type negateExpr struct {
	e   Expr
	typ arrow.DataType
}

// Negate is -e for a number or an INTERVAL (each part negated);
// -MinInt64 is ErrOverflow.
func Negate(e Expr) (Expr, error) {
	if err := checkEngine("-", e); err != nil {
		return nil, err
	}
	e = nullAs(e, typInt64)
	if !numeric(e.Type()) && e.Type().ID() != arrow.INTERVAL_MONTH_DAY_NANO {
		return nil, errorf(ErrType, "cannot negate %s (-%s)", e.Type(), paren(e))
	}
	return fold(&negateExpr{e: e, typ: e.Type()}), nil
}

func (x *negateExpr) Type() arrow.DataType { return x.typ }
func (x *negateExpr) children() []Expr     { return []Expr{x.e} }
func (x *negateExpr) String() string       { return text(x) }
func (x *negateExpr) writeText(b *strings.Builder) {
	b.WriteByte('-')
	writeParen(b, x.e)
}

// Eval evaluates a chain of minus signs (- - - x) in a loop from the
// innermost up, with a stack of one frame however long the chain.
func (x *negateExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	spine := []*negateExpr{x}
	for {
		y, ok := spine[len(spine)-1].e.(*negateExpr)
		if !ok {
			break
		}
		spine = append(spine, y)
	}
	a, err := evalArray(ctx, mem, spine[len(spine)-1].e, batch)
	if err != nil {
		return nil, err
	}
	for i := len(spine) - 1; i >= 0; i-- {
		if err := ctx.Err(); err != nil {
			a.Release()
			return nil, err
		}
		out, err := spine[i].apply(mem, a)
		a.Release()
		if err != nil {
			return nil, err
		}
		a = out
	}
	return a, nil
}

// apply returns -a.
func (x *negateExpr) apply(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	switch a.DataType().ID() {
	case arrow.INT64:
		return mapFixed(mem, typInt64, a, values[int64](a), func(v int64) (int64, error) {
			if v == math.MinInt64 {
				return 0, errorf(ErrOverflow, "integer overflow in %s", x)
			}
			return -v, nil
		})
	case arrow.FLOAT64:
		return mapFixed(mem, typFloat64, a, values[float64](a), func(v float64) (float64, error) { return -v, nil })
	case arrow.DECIMAL128:
		return mapFixed(mem, a.DataType(), a, values[num](a), func(v num) (num, error) { return neg128(v), nil })
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return mapFixed(mem, typInterval, a, values[interval](a), func(v interval) (interval, error) {
			r, err := negateInterval(v)
			if err != nil {
				return r, errorf(ErrOverflow, "%s (in %s)", err.(*Error).Msg, x)
			}
			return r, nil
		})
	}
	return nullArray(mem, x.Type(), a.Len()), nil
}
