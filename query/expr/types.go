package expr

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The engine types. Every Expr has one of these (or arrow.Null for an
// untyped NULL literal), and every column handed to Eval is one of these.
var (
	typBool    = arrow.FixedWidthTypes.Boolean
	typInt64   = arrow.PrimitiveTypes.Int64
	typFloat64 = arrow.PrimitiveTypes.Float64
	typString  = arrow.BinaryTypes.String
	typDate32  = arrow.FixedWidthTypes.Date32
	typNull    = arrow.Null
	// typTimestamp and typTimestampTZ are TIMESTAMP and TIMESTAMP WITH
	// TIME ZONE: microseconds since 1970-01-01 00:00:00 (UTC for the
	// latter), as DuckDB keeps them (timestamp.go).
	typTimestamp   = &arrow.TimestampType{Unit: arrow.Microsecond}
	typTimestampTZ = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	// typUint64 is the engine type of uint64 columns: 20 digits hold
	// 2^64-1 = 18446744073709551615.
	typUint64 = decimalType(20, 0)
)

// maxPrecision is the largest decimal precision (digits in a 128-bit
// integer).
const maxPrecision = 38

func decimalType(p, s int32) *arrow.Decimal128Type {
	return &arrow.Decimal128Type{Precision: p, Scale: s}
}

// isEngine reports whether dt is an engine type.
func isEngine(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.BOOL, arrow.INT64, arrow.FLOAT64, arrow.STRING, arrow.DATE32, arrow.NULL, arrow.BINARY:
		return true
	case arrow.DECIMAL128:
		d := dt.(*arrow.Decimal128Type)
		return d.Precision >= 1 && d.Precision <= maxPrecision && d.Scale >= 0 && d.Scale <= d.Precision
	case arrow.TIMESTAMP:
		return arrow.TypeEqual(dt, typTimestamp) || arrow.TypeEqual(dt, typTimestampTZ)
	case arrow.TIME64:
		return arrow.TypeEqual(dt, typTime)
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return true
	}
	return false
}

// EngineType maps an input column type to its engine type: signed and
// unsigned integers to Int64, except uint64 to Decimal128(20, 0), which
// holds every value up to 2^64-1 (issue 14: values past 2^63-1 made every
// expression on the column fail; DuckDB sums a UBIGINT into a HUGEINT as
// sum over decimal(20,0) gives decimal(38,0)),
// float32/float64 to Float64, decimal32/64/128 to Decimal128 of the same
// precision and scale, decimal256 too up to 38 digits and to Float64
// past them (decimal256.go), utf8/large_utf8 to String, date32/date64 to Date32,
// bool to Boolean, null to Null, timestamps of any unit to microseconds
// (TIMESTAMP, or TIMESTAMP WITH TIME ZONE in UTC when the column has a
// zone), time32/time64 to TIME (microseconds: time.go), intervals and
// durations to INTERVAL (month_day_nano: interval.go), binary,
// large_binary, binary_view and fixed_size_binary to BLOB and
// string_view to VARCHAR (binary.go), and a dictionary of any of those to
// its values' engine type (dictionary.go). ok is false for any other type.
func EngineType(dt arrow.DataType) (arrow.DataType, bool) {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32:
		return typInt64, true
	case arrow.UINT64:
		return typUint64, true
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
		return typFloat64, true
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128:
		d := dt.(arrow.DecimalType)
		out := decimalType(d.GetPrecision(), d.GetScale())
		return out, isEngine(out)
	case arrow.DECIMAL256:
		out := decimal256Engine(dt.(*arrow.Decimal256Type)) // decimal256.go
		return out, out.ID() == arrow.FLOAT64 || isEngine(out)
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return typString, true
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		return typBinary, true
	case arrow.DATE32, arrow.DATE64:
		return typDate32, true
	case arrow.BOOL:
		return typBool, true
	case arrow.NULL:
		return typNull, true
	case arrow.TIMESTAMP:
		if dt.(*arrow.TimestampType).TimeZone != "" {
			return typTimestampTZ, true
		}
		return typTimestamp, true
	case arrow.TIME32, arrow.TIME64:
		return typTime, true
	case arrow.INTERVAL_MONTH_DAY_NANO, arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.DURATION:
		return typInterval, true
	case arrow.DICTIONARY: // read as its values (dictionary.go)
		if vt := dt.(*arrow.DictionaryType).ValueType; !IsNested(vt) {
			return EngineType(vt)
		}
	case arrow.RUN_END_ENCODED: // read as its values (ree.go)
		if vt := reeValueType(dt); !IsNested(vt) && vt.ID() != arrow.RUN_END_ENCODED {
			return EngineType(vt)
		}
	}
	return nil, false
}

