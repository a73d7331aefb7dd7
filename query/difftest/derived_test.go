//go:build duckdb

package difftest

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The derived-table workload: generated SELECTs over the join tables
// (join_test.go) — projections, GROUP BYs, aggregates without one, UNION
// ALLs of 2–3 SELECTs (now and then an integer in one and a decimal in
// another at the same position), SELECTs a filter must not enter
// (DISTINCT, LIMIT, a window, a UNION) and SELECTs over such SELECTs —
// wrapped as a derived table in FROM, a view, a WITH name (now and then
// used twice, or with a column list) or joined to a table (inner, LEFT,
// FULL; the conjunct in ON or WHERE, over either side), with random
// conjuncts over the derived columns outside: the filters quiver moves
// into the SELECT (query/from_derived_push.go, query/cte_setop.go).
// Dates are cast to TIMESTAMP and compared with TIMESTAMP, DATE and
// string constants at and off midnight, inside and outside the derived
// tables: the casts quiver takes off the column (query/rule_cast.go).
//
//	go test -tags duckdb -run TestDerived ./query/difftest/ -args -joinseed 7 -derivedqueries 20000

var derivedQueries = flag.Int("derivedqueries", 800, "queries TestDerived generates")

// TestDerived compares the generated derived-table workload with DuckDB.
func TestDerived(t *testing.T) {
	q := joinEngine(t)
	e := engines{q: q, db: env.db}
	ctx := context.Background()
	g := &derivedGen{rng: rand.New(rand.NewPCG(*joinSeed, 1717))}
	var tl tally
	failed := 0
	for i := range *derivedQueries {
		tq := g.query()
		tq.name = fmt.Sprint(i)
		d := e.createView(ctx, g.view)
		if d == "" {
			d = e.mismatch(ctx, tq, &tl)
		}
		if d != "" {
			failed++
			if g.view != "" {
				d = g.view + "\n" + d
			}
			if failed <= 10 {
				t.Errorf("query %d (-joinseed %d):\n%s", i, *joinSeed, d)
			}
		}
	}
	if failed > 10 {
		t.Errorf("%d of %d queries differ (first 10 shown)", failed, *derivedQueries)
	}
	t.Logf("%v", &tl)
	for _, r := range tl.refusals {
		t.Logf("both refused: %s", r)
	}
	if tl.refused > tl.queries/20 {
		t.Errorf("%d of %d generated queries refused by both engines: the generator writes bad SQL", tl.refused, tl.queries)
	}
}

// createView runs CREATE OR REPLACE VIEW … in both engines ("" for
// none); it returns what differs, or "".
func (e *engines) createView(ctx context.Context, sql string) string {
	if sql == "" {
		return ""
	}
	_, qerr := e.q.Exec(ctx, sql)
	_, derr := e.db.ExecContext(ctx, sql)
	if (qerr == nil) != (derr == nil) {
		return fmt.Sprintf("SQL: %s\nquiver: %v\nDuckDB: %v", sql, qerr, derr)
	}
	return ""
}

// dkind is the type of a derived table's column, as the conjuncts over
// it need to know.
type dkind uint8

const (
	dInt dkind = iota
	dDec
	dStr
	dDate
	dTS // TIMESTAMP
	dKinds
)

// dcol is a column: its name (or expression) and kind.
type dcol struct {
	name  string
	kind  dkind
	mixed bool // an integer in one SELECT of a UNION ALL, a decimal in another
}

// derived is a generated SELECT or set operation and its columns.
type derived struct {
	sql     string
	cols    []dcol
	lateral bool // an item names an earlier item's alias
	limit   bool // an ORDER BY … LIMIT inside
}

// derivedItems are SELECT items over one join table, by kind; each may
// be NULL.
var derivedItems = [dKinds][]string{
	dInt:  {"k", "n", "k + n", "k * 2 - n", "COALESCE(k, -1)", "n % 4", "CASE WHEN s < 'f' THEN k ELSE n END"},
	dDec:  {"v", "v * 2", "v + k", "COALESCE(v, 0)", "v - n"},
	dStr:  {"s", "s || 'x'", "COALESCE(s, 'none')", "upper(s)", "CASE WHEN k > 10 THEN s END"},
	dDate: {"d", "d", "CASE WHEN k IS NULL THEN NULL ELSE d END"},
	dTS:   {"CAST(d AS TIMESTAMP)", "CAST(d AS TIMESTAMP)", "CAST(CASE WHEN k > 20 THEN NULL ELSE d END AS TIMESTAMP)"},
}

