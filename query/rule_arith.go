package query

import (
	"context"
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/quiverdb/quiver/cache"
)

// Optimizer rule: arithmetic with constants moves off the column. A
// conjunct of WHERE such as
//
//	l_orderkey + 0 BETWEEN 100 AND 200     →  l_orderkey BETWEEN 100 AND 200
//	2 * x - 6 > 10                         →  x > 8
//	10 - x <= 3                            →  x >= 7
//	x * 3 < 10                             →  x < 4      (integers: ⌈10/3⌉)
//	price + 1.50 IN (2.00, 3.25)           →  price IN (0.50, 1.75)
//
// compares a bare column with constants, so pruning and the scan's row
// filter (build_pushdown.go, build_rowfilter.go) take it; before, the
// engine computed the arithmetic on every row of every batch.
//
// Exactness is the rule's whole contract: the rewritten conjunct selects
// the same rows. So it moves only
//
//   - +, - and * by constants, around integer columns (int8 to int64,
//     uint8 to uint32) with integer constants, and +, - around decimal
//     columns (precision ≤ 18) with integer or decimal constants: exact
//     arithmetic, done here in big.Rat. Never floats, where x + c = k and
//     x = k - c differ by rounding, nor dates (a month is not invertible).
//   - Where the original could not overflow either: the engine raises an
//     error when x + c leaves int64, and the rewritten conjunct would not.
//     Each step's range is computed from the column's: its type's for
//     narrow integers, the table's statistics (cache.Stats) for int64.
//     (Should the table be replaced between planning and the scan, a row
//     past those bounds passes the rewritten conjunct where the original
//     would have failed the query with an overflow; never a wrong row.)
//   - x * c with c < 0 flips the comparison; an integer quotient rounds
//     toward the side that keeps the rows (x*3 < 10 is x < ⌈10/3⌉); x*c = k
//     with c not dividing k is left alone, and such IN items are dropped
//     (no integer x makes x*c equal them).
//   - Only top-level conjuncts of WHERE, where UNKNOWN and FALSE both
//     reject a row; constants must evaluate at plan time to a non-NULL
//     integer or decimal (a ? placeholder is left alone, so a prepared
//     plan stays valid for every binding).
//
// Constant-only subexpressions (DATE '1998-12-01' - INTERVAL '90' DAY,
// 100 - 1) are already folded by package expr when WHERE is built, and
// pushdown evaluates them to a statistics value (build_pushdown.go's
// constant), so this rule only has to isolate the column. Options.NoPruning
// turns it off with pruning: the reference a test compares with.

// maxArithSteps bounds the arithmetic peeled off one column: each step
// evaluates constants, so a long chain would cost more than it saves.
const maxArithSteps = 8

// moveArith returns where with the arithmetic of its conjuncts moved off
// their columns where exact; where itself when nothing moved.
func (b *builder) moveArith(where ast.ExprNode) ast.ExprNode {
	if where == nil || b.opts.NoPruning || b.info.Schema == nil {
		return where
	}
	cs := conjuncts(where, nil)
	changed := false
	for i, c := range cs {
		if r := b.arithConjunct(c); r != nil {
			cs[i], changed = r, true
		}
	}
	if !changed {
		return where
	}
	out := cs[0]
	for _, c := range cs[1:] {
		out = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: out, R: c}
	}
	return out
}

// arithConjunct rewrites one conjunct, or returns nil.
func (b *builder) arithConjunct(c ast.ExprNode) ast.ExprNode {
	switch x := unparen(c).(type) {
	case *ast.BinaryOperationExpr:
		if _, ok := cmpOps[x.Op]; !ok {
			return nil
		}
		if r := b.arithCmp(x.L, x.Op, x.R); r != nil {
			return r
		}
		return b.arithCmp(x.R, mirror[x.Op], x.L)
	case *ast.BetweenExpr:
		iso, ok := b.isolate(x.Expr)
		if !ok {
			return nil
		}
		lo, ok1 := b.arithNumber(x.Left, iso)
		hi, ok2 := b.arithNumber(x.Right, iso)
		if !ok1 || !ok2 {
			return nil
		}
		op1, k1, ok1 := iso.solve(opcode.GE, lo)
		_, k2, ok2 := iso.solve(opcode.LE, hi)
		if !ok1 || !ok2 {
			return nil
		}
		if op1 != opcode.GE { // a decreasing step swapped the bounds
			k1, k2 = k2, k1
		}
		l, ok1 := iso.literal(k1)
		r, ok2 := iso.literal(k2)
		if !ok1 || !ok2 {
			return nil
		}
		return &ast.BetweenExpr{Expr: iso.col, Left: l, Right: r, Not: x.Not}
	case *ast.PatternInExpr:
		if x.Sel != nil {
			return nil
		}
		iso, ok := b.isolate(x.Expr)
		if !ok {
			return nil
		}
		var list []ast.ExprNode
		for _, item := range x.List {
			k, ok := b.arithNumber(item, iso)
			if !ok {
				return nil
			}
			_, k, ok = iso.solve(opcode.EQ, k)
			if !ok {
				if iso.indivisible {
					continue // no x makes the item: it never matches
				}
				return nil
			}
			lit, ok := iso.literal(k)
			if !ok {
				return nil
			}
			list = append(list, lit)
		}
		if len(list) == 0 {
			return nil
		}
		return &ast.PatternInExpr{Expr: iso.col, List: list, Not: x.Not}
	}
	return nil
}

