package expr

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TIME is a time of day in microseconds since midnight (DuckDB's TIME):
// time32 columns (seconds, milliseconds) and time64 columns (microseconds,
// nanoseconds rounded down) convert to it when an expression reads them.
// It compares, sorts, groups and aggregates as itself, meets only TIME,
// casts to and from VARCHAR ('HH:MM:SS[.ffffff]') and from a timestamp
// (its time of day), and EXTRACT and date_part take its hour, minute,
// second, millisecond, microsecond and epoch (seconds since midnight).

var typTime = &arrow.Time64Type{Unit: arrow.Microsecond}

// TimeType is the engine type TIME.
func TimeType() arrow.DataType { return typTime }

// TimeLiteral is the time us microseconds after midnight.
func TimeLiteral(us int64) Expr { return newLiteral(literal{typ: typTime, i: us}) }

// ParseTime reads 'HH:MM[:SS[.ffffff]]' (24:00:00 included) as
// microseconds since midnight.
func ParseTime(s string) (int64, error) {
	t := strings.TrimSpace(s)
	us, n := parseClock(t)
	if n == 0 || n != len(t) {
		return 0, errorf(ErrInvalidCast, "invalid time %s (want HH:MM:SS[.ffffff])", quote(s))
	}
	return us, nil
}

// formatTime is us as DuckDB prints a TIME: HH:MM:SS and the fraction
// without trailing zeros.
func formatTime(us int64) string {
	s := fmt.Sprintf("%02d:%02d:%02d", us/usPerHour, us/usPerMinute%60, us/usPerSecond%60)
	if f := us % usPerSecond; f != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", f), "0")
	}
	return s
}

// timeToEngine converts a time32 or time64 column to microseconds.
func timeToEngine(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	switch x := a.(type) {
	case *array.Time32:
		k := int64(1000)
		if x.DataType().(*arrow.Time32Type).Unit == arrow.Second {
			k = usPerSecond
		}
		return mapFixed(mem, typTime, a, values[int32](a), func(v int32) (int64, error) { return int64(v) * k, nil })
	case *array.Time64:
		if x.DataType().(*arrow.Time64Type).Unit == arrow.Microsecond {
			return relabel(a, typTime), nil
		}
		return mapFixed(mem, typTime, a, values[int64](a), func(v int64) (int64, error) { return floorDiv(v, 1000), nil })
	}
	return nil, errorf(ErrType, "column type %s is not a time", a.DataType())
}

// timeFromEngine converts microseconds back to the stored time type dt.
func timeFromEngine(mem memory.Allocator, a arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	vals := values[int64](a)
	switch t := dt.(type) {
	case *arrow.Time32Type:
		k := int64(1000)
		if t.Unit == arrow.Second {
			k = usPerSecond
		}
		return mapFixed(mem, dt, a, vals, func(v int64) (int32, error) { return int32(floorDiv(v, k)), nil })
	case *arrow.Time64Type:
		if t.Unit == arrow.Microsecond {
			return relabel(a, dt), nil
		}
		return mapFixed(mem, dt, a, vals, func(v int64) (int64, error) { return v * 1000, nil })
	}
	return nil, errorf(ErrType, "cannot store TIME as %s", dt)
}

// castTimestampToTime is the time of day of each timestamp.
func castTimestampToTime(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	return mapFixed(mem, typTime, a, values[int64](a), func(v int64) (int64, error) { return floorMod(v, usPerDay), nil })
}
