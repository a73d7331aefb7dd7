//go:build duckdb

package difftest

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query"
)

// The join workload: small random tables ja, jb, jc (and je, empty) with
// NULL and duplicate keys of several types, and a seeded generator of
// joins, subqueries, set operations and DISTINCT over them, compared
// with DuckDB query by query.
//
//	go test -tags duckdb -run TestJoins ./query/difftest/ -args -joinseed 7 -joinqueries 20000

var (
	joinSeed    = flag.Uint64("joinseed", 1, "seed of TestJoins' generator")
	joinQueries = flag.Int("joinqueries", 1200, "queries TestJoins generates")
)

// joinTables are the join workload's tables: name and rows.
var joinTables = []struct {
	name string
	rows int
}{{"ja", 300}, {"jb", 200}, {"jc", 40}, {"je", 0}}

var (
	joinOnce sync.Once
	joinEng  *query.Engine
	joinErr  error
)

// joinEngine loads the join tables into a quiver engine of their own and
// into the shared DuckDB.
func joinEngine(t *testing.T) *query.Engine {
	joinOnce.Do(func() { joinEng, joinErr = loadJoinTables(context.Background()) })
	if joinErr != nil {
		t.Fatal(joinErr)
	}
	return joinEng
}

func loadJoinTables(ctx context.Context) (*query.Engine, error) {
	c, err := cache.New(cache.Options{})
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(42, 7))
	for _, jt := range joinTables {
		recs := joinTable(memory.DefaultAllocator, rng, jt.rows)
		err := putRecords(ctx, c, jt.name, recs)
		if err == nil {
			err = duckTable(ctx, env.db, jt.name, "*", recs)
		}
		for _, r := range recs {
			r.Release()
		}
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", jt.name, err)
		}
	}
	return query.New(c, engineOptions()), nil
}

// joinTable makes rows rows, in batches of 64: k int64 in [0, 25) and
// s a letter, both 10% NULL and repeating; n int32 NOT NULL in [0, 10);
// d a date among 12; v decimal(10,2) 10% NULL.
func joinTable(mem memory.Allocator, rng *rand.Rand, rows int) []arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "v", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
	}, nil)
	var recs []arrow.RecordBatch
	for start := 0; start < rows || (rows == 0 && len(recs) == 0); start += 64 {
		n := min(64, rows-start)
		b := array.NewRecordBuilder(mem, schema)
		for range n {
			if rng.IntN(10) == 0 {
				b.Field(0).AppendNull()
			} else {
				b.Field(0).(*array.Int64Builder).Append(rng.Int64N(25))
			}
			if rng.IntN(10) == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append(string(rune('a' + rng.IntN(12))))
			}
			b.Field(2).(*array.Int32Builder).Append(rng.Int32N(10))
			b.Field(3).(*array.Date32Builder).Append(arrow.Date32(9000 + rng.IntN(12)*31))
			if rng.IntN(10) == 0 {
				b.Field(4).AppendNull()
			} else {
				b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(rng.Int64N(20000) - 5000))
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return recs
}

// TestJoins compares the generated join workload with DuckDB.
func TestJoins(t *testing.T) {
	q := joinEngine(t)
	e := engines{q: q, db: env.db}
	ctx := context.Background()
	g := &joinGen{rng: rand.New(rand.NewPCG(*joinSeed, 99))}
	var tl tally
	failed := 0
	for i := range *joinQueries {
		tq := g.query()
		tq.name = fmt.Sprint(i)
		if d := e.mismatch(ctx, tq, &tl); d != "" {
			failed++
			if failed <= 10 {
				t.Errorf("query %d:\n%s", i, d)
			}
		}
	}
	if failed > 10 {
		t.Errorf("%d of %d queries differ (first 10 shown)", failed, *joinQueries)
	}
	t.Logf("%v", &tl)
	for _, r := range tl.refusals {
		t.Logf("both refused: %s", r)
	}
	if tl.refused > tl.queries/20 {
		t.Errorf("%d of %d generated queries refused by both engines: the generator writes bad SQL", tl.refused, tl.queries)
	}
}

