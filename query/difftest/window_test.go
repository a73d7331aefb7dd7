//go:build duckdb

package difftest

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

var windowCount = flag.Int("windows", 300, "generated window queries of TestWindowsGenerated")

// TestWindowsGenerated runs seeded random window queries over t (3,000
// rows, NULLs in every nullable column): 1–3 calls a query, each with a
// random PARTITION BY (0–2 keys of few values, NULLs among them), ORDER
// BY (0–2 keys, random direction and NULLS FIRST/LAST, ties), function
// and frame (ROWS, RANGE with CURRENT ROW, RANGE with offsets over one
// number or date key), under a WHERE now and then; the output is ordered by id, so
// rows compare in order. A call whose answer depends on how ties are
// broken (row_number, ntile, lag, lead, the *_value functions, and any
// ROWS frame) gets id as its last ORDER BY key, as a query that wants a
// reproducible answer would; rank, dense_rank, percent_rank, cume_dist
// and the aggregates over RANGE frames keep the ties, so peers are
// tested.
func TestWindowsGenerated(t *testing.T) {
	ctx := context.Background()
	g := &winGen{r: rand.New(rand.NewPCG(*seed, 77))}
	failed := 0
	var n tally
	for i := range *windowCount {
		q := g.query()
		q.name = fmt.Sprintf("window #%d", i)
		if d := env.mismatch(ctx, q, &n); d != "" {
			failed++
			if failed <= 10 {
				t.Errorf("query %d (-seed %d):\n%s", i, *seed, d)
			}
		}
	}
	t.Logf("windows: %s", &n)
	if n.refused > 0 {
		t.Errorf("both engines refused %d queries, e.g.\n%s", n.refused, strings.Join(n.refusals, "\n"))
	}
	if failed > 0 {
		t.Errorf("%d of %d generated window queries differ", failed, *windowCount)
	}
}

type winGen struct{ r *rand.Rand }

func (g *winGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }
func (g *winGen) chance(p float64) bool    { return g.r.Float64() < p }

// winPartitionKeys have few values each, and NULLs.
var winPartitionKeys = []string{"k", "g", "b", "n % 3", "dt IS NULL", "COALESCE(g, 'x')"}

// winOrderKeys tie often; f, d and s less.
var winOrderKeys = []string{"k", "n", "g", "dt", "f", "d", "s", "b", "i % 5"}

// winArgs are arguments by type: numbers for every aggregate, others for
// min, max and the *_value functions.
var (
	winNumbers = []string{"i", "n", "d", "f", "i * 2 + n", "CAST(k AS DOUBLE)"}
	winOthers  = []string{"s", "g", "dt", "b"}
)

