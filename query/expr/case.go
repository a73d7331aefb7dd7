package expr

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// When is one WHEN Cond THEN Then arm of a CASE.
type When struct{ Cond, Then Expr }

type caseExpr struct {
	whens  []When
	els    Expr
	typ    arrow.DataType
	needed func(int) bool
	// whether each condition, and each value (the else last), cannot fail
	safeCond, safeVal []bool
}

// commonType converts es to their common type (Coerce); all NULLs stay
// NULL.
func commonType(what string, es []Expr) ([]Expr, arrow.DataType, error) {
	es = append([]Expr(nil), es...)
	for _, e := range es {
		if temporal(e.Type()) || e.Type().ID() == arrow.TIME64 {
			// String literals among dates are dates, as in comparisons
			for i, x := range es {
				d, err := dateFromString(x, e, func(Expr, Expr) string { return what })
				if err != nil {
					return nil, nil, err
				}
				es[i] = d
			}
			break
		}
	}
	t := typNull
	for _, e := range es {
		next, err := Coerce(t, coercionType(e, NullLiteral(t)))
		if err != nil {
			return nil, nil, errorf(ErrType, "%s: no common type for %s and %s (%s)", what, t, e.Type(), e)
		}
		t = next
	}
	out := make([]Expr, len(es))
	for i, e := range es {
		c, err := coerceTo(e, t)
		if err != nil {
			return nil, nil, errorf(ErrType, "%s: %v", what, err)
		}
		out[i] = c
	}
	return out, t, nil
}

// Case is the searched CASE WHEN c1 THEN v1 ... ELSE e END: the value of
// the first arm whose condition is TRUE (NULL is not TRUE), else elseExpr
// (NULL when nil). The values are converted to their common type. Each
// condition is evaluated only on the rows no earlier arm took, and each
// value only on the rows its arm took.
func Case(whens []When, elseExpr Expr) (Expr, error) {
	if len(whens) == 0 {
		return nil, errorf(ErrType, "CASE needs at least one WHEN")
	}
	if elseExpr == nil {
		elseExpr = NullLiteral(typNull)
	}
	vals := []Expr{elseExpr}
	conds := make([]Expr, len(whens))
	for i, w := range whens {
		if err := checkEngine("CASE", w.Cond, w.Then); err != nil {
			return nil, err
		}
		conds[i] = nullAs(w.Cond, typBool)
		if conds[i].Type().ID() != arrow.BOOL {
			return nil, errorf(ErrType, "CASE: WHEN needs a boolean, got %s (%s)", w.Cond.Type(), w.Cond)
		}
		vals = append(vals, w.Then)
	}
	if err := checkEngine("CASE", elseExpr); err != nil {
		return nil, err
	}
	vals, t, err := commonType("CASE", vals)
	if err != nil {
		return nil, err
	}
	x := &caseExpr{els: vals[0], typ: t}
	for i := range whens {
		x.whens = append(x.whens, When{Cond: conds[i], Then: vals[i+1]})
	}
	x.needed = referenced(x.children()...)
	for _, w := range x.whens {
		x.safeCond = append(x.safeCond, !mayFail(w.Cond))
		x.safeVal = append(x.safeVal, !mayFail(w.Then))
	}
	x.safeVal = append(x.safeVal, !mayFail(x.els))
	return fold(x), nil
}

func (x *caseExpr) Type() arrow.DataType { return x.typ }
func (x *caseExpr) children() []Expr {
	var out []Expr
	for _, w := range x.whens {
		out = append(out, w.Cond, w.Then)
	}
	return append(out, x.els)
}

func (x *caseExpr) String() string { return text(x) }
func (x *caseExpr) writeText(b *strings.Builder) {
	b.WriteString("CASE")
	for _, w := range x.whens {
		b.WriteString(" WHEN ")
		writeExpr(b, w.Cond)
		b.WriteString(" THEN ")
		writeExpr(b, w.Then)
	}
	if l, ok := x.els.(*literal); !ok || !l.null {
		b.WriteString(" ELSE ")
		writeExpr(b, x.els)
	}
	b.WriteString(" END")
}

