package expr

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// boolExpr is AND, OR or NOT with SQL's three-valued logic, all three
// our kernels (kleene.go; NOT because arrow-go v18.8's not misreads the
// validity of sliced arrays).
type boolExpr struct {
	fn   string // and, or, not
	text string // SQL keyword
	args []Expr
}

// And is l AND r with Kleene logic: FALSE AND NULL is FALSE, TRUE AND NULL
// is NULL. Both sides are evaluated on every row.
func And(l, r Expr) (Expr, error) { return logical("and", "AND", l, r) }

// Or is l OR r with Kleene logic: TRUE OR NULL is TRUE, FALSE OR NULL is
// NULL. Both sides are evaluated on every row.
func Or(l, r Expr) (Expr, error) { return logical("or", "OR", l, r) }

// Not is NOT e; NOT NULL is NULL.
// NOT NOT e is e (also for NULL), so a chain of NOTs costs at most one.
func Not(e Expr) (Expr, error) {
	if x, ok := e.(*boolExpr); ok && x.fn == "not" {
		return x.args[0], nil
	}
	return logical("not", "NOT", e)
}

func logical(fn, text string, args ...Expr) (Expr, error) {
	if err := checkEngine(text, args...); err != nil {
		return nil, err
	}
	for i, a := range args {
		args[i] = nullAs(a, typBool)
		if args[i].Type().ID() != arrow.BOOL {
			return nil, errorf(ErrType, "%s needs boolean operands, got %s (%s)", text, args[i].Type(), args[i])
		}
	}
	return fold(&boolExpr{fn: fn, text: text, args: args}), nil
}

func (x *boolExpr) Type() arrow.DataType { return typBool }
func (x *boolExpr) children() []Expr     { return x.args }
func (x *boolExpr) String() string       { return text(x) }
func (x *boolExpr) writeText(b *strings.Builder) {
	if len(x.args) == 1 {
		b.WriteString(x.text + " ")
		writeParen(b, x.args[0])
		return
	}
	writeParen(b, x.args[0])
	b.WriteString(" " + x.text + " ")
	writeParen(b, x.args[1])
}

// Eval evaluates a left-deep chain of AND and OR (a AND b AND c …) in a
// loop, as arithExpr.Eval does, with a stack of one frame.
func (x *boolExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	if x.fn == "not" {
		o, err := evalOperand(ctx, mem, x.args[0], batch)
		if err != nil {
			return nil, err
		}
		defer o.release()
		return not(mem, o), nil
	}
	spine := []*boolExpr{x}
	for {
		l, ok := spine[len(spine)-1].args[0].(*boolExpr)
		if !ok || l.fn == "not" {
			break
		}
		spine = append(spine, l)
	}
	n := int(batch.NumRows())
	l, err := evalOperand(ctx, mem, spine[len(spine)-1].args[0], batch)
	if err != nil {
		return nil, err
	}
	for i := len(spine) - 1; i >= 0; i-- {
		r, err := evalOperand(ctx, mem, spine[i].args[1], batch)
		if err == nil {
			err = ctx.Err() // r may be a literal, which does not look
		}
		if err != nil {
			l.release()
			r.release()
			return nil, err
		}
		out := kleene(mem, spine[i].fn == "and", n, l, r)
		l.release()
		r.release()
		l = operand{arr: out, n: n}
	}
	return l.arr, nil
}

// not inverts a Boolean operand; NULL stays NULL.
func not(mem memory.Allocator, o operand) arrow.Array {
	n := o.n
	if o.allNull() {
		return nullArray(mem, typBool, n)
	}
	if o.lit != nil {
		return boolConst(mem, n, !o.lit.b)
	}
	validity, nulls := combineValidity(mem, n, o.arr)
	out := newBits(mem, n)
	bitutil.InvertBitmap(o.arr.Data().Buffers()[1].Bytes(), o.arr.Data().Offset(), n, out.Bytes(), 0)
	return makeArray(typBool, n, validity, nulls, out)
}

// boolConst is n copies of v.
func boolConst(mem memory.Allocator, n int, v bool) arrow.Array {
	out := newBits(mem, n)
	bitutil.SetBitsTo(out.Bytes(), 0, int64(n), v)
	return makeArray(typBool, n, nil, 0, out)
}

// nullTest is IS NULL or IS NOT NULL. Our kernel (a copy of the validity
// bitmap): arrow-go v18.8's is_not_null misreads sliced arrays and its
// is_null panics on decimals.
type nullTest struct {
	e   Expr
	not bool
}

// IsNull is e IS NULL: TRUE or FALSE, never NULL. NaN is not NULL.
func IsNull(e Expr) Expr { return nullTestOf(e, false) }

// IsNotNull is e IS NOT NULL.
func IsNotNull(e Expr) Expr { return nullTestOf(e, true) }

func nullTestOf(e Expr, not bool) Expr {
	x := &nullTest{e: e, not: not}
	if e == nil {
		return x // Eval reports it
	}
	return fold(x)
}

func (x *nullTest) Type() arrow.DataType { return typBool }
func (x *nullTest) children() []Expr     { return []Expr{x.e} }
func (x *nullTest) String() string       { return text(x) }
func (x *nullTest) writeText(b *strings.Builder) {
	writeParen(b, x.e)
	if x.not {
		b.WriteString(" IS NOT NULL")
		return
	}
	b.WriteString(" IS NULL")
}

func (x *nullTest) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	if x.e == nil {
		return nil, errorf(ErrInvalid, "IS NULL of a nil expression")
	}
	n := int(batch.NumRows())
	o, err := evalOperand(ctx, mem, x.e, batch)
	if err != nil {
		return nil, err
	}
	defer o.release()
	out := newBits(mem, n)
	bits := out.Bytes()
	switch {
	case o.allNull():
		bitutil.SetBitsTo(bits, 0, int64(n), !x.not)
	case o.noNulls():
		bitutil.SetBitsTo(bits, 0, int64(n), x.not)
	case x.not:
		bitutil.CopyBitmap(o.arr.NullBitmapBytes(), o.arr.Data().Offset(), n, bits, 0)
	default:
		bitutil.InvertBitmap(o.arr.NullBitmapBytes(), o.arr.Data().Offset(), n, bits, 0)
	}
	return makeArray(typBool, n, nil, 0, out), nil
}