// mirror is the comparison with its operands swapped (c < e is e > c).
var mirror = map[opcode.Op]opcode.Op{
	opcode.EQ: opcode.EQ, opcode.NE: opcode.NE, opcode.LT: opcode.GT, opcode.LE: opcode.GE, opcode.GT: opcode.LT, opcode.GE: opcode.LE,
}

// arithCmp rewrites e op k, k constant, or returns nil.
func (b *builder) arithCmp(e ast.ExprNode, op opcode.Op, k ast.ExprNode) ast.ExprNode {
	iso, ok := b.isolate(e)
	if !ok {
		return nil
	}
	kv, ok := b.arithNumber(k, iso)
	if !ok {
		return nil
	}
	op, kv, ok = iso.solve(op, kv)
	if !ok {
		return nil
	}
	lit, ok := iso.literal(kv)
	if !ok {
		return nil
	}
	return &ast.BinaryOperationExpr{Op: op, L: iso.col, R: lit}
}

// arithStep is one operation applied to the column, inner first.
type arithStep struct {
	op opcode.Op // Plus (x + c), Minus (x - c), Mul (x * c)
	// rev: c - x (for Minus); c + x and c * x are stored as x + c, x * c.
	rev bool
	c   *big.Rat
}

// isolated is a column under steps of arithmetic with constants.
type isolated struct {
	col     *ast.ColumnNameExpr
	decimal bool  // a decimal column; else an integer one
	scale   int32 // decimal: the largest scale of the column and constants
	steps   []arithStep
	// indivisible is set by solve when x*c = k has no integer solution.
	indivisible bool
}

// isolate peels the arithmetic off e down to a bare column, checking
// that no step can overflow; false when e is not such an expression or
// the rule does not apply.
func (b *builder) isolate(e ast.ExprNode) (*isolated, bool) {
	var steps []arithStep
	var consts []*big.Rat
	for range maxArithSteps + 1 {
		e = unparen(e)
		if col, dt, ok := b.bareColumn(e); ok {
			if len(steps) == 0 {
				return nil, false // nothing to move
			}
			iso := &isolated{col: e.(*ast.ColumnNameExpr)}
			lo, hi, ok := b.columnRange(col, dt, iso)
			if !ok || iso.decimal && (len(steps) > 2 || hasMul(steps)) {
				return nil, false // decimal x*c = k needs k/c, not always exact
			}
			for i := range steps { // steps were peeled outer first
				iso.steps = append(iso.steps, steps[len(steps)-1-i])
			}
			for _, c := range consts {
				if !iso.fits(c) {
					return nil, false
				}
			}
			if !iso.noOverflow(lo, hi) {
				return nil, false
			}
			return iso, true
		}
		x, ok := e.(*ast.BinaryOperationExpr)
		if !ok || x.Op != opcode.Plus && x.Op != opcode.Minus && x.Op != opcode.Mul || len(steps) == maxArithSteps {
			return nil, false
		}
		var c *big.Rat
		switch {
		case hasColumnRef(x.L) && !hasColumnRef(x.R):
			if c, ok = b.rawNumber(x.R); !ok {
				return nil, false
			}
			steps, e = append(steps, arithStep{op: x.Op, c: c}), x.L
		case hasColumnRef(x.R) && !hasColumnRef(x.L):
			if c, ok = b.rawNumber(x.L); !ok {
				return nil, false
			}
			steps, e = append(steps, arithStep{op: x.Op, c: c, rev: x.Op == opcode.Minus}), x.R
		default:
			return nil, false
		}
		consts = append(consts, c)
	}
	return nil, false
}

func hasMul(steps []arithStep) bool {
	for _, s := range steps {
		if s.op == opcode.Mul {
			return true
		}
	}
	return false
}

