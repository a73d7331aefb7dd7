package convert

import (
	"errors"
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/quiverdb/quiver/convert/internal/column"
	"github.com/quiverdb/quiver/convert/internal/parse"
)

// appendFixed appends one non-nil Go value to a fixed-width column,
// through the function of the column's type family; each checks the
// value's Go type and range against the column (the table in appender.go
// lists what each family takes).
func appendFixed(b *column.Fixed, v any) error {
	dt := b.Type()
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return appendSigned(b, v)
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return appendUnsigned(b, v)
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return appendFloat(b, v)
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128:
		return appendDecimal(b, v)
	case arrow.DECIMAL256:
		return appendDecimal256(b, v)
	case arrow.DATE32, arrow.DATE64:
		return appendDate(b, v)
	case arrow.TIMESTAMP:
		return appendTimestamp(b, v)
	case arrow.TIME32, arrow.TIME64:
		return appendTime(b, v)
	case arrow.DURATION:
		return appendDuration(b, v)
	case arrow.FIXED_SIZE_BINARY:
		return appendFixedSizeBinary(b, v)
	}
	return typeError(v, dt)
}

// appendSigned appends any Go integer that fits the column's width.
func appendSigned(b *column.Fixed, v any) error {
	dt := b.Type()
	i, ok := toInt64(v)
	if !ok {
		if u, isU := v.(uint64); isU {
			return rangeError(u, dt)
		}
		return typeError(v, dt)
	}
	bitsz := b.Width() * 8
	if bitsz < 64 && (i < -(1<<(bitsz-1)) || i >= 1<<(bitsz-1)) {
		return rangeError(v, dt)
	}
	putInteger(b, uint64(i))
	return nil
}

// appendUnsigned appends any non-negative Go integer that fits the
// column's width; uint and uint64 are taken whole, past MaxInt64.
func appendUnsigned(b *column.Fixed, v any) error {
	dt := b.Type()
	var u uint64
	if x, ok := v.(uint64); ok {
		u = x
	} else if x, ok := v.(uint); ok {
		u = uint64(x)
	} else if i, ok := toInt64(v); ok && i >= 0 {
		u = uint64(i)
	} else if ok {
		return rangeError(v, dt)
	} else {
		return typeError(v, dt)
	}
	if bitsz := b.Width() * 8; bitsz < 64 && u >= 1<<bitsz {
		return rangeError(v, dt)
	}
	putInteger(b, u)
	return nil
}

// putInteger stores the low Width() bytes of x: the two's-complement bits
// of a signed value are those of its uint64, so one store serves signed
// and unsigned columns. The caller has checked that the value fits.
func putInteger(b *column.Fixed, x uint64) {
	switch b.Width() {
	case 1:
		column.Append(b, uint8(x))
	case 2:
		column.Append(b, uint16(x))
	case 4:
		column.Append(b, uint32(x))
	default:
		column.Append(b, x)
	}
}

// appendFloat appends a float32, float64 or Go integer, rounded to the
// column's width.
func appendFloat(b *column.Fixed, v any) error {
	dt := b.Type()
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case float32:
		f = float64(x)
	default:
		i, ok := toInt64(v)
		if !ok {
			return typeError(v, dt)
		}
		f = float64(i)
	}
	switch dt.ID() {
	case arrow.FLOAT16:
		column.Append(b, float16.New(float32(f)).Uint16())
	case arrow.FLOAT32:
		column.Append(b, float32(f))
	default:
		column.Append(b, f)
	}
	return nil
}

// appendDecimal writes a decimal32/64/128 straight from the unscaled
// value, checked against the precision in place: an int64 needs no
// 128-bit arithmetic; a value that does not fit is an error, never a
// wrap.
func appendDecimal(b *column.Fixed, v any) error {
	dt := b.Type()
	prec := dt.(arrow.DecimalType).GetPrecision()
	var num decimal128.Num
	switch x := v.(type) {
	case int64, int, int32:
		i, _ := toInt64(x)
		if !parse.FitsPrecision64(i, prec) {
			return rangeError(v, dt)
		}
		switch dt.ID() {
		case arrow.DECIMAL32:
			column.Append(b, decimal.Decimal32(i))
		case arrow.DECIMAL64:
			column.Append(b, decimal.Decimal64(i))
		default:
			column.Append(b, decimal128.FromI64(i))
		}
		return nil
	case decimal128.Num:
		if !parse.FitsPrecision(x, prec) {
			return rangeError(x.BigInt(), dt)
		}
		num = x
	case string:
		d, err := parse.Decimal([]byte(x), prec, dt.(arrow.DecimalType).GetScale())
		if err != nil {
			if errors.Is(err, parse.ErrRange) {
				return rangeError(x, dt)
			}
			return fmt.Errorf("%w: %q is not a %s", ErrMalformed, x, dt)
		}
		num = d
	case []byte:
		d, err := parse.DecimalBytes(x, prec)
		if err != nil {
			return rangeError(fmt.Sprintf("%x", x), dt)
		}
		num = d
	default:
		return typeError(v, dt)
	}
	switch dt.ID() {
	case arrow.DECIMAL32:
		column.Append(b, decimal.Decimal32(int32(num.LowBits())))
	case arrow.DECIMAL64:
		column.Append(b, decimal.Decimal64(int64(num.LowBits())))
	default:
		column.Append(b, num)
	}
	return nil
}

