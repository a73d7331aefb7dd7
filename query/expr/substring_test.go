package expr

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestSubstring checks windows whose answers DuckDB gave (query/difftest
// asks DuckDB the same), on an ASCII string and on one with a two-byte
// character, where characters are not bytes.
func TestSubstring(t *testing.T) {
	for _, tc := range []struct {
		start, length int64
		hasLen        bool
		ascii, utf8   string
	}{
		{1, 2, true, "he", "hé"},
		{2, 3, true, "ell", "éll"},
		{0, 2, true, "h", "h"}, // start 0 is one before the first character
		{0, 1, true, "", ""},
		{-1, 3, true, "o", "o"}, // negative starts count from the end
		{-2, 2, true, "lo", "lo"},
		{-10, 3, true, "", ""},
		{-7, 3, true, "h", "h"},
		{3, -2, true, "he", "hé"}, // a negative length goes back from start
		{-2, -2, true, "el", "él"},
		{2, -5, true, "h", "h"},
		{2, 0, true, "", ""},
		{10, 2, true, "", ""},
		{5, 1, true, "o", "o"},
		{1, math.MaxInt64, true, "hello", "héllo"},
		{math.MaxInt64, math.MaxInt64, true, "", ""},
		{math.MinInt64, math.MinInt64, true, "", ""},
		{math.MinInt64, math.MaxInt64, true, "hell", "héll"}, // the window ends at 5 + MinInt64 + MaxInt64
		{-1, math.MinInt64, true, "hell", "héll"},
		{3, 0, false, "llo", "llo"},
		{0, 0, false, "hello", "héllo"},
		{-2, 0, false, "lo", "lo"},
		{-9, 0, false, "hello", "héllo"},
		{9, 0, false, "", ""},
		{math.MinInt64, 0, false, "hello", "héllo"},
	} {
		for _, s := range []string{"hello", "héllo"} {
			want := tc.ascii
			if s != "hello" {
				want = tc.utf8
			}
			var length Expr
			if tc.hasLen {
				length = lit(tc.length)
			}
			cols := []jcol{{"s", typString, `["` + s + `", null, "", "hello"]`}}
			e := must(Substring(jexpr(cols, "s"), lit(tc.start), length))
			got, err := evalValues(t, e, cols...)
			other := refSubstring("hello", tc.start, tc.length, tc.hasLen)
			if err != nil || got[0] != want || got[1] != nil || got[2] != "" || got[3] != other {
				t.Errorf("%s on %q = %v, %v; want %q", e, s, showAll(got), err, want)
			}
			if r := refSubstring(s, tc.start, tc.length, tc.hasLen); r != want {
				t.Errorf("refSubstring(%q, %d, %d) = %q, want %q", s, tc.start, tc.length, r, want)
			}
		}
	}
}

// TestSubstringUTF8 counts characters of one to four bytes, and a byte
// of invalid UTF-8 as one character (as LIKE's '_' does).
func TestSubstringUTF8(t *testing.T) {
	cols := []jcol{{"s", typString, `["aé€😀b", "x\u00ffy", "日本語テキスト"]`}, {"i", typInt64, `[2, 3, -3]`}, {"n", typInt64, `[3, 1, 2]`}}
	e := must(Substring(jexpr(cols, "s"), jexpr(cols, "i"), jexpr(cols, "n")))
	got, err := evalValues(t, e, cols...)
	if want := `["é€😀" "y" "キス"]`; err != nil || showAll(got) != want {
		t.Errorf("%s = %s, %v; want %s", e, showAll(got), err, want)
	}
	if a, b := substrBytes("a\xffb", 2, 1, true, false); a != 1 || b != 2 {
		t.Errorf("an invalid byte is not one character: [%d, %d)", a, b)
	}
}

// TestSubstringNulls: a NULL anywhere is NULL, row by row or for every row.
func TestSubstringNulls(t *testing.T) {
	cols := []jcol{
		{"s", typString, `["abc", null, "abc", "abc"]`},
		{"i", typInt64, `[1, 1, null, 2]`},
		{"n", typInt64, `[1, 1, 1, null]`},
	}
	s, i, n := jexpr(cols, "s"), jexpr(cols, "i"), jexpr(cols, "n")
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{must(Substring(s, i, n)), `["a" NULL NULL NULL]`},
		{must(Substring(s, i, nil)), `["abc" NULL NULL "bc"]`},
		{must(Substring(s, lit(nil), n)), `[NULL NULL NULL NULL]`},
		{must(Substring(s, i, lit(nil))), `[NULL NULL NULL NULL]`},
		{must(Substring(lit(nil), i, n)), `[NULL NULL NULL NULL]`},
		{must(Substring(lit("xyz"), i, lit(int64(2)))), `["xy" "xy" NULL "yz"]`},
	} {
		got, err := evalValues(t, tc.e, cols...)
		if err != nil || showAll(got) != tc.want {
			t.Errorf("%s = %s, %v; want %s", tc.e, showAll(got), err, tc.want)
		}
	}
}

