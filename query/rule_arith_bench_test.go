package query

import (
	"context"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/datagen/tpch/tpchcache"
)

// BenchmarkArithCount is the count the arithmetic rule (rule_arith.go)
// is for, over lineitem at SF 0.1: l_orderkey + 0 BETWEEN … as written,
// the same written bare (what the rule makes of it), and as written with
// NoPruning (the plan before the rule: every batch decoded, the sum
// computed per row).
func BenchmarkArithCount(b *testing.B) {
	c, err := cache.New(cache.Options{Budget: 1 << 34})
	if err != nil {
		b.Fatal(err)
	}
	if err := tpchcache.Load(context.Background(), c, 0.1, "lineitem"); err != nil {
		b.Fatal(err)
	}
	const arith = `SELECT count(*) FROM lineitem WHERE l_orderkey + 0 BETWEEN 300000 AND 306000`
	for _, q := range []struct {
		name string
		opts Options
		sql  string
	}{
		{"written=plus0", Options{}, arith},
		{"written=bare", Options{}, `SELECT count(*) FROM lineitem WHERE l_orderkey BETWEEN 300000 AND 306000`},
		{"written=plus0/nopruning", Options{NoPruning: true}, arith},
	} {
		b.Run(q.name, func(b *testing.B) {
			e := New(c, q.opts)
			for b.Loop() {
				drainQuery(b, e, q.sql)
			}
		})
	}
}
