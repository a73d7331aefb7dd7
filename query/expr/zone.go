package expr

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The session time zone. A TIMESTAMP WITH TIME ZONE is an instant (UTC
// microseconds); where it meets a wall-clock reading — a cast to or from
// TIMESTAMP, DATE, TIME or VARCHAR, a field, date_trunc — the reading is
// the session zone's, as in DuckDB's SET TimeZone. The planner builds
// those places with the zone (CastIn, LocalTime, AtZone); everything
// else about instants is the same in every zone. With UTC they are the
// plain casts.
//
// A wall-clock time a DST change skips (02:30 on the night clocks go
// forward) is read with the offset before the change (03:30 after it);
// one it repeats (02:30 on the night clocks go back) with the offset
// after the change (the later instant): DuckDB's (ICU's) choice.

// isUTC reports whether loc reads instants as UTC does.
func isUTC(loc *time.Location) bool { return loc == nil || loc == time.UTC || loc.String() == "UTC" }

// offsetAt is the offset of loc from UTC at the instant us, in
// microseconds.
func offsetAt(loc *time.Location, us int64) int64 {
	_, off := time.Unix(floorDiv(us, usPerSecond), 0).In(loc).Zone()
	return int64(off) * usPerSecond
}

// toLocal is the wall-clock reading in loc of the instant us.
func toLocal(loc *time.Location, us int64) int64 { return us + offsetAt(loc, us) }

// fromLocal is the instant at which loc's clocks read local (see the
// rule for skipped and repeated readings above). Offsets a day before
// and after bound any change near it.
func fromLocal(loc *time.Location, local int64) int64 {
	before := offsetAt(loc, local-usPerDay)
	after := offsetAt(loc, local+usPerDay)
	if before == after {
		if u := local - before; offsetAt(loc, u) == before {
			return u
		}
	}
	u1, u2 := local-before, local-after
	ok1, ok2 := offsetAt(loc, u1) == before, offsetAt(loc, u2) == after
	switch {
	case ok2:
		return u2 // repeated: the later instant (or the only one)
	case ok1:
		return u1
	}
	return u1 // skipped: read with the offset before the change
}

// zoneKernel makes the call name(zone, e) that maps e's int64
// microseconds by f.
func zoneKernel(name string, loc *time.Location, typ arrow.DataType, e Expr, f func(int64) int64) Expr {
	k := &kernel{eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		a := intArg(ops[1])
		return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) { return f(a.at(i)), nil })
	}}
	return newCall(name, typ, k, zoneName(loc), e)
}

// zoneName is the zone as the string argument the calls show.
func zoneName(loc *time.Location) Expr { return newLiteral(literal{typ: typString, s: loc.String()}) }

// LocalTime is the TIMESTAMP WITH TIME ZONE e as the TIMESTAMP its
// instant reads on loc's clocks.
func LocalTime(e Expr, loc *time.Location) (Expr, error) {
	if !isTZ(e.Type()) {
		return nil, errorf(ErrType, "local time of %s, not a TIMESTAMP WITH TIME ZONE (%s)", sqlType(e.Type()), e)
	}
	if isUTC(loc) {
		return Cast(e, typTimestamp)
	}
	return zoneKernel("timezone", loc, typTimestamp, e, func(us int64) int64 { return toLocal(loc, us) }), nil
}

// AtZone is the TIMESTAMP (or DATE, at midnight) e read as a time on
// loc's clocks: the TIMESTAMP WITH TIME ZONE of that instant.
func AtZone(e Expr, loc *time.Location) (Expr, error) {
	e = nullAs(e, typTimestamp)
	switch {
	case e.Type().ID() == arrow.DATE32:
		var err error
		if e, err = Cast(e, typTimestamp); err != nil {
			return nil, err
		}
	case e.Type().ID() != arrow.TIMESTAMP || isTZ(e.Type()):
		return nil, errorf(ErrType, "%s read in a time zone, not a TIMESTAMP (%s)", sqlType(e.Type()), e)
	}
	if isUTC(loc) {
		return Cast(e, typTimestampTZ)
	}
	return zoneKernel("timezone", loc, typTimestampTZ, e, func(us int64) int64 { return fromLocal(loc, us) }), nil
}

