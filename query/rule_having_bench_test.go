package query

import (
	"context"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/datagen/tpch/tpchcache"
)

// BenchmarkHavingOnKey is the GROUP BY the rule HAVING into WHERE
// (rule_having.go) is for, over lineitem at SF 0.1: a HAVING on the key as
// written (the rule makes it WHERE's), the same written in WHERE, and the
// plan before the rule — every row grouped, the groups filtered after —
// written as HAVING max(l_orderkey), which within a group of l_orderkey
// is the key, and which the rule leaves.
func BenchmarkHavingOnKey(b *testing.B) {
	c, err := cache.New(cache.Options{Budget: 1 << 34})
	if err != nil {
		b.Fatal(err)
	}
	if err := tpchcache.Load(context.Background(), c, 0.1, "lineitem"); err != nil {
		b.Fatal(err)
	}
	const group = `SELECT l_orderkey, sum(l_quantity), count(*) FROM lineitem `
	for _, q := range []struct{ name, sql string }{
		{"written=having", group + `GROUP BY l_orderkey HAVING l_orderkey BETWEEN 300000 AND 306000`},
		{"written=where", group + `WHERE l_orderkey BETWEEN 300000 AND 306000 GROUP BY l_orderkey`},
		{"written=having-max", group + `GROUP BY l_orderkey HAVING max(l_orderkey) BETWEEN 300000 AND 306000`},
	} {
		b.Run(q.name, func(b *testing.B) {
			e := New(c, Options{})
			for b.Loop() {
				drainQuery(b, e, q.sql)
			}
		})
	}
}
