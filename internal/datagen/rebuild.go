// Value-by-value rebuilds with arrow-go's builders: the row path the
// converter's bulk paths are checked against.

package datagen

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Rebuild appends rows [start, start+n) of arr value by value into a new
// array of arr's type (a dictionary's value type) with arrow-go's
// builders: the row path the bulk paths must equal.
func Rebuild(mem memory.Allocator, dt arrow.DataType, arr arrow.Array, start, n int) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for i := start; i < start+n; i++ {
		Append(b, arr, i)
	}
	return b.NewArray()
}

// Append appends row i of arr to b value by value.
func Append(bld array.Builder, arr arrow.Array, i int) {
	if arr.IsNull(i) {
		bld.AppendNull()
		return
	}
	switch a := arr.(type) {
	case *array.Dictionary:
		Append(bld, a.Dictionary(), a.GetValueIndex(i))
	case *array.Null:
		bld.AppendNull()
	case *array.Boolean:
		bld.(*array.BooleanBuilder).Append(a.Value(i))
	case *array.Int8:
		bld.(*array.Int8Builder).Append(a.Value(i))
	case *array.Int16:
		bld.(*array.Int16Builder).Append(a.Value(i))
	case *array.Int32:
		bld.(*array.Int32Builder).Append(a.Value(i))
	case *array.Int64:
		bld.(*array.Int64Builder).Append(a.Value(i))
	case *array.Uint8:
		bld.(*array.Uint8Builder).Append(a.Value(i))
	case *array.Uint16:
		bld.(*array.Uint16Builder).Append(a.Value(i))
	case *array.Uint32:
		bld.(*array.Uint32Builder).Append(a.Value(i))
	case *array.Uint64:
		bld.(*array.Uint64Builder).Append(a.Value(i))
	case *array.Float16:
		bld.(*array.Float16Builder).Append(a.Value(i))
	case *array.Float32:
		bld.(*array.Float32Builder).Append(a.Value(i))
	case *array.Float64:
		bld.(*array.Float64Builder).Append(a.Value(i))
	case *array.Decimal32:
		bld.(*array.Decimal32Builder).Append(a.Value(i))
	case *array.Decimal64:
		bld.(*array.Decimal64Builder).Append(a.Value(i))
	case *array.Decimal128:
		bld.(*array.Decimal128Builder).Append(a.Value(i))
	case *array.Decimal256:
		bld.(*array.Decimal256Builder).Append(a.Value(i))
	case *array.Date32:
		bld.(*array.Date32Builder).Append(a.Value(i))
	case *array.Date64:
		bld.(*array.Date64Builder).Append(a.Value(i))
	case *array.Time32:
		bld.(*array.Time32Builder).Append(a.Value(i))
	case *array.Time64:
		bld.(*array.Time64Builder).Append(a.Value(i))
	case *array.Timestamp:
		bld.(*array.TimestampBuilder).Append(a.Value(i))
	case *array.Duration:
		bld.(*array.DurationBuilder).Append(a.Value(i))
	case *array.MonthInterval:
		bld.(*array.MonthIntervalBuilder).Append(a.Value(i))
	case *array.DayTimeInterval:
		bld.(*array.DayTimeIntervalBuilder).Append(a.Value(i))
	case *array.MonthDayNanoInterval:
		bld.(*array.MonthDayNanoIntervalBuilder).Append(a.Value(i))
	case *array.FixedSizeBinary:
		bld.(*array.FixedSizeBinaryBuilder).Append(a.Value(i))
	case *array.String:
		bld.(*array.StringBuilder).Append(a.Value(i))
	case *array.LargeString:
		bld.(*array.LargeStringBuilder).Append(a.Value(i))
	case *array.Binary:
		bld.(*array.BinaryBuilder).Append(a.Value(i))
	case *array.LargeBinary:
		bld.(*array.BinaryBuilder).Append(a.Value(i))
	case *array.Map:
		b := bld.(*array.MapBuilder)
		b.Append(true)
		s, e := a.ValueOffsets(i)
		for j := s; j < e; j++ {
			Append(b.KeyBuilder(), a.Keys(), int(j))
			Append(b.ItemBuilder(), a.Items(), int(j))
		}
	case *array.List:
		b := bld.(*array.ListBuilder)
		b.Append(true)
		s, e := a.ValueOffsets(i)
		for j := s; j < e; j++ {
			Append(b.ValueBuilder(), a.ListValues(), int(j))
		}
	case *array.LargeList:
		b := bld.(*array.LargeListBuilder)
		b.Append(true)
		s, e := a.ValueOffsets(i)
		for j := s; j < e; j++ {
			Append(b.ValueBuilder(), a.ListValues(), int(j))
		}
	case *array.FixedSizeList:
		b := bld.(*array.FixedSizeListBuilder)
		b.Append(true)
		s, e := a.ValueOffsets(i)
		for j := s; j < e; j++ {
			Append(b.ValueBuilder(), a.ListValues(), int(j))
		}
	case *array.Struct:
		b := bld.(*array.StructBuilder)
		b.Append(true)
		for f := range a.NumField() {
			Append(b.FieldBuilder(f), a.Field(f), i)
		}
	default:
		panic(fmt.Sprintf("datagen: no row path for %T", arr))
	}
}
