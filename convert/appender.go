package convert

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"

	"github.com/quiverdb/quiver/convert/internal/column"
	"github.com/quiverdb/quiver/convert/internal/parse"
)

// The appender API: Go programs hand over rows (AppendRow) or column
// slices (AppendColumns) of flat types, and take batches with Next.
//
// Go values accepted per column type (nil is null everywhere):
//
//	integers       any Go integer, range-checked against the column's width
//	floats         float32, float64, any Go integer
//	bool           bool
//	string, binary string, []byte
//	decimal        int64 or int (the unscaled value), decimal128.Num,
//	               string (text such as "-12.50"), []byte (the unscaled
//	               value in big-endian two's complement, as Java's
//	               BigInteger.toByteArray); all range-checked against the
//	               precision, never wrapped
//	date32/64      time.Time (its UTC date), arrow.Date32/Date64, string
//	timestamp      time.Time, arrow.Timestamp, string
//	time32/64      arrow.Time32/Time64
//	duration       time.Duration, arrow.Duration
//	fixed binary   []byte of the column's width
//
// AppendColumns takes one slice per column, all of one length: []T of a
// type above ([]int64 into an int64 column is one block copy), []any, or
// a Column, which adds a validity slice.

// Column is a column slice with validity: Values is a slice as
// AppendColumns takes, Valid (nil: all valid) marks the valid rows.
type Column struct {
	Values any
	Valid  []bool
}

// AppendRow appends one row; vals[i] is column i's value.
func (c *Coalescer) AppendRow(vals ...any) error {
	if len(vals) != len(c.cols) {
		return fmt.Errorf("convert: %w: row of %d values, want %d", ErrSchema, len(vals), len(c.cols))
	}
	for try := 0; ; try++ {
		err := c.appendRow(vals)
		if err == nil {
			break
		}
		if errors.Is(err, column.ErrOffsets) && c.rows > 0 && try == 0 {
			c.complete()
			continue
		}
		return err
	}
	c.endRow()
	return nil
}

// endRow counts a row appended column by column and completes the
// batch when it is full.
func (c *Coalescer) endRow() {
	c.rows++
	c.stats.InputRows++
	if c.rows == c.cfg.BatchRows || c.bytes() >= c.cfg.MaxBytes {
		c.complete()
	}
}

// truncateRow drops a partly appended row.
func (c *Coalescer) truncateRow() {
	for _, b := range c.cols {
		b.Truncate(c.rows)
	}
}

func (c *Coalescer) appendRow(vals []any) error {
	for i, v := range vals {
		if err := appendValue(c.cols[i], v); err != nil {
			for _, b := range c.cols[:i] {
				b.Truncate(c.rows)
			}
			return c.rowError(c.rows, i, err)
		}
	}
	return nil
}

func (c *Coalescer) rowError(row, col int, err error) error {
	return &RowError{Row: c.stats.Rows + int64(row), Column: col, Name: c.out.Field(col).Name, Err: err}
}

func (c *Coalescer) bytes() int64 {
	var n int64
	for _, b := range c.cols {
		n += b.Bytes()
	}
	return n
}

// AppendColumns appends len rows from one slice per column. Rows go in
// pieces that fill the open batch; on error, the piece holding the bad
// value is not appended (pieces before it may already be in batches).
func (c *Coalescer) AppendColumns(cols ...any) error {
	if len(cols) != len(c.cols) {
		return fmt.Errorf("convert: %w: %d columns, want %d", ErrSchema, len(cols), len(c.cols))
	}
	t0 := time.Now()
	defer func() { c.stats.ConvertTime += time.Since(t0) }()
	n := -1
	for i, col := range cols {
		l, err := sliceLen(col)
		if err != nil {
			return c.rowError(0, i, err)
		}
		if n >= 0 && l != n {
			return fmt.Errorf("convert: %w: column %d has %d rows, column 1 has %d", ErrSchema, i+1, l, n)
		}
		n = l
	}
	c.stats.InputBatches++
	for off := 0; off < n; {
		k := min(n-off, c.cfg.BatchRows-c.rows)
		for i, col := range cols {
			if err := appendSlice(c.cols[i], col, off, k); err != nil {
				for _, b := range c.cols[:i+1] {
					b.Truncate(c.rows)
				}
				if errors.Is(err, column.ErrOffsets) && c.rows > 0 {
					c.complete()
					goto next
				}
				var re *sliceError
				if errors.As(err, &re) {
					return c.rowError(c.rows+re.row, i, re.err)
				}
				return c.rowError(c.rows, i, err)
			}
		}
		c.rows += k
		off += k
		c.stats.InputRows += int64(k)
		if c.rows == c.cfg.BatchRows || c.bytes() >= c.cfg.MaxBytes {
			c.complete()
		}
	next:
	}
	return nil
}