// columnRange is the range of the column's values, and sets iso's kind;
// false for columns the rule does not handle.
func (b *builder) columnRange(col int, dt arrow.DataType, iso *isolated) (lo, hi *big.Rat, ok bool) {
	r := func(lo, hi int64) (*big.Rat, *big.Rat, bool) {
		return new(big.Rat).SetInt64(lo), new(big.Rat).SetInt64(hi), true
	}
	switch dt.ID() {
	case arrow.INT8:
		return r(math.MinInt8, math.MaxInt8)
	case arrow.INT16:
		return r(math.MinInt16, math.MaxInt16)
	case arrow.INT32:
		return r(math.MinInt32, math.MaxInt32)
	case arrow.UINT8:
		return r(0, math.MaxUint8)
	case arrow.UINT16:
		return r(0, math.MaxUint16)
	case arrow.UINT32:
		return r(0, math.MaxUint32)
	case arrow.INT64:
		st, err := b.c.Stats(b.table)
		if err == nil && col < len(st.Columns) {
			if s := st.Columns[col]; s.HasBounds && s.Min.Kind == cache.KindInt && s.Max.Kind == cache.KindInt {
				return r(s.Min.I, s.Max.I)
			}
		}
		return r(math.MinInt64, math.MaxInt64)
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128:
		d := dt.(arrow.DecimalType)
		if d.GetPrecision() > 18 {
			return nil, nil, false
		}
		iso.decimal, iso.scale = true, d.GetScale()
		// |x| < 10^(p-s); the bound only feeds the overflow check, which
		// for decimals is the precision limit in fits.
		return r(0, 0)
	}
	return nil, nil, false
}

var (
	minInt64 = new(big.Rat).SetInt64(math.MinInt64)
	maxInt64 = new(big.Rat).SetInt64(math.MaxInt64)
	// maxDecimalConst bounds a decimal rewrite's constants: with a column
	// of precision ≤ 18 and at most two steps, every intermediate stays
	// far inside decimal128's 38 digits, so the engine cannot overflow.
	maxDecimalConst = new(big.Rat).SetFrac(new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil), big.NewInt(1))
)

// fits reports whether c may take part: an integer in int64 for an
// integer column; for a decimal one, scale ≤ 18 and |c| < 10^18. It
// widens iso.scale to c's.
func (iso *isolated) fits(c *big.Rat) bool {
	if !iso.decimal {
		return c.IsInt() && c.Cmp(minInt64) >= 0 && c.Cmp(maxInt64) <= 0
	}
	s, ok := ratScale(c)
	if !ok || s > 18 || new(big.Rat).Abs(c).Cmp(maxDecimalConst) >= 0 {
		return false
	}
	iso.scale = max(iso.scale, s)
	return true
}

// noOverflow checks every intermediate value's range against int64, the
// engine's integer type (decimals are bounded by fits).
func (iso *isolated) noOverflow(lo, hi *big.Rat) bool {
	if iso.decimal {
		return true
	}
	for _, s := range iso.steps {
		switch {
		case s.op == opcode.Plus:
			lo, hi = new(big.Rat).Add(lo, s.c), new(big.Rat).Add(hi, s.c)
		case s.rev:
			lo, hi = new(big.Rat).Sub(s.c, hi), new(big.Rat).Sub(s.c, lo)
		case s.op == opcode.Minus:
			lo, hi = new(big.Rat).Sub(lo, s.c), new(big.Rat).Sub(hi, s.c)
		default:
			lo, hi = new(big.Rat).Mul(lo, s.c), new(big.Rat).Mul(hi, s.c)
			if lo.Cmp(hi) > 0 {
				lo, hi = hi, lo
			}
		}
		if lo.Cmp(minInt64) < 0 || hi.Cmp(maxInt64) > 0 {
			return false
		}
	}
	return true
}

// solve turns f(x) op k into x op' k', undoing the steps outer first.
func (iso *isolated) solve(op opcode.Op, k *big.Rat) (opcode.Op, *big.Rat, bool) {
	iso.indivisible = false
	for i := len(iso.steps) - 1; i >= 0; i-- {
		s := iso.steps[i]
		switch {
		case s.op == opcode.Plus:
			k = new(big.Rat).Sub(k, s.c)
		case s.rev: // c - x op k  ⇔  x mirror(op) c - k
			k, op = new(big.Rat).Sub(s.c, k), mirror[op]
		case s.op == opcode.Minus:
			k = new(big.Rat).Add(k, s.c)
		default:
			var ok bool
			if op, k, ok = iso.divide(op, k, s.c); !ok {
				return 0, nil, false
			}
		}
	}
	if !iso.decimal && (k.Cmp(minInt64) < 0 || k.Cmp(maxInt64) > 0) {
		return 0, nil, false
	}
	return op, k, true
}

