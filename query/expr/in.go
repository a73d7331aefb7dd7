package expr

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// commonOperands converts e and others to one type, as a comparison would
// (String literals become dates next to a Date32 e).
func commonOperands(e Expr, others []Expr, text func() string) (Expr, []Expr, error) {
	all := append([]Expr{e}, others...)
	if err := checkEngine("comparison", all...); err != nil {
		return nil, nil, err
	}
	t := typNull
	for _, x := range all {
		if x.Type().ID() != arrow.NULL {
			t = x.Type()
			break
		}
	}
	if t.ID() == arrow.NULL {
		t = typInt64
	}
	for i, x := range all {
		all[i] = nullAs(x, t)
	}
	if temporal(all[0].Type()) || all[0].Type().ID() == arrow.TIME64 {
		for i, x := range all[1:] {
			d, err := dateFromString(x, all[0], func(l, r Expr) string { return text() })
			if err != nil {
				return nil, nil, err
			}
			all[i+1] = d
		}
	}
	t = all[0].Type()
	for _, x := range all[1:] {
		next, err := Coerce(t, coercionType(x, NullLiteral(t)))
		if err != nil {
			return nil, nil, errorf(ErrType, "cannot compare %s with %s (%s)", all[0].Type(), x.Type(), text())
		}
		t = next
	}
	for i, x := range all {
		c, err := coerceTo(x, t)
		if err != nil {
			return nil, nil, errorf(ErrType, "cannot compare %s with %s (%s): %v", all[0].Type(), x.Type(), text(), err)
		}
		all[i] = c
	}
	return all[0], all[1:], nil
}

type inExpr struct {
	e    Expr
	list []Expr
	set  arrow.Array      // the list, when it is all Int64, String or Date32 literals
	decs map[num]struct{} // the list, when it is all decimal literals
	null bool             // decs: the list holds a NULL
}

// In is e IN (list): TRUE when e equals an item, NULL when it equals none
// and e or an item is NULL, FALSE otherwise. A list of Int64, String or
// Date32 literals is matched with arrow-go's is_in (a hash set); decimal
// literals with our own set (v18.8's is_in misreads sliced decimal and
// boolean arrays); other lists, Booleans and Float64 (where is_in would
// tell -0 from 0) compare item by item.
func In(e Expr, list []Expr) (Expr, error) {
	if len(list) == 0 {
		return nil, errorf(ErrType, "IN needs at least one value")
	}
	x := &inExpr{}
	text := func() string {
		x2 := &inExpr{e: e, list: list}
		return x2.String()
	}
	var err error
	if x.e, x.list, err = commonOperands(e, append([]Expr(nil), list...), text); err != nil {
		return nil, err
	}
	var lits []*literal
	for _, item := range x.list {
		if l, ok := item.(*literal); ok {
			lits = append(lits, l)
		}
	}
	if len(lits) == len(x.list) {
		switch x.e.Type().ID() {
		case arrow.INT64, arrow.STRING, arrow.DATE32, arrow.TIMESTAMP, arrow.TIME64:
			if x.set, err = concatLiterals(memory.DefaultAllocator, x.e.Type(), lits); err != nil {
				return nil, err
			}
		case arrow.DECIMAL128:
			x.decs = map[num]struct{}{}
			for _, l := range lits {
				if l.null {
					x.null = true
				} else {
					x.decs[l.d] = struct{}{}
				}
			}
		}
	}
	return fold(x), nil
}

func (x *inExpr) Type() arrow.DataType { return typBool }
func (x *inExpr) children() []Expr     { return append([]Expr{x.e}, x.list...) }
func (x *inExpr) String() string       { return text(x) }
func (x *inExpr) writeText(b *strings.Builder) {
	writeParen(b, x.e)
	b.WriteString(" IN (")
	for i, e := range x.list {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, e)
	}
	b.WriteByte(')')
}

