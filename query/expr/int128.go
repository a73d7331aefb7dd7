package expr

import (
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Checked 128-bit integer arithmetic on decimal128.Num (two's complement,
// lo/hi words), the unscaled values of decimals. decimal128.Num's own
// methods wrap on overflow; these report it. Rare shapes (256-bit
// intermediates, divisors above 64 bits) go through math/big.

type num = decimal128.Num

// pow10 holds 10^k for k in 0..38.
var pow10 [maxPrecision + 1]num

func init() {
	for k := range pow10 {
		pow10[k] = decimal128.GetScaleMultiplier(k)
	}
}

// pow10u64 holds 10^k for k in 0..19 (the powers that fit a uint64).
var pow10u64 = func() (p [20]uint64) {
	p[0] = 1
	for k := 1; k < len(p); k++ {
		p[k] = p[k-1] * 10
	}
	return p
}()

func isNeg(a num) bool { return a.HighBits() < 0 }

// small reports whether a fits an int64.
func small(a num) bool { return a.HighBits() == int64(a.LowBits())>>63 }

func cmp128(a, b num) int {
	ah, bh := a.HighBits(), b.HighBits()
	switch {
	case ah < bh:
		return -1
	case ah > bh:
		return 1
	}
	al, bl := a.LowBits(), b.LowBits()
	switch {
	case al < bl:
		return -1
	case al > bl:
		return 1
	}
	return 0
}

// fits reports whether |a| < 10^p.
func fits(a num, p int32) bool {
	lim := pow10[p]
	if isNeg(a) {
		return cmp128(a, neg128(lim)) > 0
	}
	return cmp128(a, lim) < 0
}

func neg128(a num) num {
	lo, b := bits.Sub64(0, a.LowBits(), 0)
	hi := 0 - a.HighBits() - int64(b)
	return decimal128.New(hi, lo)
}

func add128(a, b num) (num, bool) {
	lo, c := bits.Add64(a.LowBits(), b.LowBits(), 0)
	hi := a.HighBits() + b.HighBits() + int64(c)
	ok := (a.HighBits()^hi)&(b.HighBits()^hi) >= 0
	return decimal128.New(hi, lo), ok
}

func sub128(a, b num) (num, bool) {
	lo, c := bits.Sub64(a.LowBits(), b.LowBits(), 0)
	hi := a.HighBits() - b.HighBits() - int64(c)
	ok := (a.HighBits()^b.HighBits())&(a.HighBits()^hi) >= 0
	return decimal128.New(hi, lo), ok
}

// u128 is an unsigned magnitude.
type u128 struct{ hi, lo uint64 }

func abs128(a num) (u128, bool) {
	neg := isNeg(a)
	if neg {
		a = neg128(a) // MinInt128 stays itself, whose bits are 2^127
	}
	return u128{uint64(a.HighBits()), a.LowBits()}, neg
}

// signed turns a magnitude back into a num; ok is false when it does not
// fit.
func signed(m u128, neg bool) (num, bool) {
	if m.hi>>63 != 0 {
		if neg && m.hi == 1<<63 && m.lo == 0 {
			return decimal128.New(int64(m.hi), 0), true
		}
		return num{}, false
	}
	n := decimal128.New(int64(m.hi), m.lo)
	if neg {
		n = neg128(n)
	}
	return n, true
}

func mulU(a, b u128) (u128, bool) {
	if a.hi != 0 && b.hi != 0 {
		return u128{}, false
	}
	hi, lo := bits.Mul64(a.lo, b.lo)
	for _, x := range [2][2]uint64{{a.hi, b.lo}, {b.hi, a.lo}} {
		if x[0] == 0 {
			continue
		}
		ch, cl := bits.Mul64(x[0], x[1])
		if ch != 0 {
			return u128{}, false
		}
		var c uint64
		hi, c = bits.Add64(hi, cl, 0)
		if c != 0 {
			return u128{}, false
		}
	}
	return u128{hi, lo}, true
}

func mul128(a, b num) (num, bool) {
	if small(a) && small(b) {
		x, y := int64(a.LowBits()), int64(b.LowBits())
		hi, lo := bits.Mul64(uint64(x), uint64(y))
		if x < 0 {
			hi -= uint64(y)
		}
		if y < 0 {
			hi -= uint64(x)
		}
		return decimal128.New(int64(hi), lo), true
	}
	ua, na := abs128(a)
	ub, nb := abs128(b)
	m, ok := mulU(ua, ub)
	if !ok {
		return num{}, false
	}
	return signed(m, na != nb)
}

// divU64 divides a magnitude by d (d > 0).
func divU64(a u128, d uint64) (u128, uint64) {
	qhi := a.hi / d
	qlo, r := bits.Div64(a.hi%d, a.lo, d)
	return u128{qhi, qlo}, r
}

func incU(a u128) u128 {
	lo, c := bits.Add64(a.lo, 1, 0)
	return u128{a.hi + c, lo}
}

// roundDiv is a / d rounded half away from zero (d > 0).
func roundDivU64(a u128, d uint64) u128 {
	q, r := divU64(a, d)
	if r >= d-r {
		q = incU(q)
	}
	return q
}

// rescale changes the scale of a by delta digits (positive: multiply by
// 10^delta; negative: divide, rounding half away from zero); ok is false
// on overflow of 128 bits.
func rescale(a num, delta int32) (num, bool) {
	switch {
	case delta == 0:
		return a, true
	case delta > 0:
		if delta > maxPrecision {
			return num{}, isZero(a)
		}
		return mul128(a, pow10[delta])
	}
	k := -delta
	if k > maxPrecision {
		return num{}, true
	}
	m, neg := abs128(a)
	if k < int32(len(pow10u64)) {
		return signed(roundDivU64(m, pow10u64[k]), neg)
	}
	return bigToNum(roundBig(bigOf(a), bigOf(pow10[k])))
}

func isZero(a num) bool { return a.HighBits() == 0 && a.LowBits() == 0 }

// divRound is a * 10^k / b rounded half away from zero (b != 0).
func divRound(a, b num, k int32) (num, bool) {
	ma, na := abs128(a)
	mb, nb := abs128(b)
	if mb.hi == 0 && k >= 0 && k < int32(len(pow10u64)) {
		if n, ok := mulU(ma, u128{0, pow10u64[k]}); ok {
			return signed(roundDivU64(n, mb.lo), na != nb)
		}
	}
	x, y := bigOf(a), bigOf(b)
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(k, -k))), nil)
	if k > 0 {
		x.Mul(x, p)
	} else {
		y.Mul(y, p)
	}
	return bigToNum(roundBig(x, y))
}

// rem128 is a % b with the sign of a (b != 0).
func rem128(a, b num) num {
	if small(a) && small(b) {
		x, y := int64(a.LowBits()), int64(b.LowBits())
		if y == -1 {
			return num{}
		}
		return decimal128.FromI64(x % y)
	}
	r, _ := bigToNum(new(big.Int).Rem(bigOf(a), bigOf(b)))
	return r
}

func bigOf(a num) *big.Int { return a.BigInt() }

// roundBig is x / y rounded half away from zero.
func roundBig(x, y *big.Int) *big.Int {
	q, r := new(big.Int).QuoRem(x, y, new(big.Int))
	r.Abs(r).Lsh(r, 1)
	if r.CmpAbs(y) >= 0 {
		if (x.Sign() < 0) != (y.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

func bigToNum(x *big.Int) (num, bool) {
	if x.BitLen() > 127 {
		return num{}, false
	}
	return decimal128.FromBigInt(x), true
}
