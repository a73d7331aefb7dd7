package expr

import (
	"strings"
	"testing"
)

func TestConcat(t *testing.T) {
	cols := []jcol{
		{"a", typString, `["x", null, "", "héllo", "a"]`},
		{"b", typString, `["y", "z", null, "", "bc"]`},
		{"i", typInt64, `[1, 2, null, -4, 5]`},
	}
	a, b, i := jexpr(cols, "a"), jexpr(cols, "b"), jexpr(cols, "i")
	for _, tc := range []struct {
		e    Expr
		want string
	}{
		{must(Concat(a, b)), "[xy NULL NULL héllo abc]"},
		{must(Concat(a, must(Literal("-")))), "[x- NULL - héllo- a-]"},
		{must(Concat(must(Literal("<")), b)), "[<y <z NULL < <bc]"},
		{must(Concat(a, NullLiteral(typNull))), "[NULL NULL NULL NULL NULL]"},
		{must(Concat(must(Literal("n=")), i)), "[n=1 n=2 NULL n=-4 n=5]"},
		{must(Concat(must(Concat(a, b)), a)), "[xyx NULL NULL héllohéllo abca]"},
	} {
		got, err := evalText(t, tc.e, cols...)
		if err != nil || "["+strings.Join(got, " ")+"]" != tc.want {
			t.Errorf("%s = %v, %v; want %s", tc.e, got, err, tc.want)
		}
	}
	// Constants fold at plan time.
	e := must(Concat(must(Literal("a")), must(Literal("b"))))
	if x := Inspect(e); x.Kind != KindLiteral || x.Value != "ab" {
		t.Errorf("'a' || 'b' is %s, not the literal 'ab'", e)
	}
	if got := must(Concat(a, b)).String(); got != "a || b" {
		t.Errorf("String() = %q", got)
	}
	if x := Inspect(must(Concat(a, b))); x.Kind != KindConcat || len(x.Args) != 2 {
		t.Errorf("Inspect(a || b) = %+v", x)
	}
}
