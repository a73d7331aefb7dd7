package expr

import (
	"context"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DatePart is a field EXTRACT takes from a date. The values are DuckDB's
// (its date_part), which the query tests compare with.
type DatePart uint8

const (
	PartYear         DatePart = iota + 1
	PartQuarter               // 1-4
	PartMonth                 // 1-12
	PartDay                   // day of the month, 1-31
	PartDayOfWeek             // dow: Sunday 0 … Saturday 6
	PartISODayOfWeek          // isodow: Monday 1 … Sunday 7
	PartDayOfYear             // doy: 1-366
	PartWeek                  // ISO 8601 week, 1-53 (weeks start on Monday; week 1 holds the year's first Thursday)
	PartISOYear               // the year the ISO week belongs to
	PartYearWeek              // isoyear * 100 + week
	PartDecade                // year / 10, truncated
	PartCentury               // 21 for 2001-2100; year 0 and before count down from -1
	PartMillennium            // as century, by thousands
	PartEra                   // 1 for year 1 and after (AD), 0 before
	PartHour                  // 0-23
	PartMinute                // 0-59
	PartSecond                // 0-59
	PartMillisecond           // the second's milliseconds, seconds included: 0-59999
	PartMicrosecond           // the second's microseconds, seconds included: 0-59999999
	PartEpoch                 // seconds since 1970-01-01 00:00:00 (UTC), with the fraction: a DOUBLE
)

var partNames = [...]string{
	PartYear: "year", PartQuarter: "quarter", PartMonth: "month", PartDay: "day",
	PartDayOfWeek: "dow", PartISODayOfWeek: "isodow", PartDayOfYear: "doy", PartWeek: "week",
	PartISOYear: "isoyear", PartYearWeek: "yearweek", PartDecade: "decade", PartCentury: "century",
	PartMillennium: "millennium", PartEra: "era", PartHour: "hour", PartMinute: "minute", PartSecond: "second",
	PartMillisecond: "millisecond", PartMicrosecond: "microsecond", PartEpoch: "epoch",
}

// partAliases are the other names DuckDB's date_part takes for a field
// (its function names among them: dayofweek(d) is date_part('dow', d)).
var partAliases = map[string]DatePart{
	"years": PartYear, "quarters": PartQuarter, "months": PartMonth, "days": PartDay,
	"dayofmonth": PartDay, "dayofweek": PartDayOfWeek, "weekday": PartDayOfWeek,
	"dayofyear": PartDayOfYear, "weeks": PartWeek, "weekofyear": PartWeek,
	"decades": PartDecade, "centuries": PartCentury, "millennia": PartMillennium,
	"hours": PartHour, "h": PartHour, "minutes": PartMinute, "m": PartMinute, "seconds": PartSecond, "s": PartSecond,
	"milliseconds": PartMillisecond, "ms": PartMillisecond, "microseconds": PartMicrosecond, "us": PartMicrosecond,
}

// ofTime reports whether p is a field of a time of day (a TIME has it).
func (p DatePart) ofTime() bool {
	return p >= PartHour && p <= PartEpoch
}

func (p DatePart) String() string {
	if int(p) < len(partNames) && partNames[p] != "" {
		return partNames[p]
	}
	return "DatePart(" + strconv.Itoa(int(p)) + ")"
}

// ParseDatePart reads a field name, ignoring case: one of the names
// String gives, or an alias (years, dayofweek, weekofyear, …).
func ParseDatePart(s string) (DatePart, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	for p, name := range partNames {
		if name != "" && name == l {
			return DatePart(p), nil
		}
	}
	if p, ok := partAliases[l]; ok {
		return p, nil
	}
	return 0, errorf(ErrInvalid, "unknown date part %s (want one of %s)", quote(s), strings.Join(partNames[1:], ", "))
}

type extractExpr struct {
	part DatePart
	e    Expr
}

// Extract is EXTRACT(part FROM e) for a date or timestamp e: an Int64
// (a Float64 for PartEpoch), NULL when e is. A date's time fields are 0.
// It cannot fail.
func Extract(part DatePart, e Expr) (Expr, error) {
	if err := checkEngine("EXTRACT", e); err != nil {
		return nil, err
	}
	if part < PartYear || int(part) >= len(partNames) {
		return nil, errorf(ErrType, "EXTRACT: unknown date part %d", part)
	}
	e = nullAs(e, typDate32)
	if e.Type().ID() == arrow.TIME64 && !part.ofTime() {
		return nil, errorf(ErrType, "EXTRACT(%s FROM …): a TIME has no %s (%s)", strings.ToUpper(part.String()), part, e)
	}
	if e.Type().ID() == arrow.INTERVAL_MONTH_DAY_NANO {
		if _, ok := intervalPart(part); !ok && part != PartEpoch {
			return nil, errorf(ErrType, "EXTRACT(%s FROM …): an INTERVAL has no %s (%s)", strings.ToUpper(part.String()), part, e)
		}
		return fold(&extractExpr{part: part, e: e}), nil
	}
	if !temporal(e.Type()) && e.Type().ID() != arrow.TIME64 {
		return nil, errorf(ErrType, "EXTRACT(%s FROM …) needs a date or a timestamp, got %s (%s)", strings.ToUpper(part.String()), e.Type(), e)
	}
	return fold(&extractExpr{part: part, e: e}), nil
}

func (x *extractExpr) Type() arrow.DataType {
	if x.part == PartEpoch {
		return typFloat64
	}
	return typInt64
}
func (x *extractExpr) children() []Expr { return []Expr{x.e} }
func (x *extractExpr) String() string   { return text(x) }

// writeText writes EXTRACT for the fields the parser takes in it, and
// date_part for the others, so the text reads back as the same query.
func (x *extractExpr) writeText(b *strings.Builder) {
	switch x.part {
	case PartYear, PartQuarter, PartMonth, PartWeek, PartDay, PartHour, PartMinute, PartSecond, PartMicrosecond:
		b.WriteString("EXTRACT(" + strings.ToUpper(x.part.String()) + " FROM ")
	default:
		b.WriteString("date_part('" + x.part.String() + "', ")
	}
	writeExpr(b, x.e)
	b.WriteByte(')')
}

// Eval runs one loop per batch over every slot, NULL ones included (the
// calendar arithmetic cannot fail on any int32), and keeps the input's
// validity.
func (x *extractExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	a, err := evalArray(ctx, mem, x.e, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	n := a.Len()
	if a.DataType().ID() == arrow.NULL || a.NullN() == n {
		return nullArray(mem, x.Type(), n), nil
	}
	if a.DataType().ID() == arrow.INTERVAL_MONTH_DAY_NANO {
		return intervalParts(mem, x.part, a), nil
	}
	if x.part == PartEpoch {
		return epochs(mem, a), nil
	}
	if id := a.DataType().ID(); id == arrow.TIMESTAMP || id == arrow.TIME64 {
		return timestampParts(mem, x.part, a), nil // a TIME is a timestamp on 1970-01-01
	}
	validity, nulls := combineValidity(mem, n, a)
	buf, out := newValues[int64](mem, n)
	in := values[int32](a)
	switch x.part {
	case PartYear:
		years(in, out)
	default:
		f := partFunc(x.part)
		for i, d := range in {
			out[i] = f(int64(d))
		}
	}
	return makeArray(typInt64, n, validity, nulls, buf), nil
}

// years is the hot case (TPC-H Q7, Q8 and Q9 group by the year of a
// date): a table of year starts answers most rows (yearOf).
func years(in []int32, out []int64) {
	for i, d := range in {
		out[i] = yearOf(int64(d))
	}
}

// yearStarts[i] is the day of January 1 of year yearsFrom+i: the years
// where nearly every date falls.
const yearsFrom, yearsN = 1900, 256

var yearStarts = func() (t [yearsN + 1]int64) {
	for i := range t {
		t[i] = daysFromCivil(yearsFrom+int64(i), 1, 1)
	}
	return t
}()

// yearOf is civil's year of a day. Inside the table, the mean length of
// a year (146097 days in 400) puts the day within one year of its own,
// and the table's starts settle which; elsewhere civil answers.
func yearOf(d int64) int64 {
	i := (d - yearStarts[0]) * 400 / 146097
	if i < 1 || i >= yearsN-1 {
		y, _, _ := civil(d)
		return y
	}
	if d < yearStarts[i] {
		i--
	} else if d >= yearStarts[i+1] {
		i++
	}
	return yearsFrom + i
}

// partFunc returns the function computing part from days since
// 1970-01-01.
func partFunc(part DatePart) func(days int64) int64 {
	switch part {
	case PartYear:
		return yearOf
	case PartQuarter:
		return func(d int64) int64 { _, m, _ := civil(d); return int64(m-1)/3 + 1 }
	case PartMonth:
		return func(d int64) int64 { _, m, _ := civil(d); return int64(m) }
	case PartDay:
		return func(d int64) int64 { _, _, day := civil(d); return int64(day) }
	case PartDayOfWeek:
		return func(d int64) int64 { return isoDow(d) % 7 }
	case PartISODayOfWeek:
		return isoDow
	case PartDayOfYear:
		return func(d int64) int64 { y, _, _ := civil(d); return d - daysFromCivil(y, 1, 1) + 1 }
	case PartWeek:
		return func(d int64) int64 { _, w := isoWeek(d); return w }
	case PartISOYear:
		return func(d int64) int64 { y, _ := isoWeek(d); return y }
	case PartYearWeek:
		return func(d int64) int64 {
			y, w := isoWeek(d)
			if y < 0 {
				return y*100 - w // DuckDB: the week keeps the year's sign
			}
			return y*100 + w
		}
	case PartDecade:
		return func(d int64) int64 { y, _, _ := civil(d); return y / 10 }
	case PartCentury:
		return func(d int64) int64 { y, _, _ := civil(d); return countFrom(y, 100) }
	case PartMillennium:
		return func(d int64) int64 { y, _, _ := civil(d); return countFrom(y, 1000) }
	case PartEra:
		return func(d int64) int64 {
			if y, _, _ := civil(d); y > 0 {
				return 1
			}
			return 0
		}
	case PartHour, PartMinute, PartSecond, PartMillisecond, PartMicrosecond:
		return func(int64) int64 { return 0 } // a date is at midnight
	}
	panic("expr: unknown date part " + part.String())
}

// isoDow is the ISO day of the week, Monday 1 … Sunday 7 (1970-01-01 was
// a Thursday).
func isoDow(d int64) int64 { return floorMod(d+3, 7) + 1 }

// isoWeek returns the ISO 8601 year and week of a day: the week is the
// one of its Thursday, counted in that Thursday's year.
func isoWeek(d int64) (year, week int64) {
	th := d - isoDow(d) + 4
	y, _, _ := civil(th)
	return y, (th-daysFromCivil(y, 1, 1))/7 + 1
}

// countFrom numbers centuries (per = 100) or millennia (1000) as DuckDB
// does: 1 … 100 is the first, and there is no zeroth: year 0 and the 99
// before it are -1.
func countFrom(y, per int64) int64 {
	if y > 0 {
		return (y-1)/per + 1
	}
	return y/per - 1
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// timestampParts takes part of each timestamp: the date's fields from its
// day, the clock's from the microseconds into it.
func timestampParts(mem memory.Allocator, part DatePart, a arrow.Array) arrow.Array {
	n := a.Len()
	validity, nulls := combineValidity(mem, n, a)
	buf, out := newValues[int64](mem, n)
	in := values[int64](a)
	var f func(us int64) int64
	switch part {
	case PartHour:
		f = func(us int64) int64 { return floorMod(us, usPerDay) / usPerHour }
	case PartMinute:
		f = func(us int64) int64 { return floorMod(us, usPerHour) / usPerMinute }
	case PartSecond:
		f = func(us int64) int64 { return floorMod(us, usPerMinute) / usPerSecond }
	case PartMillisecond:
		f = func(us int64) int64 { return floorMod(us, usPerMinute) / 1000 }
	case PartMicrosecond:
		f = func(us int64) int64 { return floorMod(us, usPerMinute) }
	default:
		days := partFunc(part)
		f = func(us int64) int64 { return days(floorDiv(us, usPerDay)) }
	}
	for i, v := range in {
		out[i] = f(v)
	}
	return makeArray(typInt64, n, validity, nulls, buf)
}

// epochs is date_part('epoch', …): seconds since 1970-01-01 as a DOUBLE.
func epochs(mem memory.Allocator, a arrow.Array) arrow.Array {
	n := a.Len()
	validity, nulls := combineValidity(mem, n, a)
	buf, out := newValues[float64](mem, n)
	if a.DataType().ID() == arrow.DATE32 {
		for i, d := range values[int32](a) {
			out[i] = float64(int64(d) * 86400)
		}
	} else {
		for i, us := range values[int64](a) {
			s := floorDiv(us, usPerSecond)
			out[i] = float64(s) + float64(us-s*usPerSecond)/usPerSecond
		}
	}
	return makeArray(typFloat64, n, validity, nulls, buf)
}

// intervalParts takes part of each interval (intervalPart, intervalEpoch).
func intervalParts(mem memory.Allocator, part DatePart, a arrow.Array) arrow.Array {
	n := a.Len()
	validity, nulls := combineValidity(mem, n, a)
	in := values[interval](a)
	if part == PartEpoch {
		buf, out := newValues[float64](mem, n)
		for i, v := range in {
			out[i] = intervalEpoch(v)
		}
		return makeArray(typFloat64, n, validity, nulls, buf)
	}
	f, _ := intervalPart(part)
	buf, out := newValues[int64](mem, n)
	for i, v := range in {
		out[i] = f(v)
	}
	return makeArray(typInt64, n, validity, nulls, buf)
}