// divide turns x*c op k (integers, c ≠ 0) into x op' k'.
func (iso *isolated) divide(op opcode.Op, k, c *big.Rat) (opcode.Op, *big.Rat, bool) {
	if c.Sign() == 0 || !k.IsInt() || !c.IsInt() {
		return 0, nil, false
	}
	if c.Sign() < 0 { // x*c op k  ⇔  x*(-c) mirror(op) -k
		c, k, op = new(big.Rat).Neg(c), new(big.Rat).Neg(k), mirror[op]
	}
	n, d := k.Num(), c.Num()
	floor := new(big.Int).Div(n, d) // Euclidean: floor for d > 0
	exact := new(big.Int).Mul(floor, d).Cmp(n) == 0
	ceil := new(big.Int).Set(floor)
	if !exact {
		ceil.Add(ceil, big.NewInt(1))
	}
	switch op {
	case opcode.LT, opcode.GE: // x*c < k ⇔ x < ⌈k/c⌉; x*c >= k ⇔ x >= ⌈k/c⌉
		return op, new(big.Rat).SetInt(ceil), true
	case opcode.LE, opcode.GT: // x*c <= k ⇔ x <= ⌊k/c⌋; x*c > k ⇔ x > ⌊k/c⌋
		return op, new(big.Rat).SetInt(floor), true
	}
	if !exact { // = and <>: only when c divides k
		iso.indivisible = true
		return 0, nil, false
	}
	return op, new(big.Rat).SetInt(floor), true
}

// literal is the AST of the constant k in the column's terms: an int64,
// or a decimal at iso.scale digits (as the parser would have made them,
// without running it: a parser costs more than the rest of planning).
func (iso *isolated) literal(k *big.Rat) (ast.ExprNode, bool) {
	if !iso.decimal {
		if !k.IsInt() || !k.Num().IsInt64() {
			return nil, false
		}
		return ast.NewValueExpr(k.Num().Int64(), "", ""), true
	}
	if s, ok := ratScale(k); !ok || s > iso.scale {
		return nil, false
	}
	d := new(driver.MyDecimal)
	if err := d.FromString([]byte(k.FloatString(int(iso.scale)))); err != nil {
		return nil, false
	}
	return ast.NewValueExpr(d, "", ""), true
}

// ratScale is the number of decimal digits after the point of r (at
// most 38), when r is a terminating decimal: the least s with the
// denominator dividing 10^s (big.Rat keeps 1.50 as 3/2).
func ratScale(r *big.Rat) (int32, bool) {
	p := big.NewInt(1)
	ten, m := big.NewInt(10), new(big.Int)
	for s := int32(0); s <= 38; s++ {
		if m.Mod(p, r.Denom()).Sign() == 0 {
			return s, true
		}
		p.Mul(p, ten)
	}
	return 0, false
}

// arithNumber evaluates the compared constant n for iso's column.
func (b *builder) arithNumber(n ast.ExprNode, iso *isolated) (*big.Rat, bool) {
	c, ok := b.rawNumber(n)
	if !ok || !iso.fits(c) {
		return nil, false
	}
	return c, true
}

// rawNumber evaluates n, which must name no column and hold no ?
// placeholder, to an exact non-NULL integer or decimal.
func (b *builder) rawNumber(n ast.ExprNode) (*big.Rat, bool) {
	if hasColumnRef(n) || hasParam(n) {
		return nil, false
	}
	e, err := b.expr(n, tableScope{})
	if err != nil {
		return nil, false
	}
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	arr, err := e.Eval(context.Background(), memory.DefaultAllocator, one)
	if err != nil {
		return nil, false
	}
	defer arr.Release()
	if arr.Len() != 1 || arr.IsNull(0) {
		return nil, false
	}
	switch a := arr.(type) {
	case *array.Int64:
		return new(big.Rat).SetInt64(a.Value(0)), true
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
		return new(big.Rat).SetFrac(a.Value(0).BigInt(), den), true
	}
	return nil, false
}

// hasParam reports a ? placeholder in n.
func hasParam(n ast.Node) bool {
	f := &paramFinder{}
	n.Accept(f)
	return f.found
}

type paramFinder struct{ found bool }

func (f *paramFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(ast.ParamMarkerExpr); ok {
		f.found = true
	}
	return n, f.found
}

func (f *paramFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
