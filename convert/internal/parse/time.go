package parse

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
)

// Date32 parses YYYY-MM-DD (a four-digit year) into days since the epoch.
func Date32(b []byte) (int32, error) {
	if len(b) != 10 || b[4] != '-' || b[7] != '-' {
		return 0, ErrSyntax
	}
	y, ok1 := num(b[0:4])
	m, ok2 := num(b[5:7])
	d, ok3 := num(b[8:10])
	if !ok1 || !ok2 || !ok3 {
		return 0, ErrSyntax
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, ErrRange
	}
	return int32(daysFromCivil(y, m, d)), nil
}

// num parses 1 to 9 ASCII digits.
func num(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		d := c - '0'
		if d > 9 {
			return 0, false
		}
		n = n*10 + int(d)
	}
	return n, len(b) > 0
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is Howard Hinnant's days_from_civil.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// Timestamp parses YYYY-MM-DD, optionally followed by 'T' or ' ' and
// HH:MM[:SS[.fraction]], optionally followed by 'Z' or ±HH[:MM]. It
// returns the instant in unit since the epoch (UTC when an offset is
// given; the wall clock as UTC otherwise) and whether an offset was
// given. Fraction digits finer than unit must be zeros.
func Timestamp(b []byte, unit arrow.TimeUnit) (v int64, zoned bool, err error) {
	if len(b) < 10 {
		return 0, false, ErrSyntax
	}
	days, err := Date32(b[:10])
	if err != nil {
		return 0, false, err
	}
	secs := int64(days) * 86400
	var nanos int64
	rest := b[10:]
	if len(rest) > 0 {
		if rest[0] != 'T' && rest[0] != ' ' || len(rest) < 6 || rest[3] != ':' {
			return 0, false, ErrSyntax
		}
		h, ok1 := num(rest[1:3])
		mi, ok2 := num(rest[4:6])
		if !ok1 || !ok2 || h > 23 || mi > 59 {
			return 0, false, ErrSyntax
		}
		secs += int64(h)*3600 + int64(mi)*60
		rest = rest[6:]
		if len(rest) >= 3 && rest[0] == ':' {
			s, ok := num(rest[1:3])
			if !ok || s > 59 {
				return 0, false, ErrSyntax
			}
			secs += int64(s)
			rest = rest[3:]
			if len(rest) > 1 && rest[0] == '.' {
				i := 1
				scale := int64(100_000_000)
				for ; i < len(rest) && rest[i] >= '0' && rest[i] <= '9'; i++ {
					if scale == 0 {
						if rest[i] != '0' {
							return 0, false, ErrRange
						}
						continue
					}
					nanos += int64(rest[i]-'0') * scale
					scale /= 10
				}
				if i == 1 {
					return 0, false, ErrSyntax
				}
				rest = rest[i:]
			}
		}
		switch {
		case len(rest) == 0:
		case len(rest) == 1 && rest[0] == 'Z':
			zoned = true
		case rest[0] == '+' || rest[0] == '-':
			off, ok := zoneOffset(rest[1:])
			if !ok {
				return 0, false, ErrSyntax
			}
			if rest[0] == '+' {
				off = -off
			}
			secs += off
			zoned = true
		default:
			return 0, false, ErrSyntax
		}
	}
	v, err = toUnit(secs, nanos, unit)
	return v, zoned, err
}

// zoneOffset parses HH, HHMM or HH:MM into seconds.
func zoneOffset(b []byte) (int64, bool) {
	var h, m int
	var ok1, ok2 bool
	switch len(b) {
	case 2:
		h, ok1 = num(b)
		ok2 = true
	case 4:
		h, ok1 = num(b[:2])
		m, ok2 = num(b[2:])
	case 5:
		if b[2] != ':' {
			return 0, false
		}
		h, ok1 = num(b[:2])
		m, ok2 = num(b[3:])
	}
	if !ok1 || !ok2 || h > 23 || m > 59 {
		return 0, false
	}
	return int64(h)*3600 + int64(m)*60, true
}

func toUnit(secs, nanos int64, unit arrow.TimeUnit) (int64, error) {
	var mul, div int64
	switch unit {
	case arrow.Second:
		mul, div = 1, 1_000_000_000
	case arrow.Millisecond:
		mul, div = 1000, 1_000_000
	case arrow.Microsecond:
		mul, div = 1_000_000, 1000
	default:
		mul, div = 1_000_000_000, 1
	}
	if nanos%div != 0 {
		return 0, ErrRange // finer than the unit
	}
	if secs > math.MaxInt64/mul || secs < math.MinInt64/mul {
		return 0, ErrRange
	}
	v := secs * mul
	add := nanos / div
	if v > 0 && add > math.MaxInt64-v {
		return 0, ErrRange
	}
	return v + add, nil
}

// FractionDigits is how many fraction-of-second digits a timestamp text
// carries (0 when none): inference picks the unit from it.
func FractionDigits(b []byte) int {
	for i, c := range b {
		if c == '.' && i > 10 {
			n := 0
			for _, d := range b[i+1:] {
				if d < '0' || d > '9' {
					break
				}
				n++
			}
			return n
		}
	}
	return 0
}