func (g *winGen) call() string {
	var part, order []string
	for range g.r.IntN(3) {
		// A key named twice is left out: DuckDB (1.x) then mixes up this
		// window with another one that shares the key (PARTITION BY n % 3,
		// n % 3 beside PARTITION BY n % 3, g sums over the latter's
		// partitions).
		if k := g.pick(winPartitionKeys...); !slices.Contains(part, k) {
			part = append(part, k)
		}
	}
	for range g.r.IntN(3) {
		k := g.pick(winOrderKeys...)
		k += g.pick("", " ASC", " DESC") + g.pick("", " NULLS FIRST", " NULLS LAST")
		order = append(order, k)
	}
	total := func() { order = append(order, "id"+g.pick("", " DESC")) }
	var fn, frame string
	wrap, ordered := "%s", false // wrap: the call's context
	anyArg := func() string {
		if g.chance(0.6) {
			return g.pick(winNumbers...)
		}
		return g.pick(winOthers...)
	}
	switch g.r.IntN(14) {
	case 12, 13:
		// aggregates evaluated frame by frame
		arg := g.pick(winNumbers...)
		switch g.r.IntN(8) {
		case 0:
			fn = fmt.Sprintf("%s(%s)", g.pick("stddev", "stddev_pop", "var_samp", "var_pop"), arg)
		case 1:
			fn = fmt.Sprintf("%s(%s)", g.pick("bool_and", "bool_or", "count_if"), g.pick("b", "i > 0", "k < 3"))
		case 2:
			fn = fmt.Sprintf("%s(%s, id)", g.pick("arg_min", "arg_max", "min_by", "max_by"), g.pick(winOthers...))
		case 3:
			fn = fmt.Sprintf("%s(%s, %s)", g.pick("arg_min", "arg_max"), arg, g.pick("i", "n", "dt"))
			wrap = "CASE WHEN %s IS NULL THEN NULL ELSE 0 END" // which of tied rows is not fixed; NULL or not is
		case 4:
			fn = fmt.Sprintf("median(%s)", g.pick(arg, "dt"))
		case 5:
			fn = fmt.Sprintf("%s(%s, %s)", g.pick("quantile_cont", "quantile_disc"), arg, g.pick("0.25", "0.5", "0.9", "0"))
		case 6:
			fn = fmt.Sprintf("quantile_disc(%s, 0.7)", g.pick("s", "g"))
		default:
			fn = fmt.Sprintf("string_agg(%s, '%s')", g.pick("s", "g", "CAST(i AS VARCHAR)"), g.pick(",", "", " | "))
			total() // the values' order is the frame's
			frame = g.frame(g.pick("ROWS", "GROUPS"))
			ordered = true
		}
		if frame == "" && !ordered {
			switch {
			case g.chance(0.4):
				total()
				frame = g.frame("ROWS")
			case g.chance(0.4):
				frame = g.frame("GROUPS")
			case g.chance(0.4):
				order, frame = g.rangeOffset()
			default:
				frame = g.frame("RANGE")
			}
		}
	case 0:
		fn = "row_number()"
		total()
	case 1:
		fn = "rank()"
	case 2:
		fn = "dense_rank()"
	case 3:
		fn = g.pick("percent_rank()", "cume_dist()")
	case 4:
		fn = fmt.Sprintf("ntile(%d)", 1+g.r.IntN(7))
		total()
	case 5:
		a := g.pick(winNumbers[:3]...)
		switch g.r.IntN(3) {
		case 0:
			fn = fmt.Sprintf("%s(%s)", g.pick("lag", "lead"), a)
		case 1:
			fn = fmt.Sprintf("%s(%s, %d)", g.pick("lag", "lead"), a, g.r.IntN(5))
		default:
			fn = fmt.Sprintf("%s(%s, %d, %d)", g.pick("lag", "lead"), a, 1+g.r.IntN(3), g.r.IntN(100)-50)
		}
		total()
	case 6, 7:
		switch g.r.IntN(3) {
		case 0:
			fn = fmt.Sprintf("first_value(%s)", anyArg())
		case 1:
			fn = fmt.Sprintf("last_value(%s)", anyArg())
		default:
			fn = fmt.Sprintf("nth_value(%s, %d)", anyArg(), 1+g.r.IntN(4))
		}
		total()
		frame = g.frame(g.pick("ROWS", "ROWS", "GROUPS"))
	default:
		f := g.pick("sum", "count", "avg", "min", "max", "count(*)")
		switch f {
		case "count(*)":
			fn = f
		case "min", "max", "count":
			fn = fmt.Sprintf("%s(%s)", f, anyArg())
		default:
			fn = fmt.Sprintf("%s(%s)", f, g.pick(winNumbers...))
		}
		switch {
		case g.chance(0.45):
			total()
			frame = g.frame("ROWS")
		case g.chance(0.3):
			// GROUPS keeps the ties: count, sum, min and max of a
			// frame do not depend on the order within peers
			frame = g.frame("GROUPS")
		case g.chance(0.4):
			order, frame = g.rangeOffset()
		default:
			frame = g.frame("RANGE")
		}
	}
	spec := ""
	if len(part) > 0 {
		spec = "PARTITION BY " + strings.Join(part, ", ")
	}
	if len(order) > 0 {
		spec = strings.TrimSpace(spec + " ORDER BY " + strings.Join(order, ", "))
	}
	if frame != "" {
		spec = strings.TrimSpace(spec + " " + frame)
	}
	return fmt.Sprintf(wrap, fmt.Sprintf("%s OVER (%s)", fn, spec))
}

