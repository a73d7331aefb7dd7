package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// strptime(s, format) reads a timestamp with strftime's specifiers
// (strftime.go): %Y, %m, %d, %H, %M, %S and %I take one or more digits
// (%-d and the like are the same), %y two (00-68 are 2000-2068, 69-99
// 1969-1999), %f up to six fractional digits, %g up to three, %j the day
// of the year, %b/%B and %a/%A English names in any case (a weekday is
// read and ignored), %p AM or PM, %z Z or ±HH[:MM] (the result is then a
// TIMESTAMP WITH TIME ZONE, the time converted to UTC), %Z a zone name of
// letters (read and ignored), %% a percent sign; other characters match
// themselves. The format must be a constant. A string that does not match
// is an error naming it and the format; try_strptime gives NULL instead.

func init() {
	register("strptime", []signature{sig(buildStrptime(false), FamString, FamString)})
	register("try_strptime", []signature{sig(buildStrptime(true), FamString, FamString)})
}

// parsed are the fields strptime has read.
type parsed struct {
	y, mon, d, h, mi, s, us, doy, off int64
	pm, hasPM, hasDoy, hasOff         bool
}

// parseStep reads one piece of the input at s[i:], returning the next
// position or -1.
type parseStep func(s string, i int, p *parsed) int

func buildStrptime(try bool) func(string, []Expr) (Expr, error) {
	return func(name string, a []Expr) (Expr, error) {
		l, ok := a[1].(*literal)
		if !ok || l.null {
			return nil, errorf(ErrType, "%s: the format must be a string constant (got %s)", name, a[1])
		}
		steps, tz, err := compileStrptime(l.s)
		if err != nil {
			return nil, errorf(ErrType, "%s: %v", name, err)
		}
		typ := TimestampType(tz)
		format := l.s
		k := &kernel{fails: !try, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
			s := strArg(ops[0])
			if try {
				bad := newBits(mem, n) // rows that do not parse become NULL
				out, err := mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
					us, ok := runStrptime(steps, s.at(i))
					if !ok {
						bad.Bytes()[i>>3] |= 1 << (i & 7)
					}
					return us, nil
				})
				if err != nil {
					bad.Release()
					return nil, err
				}
				return maskRows(mem, out, bad), nil
			}
			return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
				us, ok := runStrptime(steps, s.at(i))
				if !ok {
					return 0, x.errorf(ErrInvalidCast, "could not parse %s with format %s", quote(s.at(i)), quote(format))
				}
				return us, nil
			})
		}}
		return newCall(name, typ, k, a...), nil
	}
}

// maskRows returns a with the rows set in mask made NULL (it takes both).
func maskRows(mem memory.Allocator, a arrow.Array, mask *memory.Buffer) arrow.Array {
	defer a.Release()
	defer mask.Release()
	n := a.Len()
	v := validityOf(a)
	bits := newBits(mem, n)
	nulls := 0
	for i := range n {
		if v.valid(i) && mask.Bytes()[i>>3]&(1<<(i&7)) == 0 {
			bits.Bytes()[i>>3] |= 1 << (i & 7)
		} else {
			nulls++
		}
	}
	buf := a.Data().Buffers()[1]
	buf.Retain()
	return makeArray(a.DataType(), n, bits, nulls, buf)
}

// runStrptime applies the steps to s.
func runStrptime(steps []parseStep, s string) (int64, bool) {
	p := parsed{y: 1970, mon: 1, d: 1}
	i := 0
	for _, st := range steps {
		if i = st(s, i, &p); i < 0 {
			return 0, false
		}
	}
	if i != len(s) {
		return 0, false
	}
	if p.hasPM {
		if p.h < 1 || p.h > 12 {
			return 0, false
		}
		p.h %= 12
		if p.pm {
			p.h += 12
		}
	}
	var day int64
	if p.hasDoy {
		if p.doy < 1 || p.doy > 366 || p.doy == 366 && !isLeap(p.y) {
			return 0, false
		}
		day = daysFromCivil(p.y, 1, 1) + p.doy - 1
	} else {
		days, ok := makeDays(p.y, p.mon, p.d)
		if !ok {
			return 0, false
		}
		day = int64(days)
	}
	if p.h > 23 || p.mi > 59 || p.s > 59 {
		return 0, false
	}
	us, ok := mulMicros(day, usPerDay)
	if !ok {
		return 0, false
	}
	return us + p.h*usPerHour + p.mi*usPerMinute + p.s*usPerSecond + p.us - p.off, true
}