// derivedAggs are aggregates over one join table, by kind.
var derivedAggs = [dKinds][]string{
	dInt:  {"count(*)", "count(k)", "sum(n)", "max(k)", "min(n)", "count(DISTINCT s)"},
	dDec:  {"sum(v)", "min(v)", "max(v)"},
	dStr:  {"max(s)", "min(s)"},
	dDate: {"min(d)", "max(d)"},
	dTS:   {"max(CAST(d AS TIMESTAMP))", "min(CAST(d AS TIMESTAMP))"},
}

// derivedConsts are constants of each kind, items of a SELECT that
// aggregates or branches of a UNION ALL.
var derivedConsts = [dKinds][]string{
	dInt:  {"7", "0", "NULL"},
	dDec:  {"2.50", "-1.25", "NULL"},
	dStr:  {"'all'", "'c'", "NULL"},
	dDate: {"DATE '1994-09-23'", "NULL"},
	dTS:   {"TIMESTAMP '1994-09-23 12:00:00'", "TIMESTAMP '1994-10-24 00:00:00'", "NULL"},
}

// derivedKeys are GROUP BY keys.
var derivedKeys = []dcol{{name: "s", kind: dStr}, {name: "n", kind: dInt}, {name: "k % 5", kind: dInt}, {name: "d", kind: dDate}, {name: "CAST(d AS TIMESTAMP)", kind: dTS}, {name: "upper(s)", kind: dStr}}

// tableCols are a join table's columns.
var tableCols = []dcol{{name: "k", kind: dInt}, {name: "n", kind: dInt}, {name: "s", kind: dStr}, {name: "d", kind: dDate}, {name: "v", kind: dDec}}

// derivedGen writes random queries over derived tables of the join tables.
type derivedGen struct {
	rng  *rand.Rand
	view string // the CREATE VIEW the last query reads, or ""
}

func (g *derivedGen) pick(xs ...string) string { return xs[g.rng.IntN(len(xs))] }
func (g *derivedGen) chance(p float64) bool    { return g.rng.Float64() < p }
func (g *derivedGen) kind() dkind              { return dkind(g.rng.IntN(int(dKinds))) }

func (g *derivedGen) table() string {
	if g.rng.IntN(15) == 0 {
		return "je"
	}
	return g.pick("ja", "jb", "jc")
}

// names are n column names: c0, c1, …, or now and then the table's own
// column names shuffled, so that an item and a name it is given differ
// (SELECT n AS k, k AS n: the conjunct must read the item, not the
// table's column).
func (g *derivedGen) names(n int, shuffle bool) []string {
	var ns []string
	if shuffle && n <= 5 && g.chance(0.2) {
		for _, i := range g.rng.Perm(5)[:n] {
			ns = append(ns, tableCols[i].name)
		}
		return ns
	}
	for i := range n {
		ns = append(ns, fmt.Sprintf("c%d", i))
	}
	return ns
}

// innerWhere is a WHERE over a join table's columns, or "".
func (g *derivedGen) innerWhere() string {
	if g.chance(0.5) {
		return ""
	}
	return " WHERE " + g.cond(tableCols, 1)
}

// derived is a SELECT (or set operation) over the join tables; depth
// bounds SELECTs over SELECTs.
func (g *derivedGen) derived(depth int) derived {
	switch r := g.rng.IntN(20); {
	case r < 6:
		return g.projection()
	case r < 10:
		return g.grouped()
	case r < 15:
		return g.unionAll()
	case r < 17:
		return g.unmovable()
	default:
		if depth > 0 {
			return g.projection()
		}
		return g.over(g.derived(depth + 1))
	}
}