// rangeOffset is one ORDER BY key and a RANGE frame with offsets over it.
func (g *winGen) rangeOffset() ([]string, string) {
	key := g.pick("k", "n", "i", "d", "f", "dt")
	dir := g.pick("", " DESC") + g.pick("", " NULLS FIRST", " NULLS LAST")
	off := func() string {
		if key == "dt" {
			return fmt.Sprintf("INTERVAL %d DAY", g.r.IntN(400))
		}
		if key == "f" || key == "d" {
			return fmt.Sprintf("%d.5", g.r.IntN(50))
		}
		return fmt.Sprint(g.r.IntN(4))
	}
	frame := g.pick(
		"RANGE BETWEEN %s PRECEDING AND %s FOLLOWING",
		"RANGE BETWEEN %s PRECEDING AND CURRENT ROW",
		"RANGE BETWEEN CURRENT ROW AND %s FOLLOWING",
		"RANGE BETWEEN UNBOUNDED PRECEDING AND %s FOLLOWING",
		"RANGE BETWEEN %s PRECEDING AND UNBOUNDED FOLLOWING")
	switch strings.Count(frame, "%s") {
	case 2:
		frame = fmt.Sprintf(frame, off(), off())
	default:
		frame = fmt.Sprintf(frame, off())
	}
	if g.chance(0.3) {
		frame += " EXCLUDE " + g.pick("CURRENT ROW", "GROUP", "TIES")
	}
	return []string{key + dir}, frame
}

// frame is a random frame clause of units ROWS, GROUPS or RANGE (then
// without offsets), or "" for the default, with an EXCLUDE clause now
// and then.
func (g *winGen) frame(units string) string {
	if g.chance(0.25) {
		return ""
	}
	f := g.extent(units)
	if g.chance(0.35) {
		f += " EXCLUDE " + g.pick("CURRENT ROW", "GROUP", "TIES", "NO OTHERS")
	}
	return f
}

// extent is a random frame extent.
func (g *winGen) extent(units string) string {
	if units == "RANGE" {
		return "RANGE BETWEEN " + g.pick(
			"UNBOUNDED PRECEDING AND CURRENT ROW",
			"UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
			"CURRENT ROW AND UNBOUNDED FOLLOWING",
			"CURRENT ROW AND CURRENT ROW")
	}
	bounds := []string{"UNBOUNDED PRECEDING", "%d PRECEDING", "CURRENT ROW", "%d FOLLOWING", "UNBOUNDED FOLLOWING"}
	a := g.r.IntN(4)
	b := a + g.r.IntN(5-a)
	if a == 0 && b == 0 {
		b = 2
	}
	// Offsets go in order, start before end: DuckDB's count(*) over a
	// frame that ends before it starts is -1 (quiver's is 0).
	offsets := []int{g.r.IntN(6), g.r.IntN(6)}
	slices.Sort(offsets)
	if a == 1 && b == 1 {
		offsets[0], offsets[1] = offsets[1], offsets[0]
	}
	used := 0
	bound := func(i int) string {
		if strings.Contains(bounds[i], "%d") {
			used++
			return fmt.Sprintf(bounds[i], offsets[used-1])
		}
		return bounds[i]
	}
	if g.chance(0.2) && b == 2 && a < 2 { // the short form: ROWS n PRECEDING
		return units + " " + bound(a)
	}
	return units + " BETWEEN " + bound(a) + " AND " + bound(b)
}

func (g *winGen) query() testQuery {
	calls := make([]string, 1+g.r.IntN(3))
	for i := range calls {
		calls[i] = g.call()
	}
	where := ""
	if g.chance(0.3) {
		where = " WHERE " + g.pick("k < 4", "i > 0", "g IS NOT NULL", "f < 10 OR b")
	}
	return testQuery{ordered: true, sql: fmt.Sprintf("SELECT id, %s FROM t%s ORDER BY id", strings.Join(calls, ", "), where)}
}

