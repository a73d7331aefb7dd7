package convert

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/quiverdb/quiver/convert/internal/column"
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
