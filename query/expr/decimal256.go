package expr

import (
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// decimal256 columns (issue 15). DuckDB has no 256-bit decimal: its
// Arrow scan refuses decimal256 outright ("Unsupported Internal Arrow
// Type for Decimal"), and its Parquet reader reads a decimal of more
// than 38 digits as DOUBLE. Quiver computes on a decimal256(p ≤ 38, s)
// as the DECIMAL(p, s) it is — exact, the value fits 128 bits — and on
// a wider one as DOUBLE, as DuckDB's Parquet reader does: compared,
// sorted, summed and averaged to about 16 significant digits. Passed
// through, a decimal256 column keeps every digit; a GROUP BY key of
// more than 38 digits comes out as the DOUBLE it grouped on
// (query's hasTypedKey), not rounded back.

// decimal256Engine is the engine type of a decimal256(p, s).
func decimal256Engine(d *arrow.Decimal256Type) arrow.DataType {
	if d.Precision <= maxPrecision {
		return decimalType(d.Precision, d.Scale)
	}
	return typFloat64
}

// Decimal256Exact reports whether dt is a decimal256 whose engine type
// holds its values exactly (precision ≤ 38): a wider one computes as
// DOUBLE.
func Decimal256Exact(dt arrow.DataType) bool {
	d, ok := dt.(*arrow.Decimal256Type)
	return ok && d.Precision <= maxPrecision
}

// decimal256ToEngine converts a decimal256 column to its engine type: a
// value of at most 38 digits to decimal128 (ErrOverflow for one past 128
// bits, which a column of that precision cannot hold), a wider column to
// float64.
func decimal256ToEngine(mem memory.Allocator, a *array.Decimal256, to arrow.DataType) (arrow.Array, error) {
	scale := a.DataType().(*arrow.Decimal256Type).Scale
	if to.ID() == arrow.FLOAT64 {
		return mapFixed(mem, to, a, a.Values(), func(v decimal256.Num) (float64, error) { return decimal256Float(v, scale), nil })
	}
	return mapFixed(mem, to, a, a.Values(), func(v decimal256.Num) (decimal128.Num, error) {
		w := v.Array()
		hi := int64(w[1])
		ext := uint64(0)
		if hi < 0 {
			ext = math.MaxUint64
		}
		if w[2] != ext || w[3] != ext {
			return decimal128.Num{}, errorf(ErrOverflow, "decimal256 value %s does not fit %s", v.ToString(scale), to)
		}
		return decimal128.New(hi, w[0]), nil
	})
}

// decimal256FromEngine converts an engine array (decimal128 or float64)
// to the decimal256 type dt: exact from a decimal, rounded from a
// float64; a value past dt's precision is ErrOverflow.
func decimal256FromEngine(mem memory.Allocator, arr arrow.Array, dt *arrow.Decimal256Type) (arrow.Array, error) {
	switch a := arr.(type) {
	case *array.Decimal128:
		return mapFixed(mem, dt, a, a.Values(), func(v decimal128.Num) (decimal256.Num, error) { return decimal256.FromDecimal128(v), nil })
	case *array.Float64:
		return mapFixed(mem, dt, a, a.Float64Values(), func(v float64) (decimal256.Num, error) {
			n, err := decimal256.FromFloat64(v, dt.Precision, dt.Scale)
			if err != nil {
				return n, errorf(ErrOverflow, "%v does not fit %s: %v", v, dt, err)
			}
			return n, nil
		})
	}
	return nil, errorf(ErrType, "cannot store %s as %s", arr.DataType(), dt)
}

// decimal256Float is v / 10^scale rounded to the nearest float64, as
// DuckDB's Parquet reader rounds (arrow-go's ToFloat64 can miss by an
// ulp): one exact division when both sides are exact doubles, else
// strconv's correctly rounded parse of the decimal text.
func decimal256Float(v decimal256.Num, scale int32) float64 {
	w := v.Array()
	if w[1] == 0 && w[2] == 0 && w[3] == 0 && w[0] < 1<<53 && scale >= 0 && scale <= 22 {
		return float64(w[0]) / math.Pow10(int(scale))
	}
	if w[1] == math.MaxUint64 && w[2] == math.MaxUint64 && w[3] == math.MaxUint64 && -int64(w[0]) > 0 && -int64(w[0]) < 1<<53 && scale >= 0 && scale <= 22 {
		return -float64(-int64(w[0])) / math.Pow10(int(scale))
	}
	f, _ := strconv.ParseFloat(v.ToString(scale), 64) // ±Inf past float64's range, as a CAST would
	return f
}
