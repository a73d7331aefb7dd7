package expr

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Arithmetic with INTERVAL, as DuckDB does it:
//
//	TIMESTAMP - TIMESTAMP      INTERVAL: whole days and the rest, one sign
//	TIMESTAMP ± INTERVAL       TIMESTAMP (months, then days, then time)
//	INTERVAL + TIMESTAMP       TIMESTAMP
//	DATE ± INTERVAL            TIMESTAMP (from the date's midnight)
//	INTERVAL ± INTERVAL        INTERVAL, part by part
//	INTERVAL × BIGINT          INTERVAL, part by part (BIGINT × INTERVAL too)
//
// A DATE meets a timestamp as its midnight (TIMESTAMP - DATE is an
// interval). A result past its type is ErrOverflow naming the values.
// DATE ± INTERVAL n unit written as a constant keeps the older rule of
// AddInterval (a DATE when the interval has no time part), so date
// predicates still prune: only an interval value (a column, an
// expression) makes a DATE a TIMESTAMP.

// intervalArith builds l op r when an operand is an INTERVAL or both are
// timestamps; ok is false for other operands.
func intervalArith(op ArithOp, l, r Expr) (Expr, bool, error) {
	lt, rt := l.Type(), r.Type()
	li, ri := lt.ID() == arrow.INTERVAL_MONTH_DAY_NANO, rt.ID() == arrow.INTERVAL_MONTH_DAY_NANO
	lts, rts := lt.ID() == arrow.TIMESTAMP, rt.ID() == arrow.TIMESTAMP
	switch {
	case op == Sub && (lts && temporal(rt) || rts && temporal(lt)):
		t, err := Coerce(lt, rt)
		if err != nil {
			return nil, true, err
		}
		if l, err = coerceTo(l, t); err != nil {
			return nil, true, err
		}
		if r, err = coerceTo(r, t); err != nil {
			return nil, true, err
		}
		k := &kernel{fails: true, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
			a, b := intArg(ops[0]), intArg(ops[1])
			return mapFixedRows(x, mem, ops, n, func(i int) (interval, error) {
				v, ok := timestampDiff(a.at(i), b.at(i))
				if !ok {
					return v, x.errorf(ErrOverflow, "interval out of range: %s - %s", formatTimestamp(a.at(i), false), formatTimestamp(b.at(i), false))
				}
				return v, nil
			})
		}}
		return infix(op, typInterval, k, l, r), true, nil
	case li && ri && (op == Add || op == Sub):
		sign := int64(1)
		if op == Sub {
			sign = -1
		}
		k := &kernel{fails: true, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
			a, b := ivArg(ops[0]), ivArg(ops[1])
			return mapFixedRows(x, mem, ops, n, func(i int) (interval, error) {
				v, ok := addIntervals(a.at(i), b.at(i), sign)
				if !ok {
					return v, x.errorf(ErrOverflow, "interval out of range: %s %s %s", formatInterval(a.at(i)), op, formatInterval(b.at(i)))
				}
				return v, nil
			})
		}}
		return infix(op, typInterval, k, l, r), true, nil
	case ri && temporal(lt) && (op == Add || op == Sub), li && temporal(rt) && op == Add:
		ts, iv := l, r
		if li {
			ts, iv = r, l
		}
		t := ts.Type()
		if t.ID() == arrow.DATE32 {
			t = typTimestamp
		}
		ts, err := coerceTo(ts, t)
		if err != nil {
			return nil, true, err
		}
		sub := op == Sub
		k := &kernel{fails: true, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
			a, b := intArg(ops[0]), ivArg(ops[1])
			return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
				v := b.at(i)
				var err error
				if sub {
					if v, err = negateInterval(v); err != nil {
						return 0, x.errorf(ErrOverflow, "%v", err)
					}
				}
				r, ok := addToTimestamp(a.at(i), v)
				if !ok {
					return 0, x.errorf(ErrOverflow, "timestamp out of range: %s %s %s", formatTimestamp(a.at(i), false), op, formatInterval(b.at(i)))
				}
				return r, nil
			})
		}}
		return infix(op, t, k, ts, iv), true, nil
	case op == Mul && (li && rt.ID() == arrow.INT64 || ri && lt.ID() == arrow.INT64):
		iv, n := l, r
		if ri {
			iv, n = r, l
		}
		k := &kernel{fails: true, eval: func(x *callExpr, mem memory.Allocator, ops []operand, rows int) (arrow.Array, error) {
			a, b := ivArg(ops[0]), intArg(ops[1])
			return mapFixedRows(x, mem, ops, rows, func(i int) (interval, error) {
				v, ok := scaleInterval(a.at(i), b.at(i))
				if !ok {
					return v, x.errorf(ErrOverflow, "interval out of range: %s * %d", formatInterval(a.at(i)), b.at(i))
				}
				return v, nil
			})
		}}
		return fold(&callExpr{name: "*", args: []Expr{iv, n}, typ: typInterval, k: k, infix: true}), true, nil
	case li || ri:
		return nil, true, errorf(ErrType, "cannot apply %s to %s and %s (%s %s %s)", op, sqlType(lt), sqlType(rt), paren(l), op, paren(r))
	}
	return nil, false, nil
}

