package parse

import (
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

func TestInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		bits int
		want int64
		err  error
	}{
		{"0", 64, 0, nil}, {"-0", 64, 0, nil}, {"+17", 64, 17, nil},
		{"9223372036854775807", 64, math.MaxInt64, nil},
		{"-9223372036854775808", 64, math.MinInt64, nil},
		{"9223372036854775808", 64, 0, ErrRange},
		{"-9223372036854775809", 64, 0, ErrRange},
		{"99999999999999999999999", 64, 0, ErrRange},
		{"127", 8, 127, nil}, {"128", 8, 0, ErrRange}, {"-128", 8, -128, nil},
		{"", 64, 0, ErrSyntax}, {"-", 64, 0, ErrSyntax}, {"1a", 64, 0, ErrSyntax},
		{" 1", 64, 0, ErrSyntax}, {"1.0", 64, 0, ErrSyntax},
	} {
		got, err := Int([]byte(tc.in), tc.bits)
		if !errors.Is(err, tc.err) || (err == nil && got != tc.want) {
			t.Errorf("Int(%q, %d) = %d, %v; want %d, %v", tc.in, tc.bits, got, err, tc.want, tc.err)
		}
	}
	if v, err := Uint([]byte("18446744073709551615"), 64); err != nil || v != math.MaxUint64 {
		t.Errorf("Uint max: %d %v", v, err)
	}
	if _, err := Uint([]byte("18446744073709551616"), 64); !errors.Is(err, ErrRange) {
		t.Errorf("Uint overflow: %v", err)
	}
}

func TestFloat(t *testing.T) {
	for _, in := range []string{"0", "-0", "1.5", "123456.789", ".5", "5.", "1e10", "1E-5", "-2.5e+3",
		"0.1", "3.14159265358979", "123456789012345678901234567890", "1e400", "NaN", "inf", "-Inf",
		"0x1p-2", "1_000", "", ".", "e5", "1e", "--1", "1.2.3", "0.000000000000000000000000001"} {
		want, werr := strconv.ParseFloat(in, 64)
		got, err := Float64([]byte(in))
		if (werr == nil) != (err == nil) && !(errors.Is(werr, strconv.ErrRange) && errors.Is(err, ErrRange)) {
			t.Errorf("Float64(%q) err %v, strconv %v", in, err, werr)
			continue
		}
		if err == nil && math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("Float64(%q) = %v, strconv %v", in, got, want)
		}
	}
}

// FuzzFloat64: the fast path never disagrees with strconv.
func FuzzFloat64(f *testing.F) {
	for _, s := range []string{"1.5", "-0.001", "12345.67e-3", "9007199254740993", "1e22", "1e23"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		want, werr := strconv.ParseFloat(in, 64)
		got, err := Float64([]byte(in))
		if werr != nil {
			if err == nil && !errors.Is(werr, strconv.ErrRange) {
				t.Fatalf("%q: accepted, strconv says %v", in, werr)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v, strconv %v", in, err, want)
		}
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("%q: %v, strconv %v", in, got, want)
		}
	})
}

func TestDecimal(t *testing.T) {
	for _, tc := range []struct {
		in    string
		p, s  int32
		want  string // unscaled, or "" for an error
		isErr error
	}{
		{"123.45", 5, 2, "12345", nil},
		{"-123.45", 5, 2, "-12345", nil},
		{"123.4", 5, 2, "12340", nil},
		{"123", 5, 2, "12300", nil},
		{".5", 5, 2, "50", nil},
		{"123.450", 5, 2, "12345", nil},
		{"123.451", 5, 2, "", ErrRange},
		{"1234.5", 5, 2, "", ErrRange},
		{"999.99", 5, 2, "99999", nil},
		{"-999.99", 5, 2, "-99999", nil},
		{"1000.00", 5, 2, "", ErrRange},
		{"1.5e2", 5, 2, "15000", nil},
		{"15e-1", 5, 2, "150", nil},
		{"0.00", 1, 0, "0", nil},
		{"99999999999999999999999999999999999999", 38, 0, "99999999999999999999999999999999999999", nil},
		{"-99999999999999999999999999999999999999", 38, 0, "-99999999999999999999999999999999999999", nil},
		{"100000000000000000000000000000000000000", 38, 0, "", ErrRange},
		{"999999999999999999", 18, 0, "999999999999999999", nil},
		{"1000000000000000000", 18, 0, "", ErrRange},
		{"", 5, 2, "", ErrSyntax}, {"-", 5, 2, "", ErrSyntax}, {"1.2.3", 5, 2, "", ErrSyntax},
		{"1,5", 5, 2, "", ErrSyntax}, {"abc", 5, 2, "", ErrSyntax}, {"1e", 5, 2, "", ErrSyntax},
	} {
		got, err := Decimal([]byte(tc.in), tc.p, tc.s)
		if tc.isErr != nil {
			if !errors.Is(err, tc.isErr) {
				t.Errorf("Decimal(%q, %d, %d) = %v, %v; want %v", tc.in, tc.p, tc.s, got.BigInt(), err, tc.isErr)
			}
			continue
		}
		if err != nil || got.BigInt().String() != tc.want {
			t.Errorf("Decimal(%q, %d, %d) = %v, %v; want %s", tc.in, tc.p, tc.s, got.BigInt(), err, tc.want)
		}
	}
}

