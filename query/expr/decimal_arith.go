package expr

import (
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// decimal evaluates a decimal operator with our kernels: arrow-go's decimal
// arithmetic uses other result types (p1+p2+1 for a product) and refuses
// any whose precision would pass 38 instead of capping it.
func (x *arithExpr) decimal(mem memory.Allocator, n int, l, r operand) (arrow.Array, error) {
	ld := x.l.Type().(*arrow.Decimal128Type)
	rd := x.r.Type().(*arrow.Decimal128Type)
	out := x.typ.(*arrow.Decimal128Type)
	return binaryOwn(x, mem, n, l, r, litNum, decimalKernel(x.op, ld.Scale, rd.Scale, out.Precision, out.Scale))
}

// decimalKernel computes one row of a op b, a of scale s1, b of scale s2,
// into decimal(p, s).
func decimalKernel(op ArithOp, s1, s2, p, s int32) func(a, b num) (num, errCode) {
	check := func(v num, ok bool) (num, errCode) {
		if !ok || !fits(v, p) {
			return num{}, codeOverflow
		}
		return v, codeOK
	}
	switch op {
	case Add, Sub:
		f := add128
		if op == Sub {
			f = sub128
		}
		if s1 == s && s2 == s {
			return func(a, b num) (num, errCode) { return check(f(a, b)) }
		}
		return func(a, b num) (num, errCode) {
			a2, ok1 := rescale(a, s-s1)
			b2, ok2 := rescale(b, s-s2)
			if !ok1 || !ok2 {
				return check(bigAligned(op, a, b, s-s1, s-s2))
			}
			return check(f(a2, b2))
		}
	case Mul:
		return func(a, b num) (num, errCode) { return check(mul128(a, b)) }
	case Div:
		k := s - s1 + s2
		return func(a, b num) (num, errCode) {
			if isZero(b) {
				return num{}, codeDivZero
			}
			return check(divRound(a, b, k))
		}
	}
	return func(a, b num) (num, errCode) {
		if isZero(b) {
			return num{}, codeDivZero
		}
		a2, ok1 := rescale(a, s-s1)
		b2, ok2 := rescale(b, s-s2)
		if !ok1 || !ok2 {
			return check(bigAligned(op, a, b, s-s1, s-s2))
		}
		return check(rem128(a2, b2), true)
	}
}

// bigAligned computes a op b (Add, Sub or Mod) exactly after scaling a by
// 10^da and b by 10^db, for when an operand alone overflows at the common
// scale yet the result may fit (a + -a, a small remainder).
func bigAligned(op ArithOp, a, b num, da, db int32) (num, bool) {
	x := new(big.Int).Mul(bigOf(a), bigOf(pow10[da]))
	y := new(big.Int).Mul(bigOf(b), bigOf(pow10[db]))
	switch op {
	case Add:
		x.Add(x, y)
	case Sub:
		x.Sub(x, y)
	default:
		x.Rem(x, y)
	}
	return bigToNum(x)
}
