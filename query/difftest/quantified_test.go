//go:build duckdb

package difftest

import (
	"fmt"
	"testing"
)

// quantifiedQueries compare x op ANY/ALL (subquery) with DuckDB for every
// operator and quantifier, over subqueries with and without NULLs, empty
// and all-NULL, in the SELECT list (where NULL and FALSE differ), under
// NOT in WHERE, correlated where quiver takes it (= ANY; <> ALL is NOT
// IN, taken uncorrelated only), and over a set operation
// (rule_quantified.go).
func quantifiedQueries() []testQuery {
	subs := []struct{ name, sql string }{
		{"no NULLs", "SELECT k FROM t WHERE k IS NOT NULL AND id < 60"},
		{"NULLs", "SELECT k FROM t WHERE id BETWEEN 40 AND 120"},
		{"empty", "SELECT k FROM t WHERE id < 0"},
		{"only NULL", "SELECT CAST(NULL AS BIGINT)"},
		{"a set operation", "SELECT n FROM t WHERE id < 5 UNION ALL SELECT 3"},
	}
	var qs []testQuery
	for _, op := range []string{"=", "<>", "<", "<=", ">", ">="} {
		for _, q := range []string{"ANY", "ALL"} {
			for _, s := range subs {
				qs = append(qs, testQuery{
					name: fmt.Sprintf("i %% 7 %s %s (%s)", op, q, s.name),
					sql:  fmt.Sprintf("SELECT id, i %% 7 %s %s (%s) FROM t WHERE id < 300", op, q, s.sql),
				})
			}
		}
	}
	qs = append(qs,
		testQuery{name: "NOT > ALL in WHERE", sql: "SELECT id FROM t WHERE NOT (i % 7 > ALL (SELECT k FROM t WHERE id BETWEEN 40 AND 120))"},
		testQuery{name: "NOT <= ANY in WHERE", sql: "SELECT id FROM t WHERE NOT (i % 7 <= ANY (SELECT k FROM t WHERE k IS NOT NULL AND id < 60))"},
		testQuery{name: "SOME", sql: "SELECT id FROM t WHERE f >= SOME (SELECT f FROM t WHERE id < 30)"},
		testQuery{name: "strings > ALL", sql: "SELECT id, s FROM t WHERE s > ALL (SELECT g FROM t WHERE g IS NOT NULL)"},
		testQuery{name: "correlated = ANY", sql: "SELECT n_name FROM nation n WHERE n_nationkey = ANY (SELECT r_regionkey * 5 FROM region r WHERE r.r_regionkey = n.n_regionkey)"},
		testQuery{name: "<> ALL with NULLs in WHERE", sql: "SELECT id, k FROM t a WHERE a.k <> ALL (SELECT b.n FROM t b WHERE b.id < 20)"},
		testQuery{name: "= ANY over a set operation in WHERE", sql: "SELECT id FROM t WHERE i % 7 = ANY (SELECT n FROM t WHERE id < 5 UNION ALL SELECT 3)"},
		testQuery{name: "in HAVING", sql: "SELECT k, count(*) FROM t GROUP BY k HAVING count(*) > ALL (SELECT count(*) / 7 FROM t GROUP BY g)"},
	)
	return qs
}

func TestQuantified(t *testing.T) { runQueriesMeantToRun(t, quantifiedQueries()) }
