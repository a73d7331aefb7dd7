package expr

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Dates are Date32: days since 1970-01-01 in the proleptic Gregorian
// calendar, year 0 being 1 BC (ISO 8601, as DuckDB prints them).

// civil returns the year, month (1-12) and day (1-31) of days since
// 1970-01-01 (Howard Hinnant's days_from_civil inverse).
func civil(days int64) (y int64, m, d int) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365]
	mp := (5*doy + 2) / 153                                // [0, 11]
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

// daysFromCivil is the inverse of civil.
func daysFromCivil(y int64, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y int64, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// ParseDate reads 'YYYY-MM-DD' (a year of four or more digits, optionally
// negative; month and day of one or two digits) as days since 1970-01-01.
func ParseDate(s string) (int32, error) {
	bad := func() (int32, error) {
		return 0, errorf(ErrInvalidCast, "invalid date %s (want YYYY-MM-DD)", quote(s))
	}
	t := s
	neg := strings.HasPrefix(t, "-")
	if neg {
		t = t[1:]
	}
	parts := strings.Split(t, "-")
	if len(parts) != 3 || len(parts[0]) < 4 || len(parts[0]) > 9 ||
		len(parts[1]) < 1 || len(parts[1]) > 2 || len(parts[2]) < 1 || len(parts[2]) > 2 {
		return bad()
	}
	var f [3]int64
	for i, p := range parts {
		for _, c := range p {
			if c < '0' || c > '9' {
				return bad()
			}
		}
		f[i], _ = strconv.ParseInt(p, 10, 64)
	}
	y, m, d := f[0], int(f[1]), int(f[2])
	if neg {
		y = -y
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return bad()
	}
	days := daysFromCivil(y, m, d)
	if days < math.MinInt32 || days > math.MaxInt32 {
		return bad()
	}
	return int32(days), nil
}

// formatDate is days as YYYY-MM-DD (a sign before years below 0).
func formatDate(days int32) string {
	y, m, d := civil(int64(days))
	if y < 0 {
		return fmt.Sprintf("-%04d-%02d-%02d", -y, m, d)
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

// addInterval adds months then days to a date; the day of month is clamped
// to the end of the target month (2024-01-31 + 1 month = 2024-02-29).
func addInterval(days int32, months, ddays int32) (int32, bool) {
	out := int64(days)
	if months != 0 {
		y, m, d := civil(out)
		mi := y*12 + int64(m-1) + int64(months)
		y, m = floorDiv(mi, 12), int(mi-floorDiv(mi, 12)*12)+1
		d = min(d, daysIn(y, m))
		out = daysFromCivil(y, m, d)
	}
	out += int64(ddays)
	if out < math.MinInt32 || out > math.MaxInt32 {
		return 0, false
	}
	return int32(out), true
}

type intervalExpr struct {
	e            Expr
	months, days int32
	micros       int64
	typ          arrow.DataType
}

// AddInterval is the date or timestamp e plus months and days (negative
// values subtract); months are added first, clamping the day to the end
// of the month like Postgres and DuckDB ('2024-01-31' + 1 month =
// '2024-02-29'). A date stays a Date32 (DuckDB returns a timestamp); a
// result outside its type is ErrOverflow. A literal is computed at once.
func AddInterval(e Expr, months, days int32) (Expr, error) {
	return AddIntervalTime(e, months, days, 0)
}

// AddIntervalTime is AddInterval with micros microseconds added last (an
// INTERVAL of hours, minutes or seconds). A date with micros ≠ 0 becomes
// a TIMESTAMP, at its midnight.
func AddIntervalTime(e Expr, months, days int32, micros int64) (Expr, error) {
	if err := checkEngine("INTERVAL", e); err != nil {
		return nil, err
	}
	e = nullAs(e, typDate32)
	if e.Type().ID() == arrow.INTERVAL_MONTH_DAY_NANO { // interval + INTERVAL n unit
		ns, code := mulInt64(micros, nsPerMicro)
		if code != codeOK {
			return nil, errorf(ErrOverflow, "INTERVAL of %d microseconds is out of range", micros)
		}
		return Arith(Add, e, IntervalLiteral(months, days, ns))
	}
	if !temporal(e.Type()) {
		return nil, errorf(ErrType, "cannot add an interval to %s (%s)", e.Type(), e)
	}
	typ := e.Type()
	if typ.ID() == arrow.DATE32 && micros != 0 {
		typ = typTimestamp
		var err error
		if e, err = coerceTo(e, typ); err != nil {
			return nil, err
		}
	}
	return fold(&intervalExpr{e: e, months: months, days: days, micros: micros, typ: typ}), nil
}

func (x *intervalExpr) Type() arrow.DataType { return x.typ }
func (x *intervalExpr) children() []Expr     { return []Expr{x.e} }

func (x *intervalExpr) String() string { return text(x) }
func (x *intervalExpr) writeText(b *strings.Builder) {
	m, d, us, op := x.months, x.days, x.micros, "+"
	if m <= 0 && d <= 0 && us <= 0 && (m != 0 || d != 0 || us != 0) {
		m, d, us, op = -m, -d, -us, "-"
	}
	var parts []string
	if m != 0 {
		parts = append(parts, fmt.Sprintf("%d month", m)+plural(int64(m)))
	}
	if d != 0 || m == 0 && us == 0 {
		parts = append(parts, fmt.Sprintf("%d day", d)+plural(int64(d)))
	}
	if us != 0 {
		if us%usPerSecond == 0 {
			parts = append(parts, fmt.Sprintf("%d second", us/usPerSecond)+plural(us/usPerSecond))
		} else {
			parts = append(parts, fmt.Sprintf("%d microsecond", us)+plural(us))
		}
	}
	writeParen(b, x.e)
	b.WriteString(" " + op + " INTERVAL '" + strings.Join(parts, " ") + "'")
}

func plural(n int64) string {
	if n == 1 || n == -1 {
		return ""
	}
	return "s"
}

func (x *intervalExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	a, err := evalArray(ctx, mem, x.e, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	if a.DataType().ID() == arrow.NULL {
		return nullArray(mem, x.typ, a.Len()), nil
	}
	if x.typ.ID() == arrow.TIMESTAMP {
		return mapFixed(mem, x.typ, a, values[int64](a), func(v int64) (int64, error) {
			r, ok := addTimestampInterval(v, x.months, x.days, x.micros)
			if !ok {
				return 0, errorf(ErrOverflow, "timestamp out of range in %s", x)
			}
			return r, nil
		})
	}
	return mapFixed(mem, typDate32, a, values[int32](a), func(v int32) (int32, error) {
		r, ok := addInterval(v, x.months, x.days)
		if !ok {
			return 0, errorf(ErrOverflow, "date out of range in %s", x)
		}
		return r, nil
	})
}

// addTimestampInterval adds months (clamping the day), days, then micros
// to the timestamp us.
func addTimestampInterval(us int64, months, days int32, micros int64) (int64, bool) {
	day := floorDiv(us, usPerDay)
	tod := us - day*usPerDay
	if day < math.MinInt32 || day > math.MaxInt32 {
		return 0, false
	}
	d, ok := addInterval(int32(day), months, days)
	if !ok {
		return 0, false
	}
	r, ok := mulMicros(int64(d), usPerDay)
	if !ok {
		return 0, false
	}
	add := int64Kernel(Add)
	r2, code := add(r, tod)
	if code != codeOK {
		return 0, false
	}
	r3, code := add(r2, micros)
	return r3, code == codeOK
}

// dateArith is DuckDB's arithmetic on dates: DATE - DATE is the BIGINT
// days between them, DATE ± BIGINT (and BIGINT + DATE) the DATE that many
// days later or earlier (a date outside Date32 is ErrOverflow); ok is
// false for other operands.
func dateArith(op ArithOp, l, r Expr) (Expr, bool, error) {
	lt, rt := l.Type().ID(), r.Type().ID()
	switch {
	case op == Sub && lt == arrow.DATE32 && rt == arrow.DATE32:
		k := &kernel{eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
			a, b := dateArg(ops[0]), dateArg(ops[1])
			return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) { return int64(a.at(i)) - int64(b.at(i)), nil })
		}}
		x := &callExpr{name: "-", args: []Expr{l, r}, typ: typInt64, k: k, infix: true}
		return fold(x), true, nil
	case (op == Add || op == Sub) && lt == arrow.DATE32 && rt == arrow.INT64,
		op == Add && lt == arrow.INT64 && rt == arrow.DATE32:
		d, days := 0, 1
		if lt == arrow.INT64 {
			d, days = 1, 0
		}
		sign := int64(1)
		if op == Sub {
			sign = -1
		}
		k := &kernel{fails: true, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
			a, b := dateArg(ops[d]), intArg(ops[days])
			return mapFixedRows(x, mem, ops, n, func(i int) (int32, error) {
				v := int64(a.at(i)) + sign*b.at(i)
				if b.at(i) == math.MinInt64 || v < math.MinInt32 || v > math.MaxInt32 {
					return 0, x.errorf(ErrOverflow, "date out of range: %s %s %d days", formatDate(a.at(i)), op, b.at(i))
				}
				return int32(v), nil
			})
		}}
		x := &callExpr{name: op.String(), args: []Expr{l, r}, typ: typDate32, k: k, infix: true}
		return fold(x), true, nil
	}
	return nil, false, nil
}

func dateArg(o operand) side[int32] { return sideOf(o, func(l *literal) int32 { return int32(l.i) }) }