// FuzzDecimal checks Decimal against exact rational arithmetic.
func FuzzDecimal(f *testing.F) {
	f.Add("123.45", int8(10), int8(2))
	f.Add("-0.001e3", int8(5), int8(3))
	f.Add("99999999999999999999.5", int8(38), int8(1))
	f.Fuzz(func(t *testing.T, in string, p8, s8 int8) {
		p := int32(p8)%38 + 1
		if p < 1 {
			p = -p + 1
		}
		s := int32(s8) % (p + 1)
		if s < 0 {
			s = -s
		}
		got, err := Decimal([]byte(in), p, s)
		body := strings.TrimLeft(in, "+-")
		ok := body != "" && !strings.ContainsAny(body, "+-_xXpPnNiI ") || strings.Contains(body, "e+") || strings.Contains(body, "e-") || strings.Contains(body, "E+") || strings.Contains(body, "E-")
		r, rok := new(big.Rat).SetString(in)
		if !rok || !ok {
			if err == nil {
				// Our grammar is narrower than big.Rat's; it must not be wider.
				if !rok {
					t.Fatalf("%q: accepted, big.Rat rejects", in)
				}
			}
			return
		}
		if err != nil {
			return // may be out of range or more digits than the scale; checked below for accepted values
		}
		scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s)), nil)))
		if !scaled.IsInt() || scaled.Num().Cmp(got.BigInt()) != 0 {
			t.Fatalf("%q at (%d,%d) = %v, want %v", in, p, s, got.BigInt(), scaled)
		}
		lim := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)
		if new(big.Int).Abs(got.BigInt()).Cmp(lim) >= 0 {
			t.Fatalf("%q: %v exceeds precision %d", in, got.BigInt(), p)
		}
	})
}

func TestDecimalBytes(t *testing.T) {
	for _, tc := range []struct {
		in   []byte
		want int64
		err  error
	}{
		{[]byte{0x01}, 1, nil},
		{[]byte{0xff}, -1, nil},
		{[]byte{0x00, 0x80}, 128, nil},
		{[]byte{0xff, 0x7f}, -129, nil},
		{append(make([]byte, 10), 0x30, 0x39), 12345, nil},
		{append([]byte{0xff, 0xff}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}...), -2, nil},
		{append([]byte{0x01}, make([]byte, 16)...), 0, ErrRange},
		{nil, 0, ErrSyntax},
	} {
		got, err := DecimalBytes(tc.in, 38)
		if !errors.Is(err, tc.err) || (err == nil && got != decimal128.FromI64(tc.want)) {
			t.Errorf("DecimalBytes(%x) = %v, %v; want %d, %v", tc.in, got.BigInt(), err, tc.want, tc.err)
		}
	}
	if _, err := DecimalBytes([]byte{0x27, 0x10}, 4); !errors.Is(err, ErrRange) { // 10000 at precision 4
		t.Errorf("precision: %v", err)
	}
	if !FitsPrecision64(999_999_999_999_999_999, 18) || FitsPrecision64(1_000_000_000_000_000_000, 18) || !FitsPrecision64(-99, 2) || FitsPrecision64(-100, 2) {
		t.Error("FitsPrecision64")
	}
}

