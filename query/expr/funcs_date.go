package expr

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Date and time functions, DuckDB's (the session zone is UTC: see
// timestamp.go):
//
//   - date_trunc('part', t): t cut down to the start of its part (year,
//     quarter, month, week (Monday), day, hour, minute, second,
//     millisecond, microsecond, decade, century, millennium); a TIMESTAMP
//     (a date becomes one, as in DuckDB), with a zone when t has one.
//   - date_diff('part', a, b) (datediff): how many part boundaries lie
//     between a and b — the difference of the two values cut down to the
//     part (year, quarter, month, day, hour, …), weeks as whole 7-day
//     spans of days, decades, centuries and millennia as year/10, /100,
//     /1000. A BIGINT.
//   - make_date(y, m, d), make_timestamp(y, mo, d, h, mi, s) (s a DOUBLE
//     with the fraction) and make_timestamp(microseconds): an invalid date
//     or time is an error naming it.
//   - to_timestamp(seconds): a TIMESTAMP WITH TIME ZONE.
//   - strftime(t, format): see strftime.go.
//
// NULL in gives NULL out.

func init() {
	register("date_trunc", []signature{sig(buildDateTrunc, FamString, FamTemporal)}, "datetrunc")
	register("date_diff", []signature{sig(buildDateDiff, FamString, FamTemporal, FamTemporal)}, "datediff")
	register("make_date", []signature{sig(func(name string, a []Expr) (Expr, error) {
		return newCall(name, typDate32, &kernel{eval: evalMakeDate, fails: true}, a...), nil
	}, FamInt, FamInt, FamInt)})
	register("make_timestamp", []signature{
		sig(func(name string, a []Expr) (Expr, error) {
			return newCall(name, typTimestamp, &kernel{eval: evalMakeTimestamp, fails: true}, a...), nil
		}, FamInt, FamInt, FamInt, FamInt, FamInt, FamDouble),
		sig(func(name string, a []Expr) (Expr, error) {
			return newCall(name, typTimestamp, &kernel{eval: evalMicros}, a...), nil
		}, FamInt),
	})
	register("to_timestamp", []signature{sig(func(name string, a []Expr) (Expr, error) {
		return newCall(name, typTimestampTZ, &kernel{eval: evalToTimestamp, fails: true}, a...), nil
	}, FamDouble)})
}

// constPart reads the part argument of name, which must be a string
// constant.
func constPart(name string, e Expr) (string, error) {
	l, ok := e.(*literal)
	if !ok || l.null {
		return "", errorf(ErrType, "%s: the part must be a string constant, such as 'month' (got %s)", name, e)
	}
	return strings.ToLower(strings.TrimSpace(l.s)), nil
}

// truncParts are date_trunc's and date_diff's parts (and their plurals).
var truncParts = map[string]DatePart{
	"year": PartYear, "quarter": PartQuarter, "month": PartMonth, "week": PartWeek, "day": PartDay,
	"hour": PartHour, "minute": PartMinute, "second": PartSecond, "millisecond": PartMillisecond,
	"microsecond": PartMicrosecond, "decade": PartDecade, "century": PartCentury, "millennium": PartMillennium,
}

func parseTruncPart(name, s string) (DatePart, error) {
	if p, ok := truncParts[s]; ok {
		return p, nil
	}
	if p, ok := truncParts[strings.TrimSuffix(s, "s")]; ok {
		return p, nil
	}
	if s == "millennia" {
		return PartMillennium, nil
	}
	if s == "centuries" {
		return PartCentury, nil
	}
	return 0, errorf(ErrType, "%s: unknown part %s (want year, quarter, month, week, day, hour, minute, second, millisecond, microsecond, decade, century or millennium)", name, quote(s))
}

// micros is the timestamp (microseconds) of row i of a date or timestamp
// operand.
func temporalArg(o operand) func(i int) int64 {
	if typeOf(o).ID() == arrow.DATE32 {
		d := sideOf(o, func(l *literal) int32 { return int32(l.i) })
		return func(i int) int64 { return int64(d.at(i)) * usPerDay }
	}
	t := intArg(o)
	return t.at
}

func buildDateTrunc(name string, a []Expr) (Expr, error) {
	s, err := constPart(name, a[0])
	if err != nil {
		return nil, err
	}
	part, err := parseTruncPart(name, s)
	if err != nil {
		return nil, err
	}
	typ := typTimestamp
	if isTZ(a[1].Type()) {
		typ = typTimestampTZ
	}
	k := &kernel{eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		t := temporalArg(ops[1])
		return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) { return truncMicros(t(i), part), nil })
	}}
	return newCall(name, typ, k, a...), nil
}

// truncMicros cuts the timestamp us down to the start of its part.
func truncMicros(us int64, part DatePart) int64 {
	unit := int64(0)
	switch part {
	case PartMicrosecond:
		return us
	case PartMillisecond:
		unit = 1000
	case PartSecond:
		unit = usPerSecond
	case PartMinute:
		unit = usPerMinute
	case PartHour:
		unit = usPerHour
	case PartDay:
		unit = usPerDay
	}
	if unit != 0 {
		return floorDiv(us, unit) * unit
	}
	day := floorDiv(us, usPerDay)
	if part == PartWeek {
		return (day - isoDow(day) + 1) * usPerDay
	}
	every := int32(0) // months in the unit, for the table (date_months.go)
	switch part {
	case PartMonth:
		every = 1
	case PartQuarter:
		every = 3
	case PartYear:
		every = 12
	}
	if every != 0 {
		if d, ok := truncDayToMonths(day, every); ok {
			return d * usPerDay
		}
	}
	y, m, _ := civil(day)
	switch part {
	case PartYear:
		m = 1
	case PartQuarter:
		m = (m-1)/3*3 + 1
	case PartDecade:
		y, m = floorDiv(y, 10)*10, 1
	case PartCentury:
		y, m = floorDiv(y, 100)*100, 1
	case PartMillennium:
		y, m = floorDiv(y, 1000)*1000, 1
	}
	return daysFromCivil(y, m, 1) * usPerDay
}