func infix(op ArithOp, typ arrow.DataType, k *kernel, l, r Expr) Expr {
	return fold(&callExpr{name: op.String(), args: []Expr{l, r}, typ: typ, k: k, infix: true})
}

// compareIntervalOps compares two INTERVAL operands, normalized
// (compareIntervals).
func compareIntervalOps(mem memory.Allocator, op CmpOp, n int, l, r operand) arrow.Array {
	validity, nulls := combineValidity(mem, n, l.arr, r.arr)
	out := newBits(mem, n)
	bits := out.Bytes()
	a, b := ivArg(l), ivArg(r)
	want := cmpTable[op]
	for i := 0; i < n; i++ {
		if want[compareIntervals(a.at(i), b.at(i))+1] {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return makeArray(typBool, n, validity, nulls, out)
}

// intervalPart is EXTRACT(part FROM an interval), as DuckDB takes it:
// year and month split the months (14 months: year 1, month 2), day is
// the days as they are, hour … microsecond split the time (27 hours: hour
// 27), each keeping its part's sign; epoch is the seconds of the whole,
// a year 365.25 days and a month 30. ok is false for parts an interval
// has not.
func intervalPart(part DatePart) (f func(v interval) int64, ok bool) {
	us := func(v interval) int64 { return v.Nanoseconds / nsPerMicro }
	switch part {
	case PartYear:
		return func(v interval) int64 { return int64(v.Months / 12) }, true
	case PartQuarter:
		return func(v interval) int64 { return int64(v.Months%12/3 + 1) }, true
	case PartMonth:
		return func(v interval) int64 { return int64(v.Months % 12) }, true
	case PartDay:
		return func(v interval) int64 { return int64(v.Days) }, true
	case PartDecade:
		return func(v interval) int64 { return int64(v.Months / 120) }, true
	case PartCentury:
		return func(v interval) int64 { return int64(v.Months / 1200) }, true
	case PartMillennium:
		return func(v interval) int64 { return int64(v.Months / 12000) }, true
	case PartHour:
		return func(v interval) int64 { return us(v) / usPerHour }, true
	case PartMinute:
		return func(v interval) int64 { return us(v) % usPerHour / usPerMinute }, true
	case PartSecond:
		return func(v interval) int64 { return us(v) % usPerMinute / usPerSecond }, true
	case PartMillisecond:
		return func(v interval) int64 { return us(v) % usPerMinute / 1000 }, true
	case PartMicrosecond:
		return func(v interval) int64 { return us(v) % usPerMinute }, true
	}
	return nil, false
}

// intervalEpoch is the seconds of v, DuckDB's way: a year is 365.25 days,
// the other months 30 days, a day 86,400 seconds.
func intervalEpoch(v interval) float64 {
	years := int64(v.Months / 12)
	days := 365*years + 30*int64(v.Months%12) + int64(v.Days)
	secs := days*86400 + years*86400/4
	return float64(secs) + float64(v.Nanoseconds)/(usPerSecond*nsPerMicro)
}

// age is DuckDB's age(a, b): the years, months and days from b to a, then
// the time, borrowing as PostgreSQL does (Interval::GetAge).
func age(a, b int64) interval {
	da, db := floorDiv(a, usPerDay), floorDiv(b, usPerDay)
	ta, tb := a-da*usPerDay, b-db*usPerDay
	y1, m1, d1 := civil(da)
	y2, m2, d2 := civil(db)
	years, months, days, micros := y1-y2, int64(m1-m2), int64(d1-d2), ta-tb
	flip := a < b
	if flip {
		years, months, days, micros = -years, -months, -days, -micros
	}
	for micros < 0 {
		micros += usPerDay
		days--
	}
	for days < 0 {
		if flip {
			days += int64(daysIn(y1, m1))
		} else {
			days += int64(daysIn(y2, m2))
		}
		months--
	}
	for months < 0 {
		months += 12
		years--
	}
	if flip {
		years, months, days, micros = -years, -months, -days, -micros
	}
	return interval{Months: int32(years*12 + months), Days: int32(days), Nanoseconds: micros * nsPerMicro}
}

// The interval functions (DuckDB's): age(a, b) and age(a) (from the
// query's current_date at midnight: the planner passes it), to_years,
// to_months, to_weeks, to_days, to_hours, to_minutes, to_microseconds
// (BIGINT) and to_seconds, to_milliseconds (DOUBLE, rounded to a
// microsecond). A count past the interval's parts is ErrOverflow.
func init() {
	register("age", []signature{sig(buildAge, FamTemporal, FamTemporal)})
	for _, u := range []struct {
		name  string
		unit  interval
		float bool
	}{
		{"to_years", interval{Months: 12}, false},
		{"to_months", interval{Months: 1}, false},
		{"to_weeks", interval{Days: 7}, false},
		{"to_days", interval{Days: 1}, false},
		{"to_hours", interval{Nanoseconds: usPerHour * nsPerMicro}, false},
		{"to_minutes", interval{Nanoseconds: usPerMinute * nsPerMicro}, false},
		{"to_seconds", interval{Nanoseconds: usPerSecond * nsPerMicro}, true},
		{"to_milliseconds", interval{Nanoseconds: 1000 * nsPerMicro}, true},
		{"to_microseconds", interval{Nanoseconds: nsPerMicro}, false},
	} {
		fam := FamInt
		if u.float {
			fam = FamDouble
		}
		unit, float := u.unit, u.float
		register(u.name, []signature{sig(func(name string, args []Expr) (Expr, error) {
			k := &kernel{fails: true, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
				var get func(i int) float64
				if float {
					f := floatArg(ops[0])
					get = func(i int) float64 { return f.at(i) }
				} else {
					a := intArg(ops[0])
					return mapFixedRows(x, mem, ops, n, func(i int) (interval, error) {
						v, ok := scaleInterval(unit, a.at(i))
						if !ok {
							return v, x.errorf(ErrOverflow, "%d is out of range for an interval", a.at(i))
						}
						return v, nil
					})
				}
				return mapFixedRows(x, mem, ops, n, func(i int) (interval, error) {
					ns := math.Round(get(i)*float64(unit.Nanoseconds)/nsPerMicro) * nsPerMicro
					if math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
						return interval{}, x.errorf(ErrOverflow, "%v is out of range for an interval", get(i))
					}
					return interval{Nanoseconds: int64(ns)}, nil
				})
			}}
			return newCall(name, typInterval, k, args...), nil
		}, fam)})
	}
}

func buildAge(name string, args []Expr) (Expr, error) {
	for i, a := range args {
		if a.Type().ID() != arrow.TIMESTAMP {
			var err error
			if args[i], err = coerceTo(a, typTimestamp); err != nil {
				return nil, err
			}
		}
	}
	k := &kernel{eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		a, b := intArg(ops[0]), intArg(ops[1])
		return mapFixedRows(x, mem, ops, n, func(i int) (interval, error) { return age(a.at(i), b.at(i)), nil })
	}}
	return newCall(name, typInterval, k, args...), nil
}
