package expr

import (
	"strings"
	"testing"
)

func TestLikePatterns(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"", "", true},
		{"", "a", false},
		{"%", "", true},
		{"%", "anything", true},
		{"%%", "x", true},
		{"_", "", false},
		{"_", "a", true},
		{"_", "é", true}, // one character, two bytes
		{"__", "é", false},
		{"_", "ab", false},
		{"abc", "abc", true},
		{"abc", "abcd", false},
		{"ABC", "abc", false}, // case-sensitive
		{"abc%", "abcdef", true},
		{"abc%", "xabc", false},
		{"%abc", "xxabc", true},
		{"%abc", "abcx", false},
		{"%b%", "abc", true},
		{"%b%", "ac", false},
		{"a%c", "abbbc", true},
		{"a%c", "abcb", false},
		{"a_c", "abc", true},
		{"a_c", "ac", false},
		{"%a%b%c%", "xaxbxcx", true},
		{"%a%b%c%", "xcxbxax", false},
		{"a%b_c", "aXbYbZc", true},
		{"a%%_", "a", false},
		{"%_%_%", "ab", true},
		{`a\%c`, "a%c", true},
		{`a\%c`, "abc", false},
		{`a\_c`, "a_c", true},
		{`a\_c`, "abc", false},
		{`a\\c`, `a\c`, true},
		{`\a`, "a", true},
		{`%\%`, "100%", true},
		{`%\%`, "100", false},
		{"%e", "caf\xff", false},
		{"caf_", "caf\xff", true}, // an invalid byte is one character
		{"%mississippi%", "missmississippi", true},
		{"PROMO%", "PROMO BRUSHED STEEL", true},
		{"%green%", "forest green", true},
		// TPC-H's patterns (Q2, Q9, Q13, Q14, Q16, Q20), on its own values
		{"%BRASS", "LARGE BRUSHED BRASS", true},
		{"%BRASS", "LARGE BRUSHED BRASSY", false},
		{"%BRASS", "BRASS", true},
		{"%BRASS", "BRAS", false},
		{"forest%", "forest chiffon", true},
		{"forest%", "Forest chiffon", false},
		{"forest%", "green forest", false},
		{"%green%", "green", true},
		{"%green%", "gree n", false},
		{"%special%requests%", "carefully special ironic requests", true},
		{"%special%requests%", "specialrequests", true},
		{"%special%requests%", "requests special", false},
		{"%special%requests%", "special requests special", true},
		{"%special%requests%", "special request", false},
		{"PROMO%", "PROMO", true},
		{"PROMO%", "STANDARD PROMO", false},
		{"%Customer%Complaints%", "ly Customer ironic Complaints", true},
		{"%Customer%Complaints%", "Complaints Customer", false},
		{"%Customer%Complaints%", "CustomerComplaints", true},
		{"%Customer%Complaints%", "Customer Complaint", false},
		// more than one wildcard of each kind
		{"%a%b%", "ab", true},
		{"%a%b%", "ba", false},
		{"%a%b%", "xxaxxbxx", true},
		{"a%b%c", "abc", true},
		{"a%b%c", "abcx", false},
		{"a%b%c", "aXbXbc", true},
		{"_a_", "bab", true},
		{"_a_", "ab", false},
		{"%_a", "a", false},
		{"%_a", "ba", true},
		{"a__%", "ab", false},
		{"a__%", "abc", true},
		{"%é_", "xéab", false},
		{"%é_", "xéa", true},
		{`%\%%`, "50% off", true},
		{`%\%%`, "50 off", false},
		{`_\_%`, "a_b", true},
		{`_\_%`, "ab_", false},
	} {
		cols := []jcol{{"s", typString, `["` + jsonEscape(tc.s) + `", null]`}}
		e := must(Like(jexpr(cols, "s"), tc.pattern, false))
		got, err := evalValues(t, e, cols...)
		if err != nil || got[0] != tc.want || got[1] != nil {
			t.Errorf("%q LIKE %q = %v, %v; want %v", tc.s, tc.pattern, got, err, tc.want)
		}
		n := must(Like(jexpr(cols, "s"), tc.pattern, true))
		got, err = evalValues(t, n, cols...)
		if err != nil || got[0] != !tc.want || got[1] != nil {
			t.Errorf("%q NOT LIKE %q = %v, %v", tc.s, tc.pattern, got, err)
		}
		// the general matcher agrees with the specialised ones
		toks, _ := compileLike(tc.pattern)
		if likeMatch(toks, tc.s) != tc.want {
			t.Errorf("likeMatch(%q, %q) = %v", tc.pattern, tc.s, !tc.want)
		}
	}
}

// jsonEscape quotes s for an Arrow JSON string (bytes above 0x7f pass as
// they are).
func jsonEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' || c == '"' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestLikeErrors(t *testing.T) {
	_, err := Like(Column(0, "s", typString), `abc\`, false)
	wantErr(t, err, ErrInvalid, `'abc\'`)
	_, err = Like(Column(0, "n", typInt64), "1%", false)
	wantErr(t, err, ErrType, "LIKE needs a string, got int64")
	e := must(Like(lit(nil), "a%", false))
	if v, err := evalOne(t, e); err != nil || v != nil {
		t.Errorf("NULL LIKE 'a%%' = %v, %v", v, err)
	}
	e = must(Like(Column(0, "s", typString), "it's%", true))
	if e.String() != "s NOT LIKE 'it''s%'" {
		t.Errorf("String() = %q", e)
	}
}

func TestLikePrefix(t *testing.T) {
	for _, tc := range []struct {
		pattern, prefix string
		only            bool
	}{
		{"abc%", "abc", true},
		{"abc%%", "abc", true},
		{"abc", "abc", false},
		{"abc%d", "abc", false},
		{"a_c%", "a", false},
		{"%abc", "", false},
		{"%", "", true},
		{"", "", false},
		{`a\%b%`, "a%b", true},
		{`a\_%`, "a_", true},
		{`ab\`, "ab", false},
		{"_%", "", false},
	} {
		p, only := LikePrefix(tc.pattern)
		if p != tc.prefix || only != tc.only {
			t.Errorf("LikePrefix(%q) = %q, %v; want %q, %v", tc.pattern, p, only, tc.prefix, tc.only)
		}
	}
}

// TestLikeSegmentsMatchGeneral: the matcher of literals and '%' agrees
// with the general backtracking matcher on every pattern and string of a
// small alphabet (overlapping literals, repeats, anchors at both ends).
func TestLikeSegmentsMatchGeneral(t *testing.T) {
	alpha := []string{"a", "b", "ab", "%"}
	var patterns []string
	var grow func(p string, n int)
	grow = func(p string, n int) {
		patterns = append(patterns, p)
		if n == 0 {
			return
		}
		for _, c := range alpha {
			grow(p+c, n-1)
		}
	}
	grow("", 4)
	var subjects []string
	var gen func(s string, n int)
	gen = func(s string, n int) {
		subjects = append(subjects, s)
		if n > 0 {
			gen(s+"a", n-1)
			gen(s+"b", n-1)
		}
	}
	gen("", 6)
	for _, p := range patterns {
		toks, err := compileLike(p)
		if err != nil {
			t.Fatal(err)
		}
		seg := likeSegments(toks)
		if seg == nil {
			continue
		}
		for _, s := range subjects {
			if got, want := seg(s), likeMatch(toks, s); got != want {
				t.Fatalf("%q LIKE %q: %v, the general matcher says %v", s, p, got, want)
			}
		}
	}
}