// windowQueries are the cases the generator does not write: windows over
// GROUP BY, in expressions and in ORDER BY, several windows over the same
// and different partitions, over lineitem.
var windowQueries = []testQuery{
	{name: "over aggregates", ordered: true, sql: `
SELECT k, sum(i), rank() OVER (ORDER BY sum(i) DESC), sum(sum(i)) OVER (ORDER BY k), count(*) * 100.0 / sum(count(*)) OVER ()
FROM t GROUP BY k ORDER BY k NULLS FIRST`},
	{name: "in expressions", ordered: true, sql: `
SELECT id, i - lag(i) OVER (PARTITION BY k ORDER BY id), row_number() OVER (ORDER BY id) * 2 + 1, coalesce(lead(s) OVER (ORDER BY id), 'end')
FROM t ORDER BY id`},
	{name: "order by a window", ordered: true, sql: `
SELECT id, g FROM t WHERE id < 200 ORDER BY row_number() OVER (PARTITION BY g ORDER BY id DESC), id`},
	{name: "top per group", ordered: true, sql: `
SELECT * FROM (SELECT id, k, i, row_number() OVER (PARTITION BY k ORDER BY i DESC NULLS LAST, id) AS rn FROM t) x
WHERE rn <= 3 ORDER BY k NULLS FIRST, rn`},
	{name: "lineitem running sums", ordered: true, sql: `
SELECT l_orderkey, l_linenumber, row_number() OVER (PARTITION BY l_orderkey ORDER BY l_linenumber),
       sum(l_extendedprice) OVER (PARTITION BY l_orderkey ORDER BY l_linenumber),
       avg(l_quantity) OVER (PARTITION BY l_suppkey ORDER BY l_orderkey, l_linenumber ROWS BETWEEN 5 PRECEDING AND 5 FOLLOWING)
FROM lineitem ORDER BY l_orderkey, l_linenumber`},
	{name: "qualify", ordered: true, sql: `
SELECT id, k, i FROM t WHERE id < 2000 QUALIFY row_number() OVER (PARTITION BY k ORDER BY i DESC NULLS LAST, id) <= 2 ORDER BY id`},
	{name: "qualify over groups", ordered: true, sql: `
SELECT g, count(*) AS c FROM t GROUP BY g QUALIFY dense_rank() OVER (ORDER BY count(*) DESC) <= 3 ORDER BY g NULLS FIRST`},
	{name: "qualify over a join", ordered: true, sql: `
SELECT o_orderkey, l_linenumber, l_quantity FROM orders JOIN lineitem ON l_orderkey = o_orderkey
WHERE o_orderkey < 3000 QUALIFY l_quantity = max(l_quantity) OVER (PARTITION BY o_orderkey) ORDER BY o_orderkey, l_linenumber`},
	{name: "window over a join", ordered: true, sql: `
SELECT o_orderkey, l_linenumber, sum(l_quantity) OVER (PARTITION BY o_custkey ORDER BY o_orderkey, l_linenumber),
       rank() OVER (PARTITION BY o_orderpriority ORDER BY o_totalprice DESC)
FROM orders JOIN lineitem ON l_orderkey = o_orderkey WHERE o_orderkey < 1000 ORDER BY o_orderkey, l_linenumber`},
	{name: "named windows", ordered: true, sql: `
SELECT id, rank() OVER w, sum(i) OVER (w ROWS BETWEEN 2 PRECEDING AND CURRENT ROW), count(*) OVER p, last_value(s) OVER (p ORDER BY id)
FROM t WINDOW w AS (PARTITION BY k ORDER BY n, id), p AS (PARTITION BY g) ORDER BY id`},
	{name: "empty input", sql: `SELECT id, rank() OVER (ORDER BY i) FROM t WHERE id < 0`},
	{name: "whole table", ordered: true, sql: `SELECT id, count(*) OVER (), max(s) OVER (), min(dt) OVER () FROM t WHERE k = 1 ORDER BY id`},
}

func TestWindows(t *testing.T) {
	ctx := context.Background()
	var n tally
	for _, q := range windowQueries {
		t.Run(q.name, func(t *testing.T) {
			if d := env.mismatch(ctx, q, &n); d != "" {
				t.Error(d)
			}
		})
	}
	t.Log(n.String())
}