// projection is SELECT items FROM a table [WHERE …].
func (g *derivedGen) projection() derived {
	n := 2 + g.rng.IntN(3)
	names := g.names(n, true)
	var items []string
	var cols []dcol
	for i := range n {
		k := g.kind()
		items = append(items, g.pick(derivedItems[k]...)+" AS "+names[i])
		cols = append(cols, dcol{name: names[i], kind: k})
	}
	// An item naming an earlier item's alias (a conjunct over it cannot
	// move: in WHERE the name would be FROM's column, or none).
	lateral := names[0] == "c0" && (cols[0].kind == dInt || cols[0].kind == dDec) && g.chance(0.15)
	if lateral {
		name := fmt.Sprintf("c%d", n)
		items = append(items, "c0 "+g.pick("+ 1", "* 2", "- n")+" AS "+name)
		cols = append(cols, dcol{name: name, kind: cols[0].kind})
	}
	return derived{sql: fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(items, ", "), g.table(), g.innerWhere()), cols: cols, lateral: lateral}
}

// grouped is a GROUP BY on 1–2 keys, or aggregates without one (then a
// conjunct must go to HAVING, not WHERE: over no rows the aggregate
// still gives one), with a constant item now and then.
func (g *derivedGen) grouped() derived {
	var items, keys []string
	var cols []dcol
	add := func(item string, k dkind) {
		name := fmt.Sprintf("c%d", len(cols))
		items = append(items, item+" AS "+name)
		cols = append(cols, dcol{name: name, kind: k})
	}
	for range g.rng.IntN(3) {
		k := derivedKeys[g.rng.IntN(len(derivedKeys))]
		if !strings.Contains(strings.Join(keys, ","), k.name) {
			keys = append(keys, k.name)
			add(k.name, k.kind)
		}
	}
	for range 1 + g.rng.IntN(3) {
		k := g.kind()
		add(g.pick(derivedAggs[k]...), k)
	}
	if g.chance(0.35) || len(keys) == 0 && g.chance(0.5) {
		k := g.kind()
		add(derivedConsts[k][0], k)
	}
	sql := fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(items, ", "), g.table(), g.innerWhere())
	if len(keys) > 0 {
		sql += " GROUP BY " + strings.Join(keys, ", ")
	}
	if g.chance(0.25) {
		sql += g.pick(fmt.Sprintf(" HAVING count(*) > %d", g.rng.IntN(6)), " HAVING min(n) < 8", " HAVING max(s) IS NOT NULL")
	}
	return derived{sql: sql, cols: cols}
}

// unionAll is a UNION ALL of 2–3 SELECTs over the join tables. A column
// may be an integer in one SELECT and a decimal in another (the union's
// type a decimal: a conjunct moved into the integer SELECT would be
// computed in the wrong type), or a constant or NULL in a later one.
func (g *derivedGen) unionAll() derived {
	n := 1 + g.rng.IntN(3)
	mixed := make([]bool, n)
	var cols []dcol
	for i := range n {
		k := g.kind()
		if (k == dInt || k == dDec) && g.chance(0.5) {
			mixed[i] = true
		}
		cols = append(cols, dcol{name: fmt.Sprintf("c%d", i), kind: k})
	}
	var sels []string
	for b := range 2 + g.rng.IntN(2) {
		var items []string
		for i, c := range cols {
			k := c.kind
			if mixed[i] {
				k = []dkind{dInt, dDec}[g.rng.IntN(2)]
				if k == dDec {
					cols[i].kind = dDec
				}
				cols[i].mixed = cols[i].mixed || b > 0 && k != c.kind
			}
			item := g.pick(derivedItems[k]...)
			if b > 0 && g.chance(0.12) {
				item = g.pick(derivedConsts[k]...)
			}
			if b == 0 {
				item += " AS " + c.name
			}
			items = append(items, item)
		}
		sels = append(sels, fmt.Sprintf("SELECT %s FROM %s%s", strings.Join(items, ", "), g.table(), g.innerWhere()))
	}
	return derived{sql: strings.Join(sels, " UNION ALL "), cols: cols}
}