func TestSubstringPlan(t *testing.T) {
	s := Column(0, "s", typString)
	_, err := Substring(Column(0, "i", typInt64), lit(int64(1)), nil)
	wantErr(t, err, ErrType, "substring needs a string, got int64 (substring(i, 1))")
	_, err = Substring(s, lit("1"), nil)
	wantErr(t, err, ErrType, "the start must be an integer, got utf8 (substring(s, '1'))")
	_, err = Substring(s, lit(int64(1)), lit(2.5))
	wantErr(t, err, ErrType, "the length must be an integer, got float64 (substring(s, 1, 2.5))")
	_, err = Substring(s, nil, nil)
	wantErr(t, err, ErrType, "substring: nil operand")
	// constants fold at plan time
	e := must(Substring(lit("héllo"), lit(int64(2)), lit(int64(2))))
	if x := Inspect(e); x.Kind != KindLiteral || x.Value != "él" {
		t.Errorf("substring('héllo', 2, 2) is %s", e)
	}
	e = must(Substring(s, lit(int64(1)), lit(int64(2))))
	if x := Inspect(e); x.Kind != KindSubstring || len(x.Args) != 3 || e.String() != "substring(s, 1, 2)" {
		t.Errorf("Inspect = %+v, String() = %q", x, e)
	}
	if x := Inspect(must(Substring(s, lit(int64(1)), nil))); len(x.Args) != 2 {
		t.Errorf("two-argument form has %d arguments", len(x.Args))
	}
}

// TestSubstringSliced evaluates over a slice of a string array (non-zero
// offset), ASCII in the slice but not outside it, so the ASCII check must
// look only at the slice's bytes.
func TestSubstringSliced(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := jbatch(t, mem, jcol{"s", typString, `["ééé", "abcd", null, "wxyz", "ééé"]`})
	defer b.Release()
	sl := b.NewSlice(1, 4)
	defer sl.Release()
	e := must(Substring(Column(0, "s", typString), lit(int64(2)), lit(int64(2))))
	a, err := e.Eval(context.Background(), mem, sl)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	got := a.(*array.String)
	if a.Len() != 3 || got.Value(0) != "bc" || !got.IsNull(1) || got.Value(2) != "xy" {
		t.Errorf("got %v", a)
	}
}

func TestIsASCII(t *testing.T) {
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghijklmnopq", strings.Repeat("x", 63)} {
		if !isASCII(s) || !isASCII([]byte(s)) {
			t.Errorf("isASCII(%q) = false", s)
		}
		for i := range len(s) {
			b := []byte(s)
			b[i] = 0x80
			if isASCII(b) {
				t.Errorf("isASCII with 0x80 at %d of %d = true", i, len(s))
			}
		}
	}
}
