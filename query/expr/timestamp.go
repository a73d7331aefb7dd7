package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Timestamps compute as DuckDB's do: microseconds since 1970-01-01
// 00:00:00 in the proleptic Gregorian calendar, TIMESTAMP without a zone
// (a wall-clock reading) and TIMESTAMP WITH TIME ZONE (an instant, stored
// in UTC). A column of seconds, milliseconds or nanoseconds converts to
// microseconds when an expression reads it (nanoseconds rounded toward
// minus infinity, as DuckDB reads TIMESTAMP_NS into TIMESTAMP; seconds and
// milliseconds outside ±292,000 years are ErrOverflow), and any zone
// becomes UTC: the instants are the same. The session's time zone is UTC,
// so the fields of a TIMESTAMP WITH TIME ZONE, its text and its casts to
// and from TIMESTAMP and DATE are those of UTC.

const (
	usPerSecond = 1_000_000
	usPerMinute = 60 * usPerSecond
	usPerHour   = 60 * usPerMinute
	usPerDay    = 24 * usPerHour
)

// unitMicros is how many microseconds one unit holds (0 for nanoseconds,
// which divide).
func unitMicros(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return usPerSecond
	case arrow.Millisecond:
		return 1000
	case arrow.Microsecond:
		return 1
	}
	return 0
}

// timestampToEngine converts a timestamp column of any unit and zone to
// the engine type to (microseconds, no zone or UTC).
func timestampToEngine(mem memory.Allocator, a *array.Timestamp, to arrow.DataType) (arrow.Array, error) {
	u := a.DataType().(*arrow.TimestampType).Unit
	if u == arrow.Microsecond {
		return relabel(a, to), nil
	}
	k := unitMicros(u)
	return mapFixed(mem, to, a, values[int64](a), func(v int64) (int64, error) {
		if k == 0 {
			return floorDiv(v, 1000), nil
		}
		r, ok := mulMicros(v, k)
		if !ok {
			return 0, errorf(ErrOverflow, "%s value %d out of range for TIMESTAMP (microseconds)", a.DataType(), v)
		}
		return r, nil
	})
}

// timestampFromEngine converts microseconds back to the stored type dt,
// exact for every value timestampToEngine made from dt.
func timestampFromEngine(mem memory.Allocator, a *array.Timestamp, dt arrow.DataType) (arrow.Array, error) {
	u := dt.(*arrow.TimestampType).Unit
	if u == arrow.Microsecond {
		return relabel(a, dt), nil
	}
	k := unitMicros(u)
	return mapFixed(mem, dt, a, values[int64](a), func(v int64) (int64, error) {
		if k != 0 {
			return floorDiv(v, k), nil
		}
		r, ok := mulMicros(v, 1000)
		if !ok {
			return 0, errorf(ErrOverflow, "timestamp %s out of range for %s", formatTimestamp(v, false), dt)
		}
		return r, nil
	})
}

// mulMicros is a * b and whether it did not overflow.
func mulMicros(a, b int64) (int64, bool) {
	r, code := mulInt64(a, b)
	return r, code == codeOK
}

// TimestampLiteral is the timestamp us microseconds after 1970-01-01
// 00:00:00, with a time zone (UTC) when tz is set.
func TimestampLiteral(us int64, tz bool) Expr {
	if tz {
		return newLiteral(literal{typ: typTimestampTZ, i: us})
	}
	return newLiteral(literal{typ: typTimestamp, i: us})
}

// ParseTimestamp reads 'YYYY-MM-DD[( |T)HH:MM[:SS[.ffffff]]][zone]' as
// microseconds since 1970-01-01 00:00:00, the zone being Z, UTC, ±HH,
// ±HH:MM or ±HHMM (the time is converted to UTC by it) or a name from
// Go's time zone database (America/New_York). More than six fractional
// digits are cut off (as DuckDB does). hasZone reports a zone. For a
// TIMESTAMP (tz false) the zone is read and ignored, as DuckDB does:
// TIMESTAMP '2024-03-31 03:30:00+02' is 03:30.
func ParseTimestamp(s string, tz bool) (us int64, hasZone bool, err error) {
	bad := func() (int64, bool, error) {
		return 0, false, errorf(ErrInvalidCast, "invalid timestamp %s (want YYYY-MM-DD HH:MM:SS[.ffffff][+HH:MM])", quote(s))
	}
	t := strings.TrimSpace(s)
	datePart, rest := t, ""
	if i := strings.IndexAny(t, " T"); i >= 0 {
		datePart, rest = t[:i], strings.TrimLeft(t[i+1:], " ")
	}
	days, err := ParseDate(datePart)
	if err != nil {
		return bad()
	}
	var tod int64
	if rest != "" {
		var n int
		if tod, n = parseClock(rest); n == 0 {
			return bad()
		}
		rest = strings.TrimSpace(rest[n:])
	}
	us = int64(days)*usPerDay + tod
	if rest == "" {
		return us, false, nil
	}
	off, ok := zoneOffset(rest, us)
	if !ok {
		return bad()
	}
	if !tz {
		return us, true, nil
	}
	return us - off, true, nil
}