// ToEngine converts a column to its engine type. A column already of its
// engine type is retained and returned as is. Small integers and float32
// widen in one loop of our own (widen); uint64 (to decimal(20,0)),
// decimal32/64 and date64 (days rounded toward
// minus infinity) use our own too, since arrow-go's cast rejects or lacks
// them; large_utf8 goes through arrow-go's cast.
func ToEngine(ctx context.Context, mem memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	to, ok := EngineType(arr.DataType())
	if !ok {
		return nil, errorf(ErrType, "column type %s has no engine type", arr.DataType())
	}
	if arrow.TypeEqual(arr.DataType(), to) {
		arr.Retain()
		return arr, nil
	}
	switch a := arr.(type) {
	case *array.Int8:
		return widen[int8, int64](mem, typInt64, arr, a.Int8Values()), nil
	case *array.Int16:
		return widen[int16, int64](mem, typInt64, arr, a.Int16Values()), nil
	case *array.Int32:
		return widen[int32, int64](mem, typInt64, arr, a.Int32Values()), nil
	case *array.Uint8:
		return widen[uint8, int64](mem, typInt64, arr, a.Uint8Values()), nil
	case *array.Uint16:
		return widen[uint16, int64](mem, typInt64, arr, a.Uint16Values()), nil
	case *array.Uint32:
		return widen[uint32, int64](mem, typInt64, arr, a.Uint32Values()), nil
	case *array.Float32:
		return widen[float32, float64](mem, typFloat64, arr, a.Float32Values()), nil
	case *array.Float16:
		return mapFixed(mem, typFloat64, arr, a.Values(), func(v float16.Num) (float64, error) { return float64(v.Float32()), nil })
	case *array.Uint64:
		return mapFixed(mem, typUint64, arr, a.Uint64Values(), func(v uint64) (decimal128.Num, error) {
			return decimal128.FromU64(v), nil
		})
	case *array.Decimal32:
		return mapFixed(mem, to, arr, a.Values(), func(v decimal.Decimal32) (decimal128.Num, error) {
			return decimal128.FromI64(int64(v)), nil
		})
	case *array.Decimal64:
		return mapFixed(mem, to, arr, a.Values(), func(v decimal.Decimal64) (decimal128.Num, error) {
			return decimal128.FromI64(int64(v)), nil
		})
	case *array.Decimal256:
		return decimal256ToEngine(mem, a, to)
	case *array.Timestamp:
		return timestampToEngine(mem, a, to)
	case *array.Time32, *array.Time64:
		return timeToEngine(mem, arr)
	case *array.MonthInterval, *array.DayTimeInterval, *array.Duration:
		return intervalToEngine(mem, arr)
	case *array.LargeBinary, *array.BinaryView, *array.FixedSizeBinary, *array.StringView:
		return bytesToEngine(mem, arr) // binary.go
	case *array.Dictionary:
		return dictionaryToEngine(ctx, mem, a) // dictionary.go
	case *array.RunEndEncoded:
		return reeToEngine(ctx, mem, a) // ree.go
	case *array.Date64:
		return mapFixed(mem, typDate32, arr, a.Date64Values(), func(v arrow.Date64) (arrow.Date32, error) {
			d := floorDiv(int64(v), 86400000)
			if d < math.MinInt32 || d > math.MaxInt32 {
				return 0, errorf(ErrOverflow, "date64 value %d out of range for date32", v)
			}
			return arrow.Date32(d), nil
		})
	}
	out, err := compute.CastArray(compute.WithAllocator(ctx, mem), arr, compute.SafeCastOptions(to))
	if err != nil {
		return nil, errorf(ErrInvalidCast, "converting %s to %s: %v", arr.DataType(), to, err)
	}
	return out, nil
}

// widen converts a column of a narrower number type to int64 or float64.
// No value can fail, so the loop runs over every row, NULL or not (what
// sits under a NULL is converted and stays hidden), with no branch, and the
// validity bitmap is shared rather than copied when the column is not
// sliced. It is what a scan of int32 keys pays per expression column, so
// it avoids arrow-go's cast and its kernel dispatch.
func widen[I int8 | int16 | int32 | uint8 | uint16 | uint32 | float32, O int64 | float64](mem memory.Allocator, typ arrow.DataType, in arrow.Array, vals []I) arrow.Array {
	n := in.Len()
	validity, nulls := combineValidity(mem, n, in)
	buf, out := newValues[O](mem, n)
	out = out[:len(vals)]
	for i, x := range vals {
		out[i] = O(x)
	}
	return makeArray(typ, n, validity, nulls, buf)
}

// floorDiv is a / b rounded toward minus infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// sqlType is the SQL spelling of an engine type, as CAST prints it.
func sqlType(dt arrow.DataType) string {
	switch dt.ID() {
	case arrow.BOOL:
		return "BOOLEAN"
	case arrow.INT64:
		return "BIGINT"
	case arrow.FLOAT64:
		return "DOUBLE"
	case arrow.STRING:
		return "VARCHAR"
	case arrow.DATE32:
		return "DATE"
	case arrow.TIMESTAMP:
		if dt.(*arrow.TimestampType).TimeZone != "" {
			return "TIMESTAMP WITH TIME ZONE"
		}
		return "TIMESTAMP"
	case arrow.TIME64:
		return "TIME"
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return "INTERVAL"
	case arrow.BINARY:
		return "BLOB"
	case arrow.DECIMAL128:
		d := dt.(*arrow.Decimal128Type)
		return fmt.Sprintf("DECIMAL(%d,%d)", d.Precision, d.Scale)
	case arrow.NULL:
		return "NULL"
	}
	return dt.String()
}