// unmovable is a SELECT a conjunct must not enter: DISTINCT, LIMIT, a
// window function, a UNION that removes duplicates.
func (g *derivedGen) unmovable() derived {
	d := g.projection()
	switch g.rng.IntN(4) {
	case 0:
		d.sql = strings.Replace(d.sql, "SELECT ", "SELECT DISTINCT ", 1)
	case 1: // every column ordered: the rows kept are the same in both
		var order []string
		for i := range d.cols {
			order = append(order, fmt.Sprintf("%d NULLS LAST", i+1))
		}
		d.sql += fmt.Sprintf(" ORDER BY %s LIMIT %d", strings.Join(order, ", "), g.rng.IntN(60))
		d.limit = true
	case 2:
		name := fmt.Sprintf("w%d", len(d.cols))
		part := g.pick("s", "n", "k % 3")
		d.sql = strings.Replace(d.sql, " FROM ", fmt.Sprintf(", count(*) OVER (PARTITION BY %s) AS %s FROM ", part, name), 1)
		d.cols = append(d.cols, dcol{name: name, kind: dInt})
	default:
		var items []string
		for _, c := range d.cols {
			items = append(items, g.pick(derivedItems[c.kind]...))
		}
		d.sql += fmt.Sprintf(" UNION SELECT %s FROM %s%s", strings.Join(items, ", "), g.table(), g.innerWhere())
	}
	return d
}

// over is a SELECT over d: its columns, some computed, maybe filtered;
// the conjunct outside passes through both.
func (g *derivedGen) over(d derived) derived {
	var items []string
	var cols []dcol
	for i, c := range d.cols {
		item := "z." + c.name
		if c.kind == dInt && g.chance(0.3) {
			item += " + 1"
		}
		name := fmt.Sprintf("c%d", i)
		items = append(items, item+" AS "+name)
		cols = append(cols, dcol{name, c.kind, c.mixed})
	}
	return derived{sql: fmt.Sprintf("SELECT %s FROM (%s) z%s", strings.Join(items, ", "), d.sql,
		where(g.conds(qualified("z", d.cols), 0.6)...)), cols: cols, limit: d.limit}
}

// qualified is cols named through alias.
func qualified(alias string, cols []dcol) []dcol {
	var out []dcol
	for _, c := range cols {
		out = append(out, dcol{alias + "." + c.name, c.kind, c.mixed})
	}
	return out
}

// conds are 0–3 conjuncts over cols, none with probability 1-p.
func (g *derivedGen) conds(cols []dcol, p float64) []string {
	if !g.chance(p) {
		return nil
	}
	var cs []string
	for range 1 + g.rng.IntN(3) {
		cs = append(cs, g.cond(cols, 1))
	}
	return cs
}

func (g *derivedGen) cmp() string { return g.pick("=", "<>", "<", "<=", ">", ">=") }

