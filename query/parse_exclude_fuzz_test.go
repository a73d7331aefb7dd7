package query

import (
	"testing"
)

// FuzzFrameRewrite: any text goes through the EXCLUDE and TIMESTAMPTZ
// rewrites without panicking, every offset of the result maps into the
// input, and parsing it (GROUPS marked after) does not panic.
func FuzzFrameRewrite(f *testing.F) {
	for _, s := range []string{
		"SELECT sum(x) OVER (ORDER BY k GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE TIES) FROM t",
		"SELECT count(*) OVER (ROWS UNBOUNDED PRECEDING EXCLUDE NO OTHERS), TIMESTAMPTZ '2024-01-01' FROM t",
		"SELECT x FROM t WINDOW w AS (PARTITION BY a RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING exclude current row)",
		"rows exclude", "range exclude current", "groups (exclude group)", "TIMESTAMPTZ '", "timestamp with time zone 'x''y'",
		"SELECT 'EXCLUDE TIES', \"rows\" exclude ties FROM t", "TIMESTAMPTZ'a'TIMESTAMPTZ'b'",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		var edits []textEdit
		got := rewriteTZLiterals(rewriteExclude(sql, &edits), &edits)
		for i := 0; i <= len(got); i++ {
			if o := originalOffset(i, edits); o < 0 || o > len(sql) {
				t.Fatalf("offset %d of %q maps to %d, outside %q", i, got, o, sql)
			}
		}
		_, _ = parseSQL(sql) // must not panic
	})
}
