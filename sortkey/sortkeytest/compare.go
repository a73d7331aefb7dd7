// Package sortkeytest holds what the tests and benchmarks of sort keys
// share: a straightforward column-by-column comparator (the oracle the
// normalized keys are checked against, and the column-wise peer they are
// measured against) and random sort-key columns with duplicates, NULLs and
// the edge values of every type.
package sortkeytest

import (
	"bytes"
	"cmp"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/sortkey"
)

// Comparator returns a function ordering row i of x against row j of y
// under the fields, one column at a time, the way an engine without
// normalized keys does: a closure per column over its typed values, NULLs
// placed first or last, DESC negating the value comparison. x and y hold
// the same types (different batches of one stream, or the same batch).
func Comparator(x, y []arrow.Array, fields []sortkey.SortField) (func(i, j int) int, error) {
	if len(x) != len(fields) || len(y) != len(fields) {
		return nil, fmt.Errorf("sortkeytest: %d and %d columns for %d fields", len(x), len(y), len(fields))
	}
	cmps := make([]func(i, j int) int, len(fields))
	for k, f := range fields {
		c, err := valueComparator(x[k], y[k])
		if err != nil {
			return nil, fmt.Errorf("sortkeytest: field %d: %w", k, err)
		}
		cx, cy, desc, nullsFirst := x[k], y[k], f.Desc, f.NullsFirst
		cmps[k] = func(i, j int) int {
			ni, nj := isNull(cx, i), isNull(cy, j)
			switch {
			case ni && nj:
				return 0
			case ni != nj:
				if ni == nullsFirst {
					return -1
				}
				return 1
			}
			if desc {
				return -c(i, j)
			}
			return c(i, j)
		}
	}
	if len(cmps) == 1 {
		return cmps[0], nil
	}
	return func(i, j int) int {
		for _, c := range cmps {
			if r := c(i, j); r != 0 {
				return r
			}
		}
		return 0
	}, nil
}

// isNull counts a dictionary row whose value is NULL as NULL, as SQL does.
func isNull(a arrow.Array, i int) bool {
	if a.IsNull(i) {
		return true
	}
	if d, ok := a.(*array.Dictionary); ok {
		return d.Dictionary().IsNull(d.GetValueIndex(i))
	}
	return false
}

// valueComparator compares non-null row i of x with non-null row j of y.
func valueComparator(x, y arrow.Array) (func(i, j int) int, error) {
	if c, ok, err := nestedComparator(x, y); ok {
		return c, err
	}
	switch a := x.(type) {
	case *array.Null:
		return func(int, int) int { return 0 }, nil
	case *array.Boolean:
		b := y.(*array.Boolean)
		return func(i, j int) int { return cmp.Compare(b2i(a.Value(i)), b2i(b.Value(j))) }, nil
	case *array.Int8:
		return ordered(a.Int8Values(), y.(*array.Int8).Int8Values()), nil
	case *array.Int16:
		return ordered(a.Int16Values(), y.(*array.Int16).Int16Values()), nil
	case *array.Int32:
		return ordered(a.Int32Values(), y.(*array.Int32).Int32Values()), nil
	case *array.Int64:
		return ordered(a.Int64Values(), y.(*array.Int64).Int64Values()), nil
	case *array.Uint8:
		return ordered(a.Uint8Values(), y.(*array.Uint8).Uint8Values()), nil
	case *array.Uint16:
		return ordered(a.Uint16Values(), y.(*array.Uint16).Uint16Values()), nil
	case *array.Uint32:
		return ordered(a.Uint32Values(), y.(*array.Uint32).Uint32Values()), nil
	case *array.Uint64:
		return ordered(a.Uint64Values(), y.(*array.Uint64).Uint64Values()), nil
	case *array.Date32:
		return ordered(a.Date32Values(), y.(*array.Date32).Date32Values()), nil
	case *array.Date64:
		return ordered(a.Date64Values(), y.(*array.Date64).Date64Values()), nil
	case *array.Time32:
		return ordered(a.Time32Values(), y.(*array.Time32).Time32Values()), nil
	case *array.Time64:
		return ordered(a.Time64Values(), y.(*array.Time64).Time64Values()), nil
	case *array.Timestamp:
		return ordered(a.TimestampValues(), y.(*array.Timestamp).TimestampValues()), nil
	case *array.Duration:
		return ordered(a.DurationValues(), y.(*array.Duration).DurationValues()), nil
	case *array.Decimal32:
		return ordered(a.Values(), y.(*array.Decimal32).Values()), nil
	case *array.Decimal64:
		return ordered(a.Values(), y.(*array.Decimal64).Values()), nil
	case *array.Decimal128:
		b := y.(*array.Decimal128)
		return func(i, j int) int { return a.Value(i).Cmp(b.Value(j)) }, nil
	case *array.Decimal256:
		b := y.(*array.Decimal256)
		return func(i, j int) int { return a.Value(i).Cmp(b.Value(j)) }, nil
	case *array.Float16:
		b := y.(*array.Float16)
		return func(i, j int) int { return CompareFloat(float64(a.Value(i).Float32()), float64(b.Value(j).Float32())) }, nil
	case *array.Float32:
		u, v := a.Float32Values(), y.(*array.Float32).Float32Values()
		return func(i, j int) int { return CompareFloat(float64(u[i]), float64(v[j])) }, nil
	case *array.Float64:
		u, v := a.Float64Values(), y.(*array.Float64).Float64Values()
		return func(i, j int) int { return CompareFloat(u[i], v[j]) }, nil
	case *array.String:
		b := y.(*array.String)
		return func(i, j int) int { return cmp.Compare(a.Value(i), b.Value(j)) }, nil
	case *array.LargeString:
		b := y.(*array.LargeString)
		return func(i, j int) int { return cmp.Compare(a.Value(i), b.Value(j)) }, nil
	case *array.StringView:
		b := y.(*array.StringView)
		return func(i, j int) int { return cmp.Compare(a.Value(i), b.Value(j)) }, nil
	case *array.Binary:
		b := y.(*array.Binary)
		return func(i, j int) int { return bytes.Compare(a.Value(i), b.Value(j)) }, nil
	case *array.LargeBinary:
		b := y.(*array.LargeBinary)
		return func(i, j int) int { return bytes.Compare(a.Value(i), b.Value(j)) }, nil
	case *array.BinaryView:
		b := y.(*array.BinaryView)
		return func(i, j int) int { return bytes.Compare(a.Value(i), b.Value(j)) }, nil
	case *array.FixedSizeBinary:
		b := y.(*array.FixedSizeBinary)
		return func(i, j int) int { return bytes.Compare(a.Value(i), b.Value(j)) }, nil
	case *array.Dictionary:
		b := y.(*array.Dictionary)
		c, err := valueComparator(a.Dictionary(), b.Dictionary())
		if err != nil {
			return nil, err
		}
		return func(i, j int) int { return c(a.GetValueIndex(i), b.GetValueIndex(j)) }, nil
	}
	return nil, fmt.Errorf("no comparator for %s", x.DataType())
}

func ordered[T cmp.Ordered](u, v []T) func(i, j int) int {
	return func(i, j int) int { return cmp.Compare(u[i], v[j]) }
}

// CompareFloat is SQL's float order: -0.0 equals 0.0, NaNs equal each
// other and sort after +Inf.
func CompareFloat(a, b float64) int {
	an, bn := math.IsNaN(a), math.IsNaN(b)
	switch {
	case an || bn:
		return cmp.Compare(b2i(an), b2i(bn))
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
