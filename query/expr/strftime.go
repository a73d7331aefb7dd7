package expr

import (
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// strftime(t, format) writes a date or timestamp with DuckDB's (C's)
// specifiers: %Y %y %m %d %H %I %M %S (zero-padded; %-m, %-d, %-H, %-I,
// %-M, %-S, %-y, %-j without padding), %f (microseconds, 6 digits), %g
// (milliseconds, 3), %n (nanoseconds, 9), %j (day of the year), %a %A
// (weekday), %b %B (month name), %p (AM/PM), %w (Sunday 0), %u (Monday
// 1), %z and %Z (the zone: +00 and UTC for a TIMESTAMP WITH TIME ZONE,
// empty otherwise), %c, %x, %X and %%. The format must be a constant; an
// unknown specifier is an error naming it.

func init() {
	register("strftime", []signature{sig(buildStrftime, FamTemporal, FamString)})
}

var (
	dayNames   = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}
	monthNames = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
)

// fmtStep writes one piece of a format for a timestamp.
type fmtStep func(dst []byte, f *fields) []byte

// fields are the parts of one timestamp strftime writes.
type fields struct {
	y                  int64
	m, d               int
	day, us, tod       int64
	tz                 bool
	hour, minute, secs int64
}

func buildStrftime(name string, a []Expr) (Expr, error) {
	l, ok := a[1].(*literal)
	if !ok || l.null {
		return nil, errorf(ErrType, "%s: the format must be a string constant (got %s)", name, a[1])
	}
	steps, err := compileStrftime(l.s)
	if err != nil {
		return nil, errorf(ErrType, "%s: %v", name, err)
	}
	tz := isTZ(a[0].Type())
	k := &kernel{eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		t := temporalArg(ops[0])
		validity, nulls := opsValidity(mem, n, ops)
		var f fields // one for the batch: a pointer per row would escape
		return mapStringRows(x, mem, ops, n, validity, nulls, nil, func(i int, dst []byte) ([]byte, error) {
			us := t(i)
			f = fields{day: floorDiv(us, usPerDay), tz: tz}
			f.tod = us - f.day*usPerDay
			f.y, f.m, f.d = civil(f.day)
			f.hour, f.minute, f.secs, f.us = f.tod/usPerHour, f.tod/usPerMinute%60, f.tod/usPerSecond%60, f.tod%usPerSecond
			for _, s := range steps {
				dst = s(dst, &f)
			}
			return dst, nil
		})
	}}
	return newCall(name, typString, k, a...), nil
}

// compileStrftime turns a format into its steps.
func compileStrftime(format string) ([]fmtStep, error) {
	var steps []fmtStep
	lit := func(s string) fmtStep { return func(dst []byte, _ *fields) []byte { return append(dst, s...) } }
	num := func(get func(f *fields) int64, width int) fmtStep {
		return func(dst []byte, f *fields) []byte {
			v := get(f)
			if v < 0 {
				dst, v = append(dst, '-'), -v
			}
			for p := int64(10); width > 1 && p <= int64(math.Pow10(width-1)); p *= 10 {
				if v < p {
					dst = append(dst, '0')
				}
			}
			return strconv.AppendInt(dst, v, 10)
		}
	}
	hour12 := func(f *fields) int64 {
		if h := f.hour % 12; h != 0 {
			return h
		}
		return 12
	}
	specs := map[string]fmtStep{
		"Y": num(func(f *fields) int64 { return f.y }, 4),
		"y": num(func(f *fields) int64 { return floorMod(f.y, 100) }, 2), "-y": num(func(f *fields) int64 { return floorMod(f.y, 100) }, 1),
		"m": num(func(f *fields) int64 { return int64(f.m) }, 2), "-m": num(func(f *fields) int64 { return int64(f.m) }, 1),
		"d": num(func(f *fields) int64 { return int64(f.d) }, 2), "-d": num(func(f *fields) int64 { return int64(f.d) }, 1),
		"H": num(func(f *fields) int64 { return f.hour }, 2), "-H": num(func(f *fields) int64 { return f.hour }, 1),
		"I": num(hour12, 2), "-I": num(hour12, 1),
		"M": num(func(f *fields) int64 { return f.minute }, 2), "-M": num(func(f *fields) int64 { return f.minute }, 1),
		"S": num(func(f *fields) int64 { return f.secs }, 2), "-S": num(func(f *fields) int64 { return f.secs }, 1),
		"f":  num(func(f *fields) int64 { return f.us }, 6),
		"g":  num(func(f *fields) int64 { return f.us / 1000 }, 3),
		"n":  num(func(f *fields) int64 { return f.us * 1000 }, 9),
		"j":  num(func(f *fields) int64 { return f.day - daysFromCivil(f.y, 1, 1) + 1 }, 3),
		"-j": num(func(f *fields) int64 { return f.day - daysFromCivil(f.y, 1, 1) + 1 }, 1),
		"w":  num(func(f *fields) int64 { return isoDow(f.day) % 7 }, 1),
		"u":  num(func(f *fields) int64 { return isoDow(f.day) }, 1),
		"a":  func(dst []byte, f *fields) []byte { return append(dst, dayNames[isoDow(f.day)%7][:3]...) },
		"A":  func(dst []byte, f *fields) []byte { return append(dst, dayNames[isoDow(f.day)%7]...) },
		"b":  func(dst []byte, f *fields) []byte { return append(dst, monthNames[f.m-1][:3]...) },
		"B":  func(dst []byte, f *fields) []byte { return append(dst, monthNames[f.m-1]...) },
		"p": func(dst []byte, f *fields) []byte {
			if f.hour < 12 {
				return append(dst, "AM"...)
			}
			return append(dst, "PM"...)
		},
		"z": func(dst []byte, f *fields) []byte {
			if f.tz {
				return append(dst, "+00"...)
			}
			return dst
		},
		"Z": func(dst []byte, f *fields) []byte {
			if f.tz {
				return append(dst, "UTC"...)
			}
			return dst
		},
		"%": lit("%"),
	}
	composite := map[string]string{"c": "%Y-%m-%d %H:%M:%S", "x": "%Y-%m-%d", "X": "%H:%M:%S"}
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			steps = append(steps, lit(text.String()))
			text.Reset()
		}
	}
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			text.WriteByte(format[i])
			continue
		}
		spec := ""
		if i+1 < len(format) {
			spec = format[i+1 : i+2]
			if spec == "-" && i+2 < len(format) {
				spec = format[i+1 : i+3]
			}
		}
		if c, ok := composite[spec]; ok {
			sub, _ := compileStrftime(c)
			flush()
			steps = append(steps, sub...)
			i += len(spec)
			continue
		}
		step, ok := specs[spec]
		if !ok {
			return nil, errorf(ErrInvalid, "unknown format specifier %s in %s", quote("%"+spec), quote(format))
		}
		flush()
		steps = append(steps, step)
		i += len(spec)
	}
	flush()
	return steps, nil
}