// readDigits reads between lo and hi digits at s[i:].
func readDigits(s string, i, lo, hi int) (int64, int) {
	j, v := i, int64(0)
	for j < len(s) && j-i < hi && s[j] >= '0' && s[j] <= '9' {
		v = v*10 + int64(s[j]-'0')
		j++
	}
	if j-i < lo {
		return 0, -1
	}
	return v, j
}

// compileStrptime turns a format into its steps; tz reports %z.
func compileStrptime(format string) (steps []parseStep, tz bool, err error) {
	num := func(lo, hi int, set func(p *parsed, v int64)) parseStep {
		return func(s string, i int, p *parsed) int {
			v, j := readDigits(s, i, lo, hi)
			if j >= 0 {
				set(p, v)
			}
			return j
		}
	}
	frac := func(max int, scale int64) parseStep {
		return func(s string, i int, p *parsed) int {
			v, j := readDigits(s, i, 1, max)
			if j < 0 {
				return -1
			}
			for k := j - i; k < max; k++ {
				v *= 10
			}
			p.us = v * scale
			return j
		}
	}
	name := func(names []string, set func(p *parsed, k int)) parseStep {
		return func(s string, i int, p *parsed) int {
			for k, n := range names {
				for _, w := range []string{n, n[:3]} { // the full name first
					if len(s)-i >= len(w) && strings.EqualFold(s[i:i+len(w)], w) {
						set(p, k)
						return i + len(w)
					}
				}
			}
			return -1
		}
	}
	specs := map[byte]parseStep{
		'Y': num(1, 9, func(p *parsed, v int64) { p.y = v }),
		'y': num(2, 2, func(p *parsed, v int64) {
			if p.y = 2000 + v; v >= 69 {
				p.y = 1900 + v
			}
		}),
		'm': num(1, 2, func(p *parsed, v int64) { p.mon = v }),
		'd': num(1, 2, func(p *parsed, v int64) { p.d = v }),
		'H': num(1, 2, func(p *parsed, v int64) { p.h = v }),
		'I': num(1, 2, func(p *parsed, v int64) { p.h = v }),
		'M': num(1, 2, func(p *parsed, v int64) { p.mi = v }),
		'S': num(1, 2, func(p *parsed, v int64) { p.s = v }),
		'j': num(1, 3, func(p *parsed, v int64) { p.doy, p.hasDoy = v, true }),
		'f': frac(6, 1),
		'g': frac(3, 1000),
		'b': name(monthNames, func(p *parsed, k int) { p.mon = int64(k) + 1 }),
		'a': name(dayNames, func(*parsed, int) {}),
		'p': func(s string, i int, p *parsed) int {
			if len(s)-i < 2 {
				return -1
			}
			switch strings.ToUpper(s[i : i+2]) {
			case "AM":
				p.hasPM, p.pm = true, false
			case "PM":
				p.hasPM, p.pm = true, true
			default:
				return -1
			}
			return i + 2
		},
		'z': func(s string, i int, p *parsed) int {
			if i < len(s) && (s[i] == 'Z' || s[i] == 'z') {
				p.hasOff = true
				return i + 1
			}
			if i >= len(s) || s[i] != '+' && s[i] != '-' {
				return -1
			}
			h, j := readDigits(s, i+1, 2, 2)
			if j < 0 {
				return -1
			}
			var m int64
			if j < len(s) && s[j] == ':' {
				j++
			}
			if mm, k := readDigits(s, j, 2, 2); k >= 0 {
				m, j = mm, k
			}
			p.off, p.hasOff = h*usPerHour+m*usPerMinute, true
			if s[i] == '-' {
				p.off = -p.off
			}
			return j
		},
		'Z': func(s string, i int, p *parsed) int {
			j := i
			for j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] == '_' || s[j] == '/') {
				j++
			}
			if j == i {
				return -1
			}
			return j
		},
	}
	specs['B'], specs['A'] = specs['b'], specs['a']
	lit := func(c byte) parseStep {
		return func(s string, i int, p *parsed) int {
			if i < len(s) && s[i] == c {
				return i + 1
			}
			return -1
		}
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			steps = append(steps, lit(c))
			continue
		}
		i++
		if i < len(format) && format[i] == '-' {
			i++
		}
		if i >= len(format) {
			return nil, false, errorf(ErrInvalid, "format %s ends in %%", quote(format))
		}
		if format[i] == '%' {
			steps = append(steps, lit('%'))
			continue
		}
		st, ok := specs[format[i]]
		if !ok {
			return nil, false, errorf(ErrInvalid, "unknown format specifier %s in %s", quote("%"+format[i:i+1]), quote(format))
		}
		tz = tz || format[i] == 'z'
		steps = append(steps, st)
	}
	return steps, tz, nil
}