// parseClock reads H[H]:M[M][:S[S][.f…]] at the start of s and returns the
// microseconds into the day and the bytes read (0 when it does not parse).
func parseClock(s string) (int64, int) {
	num := func(i int) (int64, int) { // one or two digits, as DuckDB reads them
		j := i
		for j < len(s) && j-i < 2 && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, -1
		}
		v, _ := strconv.Atoi(s[i:j])
		return int64(v), j
	}
	h, i := num(0)
	if i < 0 || i >= len(s) || s[i] != ':' {
		return 0, 0
	}
	m, i := num(i + 1)
	if i < 0 || h > 24 || m > 59 {
		return 0, 0
	}
	var sec, frac int64
	if i < len(s) && s[i] == ':' {
		if sec, i = num(i + 1); i < 0 || sec > 59 {
			return 0, 0
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits := 0
			for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
				if digits < 6 {
					frac = frac*10 + int64(s[i]-'0')
				}
				digits++
			}
			if digits == 0 {
				return 0, 0
			}
			for ; digits < 6; digits++ {
				frac *= 10
			}
		}
	}
	if h == 24 && (m != 0 || sec != 0 || frac != 0) {
		return 0, 0
	}
	return h*usPerHour + m*usPerMinute + sec*usPerSecond + frac, i
}

// zoneOffset returns the offset from UTC, in microseconds, of the zone z
// at the wall-clock time local (microseconds since the epoch read in z).
func zoneOffset(z string, local int64) (int64, bool) {
	switch strings.ToUpper(z) {
	case "Z", "UTC", "GMT":
		return 0, true
	}
	if z[0] == '+' || z[0] == '-' {
		d := strings.ReplaceAll(z[1:], ":", "")
		if len(d) != 2 && len(d) != 4 {
			return 0, false
		}
		for _, c := range d {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		h, _ := strconv.Atoi(d[:2])
		m := 0
		if len(d) == 4 {
			m, _ = strconv.Atoi(d[2:])
		}
		off := int64(h)*usPerHour + int64(m)*usPerMinute
		if z[0] == '-' {
			off = -off
		}
		return off, true
	}
	loc, err := time.LoadLocation(z)
	if err != nil {
		return 0, false
	}
	sec := floorDiv(local, usPerSecond)
	wall := time.Unix(sec, 0).UTC()
	t := time.Date(wall.Year(), wall.Month(), wall.Day(), wall.Hour(), wall.Minute(), wall.Second(), 0, loc)
	_, off := t.Zone()
	return int64(off) * usPerSecond, true
}

// formatTimestamp is us as DuckDB prints a timestamp: YYYY-MM-DD
// HH:MM:SS, the fraction with its trailing zeros dropped, and +00 for a
// TIMESTAMP WITH TIME ZONE (the session zone is UTC).
func formatTimestamp(us int64, tz bool) string {
	days := floorDiv(us, usPerDay)
	tod := us - days*usPerDay
	var b strings.Builder
	if days < math.MinInt32 || days > math.MaxInt32 {
		return strconv.FormatInt(us, 10)
	}
	b.WriteString(formatDate(int32(days)))
	fmt.Fprintf(&b, " %02d:%02d:%02d", tod/usPerHour, tod/usPerMinute%60, tod/usPerSecond%60)
	if f := tod % usPerSecond; f != 0 {
		b.WriteString(strings.TrimRight(fmt.Sprintf(".%06d", f), "0"))
	}
	if tz {
		b.WriteString("+00")
	}
	return b.String()
}

// isTZ reports whether dt is TIMESTAMP WITH TIME ZONE.
func isTZ(dt arrow.DataType) bool {
	t, ok := dt.(*arrow.TimestampType)
	return ok && t.TimeZone != ""
}

// castTimestamp converts a timestamp array to DATE, the other timestamp
// type or (by castToString) VARCHAR.
func castTimestamp(mem memory.Allocator, a *array.Timestamp, to arrow.DataType) (arrow.Array, error) {
	switch to.ID() {
	case arrow.TIMESTAMP:
		return relabel(a, to), nil // the session zone is UTC: same microseconds
	case arrow.DATE32:
		return mapFixed(mem, to, a, values[int64](a), func(v int64) (int32, error) {
			return int32(floorDiv(v, usPerDay)), nil // every int64 of microseconds is in date32's range
		})
	}
	return nil, errorf(ErrType, "cannot cast %s to %s", a.DataType(), sqlType(to))
}

// castDateToTimestamp is midnight of each date.
func castDateToTimestamp(mem memory.Allocator, a *array.Date32, to arrow.DataType) (arrow.Array, error) {
	return mapFixed(mem, to, a, values[int32](a), func(v int32) (int64, error) {
		r, ok := mulMicros(int64(v), usPerDay)
		if !ok {
			return 0, errorf(ErrOverflow, "date %s out of range for %s", formatDate(v), sqlType(to))
		}
		return r, nil
	})
}

// TimestampType is the engine type TIMESTAMP, or TIMESTAMP WITH TIME ZONE
// when tz is set.
func TimestampType(tz bool) arrow.DataType {
	if tz {
		return typTimestampTZ
	}
	return typTimestamp
}