// joinGen writes random queries over the join tables.
type joinGen struct{ rng *rand.Rand }

func (g *joinGen) pick(xs ...string) string { return xs[g.rng.IntN(len(xs))] }

func (g *joinGen) table() string {
	// The empty table now and then.
	if g.rng.IntN(12) == 0 {
		return "je"
	}
	return g.pick("ja", "jb", "jc")
}

// key is a join key column: the same name on both sides.
func (g *joinGen) key() string { return g.pick("k", "k", "s", "n", "d") }

// filter is a condition on alias's columns, or "".
func (g *joinGen) filter(alias string) string {
	switch g.rng.IntN(7) {
	case 0:
		return fmt.Sprintf("%s.k < %d", alias, g.rng.IntN(25))
	case 1:
		return fmt.Sprintf("%s.s IN ('a', 'c', 'e', 'g')", alias)
	case 2:
		return fmt.Sprintf("%s.v > %d", alias, g.rng.IntN(100)-30)
	case 3:
		return fmt.Sprintf("%s.k IS NOT NULL", alias)
	case 4:
		return fmt.Sprintf("%s.n <> %d", alias, g.rng.IntN(10))
	}
	return ""
}

func where(conds ...string) string {
	var parts []string
	for _, c := range conds {
		if c != "" {
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(parts, " AND ")
}

// output is a SELECT list over x and y: columns, or aggregates with a
// GROUP BY.
func (g *joinGen) output(x, y string) (sel, tail string) {
	switch g.rng.IntN(4) {
	case 0:
		return fmt.Sprintf("%s.k, %s.s, %s.n, %s.v, %s.d", x, x, y, y, y), ""
	case 1:
		return "count(*)", ""
	case 2:
		return fmt.Sprintf("%s.s, count(*), sum(%s.v), min(%s.d), count(%s.k)", x, y, y, y), fmt.Sprintf(" GROUP BY %s.s", x)
	}
	return fmt.Sprintf("count(*), count(%s.k), sum(%s.v), max(%s.s)", y, y, x), ""
}

func (g *joinGen) query() testQuery {
	a, b := g.table(), g.table()
	k := g.key()
	switch g.rng.IntN(13) {
	case 0, 1: // inner join, ON or comma
		sel, tail := g.output("x", "y")
		if g.rng.IntN(2) == 0 {
			return testQuery{sql: fmt.Sprintf("SELECT %s FROM %s x JOIN %s y ON x.%s = y.%s%s%s", sel, a, b, k, k, where(g.filter("x"), g.filter("y")), tail)}
		}
		return testQuery{sql: fmt.Sprintf("SELECT %s FROM %s x, %s y%s%s", sel, a, b, where("x."+k+" = y."+k, g.filter("x"), g.filter("y")), tail)}
	case 2: // left or full join with a condition on one side in ON
		sel, tail := g.output("x", "y")
		on := "x." + k + " = y." + k
		if f := g.filter(g.pick("y", "y", "x")); f != "" {
			on += " AND " + f
		}
		kind := g.pick("LEFT", "LEFT", "FULL", "FULL OUTER")
		// WHERE on either side (a FULL JOIN narrows to LEFT, RIGHT or inner)
		return testQuery{sql: fmt.Sprintf("SELECT %s FROM %s x %s JOIN %s y ON %s%s%s", sel, a, kind, b, on, where(g.filter(g.pick("x", "x", "y"))), tail)}
	case 3: // three relations, a residual between two of them
		c := g.table()
		k2 := g.key()
		return testQuery{sql: fmt.Sprintf("SELECT count(*), sum(z.v), min(x.s) FROM %s x, %s y, %s z%s", a, b, c,
			where("x."+k+" = y."+k, "y."+k2+" = z."+k2, "x.n <= z.n", g.filter("z")))}
	case 4: // EXISTS / NOT EXISTS, correlated, maybe with a residual
		not := g.pick("", "NOT ")
		extra := g.pick("", " AND y.n <> x.n", " AND y.v > x.v")
		return testQuery{sql: fmt.Sprintf("SELECT x.k, x.s, x.n FROM %s x WHERE %sEXISTS (SELECT * FROM %s y WHERE y.%s = x.%s%s)%s",
			a, not, b, k, k, extra, andf(g.filter("x")))}
	case 5: // IN / NOT IN, NULLs on both sides
		not := g.pick("", "NOT ")
		return testQuery{sql: fmt.Sprintf("SELECT x.k, x.s FROM %s x WHERE x.%s %sIN (SELECT y.%s FROM %s y%s)", a, k, not, k, b, where(g.filter("y")))}
	case 6: // correlated scalar aggregate
		agg := g.pick("min(y.v)", "max(y.v)", "avg(y.n)", "sum(y.n)")
		cmp := g.pick("<", ">=", "=")
		col := map[string]string{"min(y.v)": "x.v", "max(y.v)": "x.v", "avg(y.n)": "x.n", "sum(y.n)": "x.n"}[agg]
		return testQuery{sql: fmt.Sprintf("SELECT x.k, x.s, x.v FROM %s x WHERE %s %s (SELECT %s FROM %s y WHERE y.%s = x.%s%s)",
			a, col, cmp, agg, b, k, k, andf(g.filter("y")))}
	case 7: // uncorrelated scalar
		return testQuery{sql: fmt.Sprintf("SELECT count(*), sum(x.v) FROM %s x WHERE x.n > (SELECT avg(y.n) FROM %s y%s)", a, b, where(g.filter("y")))}
	case 8: // set operations
		op := g.pick("UNION", "UNION ALL", "INTERSECT", "EXCEPT")
		return testQuery{sql: fmt.Sprintf("SELECT k, s FROM %s%s %s SELECT k, s FROM %s%s", a, where(g.filter(a)), op, b, where(g.filter(b)))}
	case 9: // DISTINCT, derived table
		return testQuery{sql: fmt.Sprintf("SELECT DISTINCT x.%s, y.s FROM %s x JOIN (SELECT k, s, n, d FROM %s%s) y ON x.%s = y.%s", k, a, b, where(g.filter(b)), k, k)}
	case 10: // a CTE used twice, self join
		return testQuery{sql: fmt.Sprintf("WITH t1 AS (SELECT k, s, n FROM %s%s) SELECT p.k, p.s, q.n FROM t1 p JOIN t1 q ON p.k = q.k AND p.s <> q.s", a, where(g.filter(a)))}
	case 11: // expression keys, and keys of different types
		on := g.pick("x.k = y.n + 1", "x.k + 0 = y.k", "x.n * 2 = y.k", "x.k = y.v", "x.v = y.n", "x.s || 'z' = y.s || 'z'", "CAST(x.n AS DOUBLE) = y.k")
		switch not := g.pick("", "NOT "); g.rng.IntN(6) {
		case 0:
			return testQuery{sql: fmt.Sprintf("SELECT x.k, x.s, x.n FROM %s x WHERE %sEXISTS (SELECT * FROM %s y WHERE %s)%s", a, not, b, on, andf(g.filter("x")))}
		case 1: // NULLs on both sides
			return testQuery{sql: fmt.Sprintf("SELECT x.k, x.s FROM %s x WHERE x.k + 1 %sIN (SELECT %s FROM %s y%s)", a, not, g.pick("y.n * 2", "y.v", "y.k"), b, where(g.filter("y")))}
		}
		sel, tail := g.output("x", "y")
		kind := g.pick("", "", "LEFT ", "FULL ")
		return testQuery{sql: fmt.Sprintf("SELECT %s FROM %s x %sJOIN %s y ON %s%s%s", sel, a, kind, b, on, where(g.filter("x")), tail)}
	}
	// cross join of the small table
	return testQuery{sql: fmt.Sprintf("SELECT count(*), sum(x.n * y.n) FROM jc x CROSS JOIN %s y%s", b, where(g.filter("y")))}
}

func andf(f string) string {
	if f == "" {
		return ""
	}
	return " AND " + f
}
