// Package parse turns text fields into Arrow values without allocating:
// integers, floats, decimals, booleans, dates and timestamps, each from a
// []byte that may be any bytes at all (CSV fields, database text). Every
// function reports failure rather than guessing; callers name the line
// and column.
package parse

import (
	"errors"
	"math"
	"math/bits"
	"strconv"

	"github.com/quiverdb/quiver/internal/rawmem"
)

// Errors returned by the parsers; callers wrap them with the position.
var (
	ErrSyntax = errors.New("invalid syntax")
	ErrRange  = errors.New("out of range")
)

// Int64 parses an optionally signed decimal integer.
func Int64(b []byte) (int64, error) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	u, err := digits(b)
	if err != nil {
		return 0, err
	}
	if neg {
		if u > 1<<63 {
			return 0, ErrRange
		}
		return -int64(u), nil
	}
	if u > math.MaxInt64 {
		return 0, ErrRange
	}
	return int64(u), nil
}

// Uint64 parses an unsigned decimal integer (a leading '+' allowed).
func Uint64(b []byte) (uint64, error) {
	if len(b) > 0 && b[0] == '+' {
		b = b[1:]
	}
	return digits(b)
}

// digits parses one or more ASCII digits.
func digits(b []byte) (uint64, error) {
	if len(b) == 0 {
		return 0, ErrSyntax
	}
	var u uint64
	if len(b) <= 19 { // cannot overflow
		for _, c := range b {
			d := c - '0'
			if d > 9 {
				return 0, ErrSyntax
			}
			u = u*10 + uint64(d)
		}
		return u, nil
	}
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, ErrSyntax
		}
		hi, lo := bits.Mul64(u, 10)
		lo, carry := bits.Add64(lo, uint64(d), 0)
		if hi != 0 || carry != 0 {
			return 0, ErrRange
		}
		u = lo
	}
	return u, nil
}

// Int parses an integer of bitSize bits (8, 16, 32 or 64).
func Int(b []byte, bitSize int) (int64, error) {
	v, err := Int64(b)
	if err != nil {
		return 0, err
	}
	if bitSize < 64 {
		lim := int64(1) << (bitSize - 1)
		if v < -lim || v >= lim {
			return 0, ErrRange
		}
	}
	return v, nil
}

// Uint parses an unsigned integer of bitSize bits.
func Uint(b []byte, bitSize int) (uint64, error) {
	v, err := Uint64(b)
	if err != nil {
		return 0, err
	}
	if bitSize < 64 && v >= 1<<bitSize {
		return 0, ErrRange
	}
	return v, nil
}

var pow10f = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Float64 parses a float as strconv.ParseFloat does. Plain decimal
// notation with at most 15 significant digits and a small exponent takes
// a fast path that is exact (both the mantissa and the power of ten are
// exactly representable, so one IEEE division or product rounds
// correctly); everything else goes to strconv.
func Float64(b []byte) (float64, error) {
	if v, ok := fastFloat(b); ok {
		return v, nil
	}
	return slowFloat(b, 64)
}

// Float32 parses a float32.
func Float32(b []byte) (float32, error) {
	v, err := slowFloat(b, 32)
	return float32(v), err
}

func slowFloat(b []byte, bitSize int) (float64, error) {
	// strconv does not keep its argument (its errors clone it), so the
	// string conversion need not copy (it does in the purego build).
	v, err := strconv.ParseFloat(rawmem.String(b), bitSize)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, ErrRange
		}
		return 0, ErrSyntax
	}
	return v, nil
}

func fastFloat(b []byte) (float64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, i = b[0] == '-', 1
	}
	var mant uint64
	nd, exp := 0, 0
	sawDigit, sawDot := false, false
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			sawDigit = true
			if nd == 0 && c == '0' {
				if sawDot {
					exp--
				}
				continue
			}
			if nd >= 15 {
				return 0, false
			}
			mant = mant*10 + uint64(c-'0')
			nd++
			if sawDot {
				exp--
			}
		case c == '.' && !sawDot:
			sawDot = true
		case c == 'e' || c == 'E':
			if !sawDigit {
				return 0, false
			}
			e, err := Int64(b[i+1:])
			if err != nil || e < -400 || e > 400 {
				return 0, false
			}
			exp += int(e)
			i = len(b)
		default:
			return 0, false
		}
	}
	if !sawDigit {
		return 0, false
	}
	f := float64(mant)
	switch {
	case mant == 0:
	case exp == 0:
	case exp > 0 && exp <= 22:
		f *= pow10f[exp]
	case exp < 0 && exp >= -22:
		f /= pow10f[-exp]
	default:
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// Bool parses the spellings strconv.ParseBool accepts, and also yes/no
// and any case of true/false.
func Bool(b []byte) (bool, error) {
	switch len(b) {
	case 1:
		switch b[0] {
		case '1', 't', 'T', 'y', 'Y':
			return true, nil
		case '0', 'f', 'F', 'n', 'N':
			return false, nil
		}
	case 2:
		if lower(b[0]) == 'n' && lower(b[1]) == 'o' {
			return false, nil
		}
	case 3:
		if lower(b[0]) == 'y' && lower(b[1]) == 'e' && lower(b[2]) == 's' {
			return true, nil
		}
	case 4:
		if lower(b[0]) == 't' && lower(b[1]) == 'r' && lower(b[2]) == 'u' && lower(b[3]) == 'e' {
			return true, nil
		}
	case 5:
		if lower(b[0]) == 'f' && lower(b[1]) == 'a' && lower(b[2]) == 'l' && lower(b[3]) == 's' && lower(b[4]) == 'e' {
			return false, nil
		}
	}
	return false, ErrSyntax
}

// IsBoolWord reports whether b is true/false/t/f in any case: the words
// schema inference takes as booleans (0 and 1 stay integers).
func IsBoolWord(b []byte) bool {
	switch len(b) {
	case 1:
		c := lower(b[0])
		return c == 't' || c == 'f'
	case 4, 5:
		_, err := Bool(b)
		return err == nil
	}
	return false
}

func lower(c byte) byte { return c | 0x20 }
