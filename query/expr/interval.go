package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// INTERVAL is Arrow's month_day_nano interval: months, days and
// nanoseconds, each with its own sign, as DuckDB's and PostgreSQL's
// INTERVAL keep months, days and microseconds. The three parts stay apart
// because they are not of fixed length: a month has 28 to 31 days and a
// day 23 to 25 hours across a DST change, so '1 month' added to a date
// moves its month, not 30 days.
//
// Intervals compare as DuckDB compares them: normalized, a month as 30
// days and a day as 24 hours ('1 day' = '24 hours', '30 days' = '1
// month'); normalizedInterval carries nanoseconds past a day into days
// and days past 30 into months, truncating toward zero, and the parts
// then compare in order. GROUP BY groups equal intervals the same
// way (package agg stores an interval key normalized, so '24 hours' comes
// back as '1 day'). Durations, month and day_time intervals convert to
// it when an expression reads them.

var typInterval = arrow.FixedWidthTypes.MonthDayNanoInterval

type interval = arrow.MonthDayNanoInterval

// IntervalType is the engine type INTERVAL.
func IntervalType() arrow.DataType { return typInterval }

const (
	nsPerMicro = 1000
	nsPerDay   = usPerDay * nsPerMicro
	nsPerMonth = 30 * nsPerDay
)

// IntervalLiteral is the interval of months, days and nanoseconds.
func IntervalLiteral(months, days int32, nanos int64) Expr {
	return newLiteral(literal{typ: typInterval, iv: interval{Months: months, Days: days, Nanoseconds: nanos}})
}

// normalizedInterval carries whole days of the nanoseconds into the days
// and whole 30 days into the months, each truncated toward zero, as
// DuckDB 1.4 compares ('29 days 719 hours' is 1 month 28 days 23 hours,
// more than '1 month 1 second'); the days are then within ±29 and the
// nanoseconds within a day.
func normalizedInterval(v interval) (months, days, nanos int64) {
	ns := v.Nanoseconds
	d := int64(v.Days) + ns/nsPerDay
	ns -= ns / nsPerDay * nsPerDay
	return int64(v.Months) + d/30, d % 30, ns
}

// compareIntervals is -1, 0 or 1 as a is less than, equal to or greater
// than b, normalized.
func compareIntervals(a, b interval) int {
	am, ad, an := normalizedInterval(a)
	bm, bd, bn := normalizedInterval(b)
	switch {
	case am != bm:
		return cmp3(am, bm)
	case ad != bd:
		return cmp3(ad, bd)
	}
	return cmp3(an, bn)
}

func cmp3(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// NormalizeInterval is v with its parts normalized (normalizedInterval),
// the form two equal intervals share; ok is false when the months no
// longer fit 32 bits (no interval Arrow holds gets there: its days and
// nanoseconds carry at most 2^31/30 + 3,558 months).
func NormalizeInterval(v interval) (interval, bool) {
	m, d, ns := normalizedInterval(v)
	if m < math.MinInt32 || m > math.MaxInt32 {
		return v, false
	}
	return interval{Months: int32(m), Days: int32(d), Nanoseconds: ns}, true
}

// intervalKey is one 128-bit number ordered as the intervals are: the
// normalized parts weighed so that each outweighs every value of the
// parts after it (|days| < 30 and |nanos| < one day once normalized).
func intervalKey(v interval) decimal128.Num {
	m, d, ns := normalizedInterval(v)
	k := decimal128.FromI64(m).Mul(decimal128.FromI64(monthWeight))
	k = k.Add(decimal128.FromI64(d).Mul(decimal128.FromI64(dayWeight)))
	return k.Add(decimal128.FromI64(ns))
}

const (
	dayWeight   = 2 * nsPerDay   // > the span of normalized nanoseconds
	monthWeight = 60 * dayWeight // > the span of normalized days times dayWeight
)

// IntervalSortKey is e (an INTERVAL) as a DECIMAL(38,0) ordered as the
// intervals are (intervalKey), for sorts: ORDER BY an interval sorts by
// it, and min and max are arg_min and arg_max by it.
func IntervalSortKey(e Expr) (Expr, error) {
	if e.Type().ID() != arrow.INTERVAL_MONTH_DAY_NANO {
		return nil, errorf(ErrType, "interval sort key of %s (%s)", e.Type(), e)
	}
	k := &kernel{eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		a := ivArg(ops[0])
		return mapFixedRows(x, mem, ops, n, func(i int) (decimal128.Num, error) { return intervalKey(a.at(i)), nil })
	}}
	return newCall("interval_sort_key", decimalType(38, 0), k, e), nil
}

// NormalizedIntervals is e (an INTERVAL) normalized (NormalizeInterval),
// so that equal intervals are equal values: what GROUP BY groups on.
func NormalizedIntervals(e Expr) (Expr, error) {
	if e.Type().ID() != arrow.INTERVAL_MONTH_DAY_NANO {
		return nil, errorf(ErrType, "normalized intervals of %s (%s)", e.Type(), e)
	}
	k := &kernel{fails: true, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		a := ivArg(ops[0])
		return mapFixedRows(x, mem, ops, n, func(i int) (interval, error) {
			v, ok := NormalizeInterval(a.at(i))
			if !ok {
				return v, x.errorf(ErrOverflow, "interval %s out of range once normalized", formatInterval(a.at(i)))
			}
			return v, nil
		})
	}}
	return newCall("normalize_interval", typInterval, k, e), nil
}

func ivArg(o operand) side[interval] { return sideOf(o, func(l *literal) interval { return l.iv }) }

