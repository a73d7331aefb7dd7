//go:build duckdb

package difftest

import (
	"context"
	"testing"
)

// nestedWholeQueries compare, sort, group, deduplicate, join on and
// aggregate whole lists and structs of table nest (nested_test.go: NULL
// and empty lists, NULL elements, structs in structs, lists of lists and
// of structs), against DuckDB's order of them: element by element, a
// NULL element after every value and equal to another NULL, a shorter
// prefix first; structs field by field.
var nestedWholeQueries = []testQuery{
	{name: "order by list", ordered: true, sql: `SELECT id, l FROM nest ORDER BY l, id`},
	{name: "order by list desc nulls first", ordered: true, sql: `SELECT id, l, ls FROM nest ORDER BY l DESC NULLS FIRST, ls, id`},
	{name: "order by struct", ordered: true, sql: `SELECT id, s FROM nest ORDER BY s DESC, id`},
	{name: "order by nested", ordered: true, sql: `SELECT id, nl, sl, f FROM nest ORDER BY nl NULLS FIRST, sl DESC, f, id`},
	{name: "order by a struct field", ordered: true, sql: `SELECT id FROM nest ORDER BY s.inner, nl[1], id`},
	{name: "group by list", sql: `SELECT l, count(*), sum(id) FROM nest GROUP BY l`},
	{name: "group by struct and list", sql: `SELECT s.inner, ls, count(*), min(id) FROM nest GROUP BY s.inner, ls`},
	{name: "group by, ordered by the key", ordered: true, sql: `SELECT l, count(*) AS c FROM nest GROUP BY l ORDER BY l NULLS FIRST`},
	{name: "group by, having", sql: `SELECT nl, count(*) FROM nest GROUP BY nl HAVING count(*) > 1`},
	{name: "group by, read into the key", sql: `SELECT sl, sl[1].v, len(sl), count(*) FROM nest GROUP BY sl`},
	{name: "distinct", sql: `SELECT DISTINCT nl FROM nest`},
	{name: "distinct two", sql: `SELECT DISTINCT sl, s.inner FROM nest`},
	{name: "union", sql: `SELECT l FROM nest WHERE id < 200 UNION SELECT l FROM nest WHERE id > 400`},
	{name: "intersect", sql: `SELECT s.inner, ls FROM nest WHERE id < 300 INTERSECT SELECT s.inner, ls FROM nest WHERE id >= 300`},
	{name: "except", sql: `SELECT nl FROM nest WHERE id < 300 EXCEPT SELECT nl FROM nest WHERE id >= 300`},
	{name: "in subquery", sql: `SELECT count(*) FROM nest WHERE k > 0 AND l IN (SELECT l FROM nest WHERE k < 0)`},
	{name: "counts", sql: `
SELECT count(l), count(DISTINCT l), count(s), count(DISTINCT s), count(DISTINCT nl), count(DISTINCT sl), count(DISTINCT f), count(DISTINCT ls)
FROM nest`},
	{name: "min max", sql: `SELECT min(l), max(l), min(s), max(s), min(nl), max(nl), min(sl), max(ls), min(f), max(s.inner) FROM nest`},
	{name: "min max per group", sql: `SELECT k, min(l), max(s), count(DISTINCT ls) FROM nest GROUP BY k`},
	{name: "compare", ordered: true, sql: `
SELECT a.id, a.l = b.l, a.l <> b.l, a.l < b.l, a.l <= b.l, a.l > b.l, a.l >= b.l, a.s < b.s, a.s = b.s, a.nl > b.nl, a.sl <= b.sl,
       a.ls < b.ls, a.f = b.f, a.s.inner < b.s.inner
FROM nest a JOIN nest b ON a.id + 1 = b.id ORDER BY a.id`},
	{name: "distinct from", ordered: true, sql: `
SELECT a.id, a.l IS DISTINCT FROM b.l, a.l IS NOT DISTINCT FROM b.l, a.s IS DISTINCT FROM b.s, a.l = NULL, NULL >= a.s,
       a.nl IS DISTINCT FROM NULL, a.sl IS NOT DISTINCT FROM NULL
FROM nest a JOIN nest b ON a.id + 3 = b.id ORDER BY a.id`},
	{name: "filter by comparison", ordered: true, sql: `SELECT a.id, b.id FROM nest a, nest b WHERE a.id < 60 AND b.id < 60 AND a.l > b.l AND a.s.inner <= b.s.inner ORDER BY 1, 2`},
	{name: "join on a list", sql: `SELECT count(*), sum(a.id - b.id), count(DISTINCT a.l) FROM nest a JOIN nest b ON a.l = b.l`},
	{name: "join on a struct", sql: `SELECT count(*), sum(a.id * b.id) FROM nest a JOIN nest b ON a.s = b.s`},
	{name: "join on nested and a value", sql: `SELECT a.id, b.id FROM nest a JOIN nest b ON a.sl = b.sl AND a.k = b.k WHERE a.id <> b.id`},
	{name: "left join on a list", sql: `SELECT a.id, b.id FROM nest a LEFT JOIN nest b ON a.nl = b.nl AND a.id < b.id WHERE a.id < 100`},
}

func TestNestedWhole(t *testing.T) {
	nestOnce.Do(func() { nestOnce.err = loadNest(context.Background()) })
	if nestOnce.err != nil {
		t.Fatal(nestOnce.err)
	}
	runQueries(t, nestedWholeQueries)
}