// cond is a condition over cols; depth bounds ORs and NOTs.
func (g *derivedGen) cond(cols []dcol, depth int) string {
	if depth > 0 && g.chance(0.2) {
		if g.chance(0.7) {
			return fmt.Sprintf("(%s OR %s)", g.cond(cols, depth-1), g.cond(cols, depth-1))
		}
		return fmt.Sprintf("NOT (%s)", g.cond(cols, depth-1))
	}
	c := cols[g.rng.IntN(len(cols))]
	other := func(k ...dkind) (string, bool) {
		for _, i := range g.rng.Perm(len(cols)) {
			for _, want := range k {
				if cols[i].kind == want && cols[i].name != c.name {
					return cols[i].name, true
				}
			}
		}
		return "", false
	}
	if g.chance(0.08) {
		return c.name + g.pick(" IS NULL", " IS NOT NULL")
	}
	switch c.kind {
	case dInt, dDec:
		lit := func() string {
			if c.kind == dDec && g.chance(0.7) {
				return decLit(-6000, 16000)(g.rng)
			}
			return fmt.Sprint(g.rng.IntN(45) - 5)
		}
		r := g.rng.IntN(7)
		if c.mixed && g.chance(0.4) {
			r = 4
		}
		switch r {
		case 0:
			return fmt.Sprintf("%s %sBETWEEN %s AND %s", c.name, g.pick("", "NOT "), lit(), lit())
		case 1:
			return fmt.Sprintf("%s %sIN (%s, %s, %s)", c.name, g.pick("", "NOT "), lit(), lit(), lit())
		case 2:
			if o, ok := other(dInt, dDec); ok {
				return fmt.Sprintf("%s %s %s %s %s", c.name, g.pick("+", "-"), o, g.cmp(), lit())
			}
		case 3:
			if o, ok := other(dInt, dDec); ok {
				return fmt.Sprintf("%s * 2 %s %s", c.name, g.cmp(), o)
			}
		case 4:
			// The text of a number tells an integer from a decimal.
			return fmt.Sprintf("CAST(%s AS CHAR) %s", c.name, g.pick("LIKE '%.5%'", "LIKE '1%'", "= '5'", "NOT LIKE '%.00'"))
		}
		return fmt.Sprintf("%s %s %s", c.name, g.cmp(), lit())
	case dStr:
		switch g.rng.IntN(5) {
		case 0:
			return fmt.Sprintf("%s %sLIKE '%s'", c.name, g.pick("", "NOT "), g.pick("a%", "%x", "C%", "_", "%e%", "n%"))
		case 1:
			return fmt.Sprintf("%s IN ('a', 'c', 'none', 'B')", c.name)
		case 2:
			if o, ok := other(dStr); ok {
				return fmt.Sprintf("%s %s %s", c.name, g.cmp(), o)
			}
		case 3:
			return fmt.Sprintf("%s BETWEEN 'b' AND '%s'", c.name, g.pick("f", "h", "gx", "D"))
		}
		return fmt.Sprintf("%s %s '%s'", c.name, g.cmp(), g.pick("c", "f", "A", "g", "bx", "none", "all"))
	case dDate:
		switch g.rng.IntN(6) {
		case 0:
			return fmt.Sprintf("%s %s %s", c.name, g.cmp(), g.dateConst())
		case 1:
			return fmt.Sprintf("%s BETWEEN %s AND %s", c.name, g.dateConst(), g.dateConst())
		case 2:
			if o, ok := other(dDate, dTS); ok {
				return fmt.Sprintf("%s %s %s", c.name, g.cmp(), o)
			}
		case 3:
			return fmt.Sprintf("CAST(%s AS TIMESTAMP) %sBETWEEN %s AND %s", c.name, g.pick("", "", "NOT "), g.tsConst(), g.tsConst())
		case 4:
			return fmt.Sprintf("%s %s CAST(%s AS TIMESTAMP)", g.tsConst(), g.cmp(), c.name)
		}
		return fmt.Sprintf("CAST(%s AS TIMESTAMP) %s %s", c.name, g.cmp(), g.tsConst())
	default: // dTS
		if g.chance(0.25) {
			return fmt.Sprintf("%s BETWEEN %s AND %s", c.name, g.tsConst(), g.tsConst())
		}
		return fmt.Sprintf("%s %s %s", c.name, g.cmp(), g.tsConst())
	}
}

// day is a day near the join tables' dates (9000 + 31i for i < 12, days
// since 1970): one of them, or the day before or after.
func (g *derivedGen) day() string {
	day := 9000 + 31*g.rng.IntN(12) + []int{-1, 0, 0, 0, 1}[g.rng.IntN(5)]
	return time.Unix(int64(day)*86400, 0).UTC().Format("2006-01-02")
}

func (g *derivedGen) dateConst() string { return "DATE '" + g.day() + "'" }

// tsConst is a TIMESTAMP, a DATE or a string, at midnight or off it.
func (g *derivedGen) tsConst() string {
	at := g.pick("00:00:00", "00:00:00", "00:00:00.000001", "12:00:00", "23:59:59.999999")
	switch g.rng.IntN(5) {
	case 0:
		return g.dateConst()
	case 1:
		return "'" + g.day() + " " + at + "'"
	case 2:
		return "'" + g.day() + "'"
	}
	return "TIMESTAMP '" + g.day() + " " + at + "'"
}

// outputs is what the outer query selects from d's columns (cols,
// qualified): all of them, or aggregates.
func (g *derivedGen) outputs(cols []dcol, aggs float64) string {
	if !g.chance(aggs) {
		var names []string
		for _, c := range cols {
			names = append(names, c.name)
		}
		return strings.Join(names, ", ")
	}
	a, b := cols[g.rng.IntN(len(cols))], cols[g.rng.IntN(len(cols))]
	return fmt.Sprintf("count(*), count(%s), min(%s), max(%s)", a.name, a.name, b.name)
}

