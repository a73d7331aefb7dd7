package query

import (
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// FuzzJoinSQL runs generated statements through the relational planner:
// FuzzSQL's expressions (sqlGen) over derived tables, joins, subqueries
// in WHERE (EXISTS, IN, NOT IN, scalar, correlated or not), WITH and set
// operations, some joins spilling, some under EXPLAIN FORMAT = 'logical'. As for FuzzSQL, no input may panic or
// leak, and every error must be a documented kind. A target of its own,
// so that FuzzSQL's corpus keeps meaning the statements it meant.
//
//	go test ./query -run XXX -fuzz FuzzJoinSQL -fuzztime 60s
func FuzzJoinSQL(f *testing.F) {
	for _, seed := range []string{
		"", "\x01", "\x02\x03", "\x03\x01\x05", "\x04\x02", "\x05\x07\x09\x0b", "\x06\x03\x04", "\x07\x08",
		"\x08\x01\x02\x03", "\x09\x11\x13", strings.Repeat("\x0a", 30),
	} {
		f.Add([]byte(seed))
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	c, _ := testTable(f, mem, 100, 16)
	base := mem.CurrentAlloc()
	m, err := spill.NewManager(spill.Config{Dir: f.TempDir(), Codec: codec.SettingLZ4})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { m.Close() })
	plain := New(c, Options{Alloc: mem, MemoryLimit: 8 << 20, MaxExprNodes: 2000, MaxExprDepth: 200, MaxJoinPairs: 1 << 20})
	spilling := New(c, Options{Alloc: mem, MemoryLimit: 8 << 20, MaxExprNodes: 2000, MaxExprDepth: 200, MaxJoinPairs: 1 << 20,
		Spill: m, ForceJoinSpill: true})
	f.Fuzz(func(t *testing.T, in []byte) {
		g := &sqlGen{in: in}
		e := plain
		if g.pick(4) == 0 {
			e = spilling
		}
		sql := joinStatement(g)
		if g.pick(8) == 7 { // after the statement, and not on input that ran out (0): the corpus keeps its statements
			sql = "EXPLAIN FORMAT = 'logical' " + sql // every logical plan printed (logical_format.go)
		}
		start := time.Now()
		err := runAll(e, sql)
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%.300s: took %v", sql, d)
		}
		if err != nil && !documented(err) {
			t.Fatalf("%.300s: undocumented error %T: %v", sql, err, err)
		}
		if got := mem.CurrentAlloc(); got != base {
			t.Fatalf("%.300s: %d bytes leaked", sql, got-base)
		}
	})
}

// joinStatement writes one relational statement over orders.
func joinStatement(g *sqlGen) string {
	cond := func() string { return g.expr(0) }
	switch g.pick(10) {
	case 0: // a derived table under the table's name
		return "SELECT " + g.expr(0) + " FROM (SELECT * FROM orders WHERE " + cond() + ") orders"
	case 1: // a join with a derived table of one column
		return "SELECT " + g.expr(0) + ", j.k FROM orders JOIN (SELECT qty AS k FROM orders WHERE " + cond() + ") j ON orders." +
			fuzzColumns[g.pick(len(fuzzColumns))] + " = j.k WHERE " + cond()
	case 2: // IN and NOT IN, NULLs on both sides
		not := []string{"", "NOT "}[g.pick(2)]
		return "SELECT count(*), " + g.aggregate() + " FROM orders WHERE " + fuzzColumns[g.pick(len(fuzzColumns))] + " " + not +
			"IN (SELECT qty FROM orders WHERE " + cond() + ")"
	case 3: // correlated EXISTS with a residual
		not := []string{"", "NOT "}[g.pick(2)]
		return "SELECT " + g.expr(0) + " FROM orders o WHERE " + not + "EXISTS (SELECT 1 FROM orders p WHERE p.qty = o.id AND " + cond() + ")"
	case 4: // a correlated scalar subquery
		return "SELECT count(*) FROM orders o WHERE o.qty " + []string{"<", "=", ">="}[g.pick(3)] +
			" (SELECT " + []string{"max", "min", "avg", "sum"}[g.pick(4)] + "(p.qty) FROM orders p WHERE p.grp = o.grp AND " + cond() + ")"
	case 5: // an uncorrelated scalar subquery
		return "SELECT " + g.expr(0) + " FROM orders WHERE " + fuzzColumns[g.pick(len(fuzzColumns))] + " > (SELECT " + g.aggregate() + " FROM orders WHERE " + cond() + ")"
	case 6: // a LEFT JOIN, WHERE on either side
		return "SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty AND " + strings.ReplaceAll(cond(), "id", "b.id") +
			" WHERE " + []string{"b.grp IS NULL", "b.qty > 3", "a.qty < 40", "coalesce(b.grp, 'z') = 'z'"}[g.pick(4)]
	case 7: // set operations
		op := []string{"UNION", "UNION ALL", "INTERSECT", "EXCEPT"}[g.pick(4)]
		return "SELECT " + g.expr(0) + " FROM orders WHERE " + cond() + " " + op + " SELECT " + g.expr(0) + " FROM orders"
	case 8: // WITH used twice, DISTINCT
		return "WITH t AS (SELECT DISTINCT grp, qty FROM orders WHERE " + cond() + ") SELECT count(*) FROM t x JOIN t y ON x.qty = y.qty"
	}
	return "SELECT count(*) FROM orders a, orders b WHERE a.id = b.id AND " + strings.ReplaceAll(cond(), "qty", "a.qty")
}
