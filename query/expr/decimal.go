package expr

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Decimal result types. p and s are precision and scale; every result
// precision is capped at 38 and a value that does not fit its result
// precision is ErrOverflow.
//
//	a + b, a - b   s = max(s1, s2)   p = max(p1-s1, p2-s2) + s + 1
//	a * b          s = s1 + s2       p = p1 + p2            (s > 38: ErrType)
//	a / b          s = max(6, s1 + p2 + 1)
//	               p = (p1 - s1 + s2) + s; when p > 38 the scale gives way:
//	               s = max(min(s, 6), 38 - (p1 - s1 + s2)), p = 38
//	a % b          s = max(s1, s2)   p = min(p1-s1, p2-s2) + s
//
// Addition and multiplication follow DuckDB and Postgres. DuckDB has no
// decimal division (its / returns DOUBLE) and Postgres picks the scale of
// each quotient from its value, so division follows SQL Server and Spark:
// at least 6 fractional digits, more when the operands allow, rounded half
// away from zero.
func decimalArithType(op ArithOp, a, b *arrow.Decimal128Type) (*arrow.Decimal128Type, error) {
	p1, s1, p2, s2 := a.Precision, a.Scale, b.Precision, b.Scale
	var p, s int32
	switch op {
	case Add, Sub:
		s = max(s1, s2)
		p = max(p1-s1, p2-s2) + s + 1
	case Mul:
		s = s1 + s2
		if s > maxPrecision {
			return nil, errorf(ErrType, "the product of %s and %s needs scale %d, more than %d", a, b, s, maxPrecision)
		}
		p = p1 + p2
	case Div:
		intDigits := p1 - s1 + s2
		s = max(6, s1+p2+1)
		p = intDigits + s
		if p > maxPrecision {
			s = max(min(s, 6), maxPrecision-intDigits)
		}
	case Mod:
		s = max(s1, s2)
		p = max(min(p1-s1, p2-s2)+s, 1)
	}
	return decimalType(min(p, maxPrecision), min(s, maxPrecision)), nil
}

// digits is the number of decimal digits of |v| (1 for 0).
func digits(v int64) int32 {
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	d := int32(1)
	for u >= 10 {
		u /= 10
		d++
	}
	return d
}

// formatDecimal is n × 10^-scale as text: -12.30, 0.05, 7.
func formatDecimal(n num, scale int32) string {
	var s string
	neg := isNeg(n)
	if small(n) {
		v := int64(n.LowBits())
		u := uint64(v)
		if neg {
			u = -u
		}
		s = strconv.FormatUint(u, 10)
	} else {
		s = new(big.Int).Abs(n.BigInt()).String()
	}
	if scale > 0 {
		if len(s) <= int(scale) {
			s = strings.Repeat("0", int(scale)-len(s)+1) + s
		}
		s = s[:len(s)-int(scale)] + "." + s[len(s)-int(scale):]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// decimalToFloat is the float64 nearest to n × 10^-scale.
func decimalToFloat(n num, scale int32) float64 {
	if small(n) {
		v := int64(n.LowBits())
		if v > -1<<53 && v < 1<<53 && scale <= 22 {
			// both operands exact, so the quotient is correctly rounded
			return float64(v) / math.Pow10(int(scale))
		}
	}
	r := new(big.Rat).SetFrac(n.BigInt(), pow10[scale].BigInt())
	f, _ := r.Float64()
	return f
}

// floatToDecimal is f × 10^scale rounded half away from zero, computed
// exactly from f's binary value; ok is false for NaN, ±Inf and values that
// do not fit precision p.
func floatToDecimal(f float64, p, scale int32) (num, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return num{}, false
	}
	if math.Abs(f) >= math.Pow10(int(p-scale)) {
		return num{}, false
	}
	r := new(big.Rat).SetFloat64(f)
	r.Mul(r, new(big.Rat).SetInt(pow10[scale].BigInt()))
	n, ok := bigToNum(roundBig(r.Num(), r.Denom()))
	return n, ok && fits(n, p)
}

// parseDecimal reads s (optional sign, digits with an optional point,
// optional exponent) as a decimal(p, scale), rounding half away from zero.
func parseDecimal(s string, p, scale int32) (num, errCode, bool) {
	t := strings.TrimSpace(s)
	if t == "" || strings.ContainsFunc(t, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+' || r == 'e' || r == 'E')
	}) {
		return num{}, codeOK, false
	}
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		// bound the exponent before big.Rat expands 10^exp
		exp, err := strconv.Atoi(t[i+1:])
		if err != nil {
			return num{}, codeOK, false
		}
		if exp > 10000 || exp < -10000 {
			m, ok := new(big.Rat).SetString(t[:i])
			switch {
			case !ok:
				return num{}, codeOK, false
			case m.Sign() == 0 || exp < 0:
				return num{}, codeOK, true
			}
			return num{}, codeOverflow, true
		}
	}
	r, ok := new(big.Rat).SetString(t)
	if !ok {
		return num{}, codeOK, false
	}
	r.Mul(r, new(big.Rat).SetInt(pow10[scale].BigInt()))
	n, ok := bigToNum(roundBig(r.Num(), r.Denom()))
	if !ok || !fits(n, p) {
		return num{}, codeOverflow, true
	}
	return n, codeOK, true
}

// int64ToDecimal is v as a decimal of scale scale; ok is false when it does
// not fit precision p.
func int64ToDecimal(v int64, p, scale int32) (num, bool) {
	n, ok := mul128(decimal128.FromI64(v), pow10[scale])
	return n, ok && fits(n, p)
}

// decimalToInt64 rounds n × 10^-scale half away from zero to an int64.
func decimalToInt64(n num, scale int32) (int64, bool) {
	r, ok := rescale(n, -scale)
	if !ok || !small(r) {
		return 0, false
	}
	return int64(r.LowBits()), true
}
