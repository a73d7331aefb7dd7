package expr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestParseTimestamp(t *testing.T) {
	for _, tc := range []struct {
		in   string
		tz   bool
		want string // formatTimestamp of the result, or "error"
	}{
		{"2024-02-29 23:59:59.123456", false, "2024-02-29 23:59:59.123456"},
		{"2024-02-29T01:02", false, "2024-02-29 01:02:00"},
		{"2024-02-29", false, "2024-02-29 00:00:00"},
		{"1969-12-31 23:59:59.5", false, "1969-12-31 23:59:59.5"},
		{"2024-01-01 00:00:00.1234567", false, "2024-01-01 00:00:00.123456"},
		{"2024-03-31 03:30:00+02:00", true, "2024-03-31 01:30:00+00"},
		{"2024-03-31 03:30:00+02:00", false, "2024-03-31 03:30:00"}, // DuckDB ignores the zone of a TIMESTAMP
		{"2024-03-31 03:30:00 Europe/Paris", true, "2024-03-31 01:30:00+00"},
		{"2024-01-15 12:00:00 America/New_York", true, "2024-01-15 17:00:00+00"},
		{"2024-01-15 12:00:00Z", true, "2024-01-15 12:00:00+00"},
		{"2024-01-15 24:00:00", false, "2024-01-16 00:00:00"},
		{"2023-02-29 00:00:00", false, "error"},
		{"2024-01-15 12:60:00", false, "error"},
		{"2024-01-15 12:00:00 Mars/Olympus", true, "error"},
		{"soon", false, "error"},
	} {
		us, _, err := ParseTimestamp(tc.in, tc.tz)
		got := "error"
		if err == nil {
			got = formatTimestamp(us, tc.tz)
		} else if !errors.Is(err, ErrInvalidCast) {
			t.Errorf("%q: %v is not ErrInvalidCast", tc.in, err)
		}
		if got != tc.want {
			t.Errorf("ParseTimestamp(%q, %v) = %s, want %s", tc.in, tc.tz, got, tc.want)
		}
	}
}

// TestTimestampUnits converts each unit to the engine type and back.
func TestTimestampUnits(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	for _, tc := range []struct {
		typ  *arrow.TimestampType
		in   []int64
		want []int64 // microseconds
	}{
		{&arrow.TimestampType{Unit: arrow.Second}, []int64{-1, 0, 1709251199}, []int64{-1_000_000, 0, 1709251199_000_000}},
		{&arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "Europe/Paris"}, []int64{-1, 1500}, []int64{-1000, 1_500_000}},
		{&arrow.TimestampType{Unit: arrow.Nanosecond}, []int64{-1, 1999, 1_000_000_000}, []int64{-1, 1, 1_000_000}},
	} {
		b := array.NewTimestampBuilder(mem, tc.typ)
		for _, v := range tc.in {
			b.Append(arrow.Timestamp(v))
		}
		b.AppendNull()
		in := b.NewArray()
		b.Release()
		eng, err := ToEngine(ctx, mem, in)
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		wantType := TimestampType(tc.typ.TimeZone != "")
		if !arrow.TypeEqual(eng.DataType(), wantType) {
			t.Errorf("%s: engine type %s, want %s", tc.typ, eng.DataType(), wantType)
		}
		got := values[int64](eng)[:len(tc.want)]
		if fmt.Sprint(got) != fmt.Sprint(tc.want) || !eng.IsNull(len(tc.want)) {
			t.Errorf("%s: %v, want %v and a NULL", tc.typ, got, tc.want)
		}
		back, err := FromEngine(ctx, mem, eng, tc.typ)
		if err != nil {
			t.Fatalf("%s back: %v", tc.typ, err)
		}
		if tc.typ.Unit != arrow.Nanosecond && !array.Equal(back, in) {
			t.Errorf("%s: round trip %v, want %v", tc.typ, back, in)
		}
		in.Release()
		eng.Release()
		back.Release()
	}
	// seconds past the microsecond range overflow, naming the value
	b := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Second})
	b.Append(arrow.Timestamp(1 << 62))
	in := b.NewArray()
	b.Release()
	defer in.Release()
	_, err := ToEngine(ctx, mem, in)
	wantErr(t, err, ErrOverflow, "4611686018427387904 out of range")
}

