package query

import (
	"errors"
	"strings"
	"testing"
)

// TestRewriteSubscripts: x[i] becomes array_extract(x, i) for every
// operand the grammar can end before a bracket, never inside strings or
// quoted names, and the text maps back to the user's (subscriptText).
func TestRewriteSubscripts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`SELECT l[1] FROM t`, `SELECT array_extract(l, 1) FROM t`},
		{`SELECT t.l [ 2 ] FROM t`, `SELECT array_extract(t.l ,  2 ) FROM t`},
		{`SELECT "my list"[1], "t"."l"[-1] FROM t`, `SELECT array_extract("my list", 1), array_extract("t"."l", -1) FROM t`},
		{`SELECT l[1][2], f(x)[3], (a)[4] FROM t`, `SELECT array_extract(array_extract(l, 1), 2), array_extract(f(x), 3), array_extract((a), 4) FROM t`},
		{`SELECT l[m[1]] FROM t`, `SELECT array_extract(l, array_extract(m, 1)) FROM t`},
		{`SELECT s['a'], l[1].k, l[1]."K".j FROM t`, `SELECT array_extract(s, 'a'), struct_extract(array_extract(l, 1), 'k'), struct_extract(struct_extract(array_extract(l, 1), 'K'), 'j') FROM t`},
		{`SELECT '[1]', "a[1]" FROM t WHERE x = 'l[2]'`, `SELECT '[1]', "a[1]" FROM t WHERE x = 'l[2]'`},
	} {
		var edits []textEdit
		got, err := rewriteSubscripts(tc.in, tc.in, &edits)
		if err != nil || got != tc.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		kind error
		want string
	}{
		{`SELECT [1, 2]`, ErrUnsupported, "line 1, column 8: list literals"},
		{`SELECT x FROM t WHERE x IN [1]`, ErrUnsupported, "list literals"},
		{`SELECT l[1:2] FROM t`, ErrUnsupported, "list slices"},
		{`SELECT l[] FROM t`, ErrSyntax, "[] without an index"},
		{`SELECT l[1 FROM t`, ErrSyntax, "without a closing ]"},
		{"SELECT a,\n  l[1][2:3] FROM t", ErrUnsupported, "line 2, column 7: list slices"},
	} {
		_, err := parseSQL(tc.in)
		if err == nil || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %v containing %q", tc.in, err, tc.kind, tc.want)
		}
	}
	for in, want := range map[string]string{
		`array_extract(array_extract(l, 1), 2) + 1`:           `l[1][2] + 1`,
		`f(array_extract(s, 'a'), array_extract(l, g(1, 2)))`: `f(s['a'], l[g(1, 2)])`,
	} {
		if got := subscriptText(in); got != want {
			t.Errorf("subscriptText(%s) = %s, want %s", in, got, want)
		}
	}
}
