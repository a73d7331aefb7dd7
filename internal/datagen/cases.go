// The column types of the converter's differential matrix.

package datagen

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// Case is one column type of the matrix.
type Case struct {
	Name string
	Type arrow.DataType
	// Dict says the type can also be fed dictionary-encoded.
	Dict bool
}

// Cases lists the types of the differential matrix: every fixed-width
// family, booleans, decimals, strings and binary, nested types, and
// nested types holding the others.
func Cases() []Case {
	flat := []Case{
		{"int8", arrow.PrimitiveTypes.Int8, true},
		{"int16", arrow.PrimitiveTypes.Int16, true},
		{"int32", arrow.PrimitiveTypes.Int32, true},
		{"int64", arrow.PrimitiveTypes.Int64, true},
		{"uint8", arrow.PrimitiveTypes.Uint8, true},
		{"uint16", arrow.PrimitiveTypes.Uint16, true},
		{"uint32", arrow.PrimitiveTypes.Uint32, true},
		{"uint64", arrow.PrimitiveTypes.Uint64, true},
		{"float16", arrow.FixedWidthTypes.Float16, true},
		{"float32", arrow.PrimitiveTypes.Float32, true},
		{"float64", arrow.PrimitiveTypes.Float64, true},
		{"decimal32(9,2)", &arrow.Decimal32Type{Precision: 9, Scale: 2}, true},
		{"decimal64(18,2)", &arrow.Decimal64Type{Precision: 18, Scale: 2}, true},
		{"decimal128(9,2)", &arrow.Decimal128Type{Precision: 9, Scale: 2}, true},
		{"decimal128(18,2)", &arrow.Decimal128Type{Precision: 18, Scale: 2}, true},
		{"decimal128(38,10)", &arrow.Decimal128Type{Precision: 38, Scale: 10}, true},
		{"decimal256(76,5)", &arrow.Decimal256Type{Precision: 76, Scale: 5}, true},
		{"date32", arrow.FixedWidthTypes.Date32, true},
		{"date64", arrow.FixedWidthTypes.Date64, true},
		{"time32", arrow.FixedWidthTypes.Time32ms, true},
		{"time64", arrow.FixedWidthTypes.Time64ns, true},
		{"timestamp", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, true},
		{"duration", arrow.FixedWidthTypes.Duration_ms, true},
		{"month_interval", arrow.FixedWidthTypes.MonthInterval, true},
		{"day_time_interval", arrow.FixedWidthTypes.DayTimeInterval, true},
		{"month_day_nano_interval", arrow.FixedWidthTypes.MonthDayNanoInterval, true},
		{"fixed_size_binary(5)", &arrow.FixedSizeBinaryType{ByteWidth: 5}, true},
		{"bool", arrow.FixedWidthTypes.Boolean, false},
		{"string", arrow.BinaryTypes.String, true},
		{"binary", arrow.BinaryTypes.Binary, true},
		{"large_string", arrow.BinaryTypes.LargeString, true},
		{"large_binary", arrow.BinaryTypes.LargeBinary, true},
		{"null", arrow.Null, false},
	}
	nested := []Case{
		{"list<int32>", arrow.ListOf(arrow.PrimitiveTypes.Int32), false},
		{"list<string>", arrow.ListOf(arrow.BinaryTypes.String), false},
		{"large_list<string>", arrow.LargeListOf(arrow.BinaryTypes.String), false},
		{"fixed_size_list<float32>[3]", arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Float32), false},
		{"struct<int32,int64,float64,date32>", arrow.StructOf(
			arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
			arrow.Field{Name: "t", Type: arrow.FixedWidthTypes.Date32, Nullable: true}), false},
		{"struct<string,bool,struct<int64,string>>", arrow.StructOf(
			arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
			arrow.Field{Name: "inner", Type: arrow.StructOf(
				arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
				arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true}), false},
		{"struct<list<int32>,decimal128(18,2)>", arrow.StructOf(
			arrow.Field{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
			arrow.Field{Name: "d", Type: &arrow.Decimal128Type{Precision: 18, Scale: 2}, Nullable: true}), false},
		{"map<string,string>", arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String), false},
		{"map<string,int32>", arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), false},
		{"list<struct<int32,string>>", arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true})), false},
		{"list<list<int16>>", arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int16)), false},
	}
	return append(flat, nested...)
}