// sliceError is a bad value at row of a slice.
type sliceError struct {
	row int
	err error
}

func (e *sliceError) Error() string { return fmt.Sprintf("row %d: %v", e.row, e.err) }
func (e *sliceError) Unwrap() error { return e.err }

func sliceLen(col any) (int, error) {
	switch s := col.(type) {
	case Column:
		n, err := sliceLen(s.Values)
		if err == nil && s.Valid != nil && len(s.Valid) != n {
			return 0, fmt.Errorf("%w: %d values, %d validity flags", ErrSchema, n, len(s.Valid))
		}
		return n, err
	case []any:
		return len(s), nil
	case []bool:
		return len(s), nil
	case []int:
		return len(s), nil
	case []int8:
		return len(s), nil
	case []int16:
		return len(s), nil
	case []int32:
		return len(s), nil
	case []int64:
		return len(s), nil
	case []uint8:
		return len(s), nil
	case []uint16:
		return len(s), nil
	case []uint32:
		return len(s), nil
	case []uint64:
		return len(s), nil
	case []float32:
		return len(s), nil
	case []float64:
		return len(s), nil
	case []string:
		return len(s), nil
	case [][]byte:
		return len(s), nil
	case []time.Time:
		return len(s), nil
	case []decimal128.Num:
		return len(s), nil
	}
	return 0, fmt.Errorf("%w: a column of %T", ErrSchema, col)
}

// appendSlice appends rows [off, off+k) of col to b.
func appendSlice(b column.Builder, col any, off, k int) error {
	if cv, ok := col.(Column); ok {
		at := b.Len()
		if err := appendSlice(b, cv.Values, off, k); err != nil {
			return err
		}
		if cv.Valid != nil {
			for i, ok := range cv.Valid[off : off+k] {
				if !ok {
					setNull(b, at+i)
				}
			}
		}
		return nil
	}
	if f, ok := b.(*column.Fixed); ok {
		if done := copyFixed(f, col, off, k); done {
			return nil
		}
	}
	return eachValue(col, off, k, func(i int, v any) error {
		if err := appendValue(b, v); err != nil {
			return &sliceError{row: i, err: err}
		}
		return nil
	})
}

func setNull(b column.Builder, i int) {
	switch b := b.(type) {
	case *column.Fixed:
		b.SetNull(i)
	case *column.Bool:
		b.SetNull(i)
	case *column.Binary[int32]:
		b.SetNull(i)
	case *column.Binary[int64]:
		b.SetNull(i)
	}
}

// copyFixed is the block copy of a Go slice whose element is the
// column's storage type.
func copyFixed(f *column.Fixed, col any, off, k int) bool {
	var raw []byte
	switch id := f.Type().ID(); s := col.(type) {
	case []int64:
		if id == arrow.INT64 || id == arrow.TIMESTAMP || id == arrow.DATE64 || id == arrow.TIME64 || id == arrow.DURATION {
			raw = arrow.Int64Traits.CastToBytes(s[off : off+k])
		}
	case []int32:
		if id == arrow.INT32 || id == arrow.DATE32 || id == arrow.TIME32 {
			raw = arrow.Int32Traits.CastToBytes(s[off : off+k])
		}
	case []int16:
		if id == arrow.INT16 {
			raw = arrow.Int16Traits.CastToBytes(s[off : off+k])
		}
	case []int8:
		if id == arrow.INT8 {
			raw = arrow.Int8Traits.CastToBytes(s[off : off+k])
		}
	case []uint64:
		if id == arrow.UINT64 {
			raw = arrow.Uint64Traits.CastToBytes(s[off : off+k])
		}
	case []uint32:
		if id == arrow.UINT32 {
			raw = arrow.Uint32Traits.CastToBytes(s[off : off+k])
		}
	case []uint16:
		if id == arrow.UINT16 {
			raw = arrow.Uint16Traits.CastToBytes(s[off : off+k])
		}
	case []uint8:
		if id == arrow.UINT8 {
			raw = s[off : off+k]
		}
	case []float64:
		if id == arrow.FLOAT64 {
			raw = arrow.Float64Traits.CastToBytes(s[off : off+k])
		}
	case []float32:
		if id == arrow.FLOAT32 {
			raw = arrow.Float32Traits.CastToBytes(s[off : off+k])
		}
	}
	if raw == nil && k > 0 {
		return false
	}
	f.Reserve(k)
	copy(f.Raw()[f.Len()*f.Width():], raw)
	f.Advance(k)
	return true
}