// CastIn is Cast (TryCast when try) with loc the session zone: a
// TIMESTAMP, DATE or zone-less text becomes an instant as read on loc's
// clocks, and an instant becomes the TIMESTAMP, DATE, TIME or text
// ('2024-03-31 03:30:00+02') it reads there.
func CastIn(e Expr, to arrow.DataType, loc *time.Location, try bool) (Expr, error) {
	cast := Cast
	if try {
		cast = TryCast
	}
	if isUTC(loc) || e.Type().ID() == arrow.NULL {
		return cast(e, to)
	}
	from := e.Type()
	switch {
	case isTZ(to) && (from.ID() == arrow.DATE32 || from.ID() == arrow.TIMESTAMP && !isTZ(from)):
		return AtZone(e, loc)
	case isTZ(to) && from.ID() == arrow.STRING:
		return zoneParse(e, loc, try), nil
	case isTZ(from) && to.ID() == arrow.STRING:
		return zoneText(e, loc), nil
	case isTZ(from) && (to.ID() == arrow.TIMESTAMP && !isTZ(to) || to.ID() == arrow.DATE32 || to.ID() == arrow.TIME64):
		l, err := LocalTime(e, loc)
		if err != nil {
			return nil, err
		}
		return cast(l, to)
	}
	return cast(e, to)
}

// zoneText is an instant as text on loc's clocks, with its offset as
// DuckDB writes it: +02, -05, +05:30.
func zoneText(e Expr, loc *time.Location) Expr {
	k := &kernel{eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		a := intArg(ops[1])
		validity, nulls := opsValidity(mem, n, ops)
		return mapStringRows(x, mem, ops, n, validity, nulls, nil, func(i int, dst []byte) ([]byte, error) {
			us := a.at(i)
			off := offsetAt(loc, us)
			dst = append(dst, formatTimestamp(us+off, false)...)
			return append(dst, formatOffset(off)...), nil
		})
	}}
	return newCall("timezone_text", typString, k, zoneName(loc), e)
}

// formatOffset is an offset in microseconds as ±HH or ±HH:MM.
func formatOffset(off int64) string {
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	m := off / usPerMinute
	if m%60 == 0 {
		return fmt.Sprintf("%s%02d", sign, m/60)
	}
	return fmt.Sprintf("%s%02d:%02d", sign, m/60, m%60)
}

// zoneParse reads text as an instant: with its own zone when it has one,
// else on loc's clocks. try: text that does not parse is NULL.
func zoneParse(e Expr, loc *time.Location, try bool) Expr {
	k := &kernel{fails: !try, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		s := strArg(ops[1])
		validity, nulls := opsValidity(mem, n, ops)
		if try && validity == nil {
			validity = allValid(mem, n)
		}
		buf, out := newValues[int64](mem, n)
		v := validRows(validity)
		for i := range out {
			out[i] = 0
			if !v.valid(i) {
				continue
			}
			us, hasZone, err := ParseTimestamp(s.at(i), true)
			if err != nil {
				if try {
					clearBit(validity, i)
					nulls++
					continue
				}
				releaseBufs(validity, buf)
				return nil, errorf(ErrInvalidCast, "cannot cast %s to TIMESTAMP WITH TIME ZONE: not a timestamp", quote(s.at(i)))
			}
			if !hasZone {
				us = fromLocal(loc, us)
			}
			out[i] = us
		}
		return makeArray(typTimestampTZ, n, validity, nulls, buf), nil
	}}
	name := "timezone_parse"
	if try {
		name = "try_timezone_parse"
	}
	return newCall(name, typTimestampTZ, k, zoneName(loc), e)
}

// allValid is a validity bitmap of n set bits.
func allValid(mem memory.Allocator, n int) *memory.Buffer {
	b := newBits(mem, n)
	bits := b.Bytes()
	for i := range n {
		bits[i>>3] |= 1 << (i & 7)
	}
	return b
}

