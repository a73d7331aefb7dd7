package expr

import (
	"context"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A stored type is a column's type in its table; its engine type is what
// expressions compute on (EngineType). The planner hands a column that a
// query only passes through on in its stored type, and converts columns
// to engine types only for the expressions that read them. This file is
// the way back: a GROUP BY key is grouped on its engine type and returned
// in its stored type.

// FromEngine converts arr, of an engine type, to dt, a type whose engine
// type that is: the inverse of ToEngine, exact for every value ToEngine
// could have produced from dt. Other values: an integer or decimal out of
// dt's range is ErrOverflow; a float64 is rounded to the nearest float32
// (±Inf past its range), as a CAST would. An arr already of type dt is
// retained and returned as is.
func FromEngine(ctx context.Context, mem memory.Allocator, arr arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	if arrow.TypeEqual(arr.DataType(), dt) {
		arr.Retain()
		return arr, nil
	}
	if d, ok := dt.(*arrow.DictionaryType); ok {
		if et, ok := EngineType(d); ok && arrow.TypeEqual(et, arr.DataType()) {
			return dictionaryFromEngine(ctx, mem, arr, d) // dictionary.go
		}
	}
	if et, ok := EngineType(dt); !ok || !arrow.TypeEqual(et, arr.DataType()) {
		return nil, errorf(ErrType, "cannot store %s as %s", arr.DataType(), dt)
	}
	if d, ok := dt.(*arrow.Decimal256Type); ok {
		return decimal256FromEngine(mem, arr, d)
	}
	switch a := arr.(type) {
	case *array.Int64:
		return narrowInt(mem, dt, a)
	case *array.Float64:
		if dt.ID() == arrow.FLOAT16 {
			return mapFixed(mem, dt, arr, a.Float64Values(), func(v float64) (float16.Num, error) { return float16.New(float32(v)), nil })
		}
		return mapFixed(mem, dt, arr, a.Float64Values(), func(v float64) (float32, error) { return float32(v), nil })
	case *array.Decimal128:
		return narrowDecimal(mem, dt, a)
	case *array.Date32:
		return mapFixed(mem, dt, arr, a.Date32Values(), func(v arrow.Date32) (arrow.Date64, error) {
			return arrow.Date64(int64(v) * 86400000), nil
		})
	case *array.Timestamp:
		return timestampFromEngine(mem, a, dt)
	case *array.Time64:
		return timeFromEngine(mem, a, dt)
	case *array.MonthDayNanoInterval:
		return intervalFromEngine(mem, a, dt)
	case *array.Binary:
		if dt.ID() == arrow.LARGE_BINARY {
			break // arrow-go's cast below
		}
		return bytesFromEngine(mem, a, dt)
	case *array.String: // to large_utf8: wider offsets, same bytes
		if dt.ID() == arrow.STRING_VIEW {
			return bytesFromEngine(mem, a, dt)
		}
		out, err := compute.CastArray(compute.WithAllocator(ctx, mem), arr, compute.SafeCastOptions(dt))
		if err != nil {
			return nil, errorf(ErrInvalidCast, "converting %s to %s: %v", arr.DataType(), dt, err)
		}
		return out, nil
	}
	if dt.ID() == arrow.LARGE_BINARY {
		out, err := compute.CastArray(compute.WithAllocator(ctx, mem), arr, compute.SafeCastOptions(dt))
		if err != nil {
			return nil, errorf(ErrInvalidCast, "converting %s to %s: %v", arr.DataType(), dt, err)
		}
		return out, nil
	}
	return nil, errorf(ErrType, "cannot store %s as %s", arr.DataType(), dt)
}

// narrowInt converts int64 to a smaller or unsigned integer type, checking
// the range of every valid value.
func narrowInt(mem memory.Allocator, dt arrow.DataType, a *array.Int64) (arrow.Array, error) {
	vals := a.Int64Values()
	switch dt.ID() {
	case arrow.INT8:
		return mapFixed(mem, dt, a, vals, narrowTo[int8](dt, math.MinInt8, math.MaxInt8))
	case arrow.INT16:
		return mapFixed(mem, dt, a, vals, narrowTo[int16](dt, math.MinInt16, math.MaxInt16))
	case arrow.INT32:
		return mapFixed(mem, dt, a, vals, narrowTo[int32](dt, math.MinInt32, math.MaxInt32))
	case arrow.UINT8:
		return mapFixed(mem, dt, a, vals, narrowTo[uint8](dt, 0, math.MaxUint8))
	case arrow.UINT16:
		return mapFixed(mem, dt, a, vals, narrowTo[uint16](dt, 0, math.MaxUint16))
	case arrow.UINT32:
		return mapFixed(mem, dt, a, vals, narrowTo[uint32](dt, 0, math.MaxUint32))
	case arrow.UINT64:
		return mapFixed(mem, dt, a, vals, narrowTo[uint64](dt, 0, math.MaxInt64))
	}
	return nil, errorf(ErrType, "cannot store int64 as %s", dt)
}

func narrowTo[T int8 | int16 | int32 | uint8 | uint16 | uint32 | uint64](dt arrow.DataType, lo, hi int64) func(int64) (T, error) {
	return func(v int64) (T, error) {
		if v < lo || v > hi {
			return 0, errorf(ErrOverflow, "value %d out of range for %s", v, dt)
		}
		return T(v), nil
	}
}

// narrowDecimal converts decimal128 to decimal32 or decimal64 of the same
// precision and scale; a value with more digits than the precision is
// ErrOverflow (it cannot have come from the narrower type).
func narrowDecimal(mem memory.Allocator, dt arrow.DataType, a *array.Decimal128) (arrow.Array, error) {
	if dt.ID() == arrow.UINT64 { // its engine type is decimal(20,0)
		return mapFixed(mem, dt, a, a.Values(), func(v decimal128.Num) (uint64, error) {
			if v.HighBits() != 0 {
				return 0, errorf(ErrOverflow, "value %s out of range for %s", v.ToString(0), dt)
			}
			return v.LowBits(), nil
		})
	}
	p := dt.(arrow.DecimalType).GetPrecision()
	check := func(v decimal128.Num) error {
		if !v.FitsInPrecision(p) {
			return errorf(ErrOverflow, "value %s out of range for %s", v.ToString(dt.(arrow.DecimalType).GetScale()), dt)
		}
		return nil
	}
	switch dt.ID() {
	case arrow.DECIMAL32:
		return mapFixed(mem, dt, a, a.Values(), func(v decimal128.Num) (decimal.Decimal32, error) {
			return decimal.Decimal32(v.LowBits()), check(v)
		})
	case arrow.DECIMAL64:
		return mapFixed(mem, dt, a, a.Values(), func(v decimal128.Num) (decimal.Decimal64, error) {
			return decimal.Decimal64(v.LowBits()), check(v)
		})
	}
	return nil, errorf(ErrType, "cannot store %s as %s", a.DataType(), dt)
}

// storedExpr is AsStored's expression.
type storedExpr struct {
	e   Expr
	typ arrow.DataType
}

// AsStored returns e's values in the stored type dt (see FromEngine),
// whose engine type must be e's type. Its Type is dt, not an engine type:
// it is meant for a query's output columns, never as an operand of
// another expression. It reads as e in String. A dictionary type stores
// as its value type: a GROUP BY key of a dictionary column comes back as
// its values (its batches' dictionaries are gone once grouped).
func AsStored(e Expr, dt arrow.DataType) (Expr, error) {
	if d, ok := dt.(*arrow.DictionaryType); ok {
		dt = d.ValueType
	}
	et, ok := EngineType(dt)
	if !ok || !arrow.TypeEqual(et, e.Type()) {
		return nil, errorf(ErrType, "%s of type %s cannot be stored as %s", e, e.Type(), dt)
	}
	if arrow.TypeEqual(dt, e.Type()) {
		return e, nil
	}
	return &storedExpr{e: e, typ: dt}, nil
}

func (s *storedExpr) Type() arrow.DataType         { return s.typ }
func (s *storedExpr) String() string               { return text(s) }
func (s *storedExpr) writeText(b *strings.Builder) { writeExpr(b, s.e) }
func (s *storedExpr) children() []Expr             { return []Expr{s.e} }

func (s *storedExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	v, err := s.e.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	return FromEngine(ctx, mem, v, s.typ)
}
