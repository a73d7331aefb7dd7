package expr

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// castToString formats every value of a: integers in decimal, Float64 as
// formatFloat does, decimals with exactly their scale's fractional digits,
// dates as YYYY-MM-DD, booleans as true/false.
func castToString(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	var f func(i int) string
	switch x := a.(type) {
	case *array.Int64:
		f = func(i int) string { return strconv.FormatInt(x.Value(i), 10) }
	case *array.Float64:
		f = func(i int) string { return formatFloat(x.Value(i)) }
	case *array.Decimal128:
		s := x.DataType().(*arrow.Decimal128Type).Scale
		f = func(i int) string { return formatDecimal(x.Value(i), s) }
	case *array.Date32:
		f = func(i int) string { return formatDate(int32(x.Value(i))) }
	case *array.Boolean:
		f = func(i int) string { return strconv.FormatBool(x.Value(i)) }
	case *array.Timestamp:
		tz, vals := isTZ(x.DataType()), values[int64](x)
		f = func(i int) string { return formatTimestamp(vals[i], tz) }
	case *array.Time64:
		vals := values[int64](x)
		f = func(i int) string { return formatTime(vals[i]) }
	case *array.MonthDayNanoInterval:
		f = func(i int) string { return formatInterval(x.Value(i)) }
	case *array.Binary:
		f = func(i int) string { return formatBlob(x.Value(i)) }
	default:
		return nil, errorf(ErrType, "cannot cast %s to VARCHAR", a.DataType())
	}
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(a.Len())
	for i := 0; i < a.Len(); i++ {
		if a.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(f(i))
		}
	}
	return b.NewArray(), nil
}

// formatFloat writes plain digits for magnitudes in [1e-5, 1e15) and an
// exponent otherwise; NaN, Infinity and -Infinity as Postgres spells them.
func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	if a := math.Abs(f); a == 0 || (a >= 1e-5 && a < 1e15) {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// castFromString parses every value of a as type to. Leading and trailing
// spaces are ignored; a value that does not parse is ErrInvalidCast, one
// that parses but does not fit is ErrOverflow, both naming the value.
func castFromString(mem memory.Allocator, a *array.String, to arrow.DataType) (arrow.Array, error) {
	bad := func(i int, kind error, why string) error {
		return errorf(kind, "cannot cast %s to %s: %s", quote(a.Value(i)), sqlType(to), why)
	}
	switch to.ID() {
	case arrow.INT64:
		return mapRows[int64](mem, to, a, func(i int) (int64, error) {
			v, err := strconv.ParseInt(strings.TrimSpace(a.Value(i)), 10, 64)
			if errors.Is(err, strconv.ErrRange) {
				return 0, bad(i, ErrOverflow, "out of range")
			} else if err != nil {
				return 0, bad(i, ErrInvalidCast, "not an integer")
			}
			return v, nil
		})
	case arrow.FLOAT64:
		return mapRows[float64](mem, to, a, func(i int) (float64, error) {
			t := strings.TrimSpace(a.Value(i))
			if strings.ContainsAny(t, "xX_") {
				return 0, bad(i, ErrInvalidCast, "not a number")
			}
			v, err := strconv.ParseFloat(t, 64)
			if errors.Is(err, strconv.ErrRange) {
				return 0, bad(i, ErrOverflow, "out of range")
			} else if err != nil {
				return 0, bad(i, ErrInvalidCast, "not a number")
			}
			return v, nil
		})
	case arrow.DECIMAL128:
		d := to.(*arrow.Decimal128Type)
		return mapRows[num](mem, to, a, func(i int) (num, error) {
			v, code, ok := parseDecimal(a.Value(i), d.Precision, d.Scale)
			switch {
			case !ok:
				return v, bad(i, ErrInvalidCast, "not a number")
			case code != codeOK:
				return v, bad(i, ErrOverflow, "out of range")
			}
			return v, nil
		})
	case arrow.DATE32:
		return mapRows[int32](mem, to, a, func(i int) (int32, error) {
			v, err := ParseDate(strings.TrimSpace(a.Value(i)))
			if err != nil {
				return 0, bad(i, ErrInvalidCast, "not a date (YYYY-MM-DD)")
			}
			return v, nil
		})
	case arrow.TIMESTAMP:
		return mapRows[int64](mem, to, a, func(i int) (int64, error) {
			v, _, err := ParseTimestamp(a.Value(i), isTZ(to))
			if err != nil {
				return 0, bad(i, ErrInvalidCast, "not a timestamp (YYYY-MM-DD HH:MM:SS[.ffffff][+HH:MM])")
			}
			return v, nil
		})
	case arrow.TIME64:
		return mapRows[int64](mem, to, a, func(i int) (int64, error) {
			v, err := ParseTime(a.Value(i))
			if err != nil {
				return 0, bad(i, ErrInvalidCast, "not a time (HH:MM:SS[.ffffff])")
			}
			return v, nil
		})
	case arrow.BINARY:
		b := array.NewBinaryBuilder(mem, typBinary)
		defer b.Release()
		for i := range a.Len() {
			if a.IsNull(i) {
				b.AppendNull()
				continue
			}
			v, ok := parseBlob(a.Value(i))
			if !ok {
				return nil, bad(i, ErrInvalidCast, `not a BLOB (a backslash starts \xHH; bytes past ASCII are written \xHH)`)
			}
			b.Append(v)
		}
		return b.NewArray(), nil
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return mapRows[interval](mem, to, a, func(i int) (interval, error) {
			v, err := ParseInterval(a.Value(i))
			if err != nil {
				return v, bad(i, ErrInvalidCast, "not an interval ('1 day 2 hours', '1 day 02:00:00')")
			}
			return v, nil
		})
	case arrow.BOOL:
		var err error
		out := boolsOf(mem, a, func(i int) bool {
			v, ok := parseBool(a.Value(i))
			if !ok && err == nil {
				err = bad(i, ErrInvalidCast, "not a boolean")
			}
			return v
		})
		if err != nil {
			out.Release()
			return nil, err
		}
		return out, nil
	}
	return nil, errorf(ErrType, "cannot cast VARCHAR to %s", to)
}

// parseBool accepts what Postgres does: t, true, y, yes, on, 1 and f,
// false, n, no, off, 0, in any case.
func parseBool(s string) (v, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "t", "true", "y", "yes", "on", "1":
		return true, true
	case "f", "false", "n", "no", "off", "0":
		return false, true
	}
	return false, false
}

// mapRows is mapFixed by row index, for inputs that are not fixed-width.
func mapRows[O arrow.FixedWidthType](mem memory.Allocator, typ arrow.DataType, in arrow.Array, fn func(i int) (O, error)) (arrow.Array, error) {
	n := in.Len()
	validity, nulls := combineValidity(mem, n, in)
	buf, out := newValues[O](mem, n)
	v := validityOf(in)
	for i := range out {
		var z O
		out[i] = z
		if !v.valid(i) {
			continue
		}
		y, err := fn(i)
		if err != nil {
			releaseBufs(validity, buf)
			return nil, err
		}
		out[i] = y
	}
	return makeArray(typ, n, validity, nulls, buf), nil
}