// negateInterval is -v, each part negated; a part at its minimum is
// ErrOverflow.
func negateInterval(v interval) (interval, error) {
	if v.Months == math.MinInt32 || v.Days == math.MinInt32 || v.Nanoseconds == math.MinInt64 {
		return v, errorf(ErrOverflow, "interval %s cannot be negated", formatInterval(v))
	}
	return interval{Months: -v.Months, Days: -v.Days, Nanoseconds: -v.Nanoseconds}, nil
}

// addIntervals is a + sign·b part by part, false on overflow.
func addIntervals(a, b interval, sign int64) (interval, bool) {
	m := int64(a.Months) + sign*int64(b.Months)
	d := int64(a.Days) + sign*int64(b.Days)
	bn := b.Nanoseconds
	if sign < 0 {
		if bn == math.MinInt64 {
			return a, false
		}
		bn = -bn
	}
	ns, code := int64Kernel(Add)(a.Nanoseconds, bn)
	if code != codeOK || m < math.MinInt32 || m > math.MaxInt32 || d < math.MinInt32 || d > math.MaxInt32 {
		return a, false
	}
	return interval{Months: int32(m), Days: int32(d), Nanoseconds: ns}, true
}

// scaleInterval is v × k part by part, false on overflow.
func scaleInterval(v interval, k int64) (interval, bool) {
	m, c1 := mulInt64(int64(v.Months), k)
	d, c2 := mulInt64(int64(v.Days), k)
	ns, c3 := mulInt64(v.Nanoseconds, k)
	if c1 != codeOK || c2 != codeOK || c3 != codeOK || m < math.MinInt32 || m > math.MaxInt32 || d < math.MinInt32 || d > math.MaxInt32 {
		return v, false
	}
	return interval{Months: int32(m), Days: int32(d), Nanoseconds: ns}, true
}

// addToTimestamp is the timestamp us (microseconds) plus v: months
// (clamping the day), days, then the time, as DuckDB adds them.
func addToTimestamp(us int64, v interval) (int64, bool) {
	return addTimestampInterval(us, v.Months, v.Days, floorDiv(v.Nanoseconds, nsPerMicro))
}

// timestampDiff is a - b as DuckDB subtracts timestamps: whole days and
// the rest in microseconds, both with the difference's sign.
func timestampDiff(a, b int64) (interval, bool) {
	diff, code := int64Kernel(Sub)(a, b)
	if code != codeOK {
		return interval{}, false
	}
	days := diff / usPerDay
	return interval{Days: int32(days), Nanoseconds: (diff - days*usPerDay) * nsPerMicro}, true
}

// intervalToEngine converts a duration, month or day_time interval
// column to INTERVAL.
func intervalToEngine(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	switch x := a.(type) {
	case *array.MonthInterval:
		return mapFixed(mem, typInterval, a, x.MonthIntervalValues(), func(v arrow.MonthInterval) (interval, error) {
			return interval{Months: int32(v)}, nil
		})
	case *array.DayTimeInterval:
		return mapFixed(mem, typInterval, a, x.DayTimeIntervalValues(), func(v arrow.DayTimeInterval) (interval, error) {
			return interval{Days: v.Days, Nanoseconds: int64(v.Milliseconds) * 1_000_000}, nil
		})
	case *array.Duration:
		k := int64(x.DataType().(*arrow.DurationType).Unit.Multiplier())
		return mapFixed(mem, typInterval, a, x.DurationValues(), func(v arrow.Duration) (interval, error) {
			ns, code := mulInt64(int64(v), k)
			if code != codeOK {
				return interval{}, errorf(ErrOverflow, "%s value %d out of range for INTERVAL (nanoseconds)", x.DataType(), v)
			}
			return interval{Nanoseconds: ns}, nil
		})
	}
	return nil, errorf(ErrType, "column type %s is not an interval", a.DataType())
}

// intervalFromEngine converts INTERVAL back to the stored interval type
// dt. GROUP BY hands back normalized keys (a duration of 31 days comes
// back as 1 month 1 day), so a month counts 30 days here as it does
// there; a value that does not fit dt (days in a month interval, a
// fraction of its unit) is ErrOverflow naming it.
func intervalFromEngine(mem memory.Allocator, a arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	vals := values[interval](a)
	bad := func(v interval) error {
		return errorf(ErrOverflow, "interval %s does not fit %s", formatInterval(v), dt)
	}
	switch t := dt.(type) {
	case *arrow.MonthIntervalType:
		return mapFixed(mem, dt, a, vals, func(v interval) (arrow.MonthInterval, error) {
			if v.Days != 0 || v.Nanoseconds != 0 {
				return 0, bad(v)
			}
			return arrow.MonthInterval(v.Months), nil
		})
	case *arrow.DayTimeIntervalType:
		return mapFixed(mem, dt, a, vals, func(v interval) (arrow.DayTimeInterval, error) {
			days := int64(v.Months)*30 + int64(v.Days)
			ms := v.Nanoseconds / 1_000_000
			if ms*1_000_000 != v.Nanoseconds || ms > math.MaxInt32 || ms < math.MinInt32 || days > math.MaxInt32 || days < math.MinInt32 {
				return arrow.DayTimeInterval{}, bad(v)
			}
			return arrow.DayTimeInterval{Days: int32(days), Milliseconds: int32(ms)}, nil
		})
	case *arrow.DurationType:
		k := int64(t.Unit.Multiplier())
		return mapFixed(mem, dt, a, vals, func(v interval) (arrow.Duration, error) {
			days := int64(v.Months)*30 + int64(v.Days)
			dayNs, c1 := mulInt64(days, nsPerDay)
			ns, c2 := int64Kernel(Add)(dayNs, v.Nanoseconds)
			if c1 != codeOK || c2 != codeOK || ns%k != 0 {
				return 0, bad(v)
			}
			return arrow.Duration(ns / k), nil
		})
	}
	return nil, errorf(ErrType, "cannot store INTERVAL as %s", dt)
}
