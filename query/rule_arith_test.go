package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
)

// rewriteWhere plans sql's table and returns its WHERE after moveArith,
// as text.
func rewriteWhere(t *testing.T, c *cache.Cache, opts Options, where string) string {
	t.Helper()
	sql := "SELECT id FROM orders WHERE " + where
	stmt, err := parseSQL(sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	s := stmt.(*ast.SelectStmt)
	b := &builder{ctx: context.Background(), sql: sql, c: c, opts: opts}
	if err := b.resolveTable(s); err != nil {
		t.Fatal(err)
	}
	return restore(b.moveArith(s.Where))
}

// TestMoveArithRewrites: before and after, for every form the rule
// moves, and the forms it must leave alone (floats, decimals under *,
// possible overflow, placeholders, columns on both sides, dates).
func TestMoveArithRewrites(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 2000, 50) // id 1..2000 (int64), qty int32, price decimal(15,2)
	for _, tc := range []struct{ in, want string }{
		{"id + 0 BETWEEN 100 AND 200", "id between 100 and 200"},
		{"id + 5 > 10", "id>5"},
		{"5 + id > 10", "id>5"},
		{"id - 5 <= 10", "id<=15"},
		{"10 - id <= 3", "id>=7"},
		{"3 < id + 1", "id>2"},
		{"(id + 1) * 2 = 10", "id=4"},
		{"2 * id - 6 > 10", "id>8"},
		{"id * 3 < 10", "id<4"},
		{"id * 3 <= 10", "id<=3"},
		{"id * 3 > 10", "id>3"},
		{"id * 3 >= 10", "id>=4"},
		{"id * -3 >= 10", "id<=-4"},
		{"id * -2 BETWEEN -10 AND 5", "id between -2 and 5"},
		{"qty * 2 BETWEEN 3 AND 9", "qty between 2 and 4"},
		{"id * 3 = 10", "id*3=10"}, // no integer solution: left alone
		{"id * 3 <> 9", "id!=3"},
		{"id + 1 NOT BETWEEN 5 AND 9", "id not between 4 and 8"},
		{"1 - id BETWEEN -9 AND -4", "id between 5 and 10"},
		{"id + 2 IN (5, 7, 9)", "id in (3,5,7)"},
		{"id * 2 IN (3, 4, 8)", "id in (2,4)"},
		{"id * 2 NOT IN (4, 5)", "id not in (2)"},
		{"qty - 10 < -5", "qty<5"},
		{"id + (100 - 99) > 10 AND qty > 3", "id>9 and qty>3"},
		{"qty > 3 AND id + 1 > 10 AND grp = 'a'", "qty>3 and id>9 and grp='a'"},
		{"price + 1.50 > 10", "price>8.50"},
		{"price - 0.005 <= 10", "price<=10.005"},
		{"price + 1 IN (2.25, 3)", "price in (1.25,2.00)"},
		{"id + 1.0 > 5", "id>4"},                                     // a decimal sum, but an integral constant: exact
		{"id + 0e0 BETWEEN 1 AND 5", "id+0e+00 between 1 and 5"},     // a float sum
		{"id + 1 > 2.5", "id+1>2.5"},                                 // a decimal constant for an integer column
		{"ratio + 1 > 2", "ratio+1>2"},                               // floats round
		{"price * 2 > 10", "price*2>10"},                             // decimal division need not be exact
		{"id + qty > 10", "id+qty>10"},                               // columns on both sides
		{"id + 9223372036854775000 > 0", "id+9223372036854775000>0"}, // could overflow past id's max 2000
		{"qty * 2 > NULL", "qty*2>null"},
		{"id + ? > 5", "id+?>5"}, // a placeholder: the plan must hold for every binding
		{"id + 1 > ?", "id+1>?"},
		{"day + INTERVAL 1 DAY > DATE '1997-01-01'", "date_add(day, interval 1 day)>DATE '1997-01-01'"},
		{"id > 5", "id>5"},
		{"(id + 1 > 3 OR id + 1 < 0)", "(id+1>3 or id+1<0)"}, // not a conjunct of comparisons
	} {
		got := rewriteWhere(t, c, Options{}, tc.in)
		if got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	if got := rewriteWhere(t, c, Options{NoPruning: true}, "id + 0 > 5"); got != "id+0>5" {
		t.Errorf("NoPruning rewrote: %s", got)
	}
}

// TestMoveArithPrunesAndKeepsAnswers: the rewritten conjuncts prune
// batches and go into the row filter (EXPLAIN says so), and random
// arithmetic comparisons give the answers they give with NoPruning, which
// turns the rule off.
func TestMoveArithPrunesAndKeepsAnswers(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 2000, 50)
	e := New(c, Options{Alloc: mem})
	plan, err := e.Explain(context.Background(), "SELECT count(*) FROM orders WHERE id + 0 BETWEEN 100 AND 200")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"keeps rows where id between 100 and 200", "40 batches, pruning skips 37"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %q:\n%s", want, plan)
		}
	}
	if strings.Contains(plan, "Filter") {
		t.Errorf("the rewritten conjunct should leave no Filter:\n%s", plan)
	}
	full := New(c, Options{Alloc: mem, NoPruning: true})
	r := rand.New(rand.NewPCG(12, 1))
	ops := []string{"<", "<=", "=", "<>", ">", ">="}
	atoms := []func() string{
		func() string {
			return fmt.Sprintf("id %s %d %s %d", pick(r, "+", "-", "*"), r.IntN(7)-3, pick(r, ops...), r.IntN(2100)-50)
		},
		func() string { return fmt.Sprintf("%d - id %s %d", r.IntN(2100), pick(r, ops...), r.IntN(2100)-1000) },
		func() string {
			a := r.IntN(4000) - 1000
			return fmt.Sprintf("id * %d %sBETWEEN %d AND %d", r.IntN(9)-4, pick(r, "", "NOT "), a, a+r.IntN(500))
		},
		func() string {
			return fmt.Sprintf("(qty + %d) * %d %sIN (%d, %d, %d)", r.IntN(5), r.IntN(5)-2, pick(r, "", "NOT "), r.IntN(100), r.IntN(100), r.IntN(100))
		},
		func() string {
			return fmt.Sprintf("price + %d.%02d %s %d", r.IntN(5), r.IntN(100), pick(r, ops...), r.IntN(120))
		},
		func() string { return fmt.Sprintf("2 * qty - %d %s %d", r.IntN(10), pick(r, ops...), r.IntN(100)) },
	}
	skipped := 0
	n := 200
	if testing.Short() {
		n = 50
	}
	for range n {
		w := atoms[r.IntN(len(atoms))]()
		if r.IntN(2) == 0 {
			w += " AND " + atoms[r.IntN(len(atoms))]()
		}
		sql := "SELECT id, qty FROM orders WHERE " + w + " ORDER BY id"
		want, err := run(t, full, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		got, st, err := runOrdered(t, e, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: the rewrite changed the answer\n got %d rows\nwant %d rows", sql, len(got), len(want))
		}
		if st.Scan.Skipped > 0 {
			skipped++
		}
	}
	if skipped < n/5 {
		t.Errorf("rewritten queries skipped batches in only %d of %d", skipped, n)
	}
}

// TestMoveArithOverflowStillFails: where the original could overflow,
// the conjunct stays, and the overflow is still an error.
func TestMoveArithOverflowStillFails(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(mem)
	b.AppendValues([]int64{1, 9223372036854775807}, nil)
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 2)
	col.Release()
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	rr, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	rec.Release()
	_, err = c.Put(context.Background(), "orders", rr, cache.TableOptions{})
	rr.Release()
	if err != nil {
		t.Fatal(err)
	}
	if got := rewriteWhere(t, c, Options{}, "id + 1 > 5"); got != "id+1>5" {
		t.Fatalf("rewrote a conjunct that overflows: %s", got)
	}
	if got := rewriteWhere(t, c, Options{}, "id - 1 > 5"); got != "id>6" {
		t.Fatalf("id - 1 cannot overflow here: %s", got)
	}
	if _, err := run(t, New(c, Options{Alloc: mem}), "SELECT id FROM orders WHERE id + 1 > 5"); err == nil {
		t.Fatal("id + 1 overflowed without an error")
	}
}