func TestDateTimestamp(t *testing.T) {
	for _, in := range []string{"1970-01-01", "2000-02-29", "1900-03-01", "0001-01-01", "9999-12-31", "1969-07-20", "2024-12-31"} {
		tm, _ := time.Parse("2006-01-02", in)
		got, err := Date32([]byte(in))
		if err != nil || got != int32(arrow.Date32FromTime(tm)) {
			t.Errorf("Date32(%q) = %d, %v; want %d", in, got, err, arrow.Date32FromTime(tm))
		}
	}
	for _, in := range []string{"1900-02-29", "2023-02-29", "2024-13-01", "2024-00-10", "2024-01-32", "24-01-01", "2024/01/01", "2024-1-01"} {
		if _, err := Date32([]byte(in)); err == nil {
			t.Errorf("Date32(%q) accepted", in)
		}
	}
	for _, tc := range []struct {
		in    string
		unit  arrow.TimeUnit
		want  string // RFC 3339 of the instant, "" for an error
		zoned bool
	}{
		{"2024-03-01 12:34:56", arrow.Microsecond, "2024-03-01T12:34:56Z", false},
		{"2024-03-01T12:34:56.123456", arrow.Microsecond, "2024-03-01T12:34:56.123456Z", false},
		{"2024-03-01T12:34:56.1234567", arrow.Microsecond, "", false},
		{"2024-03-01T12:34:56.1234560", arrow.Microsecond, "2024-03-01T12:34:56.123456Z", false},
		{"2024-03-01T12:34:56.123456789", arrow.Nanosecond, "2024-03-01T12:34:56.123456789Z", false},
		{"2024-03-01T12:34:56Z", arrow.Second, "2024-03-01T12:34:56Z", true},
		{"2024-03-01T12:34:56+02:00", arrow.Second, "2024-03-01T10:34:56Z", true},
		{"2024-03-01T12:34:56-0530", arrow.Millisecond, "2024-03-01T18:04:56Z", true},
		{"2024-03-01 12:34", arrow.Second, "2024-03-01T12:34:00Z", false},
		{"2024-03-01", arrow.Second, "2024-03-01T00:00:00Z", false},
		{"1960-01-01 00:00:00.5", arrow.Millisecond, "1960-01-01T00:00:00.5Z", false},
		{"2024-03-01 25:00:00", arrow.Second, "", false},
		{"2024-03-01 12:34:56 ", arrow.Second, "", false},
		{"2024-03-01X12:34:56", arrow.Second, "", false},
		{"9999-12-31 00:00:00", arrow.Nanosecond, "", false},
	} {
		got, zoned, err := Timestamp([]byte(tc.in), tc.unit)
		if tc.want == "" {
			if err == nil {
				t.Errorf("Timestamp(%q) accepted", tc.in)
			}
			continue
		}
		want, _ := time.Parse(time.RFC3339Nano, tc.want)
		wantV := want.UnixNano() / map[arrow.TimeUnit]int64{arrow.Second: 1e9, arrow.Millisecond: 1e6, arrow.Microsecond: 1e3, arrow.Nanosecond: 1}[tc.unit]
		if err != nil || got != wantV || zoned != tc.zoned {
			t.Errorf("Timestamp(%q, %s) = %d %v %v; want %d %v", tc.in, tc.unit, got, zoned, err, wantV, tc.zoned)
		}
	}
}

func TestBool(t *testing.T) {
	for in, want := range map[string]bool{"true": true, "TRUE": true, "True": true, "t": true, "1": true, "yes": true,
		"false": false, "F": false, "0": false, "no": false} {
		if got, err := Bool([]byte(in)); err != nil || got != want {
			t.Errorf("Bool(%q) = %v %v", in, got, err)
		}
	}
	for _, in := range []string{"", "2", "tru", "falsey", "on"} {
		if _, err := Bool([]byte(in)); err == nil {
			t.Errorf("Bool(%q) accepted", in)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	b := []byte("12345.678")
	n := testing.AllocsPerRun(100, func() {
		Float64(b)
		Float64([]byte("1.7976931348623157e308"))
		Decimal(b, 15, 3)
		Int64([]byte("-123456"))
		Timestamp([]byte("2024-01-01 10:00:00.5"), arrow.Microsecond)
	})
	if n != 0 {
		t.Errorf("%v allocations per run", n)
	}
}
