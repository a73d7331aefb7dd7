//go:build duckdb

package difftest

import (
	"context"
	"testing"
)

// everydayQueries are the spellings a DuckDB or PostgreSQL user writes
// without thinking: SELECT-list aliases in WHERE, HAVING and QUALIFY.
var everydayQueries = []testQuery{
	// aliases: a column of FROM wins in WHERE, an aggregate's alias in HAVING
	{name: "alias in WHERE", sql: "SELECT id, i * 2 AS w FROM t WHERE w > 10"},
	{name: "alias shadowing a column in WHERE", sql: "SELECT id, i * 2 AS i FROM t WHERE i > 10"},
	{name: "alias in WHERE of a join", sql: "SELECT n_name, r_name AS rr FROM nation JOIN region ON n_regionkey = r_regionkey WHERE rr = 'ASIA'"},
	{name: "alias in WHERE beside a subquery", sql: "SELECT o_orderkey AS ok FROM orders WHERE ok < 100 AND o_custkey IN (SELECT c_custkey FROM customer WHERE c_acctbal > 0)"},
	{name: "aliases in GROUP BY and HAVING", sql: "SELECT k AS kk, sum(i) AS s, count(*) AS c FROM t GROUP BY kk HAVING s > 10 AND c > 1"},
	{name: "aggregate alias shadowing a column in HAVING", sql: "SELECT k, sum(i) AS i FROM t GROUP BY k HAVING i > 100"},
	{name: "alias in QUALIFY", sql: "SELECT id, k, row_number() OVER (PARTITION BY k ORDER BY id) AS rn FROM t QUALIFY rn <= 2"},
	{name: "alias of an expression over a window call in QUALIFY", sql: "SELECT id, k, rank() OVER (PARTITION BY k ORDER BY i) * 10 AS r10 FROM t QUALIFY r10 = 10"},
	{name: "alias used twice", sql: "SELECT n_nationkey % 5 AS m FROM nation WHERE m = 1 OR m = 3"},
}

func TestEveryday(t *testing.T) {
	ctx := context.Background()
	var n tally
	for _, q := range everydayQueries {
		t.Run(q.name, func(t *testing.T) {
			if d := env.mismatch(ctx, q, &n); d != "" {
				t.Error(d)
			}
		})
	}
	t.Log(n.String())
	for _, r := range n.refusals { // every one of these is meant to run
		t.Errorf("both engines refused %s", r)
	}
}