func (x *caseExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	p := newPicker(ctx, mem, batch, x.needed)
	defer p.release()
	// pick[i] is the arm row i takes, -1 while undecided
	pick := make([]int32, p.n)
	for i := range pick {
		pick[i] = -1
	}
	const pending = -1
	left := p.n
	for k, w := range x.whens {
		if left == 0 {
			break
		}
		c, rows, err := p.eval(w.Cond, x.safeCond[k], pick, pending)
		if err != nil {
			return nil, err
		}
		b, _ := c.(*array.Boolean)
		decide := func(i, row int) {
			if pick[row] < 0 && b != nil && b.IsValid(i) && b.Value(i) {
				pick[row] = int32(k)
				left--
			}
		}
		if rows == nil {
			for i := range pick {
				decide(i, i)
			}
		} else {
			for j, row := range rows {
				decide(j, int(row))
			}
		}
		c.Release()
	}
	els := int32(len(x.whens))
	used := make([]bool, len(x.whens)+1)
	for i, k := range pick {
		if k < 0 {
			pick[i] = els
		}
		used[pick[i]] = true
	}
	vals := append(thens(x.whens), x.els)
	for k, v := range vals {
		if !used[k] {
			continue
		}
		a, rows, err := p.eval(v, x.safeVal[k], pick, int32(k))
		if err != nil {
			return nil, err
		}
		p.takeAll(p.add(a), rows, pick, int32(k))
	}
	return p.result(x.typ), nil
}

func thens(ws []When) []Expr {
	out := make([]Expr, len(ws))
	for i, w := range ws {
		out[i] = w.Then
	}
	return out
}

type coalesceExpr struct {
	args   []Expr
	typ    arrow.DataType
	needed func(int) bool
	safe   []bool // whether each argument cannot fail
}

// Coalesce is the first non-NULL of args, converted to their common type;
// each argument is evaluated only on the rows where all earlier ones were
// NULL.
func Coalesce(args ...Expr) (Expr, error) {
	if len(args) == 0 {
		return nil, errorf(ErrType, "COALESCE needs at least one argument")
	}
	if err := checkEngine("COALESCE", args...); err != nil {
		return nil, err
	}
	vals, t, err := commonType("COALESCE", args)
	if err != nil {
		return nil, err
	}
	x := &coalesceExpr{args: vals, typ: t}
	x.needed = referenced(vals...)
	for _, a := range vals {
		x.safe = append(x.safe, !mayFail(a))
	}
	return fold(x), nil
}

func (x *coalesceExpr) Type() arrow.DataType { return x.typ }
func (x *coalesceExpr) children() []Expr     { return x.args }
func (x *coalesceExpr) String() string       { return text(x) }
func (x *coalesceExpr) writeText(b *strings.Builder) {
	b.WriteString("COALESCE(")
	for i, a := range x.args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, a)
	}
	b.WriteByte(')')
}

func (x *coalesceExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	p := newPicker(ctx, mem, batch, x.needed)
	defer p.release()
	// pick[i] is the argument row i takes, -1 while undecided
	pick := make([]int32, p.n)
	for i := range pick {
		pick[i] = -1
	}
	const pending = -1
	left := p.n
	for k, a := range x.args {
		if left == 0 {
			break
		}
		last := k == len(x.args)-1
		v, rows, err := p.eval(a, x.safe[k], pick, pending)
		if err != nil {
			return nil, err
		}
		src := p.add(v)
		take := func(i, row int) {
			if pick[row] < 0 && (last || isValid(v, i)) {
				pick[row] = int32(k)
				p.from[row], p.at[row] = int32(src), int32(i)
				left--
			}
		}
		if rows == nil {
			for i := range pick {
				take(i, i)
			}
		} else {
			for j, row := range rows {
				take(j, int(row))
			}
		}
	}
	return p.result(x.typ), nil
}
