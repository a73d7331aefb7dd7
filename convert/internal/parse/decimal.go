package parse

import (
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Decimal parses plain decimal notation ([sign] digits [. digits], with
// an optional exponent e[sign]digits) into the unscaled 128-bit value at
// scale, range-checked against precision. Digits past the scale must be
// zeros: a value is never rounded silently.
func Decimal(b []byte, precision, scale int32) (decimal128.Num, error) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	exp := 0
	for i, c := range b {
		if c == 'e' || c == 'E' {
			e, err := Int64(b[i+1:])
			if err != nil || e < -100 || e > 100 {
				return decimal128.Num{}, ErrSyntax
			}
			exp, b = int(e), b[:i]
			break
		}
	}
	intPart, fracPart := b, b[:0]
	for i, c := range b {
		if c == '.' {
			intPart, fracPart = b[:i], b[i+1:]
			break
		}
	}
	total := len(intPart) + len(fracPart)
	if total == 0 {
		return decimal128.Num{}, ErrSyntax
	}
	// value = digits × 10^(exp - len(frac)); unscaled = value × 10^scale.
	k := exp - len(fracPart) + int(scale)
	keep := total
	if k < 0 {
		keep = total + k // the last -k digits must be zeros
	}
	var hi, lo uint64
	nd := 0
	for i := range total {
		var c byte
		if i < len(intPart) {
			c = intPart[i]
		} else {
			c = fracPart[i-len(intPart)]
		}
		d := c - '0'
		if d > 9 {
			return decimal128.Num{}, ErrSyntax
		}
		if i >= keep {
			if d != 0 {
				return decimal128.Num{}, ErrRange
			}
			continue
		}
		if nd == 0 && d == 0 {
			continue
		}
		if nd++; nd > 38 {
			return decimal128.Num{}, ErrRange
		}
		hi, lo = mul10add(hi, lo, uint64(d))
	}
	for range max(k, 0) {
		if hi == 0 && lo == 0 {
			break
		}
		if nd++; nd > 38 {
			return decimal128.Num{}, ErrRange
		}
		hi, lo = mul10add(hi, lo, 0)
	}
	v := decimal128.New(int64(hi), lo)
	if !FitsPrecision(v, precision) {
		return decimal128.Num{}, ErrRange
	}
	if neg {
		v = v.Negate()
	}
	return v, nil
}

func mul10add(hi, lo, d uint64) (uint64, uint64) {
	h1, l := bits.Mul64(lo, 10)
	h := hi*10 + h1
	l, c := bits.Add64(l, d, 0)
	return h + c, l
}

// pow10 holds 10^0 … 10^38 as 128-bit values.
var pow10 = func() (p [39]decimal128.Num) {
	var hi, lo uint64 = 0, 1
	for i := range p {
		p[i] = decimal128.New(int64(hi), lo)
		hi, lo = mul10add(hi, lo, 0)
	}
	return
}()

// FitsPrecision reports whether |v| < 10^precision.
func FitsPrecision(v decimal128.Num, precision int32) bool {
	if precision >= 39 {
		return true
	}
	if precision < 1 {
		return false
	}
	if v.Sign() < 0 {
		v = v.Negate()
		if v.Sign() < 0 { // the most negative value
			return false
		}
	}
	return v.Less(pow10[precision])
}

// FitsPrecision64 is FitsPrecision for an unscaled int64.
func FitsPrecision64(v int64, precision int32) bool {
	if precision >= 19 {
		return true
	}
	if precision < 1 {
		return false
	}
	lim := int64(pow10[precision].LowBits())
	return v > -lim && v < lim
}

// DecimalBytes reads a big-endian two's-complement unscaled value (the
// layout of Java's BigInteger.toByteArray and Spark's binary decimals)
// of up to 16 bytes; longer inputs are accepted when the extra leading
// bytes are only sign extension.
func DecimalBytes(b []byte, precision int32) (decimal128.Num, error) {
	if len(b) == 0 {
		return decimal128.Num{}, ErrSyntax
	}
	var ext byte
	if b[0]&0x80 != 0 {
		ext = 0xff
	}
	for len(b) > 16 {
		if b[0] != ext {
			return decimal128.Num{}, ErrRange
		}
		b = b[1:]
	}
	if len(b) == 16 && (b[0]&0x80 != 0) != (ext == 0xff) {
		return decimal128.Num{}, ErrRange
	}
	var buf [16]byte
	for i := range buf {
		buf[i] = ext
	}
	copy(buf[16-len(b):], b)
	hi := uint64(0)
	lo := uint64(0)
	for i := range 8 {
		hi = hi<<8 | uint64(buf[i])
		lo = lo<<8 | uint64(buf[8+i])
	}
	v := decimal128.New(int64(hi), lo)
	if !FitsPrecision(v, precision) {
		return decimal128.Num{}, ErrRange
	}
	return v, nil
}