// joinKey is an equality between one of cols and a column of table
// alias y of the same kind.
func (g *derivedGen) joinKey(cols []dcol) string {
	c := cols[g.rng.IntN(len(cols))]
	var y string
	switch c.kind {
	case dInt:
		y = g.pick("y.k", "y.n")
	case dDec:
		y = g.pick("y.v", "y.k")
	case dStr:
		y = "y.s"
	case dDate:
		y = "y.d"
	default:
		// A TIMESTAMP key: the hash join's dense index once skipped
		// timestamp arrays and matched every row (agg/dense.go)
		y = "CAST(y.d AS TIMESTAMP)"
	}
	return c.name + " = " + y
}

// query wraps a derived table in one of the ways conjuncts reach it.
func (g *derivedGen) query() testQuery {
	g.view = ""
	d := g.derived(0)
	x := qualified("x", d.cols)
	wrap := g.rng.IntN(10)
	if d.limit && wrap >= 5 {
		// DuckDB (v1.5.6) joined to a subquery's ORDER BY … LIMIT
		// answers differently from run to run (the rows of the LIMIT
		// are fully ordered): so no joins over one.
		wrap -= 5
	}
	switch wrap {
	case 0, 1, 2: // in FROM, or a view
		if g.chance(0.25) {
			g.view = "CREATE OR REPLACE VIEW dv AS " + d.sql
			return testQuery{sql: fmt.Sprintf("SELECT %s FROM dv x%s", g.outputs(x, 0.3), where(g.conds(x, 0.95)...))}
		}
		return testQuery{sql: fmt.Sprintf("SELECT %s FROM (%s) x%s", g.outputs(x, 0.3), d.sql, where(g.conds(x, 0.95)...))}
	case 3, 4: // a WITH name, maybe with a column list
		with := "x"
		// Not over an item naming an earlier alias: quiver's column list
		// renames the items, and the alias is gone (it refuses the query).
		if !d.lateral && g.chance(0.25) {
			var names []string
			for i := range d.cols {
				names = append(names, fmt.Sprintf("e%d", i))
				x[i].name = fmt.Sprintf("x.e%d", i)
			}
			with += "(" + strings.Join(names, ", ") + ")"
		}
		return testQuery{sql: fmt.Sprintf("WITH %s AS (%s) SELECT %s FROM x%s", with, d.sql, g.outputs(x, 0.3), where(g.conds(x, 0.95)...))}
	case 5: // a WITH name used twice
		i := g.rng.IntN(len(d.cols))
		if g.chance(0.5) {
			return testQuery{sql: fmt.Sprintf("WITH x AS (%s) SELECT %s FROM x%s UNION ALL SELECT %s FROM x%s", d.sql,
				g.outputs(x, 0), where(g.conds(x, 0.9)...), g.outputs(x, 0), where(g.conds(x, 0.9)...))}
		}
		p, q := qualified("p", d.cols), qualified("q", d.cols)
		return testQuery{sql: fmt.Sprintf("WITH x AS (%s) SELECT count(*), min(%s), max(%s) FROM x p JOIN x q ON %s = %s%s", d.sql,
			p[0].name, q[len(q)-1].name, p[i].name, q[i].name, where(append(g.conds(p, 0.8), g.conds(q, 0.8)...)...))}
	case 6, 7, 8: // joined to a table: the conjunct in ON or WHERE
		kind := g.pick("", "", "LEFT ", "LEFT ", "FULL ")
		on := g.joinKey(x)
		if g.chance(0.4) {
			on += " AND " + g.cond(x, 1)
		}
		ws := g.conds(x, 0.6)
		if g.chance(0.3) {
			ws = append(ws, g.cond(qualified("y", tableCols), 1))
		}
		out := "y.k, y.s, " + g.outputs(x, 0)
		if g.chance(0.6) {
			out = fmt.Sprintf("count(*), count(y.k), min(y.s), %s", g.outputs(x, 1))
		}
		return testQuery{sql: fmt.Sprintf("SELECT %s FROM %s y %sJOIN (%s) x ON %s%s", out, g.table(), kind, d.sql, on, where(ws...))}
	default: // the derived table preserved: a conjunct over it in ON must stay there
		on := g.joinKey(x) + " AND " + g.cond(x, 1)
		return testQuery{sql: fmt.Sprintf("SELECT %s, count(y.k) FROM (%s) x LEFT JOIN %s y ON %s%s GROUP BY %s", g.outputs(x, 0), d.sql, g.table(), on,
			where(g.conds(x, 0.4)...), g.outputs(x, 0))}
	}
}
