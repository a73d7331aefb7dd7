package expr

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestEngineType(t *testing.T) {
	for _, tc := range []struct {
		in   arrow.DataType
		want string // "" when there is none
	}{
		{arrow.PrimitiveTypes.Int8, "int64"},
		{arrow.PrimitiveTypes.Int16, "int64"},
		{arrow.PrimitiveTypes.Int32, "int64"},
		{arrow.PrimitiveTypes.Int64, "int64"},
		{arrow.PrimitiveTypes.Uint8, "int64"},
		{arrow.PrimitiveTypes.Uint16, "int64"},
		{arrow.PrimitiveTypes.Uint32, "int64"},
		{arrow.PrimitiveTypes.Uint64, "decimal(20, 0)"},
		{arrow.PrimitiveTypes.Float32, "float64"},
		{arrow.FixedWidthTypes.Float16, "float64"},
		{arrow.PrimitiveTypes.Float64, "float64"},
		{&arrow.Decimal32Type{Precision: 7, Scale: 2}, "decimal(7, 2)"},
		{&arrow.Decimal64Type{Precision: 15, Scale: 2}, "decimal(15, 2)"},
		{&arrow.Decimal128Type{Precision: 38, Scale: 10}, "decimal(38, 10)"},
		{&arrow.Decimal128Type{Precision: 10, Scale: -2}, ""},
		{&arrow.Decimal256Type{Precision: 38, Scale: 4}, "decimal(38, 4)"},
		{&arrow.Decimal256Type{Precision: 40, Scale: 2}, "float64"}, // DuckDB's Parquet reader's DOUBLE
		{arrow.BinaryTypes.String, "utf8"},
		{arrow.BinaryTypes.LargeString, "utf8"},
		{arrow.BinaryTypes.Binary, "binary"},
		{arrow.BinaryTypes.LargeBinary, "binary"},
		{&arrow.FixedSizeBinaryType{ByteWidth: 3}, "binary"},
		{arrow.BinaryTypes.StringView, "utf8"},
		{arrow.FixedWidthTypes.Date32, "date32"},
		{arrow.FixedWidthTypes.Date64, "date32"},
		{arrow.FixedWidthTypes.Boolean, "bool"},
		{arrow.Null, "null"},
		{arrow.FixedWidthTypes.Timestamp_us, "timestamp[us, tz=UTC]"},
		{&arrow.TimestampType{Unit: arrow.Nanosecond}, "timestamp[us]"},
		{&arrow.TimestampType{Unit: arrow.Second, TimeZone: "Europe/Paris"}, "timestamp[us, tz=UTC]"},
		{arrow.FixedWidthTypes.Time64us, "time64[us]"},
		{arrow.FixedWidthTypes.Time32s, "time64[us]"},
		{arrow.FixedWidthTypes.MonthDayNanoInterval, "month_day_nano_interval"},
		{arrow.FixedWidthTypes.DayTimeInterval, "month_day_nano_interval"},
		{arrow.FixedWidthTypes.MonthInterval, "month_day_nano_interval"},
		{arrow.FixedWidthTypes.Duration_ms, "month_day_nano_interval"},
		{arrow.ListOf(arrow.PrimitiveTypes.Int64), ""},
	} {
		got, ok := EngineType(tc.in)
		if (tc.want == "") == ok || ok && got.String() != tc.want {
			t.Errorf("EngineType(%s) = %v, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}

func TestToEngine(t *testing.T) {
	for _, tc := range []struct {
		typ  arrow.DataType
		json string
		want string
		err  error
	}{
		{arrow.PrimitiveTypes.Int8, `[-128, null, 127]`, "[-128 NULL 127]", nil},
		{arrow.PrimitiveTypes.Uint32, `[4294967295, null]`, "[4294967295 NULL]", nil},
		{arrow.PrimitiveTypes.Uint64, `[9223372036854775808, 18446744073709551615, null]`, "[9223372036854775808.000000000000 18446744073709551615.000000000000 NULL]", nil},
		{arrow.PrimitiveTypes.Float32, `[0.5, null]`, "[0.5 NULL]", nil},
		{arrow.FixedWidthTypes.Float16, `[0.5, null, -2]`, "[0.5 NULL -2]", nil},
		{&arrow.Decimal32Type{Precision: 7, Scale: 2}, `["-12.34", null]`, "[-12.340000000000 NULL]", nil},
		{&arrow.Decimal64Type{Precision: 15, Scale: 2}, `["1234567890123.45", null]`, "[1234567890123.450000000000 NULL]", nil},
		{&arrow.Decimal256Type{Precision: 38, Scale: 2}, `["-12.34", null, "999999999999999999999999999999999999.99"]`, "[-12.340000000000 NULL 999999999999999999999999999999999999.990000000000]", nil},
		// past 38 digits: the nearest double, as DuckDB reads them
		{&arrow.Decimal256Type{Precision: 50, Scale: 3}, `["1.500", null, "-0.001", "123456789012345678901234567890.125", "-9007199254740993.000"]`,
			"[1.5 NULL -0.001 1.2345678901234568e+29 -9.007199254740992e+15]", nil},
		{arrow.BinaryTypes.LargeString, `["a", null, "é"]`, `["a" NULL "é"]`, nil},
		{arrow.FixedWidthTypes.Date64, `[86400000, -1, -86400000, null]`, "[1 -1 -1 NULL]", nil},
		{arrow.FixedWidthTypes.Date64, `[185542587187200000]`, "", ErrOverflow},
	} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		a, _, err := array.FromJSON(mem, tc.typ, strings.NewReader(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		// sliced, to exercise offsets
		s := array.NewSlice(a, 0, int64(a.Len()))
		got, err := ToEngine(context.Background(), mem, s)
		if tc.err != nil {
			wantErr(t, err, tc.err)
		} else if err != nil {
			t.Errorf("ToEngine(%s %s): %v", tc.typ, tc.json, err)
		} else {
			want, _ := EngineType(tc.typ)
			vals := make([]any, got.Len())
			for i := range vals {
				vals[i] = goValue(got, i)
			}
			if !arrow.TypeEqual(got.DataType(), want) || showAll(vals) != tc.want {
				t.Errorf("ToEngine(%s %s) = %s %s, want %s", tc.typ, tc.json, got.DataType(), showAll(vals), tc.want)
			}
			got.Release()
		}
		s.Release()
		a.Release()
		mem.AssertSize(t, 0)
	}
	// a decimal256(38, 0) holding 2^127 (its builder does not check) does
	// not fit decimal128
	{
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		b := array.NewDecimal256Builder(mem, &arrow.Decimal256Type{Precision: 38, Scale: 0})
		b.Append(decimal256.New(0, 0, 1<<63, 0))
		a := b.NewArray()
		_, err := ToEngine(context.Background(), mem, a)
		wantErr(t, err, ErrOverflow, "170141183460469231731687303715884105728 does not fit decimal(38, 0)")
		a.Release()
		b.Release()
		mem.AssertSize(t, 0)
	}
	// an engine column is returned as is, retained
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	a, _, _ := array.FromJSON(mem, typInt64, strings.NewReader(`[1, 2]`))
	got, err := ToEngine(context.Background(), mem, a)
	if err != nil || got != a {
		t.Errorf("ToEngine(int64) = %p, %v; want the same array %p", got, err, a)
	}
	got.Release()
	a.Release()
	mem.AssertSize(t, 0)
	_, err = ToEngine(context.Background(), mem, array.NewNull(0))
	if err != nil {
		t.Errorf("ToEngine(null): %v", err)
	}
	b, _, _ := array.FromJSON(mem, arrow.ListOf(arrow.PrimitiveTypes.Int8), strings.NewReader(`[]`))
	_, err = ToEngine(context.Background(), mem, b)
	wantErr(t, err, ErrType, "list")
	b.Release()
	mem.AssertSize(t, 0)
}

func TestCoerce(t *testing.T) {
	d := decimalType
	for _, tc := range []struct {
		a, b arrow.DataType
		want string
	}{
		{typInt64, typInt64, "int64"},
		{typInt64, d(15, 2), "decimal(21, 2)"},
		{d(15, 2), d(12, 4), "decimal(17, 4)"},
		{d(38, 0), d(38, 10), "decimal(38, 10)"},
		{typInt64, typFloat64, "float64"},
		{d(15, 2), typFloat64, "float64"},
		{typNull, typDate32, "date32"},
		{typString, typNull, "utf8"},
		{typNull, typNull, "null"},
		{typDate32, typDate32, "date32"},
		{typBool, typBool, "bool"},
		{typDate32, typInt64, ""},
		{typString, typInt64, ""},
		{typBool, typInt64, ""},
		{typString, typDate32, ""},
		{arrow.PrimitiveTypes.Int32, typInt64, ""},
	} {
		got, err := Coerce(tc.a, tc.b)
		switch {
		case tc.want == "":
			wantErr(t, err, ErrType, tc.a.String(), tc.b.String())
		case err != nil || got.String() != tc.want:
			t.Errorf("Coerce(%s, %s) = %v, %v; want %s", tc.a, tc.b, got, err, tc.want)
		}
	}
}