func TestTimestampCastsAndIntervals(t *testing.T) {
	ts := TimestampLiteral(int64(19782)*usPerDay+23*usPerHour, false) // 2024-02-29 23:00
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{must(Cast(ts, typDate32)), "2024-02-29"},
		{must(Cast(ts, typString)), "2024-02-29 23:00:00"},
		{must(Cast(ts, typTimestampTZ)), "2024-02-29 23:00:00+00"},
		{must(Cast(DateLiteral(-1), typTimestamp)), "1969-12-31 00:00:00"},
		{must(AddIntervalTime(ts, 12, 0, 90*usPerMinute)), "2025-03-01 00:30:00"},
		{must(AddIntervalTime(ts, 1, 0, 0)), "2024-03-29 23:00:00"},
		{must(AddIntervalTime(DateLiteral(0), 0, 1, usPerHour)), "1970-01-02 01:00:00"},
		{must(TryCast(lit("nope"), typTimestamp)), "NULL"},
		{must(TryCast(lit("2024-01-01 10:00"), typTimestamp)), "2024-01-01 10:00:00"},
		{must(Extract(PartEpoch, ts)), "1709247600"},
		{must(Extract(PartHour, ts)), "23"},
	} {
		got, err := text1(t, tc.e)
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.e, got, err, tc.want)
		}
	}
	// TRY_CAST over a column: failing rows are NULL, the rest convert
	got, err := evalText(t, must(TryCast(Column(0, "s", typString), typTimestamp)),
		jcol{"s", typString, `["2024-01-01", "x", null, "1999-12-31 23:59:59"]`})
	if err != nil || fmt.Sprint(got) != "[2024-01-01 00:00:00 NULL NULL 1999-12-31 23:59:59]" {
		t.Errorf("TRY_CAST column: %v, %v", got, err)
	}
	_, err = Cast(lit(true), typTimestamp)
	wantErr(t, err, ErrType, "cannot cast bool to timestamp")
}

// budgetAlloc refuses reservations past limit.
type budgetAlloc struct {
	memory.Allocator
	limit int64
}

func (b budgetAlloc) Reserve(n int64, what fmt.Stringer) error {
	if n > b.limit {
		return fmt.Errorf("%s needs %d bytes, over the budget of %d", what, n, b.limit)
	}
	return nil
}

// TestRepeatAsksTheBudget: repeat's size is checked before it builds
// anything, against the batch bound and the query's budget.
func TestRepeatAsksTheBudget(t *testing.T) {
	checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer checked.AssertSize(t, 0)
	mem := budgetAlloc{Allocator: checked, limit: 1 << 20}
	b := jbatch(t, checked, jcol{"s", typString, `["abc", "de"]`})
	defer b.Release()
	e := must(Call("repeat", Column(0, "s", typString), lit(int64(1_000_000))))
	_, err := e.Eval(context.Background(), mem, b)
	if err == nil || !strings.Contains(err.Error(), "over the budget") {
		t.Errorf("repeat past the budget: %v", err)
	}
	e = must(Call("repeat", Column(0, "s", typString), lit(int64(1<<40))))
	_, err = e.Eval(context.Background(), mem, b)
	wantErr(t, err, ErrOverflow, "repeat: the results of one batch pass")
}

// TestTimes: TIME parses, prints, converts from every time unit and back,
// and casts from a timestamp.
func TestTimes(t *testing.T) {
	for in, want := range map[string]string{
		"01:02:03.5": "01:02:03.5", "1:2:3": "01:02:03", "23:59:59.123456": "23:59:59.123456", "00:00": "00:00:00",
		"24:00:00": "24:00:00", "25:00:00": "error", "12:00:00 x": "error",
	} {
		us, err := ParseTime(in)
		got := "error"
		if err == nil {
			got = formatTime(us)
		}
		if got != want {
			t.Errorf("ParseTime(%q) = %s, want %s", in, got, want)
		}
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ctx := context.Background()
	for _, dt := range []arrow.DataType{arrow.FixedWidthTypes.Time32s, arrow.FixedWidthTypes.Time32ms, arrow.FixedWidthTypes.Time64us, arrow.FixedWidthTypes.Time64ns} {
		in, _, err := array.FromJSON(mem, dt, strings.NewReader(`["01:02:03", null, "23:59:59"]`))
		if err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		eng, err := ToEngine(ctx, mem, in)
		if err != nil {
			t.Fatalf("%s: %v", dt, err)
		}
		if got := fmt.Sprint(values[int64](eng)[0], eng.IsNull(1), values[int64](eng)[2]); got != "3723000000 true 86399000000" {
			t.Errorf("%s: engine values %s", dt, got)
		}
		back, err := FromEngine(ctx, mem, eng, dt)
		if err != nil || !array.Equal(back, in) {
			t.Errorf("%s: round trip %v, %v", dt, back, err)
		}
		for _, a := range []arrow.Array{in, eng, back} {
			if a != nil {
				a.Release()
			}
		}
	}
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{must(Cast(TimestampLiteral(-1, false), typTime)), "23:59:59.999999"},
		{must(Cast(lit("06:30"), typTime)), "06:30:00"},
		{must(Extract(PartMinute, TimeLiteral(3723000000))), "2"},
		{must(Compare(Lt, TimeLiteral(1), lit("00:00:01"))), "true"},
	} {
		got, err := text1(t, tc.e)
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.e, got, err, tc.want)
		}
	}
	_, err := Extract(PartYear, TimeLiteral(0))
	wantErr(t, err, ErrType, "a TIME has no year")
}