// eachValue calls f with rows [off, off+k) of col boxed.
func eachValue(col any, off, k int, f func(i int, v any) error) error {
	var err error
	each := func(n int, get func(i int) any) {
		for i := range n {
			if err = f(i, get(off+i)); err != nil {
				return
			}
		}
	}
	switch s := col.(type) {
	case []any:
		each(k, func(i int) any { return s[i] })
	case []bool:
		each(k, func(i int) any { return s[i] })
	case []int:
		each(k, func(i int) any { return s[i] })
	case []int8:
		each(k, func(i int) any { return s[i] })
	case []int16:
		each(k, func(i int) any { return s[i] })
	case []int32:
		each(k, func(i int) any { return s[i] })
	case []int64:
		each(k, func(i int) any { return s[i] })
	case []uint8:
		each(k, func(i int) any { return s[i] })
	case []uint16:
		each(k, func(i int) any { return s[i] })
	case []uint32:
		each(k, func(i int) any { return s[i] })
	case []uint64:
		each(k, func(i int) any { return s[i] })
	case []float32:
		each(k, func(i int) any { return s[i] })
	case []float64:
		each(k, func(i int) any { return s[i] })
	case []string:
		each(k, func(i int) any { return s[i] })
	case [][]byte:
		each(k, func(i int) any { return s[i] })
	case []time.Time:
		each(k, func(i int) any { return s[i] })
	case []decimal128.Num:
		each(k, func(i int) any { return s[i] })
	default:
		return fmt.Errorf("%w: a column of %T", ErrSchema, col)
	}
	return err
}

func typeError(v any, dt arrow.DataType) error {
	return fmt.Errorf("%w: a %T for a %s column", ErrSchema, v, dt)
}

// appendValue appends one Go value to b.
func appendValue(b column.Builder, v any) error {
	switch b := b.(type) {
	case *column.Null:
		if v != nil {
			return typeError(v, b.Type())
		}
		b.AppendNulls(1)
		return nil
	case *column.Bool:
		switch x := v.(type) {
		case nil:
			b.AppendNull()
		case bool:
			b.Append(x)
		default:
			return typeError(v, b.Type())
		}
		return nil
	case *column.Binary[int32]:
		return appendBinary(b, v)
	case *column.Binary[int64]:
		return appendBinary(b, v)
	case *column.Fixed:
		if v == nil {
			b.AppendNull()
			return nil
		}
		return appendFixed(b, v)
	}
	return fmt.Errorf("%w: rows into a %s column (append record batches instead)", ErrUnsupported, b.Type())
}

func appendBinary[O column.Offset](b *column.Binary[O], v any) error {
	switch x := v.(type) {
	case nil:
		b.AppendNull()
		return nil
	case string:
		return b.AppendString(x)
	case []byte:
		return b.Append(x)
	}
	return typeError(v, b.Type())
}

// toInt64 converts any Go integer.
func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int:
		return int64(x), true
	case int8:
		return int64(x), true
	case int16:
		return int64(x), true
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case uint:
		return int64(x), x <= math.MaxInt64
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		return int64(x), x <= math.MaxInt64
	}
	return 0, false
}

func rangeError(v any, dt arrow.DataType) error {
	return fmt.Errorf("%w: %v does not fit %s", ErrRange, v, dt)
}

func appendFixed(b *column.Fixed, v any) error {
	dt := b.Type()
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
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
		switch b.Width() {
		case 1:
			column.Append(b, int8(i))
		case 2:
			column.Append(b, int16(i))
		case 4:
			column.Append(b, int32(i))
		default:
			column.Append(b, i)
		}
	case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
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
		switch b.Width() {
		case 1:
			column.Append(b, uint8(u))
		case 2:
			column.Append(b, uint16(u))
		case 4:
			column.Append(b, uint32(u))
		default:
			column.Append(b, u)
		}
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
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
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128:
		return appendDecimal(b, v)
	case arrow.DECIMAL256:
		x, ok := v.(decimal256.Num)
		if !ok {
			return typeError(v, dt)
		}
		if !x.FitsInPrecision(dt.(*arrow.Decimal256Type).Precision) {
			return rangeError(x, dt)
		}
		column.Append(b, x)
	case arrow.DATE32:
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
	case arrow.DATE64:
		switch x := v.(type) {
		case time.Time:
			column.Append(b, arrow.Date64FromTime(x))
		case arrow.Date64:
			column.Append(b, x)
		default:
			return typeError(v, dt)
		}
	case arrow.TIMESTAMP:
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
	case arrow.TIME32:
		x, ok := v.(arrow.Time32)
		if !ok {
			return typeError(v, dt)
		}
		column.Append(b, x)
	case arrow.TIME64:
		x, ok := v.(arrow.Time64)
		if !ok {
			return typeError(v, dt)
		}
		column.Append(b, x)
	case arrow.DURATION:
		switch x := v.(type) {
		case arrow.Duration:
			column.Append(b, x)
		case time.Duration:
			column.Append(b, int64(x)/int64(dt.(*arrow.DurationType).Unit.Multiplier()))
		default:
			return typeError(v, dt)
		}
	case arrow.FIXED_SIZE_BINARY:
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
	default:
		return typeError(v, dt)
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
