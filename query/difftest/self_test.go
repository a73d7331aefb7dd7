//go:build duckdb

package difftest

import (
	"context"
	"flag"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

var show = flag.Int("show", 0, "print this many generated queries per table (TestGeneratorRepeats)")

// TestSelf checks that the comparison sees differences: each pair of
// queries differs in one way, and mismatch must say so.
func TestSelf(t *testing.T) {
	ctx := context.Background()
	for _, q := range []testQuery{
		{name: "one row more", sql: "SELECT id FROM t WHERE id < 10", duck: "SELECT id FROM t WHERE id <= 10"},
		{name: "order", ordered: true, sql: "SELECT id FROM t ORDER BY id LIMIT 5", duck: "SELECT id FROM t ORDER BY id DESC LIMIT 5"},
		{name: "nulls first", ordered: true, sql: "SELECT i FROM t ORDER BY i NULLS FIRST LIMIT 5", duck: "SELECT i FROM t ORDER BY i NULLS LAST LIMIT 5"},
		{name: "NULL against a value", sql: "SELECT sum(i) FROM t WHERE id < 0", duck: "SELECT 0 FROM t LIMIT 1"},
		{name: "last decimal place", sql: "SELECT sum(d) FROM t", duck: "SELECT sum(d) + 0.01 FROM t"},
		{name: "float", sql: "SELECT sum(f) FROM t", duck: "SELECT sum(f) * (1 + 1e-7) FROM t"},
		{name: "decimal against a double", sql: "SELECT CAST(1.25 AS DECIMAL(12,2)) FROM t LIMIT 1", duck: "SELECT 1.2549 FROM t LIMIT 1"},
		{name: "string", sql: "SELECT min(s) FROM t", duck: "SELECT max(s) FROM t"},
		{name: "date", sql: "SELECT min(dt) FROM t", duck: "SELECT min(dt) + 1 FROM t"},
		{name: "empty string against NULL", sql: "SELECT s FROM t WHERE s = ''", duck: "SELECT NULL FROM t WHERE s = ''"},
	} {
		var n tally
		o := env.run(ctx, q.sql, q.duck)
		if o.quiverErr != nil || o.duckErr != nil {
			t.Errorf("%s: quiver: %v; DuckDB: %v", q.name, o.quiverErr, o.duckErr)
		} else if d := env.mismatch(ctx, q, &n); d == "" {
			t.Errorf("%s: no difference seen between\n  %s\n  %s", q.name, q.sql, q.duck)
		}
	}
	// And the same query agrees with itself.
	var n tally
	if d := env.mismatch(ctx, testQuery{sql: "SELECT g, count(*), sum(d), avg(f) FROM t GROUP BY g"}, &n); d != "" {
		t.Error(d)
	}
}

// TestGeneratorRepeats: the same seed writes the same queries, and another
// seed others, so that "query i (-seed S)" in TestGenerated's failures
// names one query that -show prints again. With -show N it logs the first N
// queries per table: go test -tags duckdb -run TestGeneratorRepeats -v
// ./query/difftest/ -args -show 20.
func TestGeneratorRepeats(t *testing.T) {
	const n = 50
	write := func(tab *table, seed uint64) []string {
		g := &gen{r: rand.New(rand.NewPCG(seed, uint64(len(tab.name)))), t: tab}
		qs := make([]string, max(n, *show))
		for i := range qs {
			q := g.query()
			qs[i] = q.sql + "\n" + q.duck
		}
		return qs
	}
	for _, tab := range []*table{nullsSpec, narrowSpec, lineitemSpec} {
		first, again, other := write(tab, *seed), write(tab, *seed), write(tab, *seed+1)
		if !slices.Equal(first, again) {
			t.Errorf("%s: two generators of seed %d wrote different queries", tab.name, *seed)
		}
		if slices.Equal(first[:n], other[:n]) {
			t.Errorf("%s: seeds %d and %d wrote the same %d queries", tab.name, *seed, *seed+1, n)
		}
		for _, q := range first[:*show] {
			t.Log(strings.TrimSpace(q))
		}
	}
}