func clearBit(b *memory.Buffer, i int) { b.Bytes()[i>>3] &^= 1 << (i & 7) }

// RelabelZone is a TIMESTAMP WITH TIME ZONE column as the same instants
// labelled with loc, for a client to show them on loc's clocks (the
// result of a query in a session zone); other columns are returned as
// they are. It retains what it returns.
func RelabelZone(a arrow.Array, loc *time.Location) arrow.Array {
	t, ok := a.DataType().(*arrow.TimestampType)
	if !ok || t.TimeZone == "" || isUTC(loc) || t.TimeZone == loc.String() {
		a.Retain()
		return a
	}
	return relabel(a, &arrow.TimestampType{Unit: t.Unit, TimeZone: loc.String()})
}

// AddIntervalIn is the instant e plus the INTERVAL iv (minus it when
// sub; a constant or a column) on loc's calendar, as DuckDB (ICU's
// Calendar.add) adds them: months, then days, move the calendar (the
// same wall-clock time that many months or days later, 23 or 25 hours
// across a DST change), then the time part moves the instant (March 31
// - '1 month 1 day' is February 28 in 2024: February 29, then a day
// back). Each calendar step keeps the offset the instant had where the
// wall-clock time exists with it (so on the night clocks go back it is
// the first of the two readings), else takes the new one, and a time the
// clocks skip is read with the offset before the change. A result
// outside TIMESTAMP is ErrOverflow.
func AddIntervalIn(e, iv Expr, sub bool, loc *time.Location) (Expr, error) {
	if !isTZ(e.Type()) || iv.Type().ID() != arrow.INTERVAL_MONTH_DAY_NANO {
		return nil, errorf(ErrType, "calendar interval in a time zone: %s + %s, not a TIMESTAMP WITH TIME ZONE and an INTERVAL (%s, %s)", sqlType(e.Type()), sqlType(iv.Type()), e, iv)
	}
	op := Add
	if sub {
		op = Sub
	}
	if isUTC(loc) {
		return Arith(op, e, iv)
	}
	k := &kernel{fails: true, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		a, b := intArg(ops[1]), ivArg(ops[2])
		return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
			u, v := a.at(i), b.at(i)
			if sub {
				var err error
				if v, err = negateInterval(v); err != nil {
					return 0, x.errorf(ErrOverflow, "%v", err)
				}
			}
			r, ok := addInstantInterval(loc, u, v)
			if !ok {
				return 0, x.errorf(ErrOverflow, "timestamp out of range: %s %s %s", formatTimestamp(u, true), op, formatInterval(b.at(i)))
			}
			return r, nil
		})
	}}
	return newCall("timezone_add", typTimestampTZ, k, zoneName(loc), e, iv), nil
}

// addInstantInterval is the instant u plus v on loc's calendar
// (AddIntervalIn); false past TIMESTAMP.
func addInstantInterval(loc *time.Location, u int64, v interval) (int64, bool) {
	micros := floorDiv(v.Nanoseconds, nsPerMicro)
	calendar := func(u int64, months, days int32) (int64, bool) {
		if months == 0 && days == 0 {
			return u, true
		}
		off := offsetAt(loc, u)
		local, ok := addTimestampInterval(u+off, months, days, 0)
		if !ok {
			return 0, false
		}
		return fromLocalKeeping(loc, local, off), true
	}
	u, ok := calendar(u, v.Months, 0)
	if ok {
		u, ok = calendar(u, 0, v.Days)
	}
	if !ok {
		return 0, false
	}
	return addTimestampInterval(u, 0, 0, micros)
}

// fromLocalKeeping is the instant loc's clocks read local at, keeping
// the offset prev where the reading exists with it (ICU's add).
func fromLocalKeeping(loc *time.Location, local, prev int64) int64 {
	t := local - prev
	now := offsetAt(loc, t)
	if now == prev {
		return t
	}
	adj := prev - now
	if t2 := t + adj; toLocal(loc, t2) == local {
		return t2
	}
	if adj < 0 {
		return t // skipped: the offset before the change
	}
	return t + adj
}
