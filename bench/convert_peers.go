package bench

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/quiverdb/quiver/internal/datagen"
)

// The peers of the per-type cells: arrow-go's builders fed value by
// value (the row path), and fed Go slices with AppendValues (their bulk
// path, given slices a caller already holds).

// perValueLoop returns a loop appending every row of col to b, typed for
// the column so that the loop pays for Append and nothing else.
func perValueLoop(b array.Builder, col arrow.Array) func() {
	n := col.Len()
	switch a := col.(type) {
	case *array.Int32:
		bb := b.(*array.Int32Builder)
		return func() {
			for i := range n {
				if a.IsNull(i) {
					bb.AppendNull()
				} else {
					bb.Append(a.Value(i))
				}
			}
		}
	case *array.Int64:
		bb := b.(*array.Int64Builder)
		return func() {
			for i := range n {
				if a.IsNull(i) {
					bb.AppendNull()
				} else {
					bb.Append(a.Value(i))
				}
			}
		}
	case *array.Float64:
		bb := b.(*array.Float64Builder)
		return func() {
			for i := range n {
				if a.IsNull(i) {
					bb.AppendNull()
				} else {
					bb.Append(a.Value(i))
				}
			}
		}
	case *array.Date32:
		bb := b.(*array.Date32Builder)
		return func() {
			for i := range n {
				if a.IsNull(i) {
					bb.AppendNull()
				} else {
					bb.Append(a.Value(i))
				}
			}
		}
	case *array.Boolean:
		bb := b.(*array.BooleanBuilder)
		return func() {
			for i := range n {
				if a.IsNull(i) {
					bb.AppendNull()
				} else {
					bb.Append(a.Value(i))
				}
			}
		}
	case *array.Decimal128:
		bb := b.(*array.Decimal128Builder)
		return func() {
			for i := range n {
				if a.IsNull(i) {
					bb.AppendNull()
				} else {
					bb.Append(a.Value(i))
				}
			}
		}
	case *array.String:
		bb := b.(*array.StringBuilder)
		return func() {
			for i := range n {
				if a.IsNull(i) {
					bb.AppendNull()
				} else {
					bb.Append(a.Value(i))
				}
			}
		}
	case *array.Dictionary:
		switch dv := a.Dictionary().(type) {
		case *array.Int32:
			bb := b.(*array.Int32Builder)
			return func() {
				for i := range n {
					if a.IsNull(i) {
						bb.AppendNull()
					} else {
						bb.Append(dv.Value(a.GetValueIndex(i)))
					}
				}
			}
		case *array.String:
			bb := b.(*array.StringBuilder)
			return func() {
				for i := range n {
					if a.IsNull(i) {
						bb.AppendNull()
					} else {
						bb.Append(dv.Value(a.GetValueIndex(i)))
					}
				}
			}
		}
	}
	// Nested types: the recursive row path.
	return func() {
		for i := range n {
			datagen.Append(b, col, i)
		}
	}
}

// goSlices returns col's values as a Go slice (dictionaries decoded)
// and its validity, or nil for types without AppendValues.
func goSlices(col arrow.Array) (any, []bool) {
	n := col.Len()
	valid := make([]bool, n)
	for i := range n {
		valid[i] = col.IsValid(i)
	}
	switch a := col.(type) {
	case *array.Int32:
		return append([]int32(nil), a.Int32Values()...), valid
	case *array.Int64:
		return append([]int64(nil), a.Int64Values()...), valid
	case *array.Float64:
		return append([]float64(nil), a.Float64Values()...), valid
	case *array.Date32:
		return append([]arrow.Date32(nil), a.Date32Values()...), valid
	case *array.Boolean:
		v := make([]bool, n)
		for i := range n {
			v[i] = a.Value(i)
		}
		return v, valid
	case *array.Decimal128:
		v := make([]decimal128.Num, n)
		for i := range n {
			v[i] = a.Value(i)
		}
		return v, valid
	case *array.String:
		v := make([]string, n)
		for i := range n {
			v[i] = a.Value(i)
		}
		return v, valid
	case *array.Dictionary:
		switch dv := a.Dictionary().(type) {
		case *array.Int32:
			v := make([]int32, n)
			for i := range n {
				if valid[i] {
					v[i] = dv.Value(a.GetValueIndex(i))
				}
			}
			return v, valid
		case *array.String:
			v := make([]string, n)
			for i := range n {
				if valid[i] {
					v[i] = dv.Value(a.GetValueIndex(i))
				}
			}
			return v, valid
		}
	}
	return nil, nil
}

// appendValues is the builder's bulk append of one batch of slices.
func appendValues(b array.Builder, vals any, valid []bool) {
	switch v := vals.(type) {
	case []int32:
		b.(*array.Int32Builder).AppendValues(v, valid)
	case []int64:
		b.(*array.Int64Builder).AppendValues(v, valid)
	case []float64:
		b.(*array.Float64Builder).AppendValues(v, valid)
	case []arrow.Date32:
		b.(*array.Date32Builder).AppendValues(v, valid)
	case []bool:
		b.(*array.BooleanBuilder).AppendValues(v, valid)
	case []decimal128.Num:
		b.(*array.Decimal128Builder).AppendValues(v, valid)
	case []string:
		b.(*array.StringBuilder).AppendValues(v, valid)
	}
}