// appendDecimal256 appends a decimal256.Num within the precision.
func appendDecimal256(b *column.Fixed, v any) error {
	dt := b.Type()
	x, ok := v.(decimal256.Num)
	if !ok {
		return typeError(v, dt)
	}
	if !x.FitsInPrecision(dt.(*arrow.Decimal256Type).Precision) {
		return rangeError(x, dt)
	}
	column.Append(b, x)
	return nil
}

// appendDate appends a time.Time (its UTC date) or the column's own
// arrow type; date32 also takes text.
func appendDate(b *column.Fixed, v any) error {
	dt := b.Type()
	if dt.ID() == arrow.DATE64 {
		switch x := v.(type) {
		case time.Time:
			column.Append(b, arrow.Date64FromTime(x))
		case arrow.Date64:
			column.Append(b, x)
		default:
			return typeError(v, dt)
		}
		return nil
	}
	switch x := v.(type) {
	case time.Time:
		column.Append(b, arrow.Date32FromTime(x))
	case arrow.Date32:
		column.Append(b, x)
	case string:
		d, err := parse.Date32([]byte(x))
		if err != nil {
			return fmt.Errorf("%w: %q is not a date: %v", ErrMalformed, x, err)
		}
		column.Append(b, d)
	default:
		return typeError(v, dt)
	}
	return nil
}

// appendTimestamp appends a time.Time in the column's unit (a time out
// of the unit's range is ErrRange), an arrow.Timestamp, or text.
func appendTimestamp(b *column.Fixed, v any) error {
	dt := b.Type()
	unit := dt.(*arrow.TimestampType).Unit
	switch x := v.(type) {
	case time.Time:
		ts, err := arrow.TimestampFromTime(x, unit)
		if err != nil {
			return rangeError(x, dt)
		}
		column.Append(b, ts)
	case arrow.Timestamp:
		column.Append(b, x)
	case string:
		ts, _, err := parse.Timestamp([]byte(x), unit)
		if err != nil {
			return fmt.Errorf("%w: %q is not a timestamp: %v", ErrMalformed, x, err)
		}
		column.Append(b, ts)
	default:
		return typeError(v, dt)
	}
	return nil
}

// appendTime appends an arrow.Time32 or Time64, the column's own type.
func appendTime(b *column.Fixed, v any) error {
	dt := b.Type()
	switch x := v.(type) {
	case arrow.Time32:
		if dt.ID() == arrow.TIME32 {
			column.Append(b, x)
			return nil
		}
	case arrow.Time64:
		if dt.ID() == arrow.TIME64 {
			column.Append(b, x)
			return nil
		}
	}
	return typeError(v, dt)
}

// appendDuration appends an arrow.Duration, or a time.Duration converted
// to the column's unit (truncated).
func appendDuration(b *column.Fixed, v any) error {
	dt := b.Type()
	switch x := v.(type) {
	case arrow.Duration:
		column.Append(b, x)
	case time.Duration:
		column.Append(b, int64(x)/int64(dt.(*arrow.DurationType).Unit.Multiplier()))
	default:
		return typeError(v, dt)
	}
	return nil
}

// appendFixedSizeBinary appends a []byte of exactly the column's width.
func appendFixedSizeBinary(b *column.Fixed, v any) error {
	dt := b.Type()
	x, ok := v.([]byte)
	if !ok {
		return typeError(v, dt)
	}
	if len(x) != b.Width() {
		return fmt.Errorf("%w: %d bytes for %s", ErrRange, len(x), dt)
	}
	b.Reserve(1)
	copy(b.Raw()[b.Len()*b.Width():], x)
	b.Advance(1)
	return nil
}
