package query

import (
	"errors"
	"testing"
)

// TestRewriteWithinGroup: percentile_cont/disc … WITHIN GROUP (ORDER BY x)
// become DuckDB's quantile calls, DESC over the negated values.
func TestRewriteWithinGroup(t *testing.T) {
	for in, want := range map[string]string{
		`SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM t`:              `SELECT quantile_cont(x, 0.5) FROM t`,
		`SELECT PERCENTILE_CONT(0.9) within group ( order by t.x DESC ), 1 FROM t`:  `SELECT (-quantile_cont(-(t.x), 0.9)), 1 FROM t`,
		`SELECT a-percentile_disc(0.9) WITHIN GROUP (ORDER BY x DESC) FROM t`:       `SELECT a-(-quantile_disc(-(x), 0.9)) FROM t`,
		`SELECT percentile_disc(0.25) WITHIN GROUP (ORDER BY f(x) ASC) FROM t`:      `SELECT quantile_disc(f(x), 0.25) FROM t`,
		`SELECT 'percentile_cont(1) WITHIN GROUP (ORDER BY x)', percentile_cont(x)`: `SELECT 'percentile_cont(1) WITHIN GROUP (ORDER BY x)', percentile_cont(x)`,
	} {
		var edits []textEdit
		got, err := rewriteWithinGroup(in, in, &edits)
		if err != nil || got != want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", in, got, err, want)
		}
	}
	for _, sql := range []string{
		`SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x, y) FROM t`,
		`SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x NULLS FIRST) FROM t`,
	} {
		var edits []textEdit
		if _, err := rewriteWithinGroup(sql, sql, &edits); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v, want ErrUnsupported", sql, err)
		}
	}
}