func buildDateDiff(name string, a []Expr) (Expr, error) {
	s, err := constPart(name, a[0])
	if err != nil {
		return nil, err
	}
	part, err := parseTruncPart(name, s)
	if err != nil {
		return nil, err
	}
	k := &kernel{eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		from, to := temporalArg(ops[1]), temporalArg(ops[2])
		return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) { return diffMicros(from(i), to(i), part), nil })
	}}
	return newCall(name, typInt64, k, a...), nil
}

// diffMicros is date_diff(part, a, b) over timestamps.
func diffMicros(a, b int64, part DatePart) int64 {
	unit := int64(0)
	switch part {
	case PartMicrosecond:
		return b - a
	case PartMillisecond:
		unit = 1000
	case PartSecond:
		unit = usPerSecond
	case PartMinute:
		unit = usPerMinute
	case PartHour:
		unit = usPerHour
	case PartDay:
		unit = usPerDay
	}
	if unit != 0 {
		return floorDiv(b, unit) - floorDiv(a, unit)
	}
	da, db := floorDiv(a, usPerDay), floorDiv(b, usPerDay)
	if part == PartWeek {
		return (db - da) / 7
	}
	ya, ma, _ := civil(da)
	yb, mb, _ := civil(db)
	switch part {
	case PartYear:
		return yb - ya
	case PartQuarter:
		return floorDiv(yb*12+int64(mb)-1, 3) - floorDiv(ya*12+int64(ma)-1, 3)
	case PartMonth:
		return yb*12 + int64(mb) - ya*12 - int64(ma)
	case PartDecade:
		return yb/10 - ya/10
	case PartCentury:
		return yb/100 - ya/100
	}
	return yb/1000 - ya/1000 // millennium
}

func evalMakeDate(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	y, m, d := intArg(ops[0]), intArg(ops[1]), intArg(ops[2])
	return mapFixedRows(x, mem, ops, n, func(i int) (int32, error) {
		days, ok := makeDays(y.at(i), m.at(i), d.at(i))
		if !ok {
			return 0, x.errorf(ErrInvalid, "date out of range: %d-%d-%d", y.at(i), m.at(i), d.at(i))
		}
		return days, nil
	})
}

// makeDays is the day of y-m-d, when that is a date of Date32.
func makeDays(y, m, d int64) (int32, bool) {
	if m < 1 || m > 12 || d < 1 || y < -5877641 || y > 5881580 || d > int64(daysIn(y, int(m))) {
		return 0, false
	}
	days := daysFromCivil(y, int(m), int(d))
	if days < math.MinInt32 || days > math.MaxInt32 {
		return 0, false
	}
	return int32(days), true
}

func evalMakeTimestamp(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	y, mo, d, h, mi := intArg(ops[0]), intArg(ops[1]), intArg(ops[2]), intArg(ops[3]), intArg(ops[4])
	s := floatArg(ops[5])
	return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
		days, ok := makeDays(y.at(i), mo.at(i), d.at(i))
		if !ok {
			return 0, x.errorf(ErrInvalid, "date out of range: %d-%d-%d", y.at(i), mo.at(i), d.at(i))
		}
		sec := s.at(i)
		hh, mm := h.at(i), mi.at(i)
		if hh < 0 || hh > 24 || mm < 0 || mm > 59 || !(sec >= 0 && sec < 60) || hh == 24 && (mm != 0 || sec != 0) {
			return 0, x.errorf(ErrInvalid, "time out of range: %d:%d:%s", hh, mm, formatFloat(sec))
		}
		us := int64(math.Round(sec * usPerSecond))
		r, ok := mulMicros(int64(days), usPerDay)
		if !ok {
			return 0, x.errorf(ErrOverflow, "timestamp out of range: %d-%d-%d", y.at(i), mo.at(i), d.at(i))
		}
		return r + hh*usPerHour + mm*usPerMinute + us, nil
	})
}

// evalMicros is make_timestamp(microseconds). The two ends of int64 are
// DuckDB's ±infinity, which quiver does not have: out of range.
func evalMicros(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	v := intArg(ops[0])
	return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
		if us := v.at(i); us == math.MaxInt64 || us <= math.MinInt64+1 {
			return 0, x.errorf(ErrOverflow, "timestamp microseconds out of range: %d", us)
		}
		return v.at(i), nil
	})
}

func evalToTimestamp(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	v := floatArg(ops[0])
	return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
		us := math.Round(v.at(i) * usPerSecond)
		if !(us >= math.MinInt64 && us < math.MaxInt64) {
			return 0, x.errorf(ErrOverflow, "%s seconds is out of range for a timestamp", formatFloat(v.at(i)))
		}
		return int64(us), nil
	})
}

// NowLiteral is now() and current_timestamp for a query that started at
// us microseconds since the epoch: a TIMESTAMP WITH TIME ZONE constant,
// so every call in one query gives the same instant.
func NowLiteral(us int64) Expr { return TimestampLiteral(us, true) }