func (x *inExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	n := int(batch.NumRows())
	v, err := evalOperand(ctx, mem, x.e, batch)
	if err != nil {
		return nil, err
	}
	defer v.release()
	if v.allNull() && (x.decs != nil || x.set != nil) {
		return nullArray(mem, typBool, n), nil
	}
	if x.decs != nil {
		return x.inDecimals(mem, v), nil
	}
	if x.set != nil {
		opts := &compute.SetOptions{
			ValueSet:     compute.NewDatumWithoutOwning(x.set),
			NullBehavior: compute.NullMatchingInconclusive,
		}
		out, err := callFunction(ctx, mem, "is_in", opts, n, v)
		if err != nil {
			return nil, errorf(ErrInvalid, "%s: %v", x, err)
		}
		return out, nil
	}
	var acc arrow.Array
	for _, item := range x.list {
		o, err := evalOperand(ctx, mem, item, batch)
		if err != nil {
			release(acc)
			return nil, err
		}
		eq, err := compareOperands(ctx, mem, Eq, v, o)
		o.release()
		if err != nil {
			release(acc)
			return nil, err
		}
		if acc == nil {
			acc = eq
			continue
		}
		acc, err = orArrays(ctx, mem, acc, eq)
		if err != nil {
			return nil, err
		}
	}
	return acc, nil
}

func release(a arrow.Array) {
	if a != nil {
		a.Release()
	}
}

// orArrays is a OR b (Kleene); it releases both.
func orArrays(ctx context.Context, mem memory.Allocator, a, b arrow.Array) (arrow.Array, error) {
	defer a.Release()
	defer b.Release()
	return kleene(mem, false, a.Len(), operand{arr: a, n: a.Len()}, operand{arr: b, n: b.Len()}), nil
}

// andArrays is a AND b (Kleene); it releases both.
func andArrays(ctx context.Context, mem memory.Allocator, a, b arrow.Array) (arrow.Array, error) {
	defer a.Release()
	defer b.Release()
	return kleene(mem, true, a.Len(), operand{arr: a, n: a.Len()}, operand{arr: b, n: b.Len()}), nil
}

type betweenExpr struct {
	e, lo, hi Expr
}

// Between is e BETWEEN lo AND hi, that is e >= lo AND e <= hi with e
// evaluated once; the three are converted to their common type.
func Between(e, lo, hi Expr) (Expr, error) {
	text := func() string { return (&betweenExpr{e, lo, hi}).String() }
	ce, bounds, err := commonOperands(e, []Expr{lo, hi}, text)
	if err != nil {
		return nil, err
	}
	return fold(&betweenExpr{e: ce, lo: bounds[0], hi: bounds[1]}), nil
}

func (x *betweenExpr) Type() arrow.DataType { return typBool }
func (x *betweenExpr) children() []Expr     { return []Expr{x.e, x.lo, x.hi} }
func (x *betweenExpr) String() string       { return text(x) }
func (x *betweenExpr) writeText(b *strings.Builder) {
	writeParen(b, x.e)
	b.WriteString(" BETWEEN ")
	writeParen(b, x.lo)
	b.WriteString(" AND ")
	writeParen(b, x.hi)
}

func (x *betweenExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	ops, err := evalOperands(ctx, mem, batch, x.e, x.lo, x.hi)
	if err != nil {
		return nil, err
	}
	defer releaseAll(ops)
	ge, err := compareOperands(ctx, mem, Ge, ops[0], ops[1])
	if err != nil {
		return nil, err
	}
	le, err := compareOperands(ctx, mem, Le, ops[0], ops[2])
	if err != nil {
		ge.Release()
		return nil, err
	}
	return andArrays(ctx, mem, ge, le)
}

// inDecimals looks a decimal operand up in the list's set.
func (x *inExpr) inDecimals(mem memory.Allocator, v operand) arrow.Array {
	n := v.n
	sv := sideOf(v, litNum)
	in := func(i int) bool {
		_, ok := x.decs[sv.at(i)]
		return ok
	}
	out := newBits(mem, n)
	bits := out.Bytes()
	valid := newBits(mem, n)
	vbits := valid.Bytes()
	vin := validityOf(v.arr)
	nulls := 0
	for i := 0; i < n; i++ {
		switch {
		case !vin.valid(i):
			nulls++
		case in(i):
			bits[i>>3] |= 1 << (i & 7)
			vbits[i>>3] |= 1 << (i & 7)
		case x.null:
			nulls++
		default:
			vbits[i>>3] |= 1 << (i & 7)
		}
	}
	return makeArray(typBool, n, valid, nulls, out)
}
