package query

import (
	"math"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/quiverdb/quiver/cache"
)

// The arithmetic rule's algebra (rule_arith.go says what it does and
// when): a column isolated under steps of arithmetic, each step's range
// checked against overflow, and a comparison solved for the column.

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
		if st := b.statsOfTable(b.table); st != nil && col < len(st.Columns) { // read once per query
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
