package query

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// TestQuantifiedComparisons: x op ANY/ALL (…) by SQL's rules — an empty
// subquery, NULLs among its values, a NULL x — and subqueries that are
// set operations; the forms not taken fail with an error that says how
// to write them. (query/difftest compares every form with DuckDB.)
func TestQuantifiedComparisons(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 2000, 50) // id 1..2000; qty = (id-1) % 50, NULL where id % 11 = 0
	e := New(c, Options{Alloc: mem})
	for _, tc := range []struct{ sql, want string }{
		{"SELECT count(*) FROM orders WHERE id > ALL (SELECT id FROM orders WHERE id < 10)", "1991"},
		{"SELECT count(*) FROM orders WHERE id > ALL (SELECT id FROM orders WHERE id < 0)", "2000"}, // empty: TRUE
		{"SELECT count(*) FROM orders WHERE id > ANY (SELECT id FROM orders WHERE id < 0)", "0"},    // empty: FALSE
		{"SELECT count(*) FROM orders WHERE id <= ANY (SELECT id FROM orders WHERE id < 10)", "9"},
		{"SELECT count(*) FROM orders WHERE id = ANY (SELECT id * 2 FROM orders WHERE id < 10)", "9"},
		{"SELECT count(*) FROM orders WHERE id <> ALL (SELECT id FROM orders WHERE id > 3)", "3"},
		{"SELECT count(*) FROM orders WHERE id = SOME (SELECT 7 UNION SELECT 9 UNION ALL SELECT 9)", "2"},
		// qty over ids 1..11 is 0..9 and one NULL
		{"SELECT 5 > ALL (SELECT qty FROM orders WHERE id <= 11)", "false"},
		{"SELECT 100 > ALL (SELECT qty FROM orders WHERE id <= 11)", "NULL"},
		{"SELECT 100 > ALL (SELECT qty FROM orders WHERE id <= 10)", "true"},
		{"SELECT 9 = ANY (SELECT qty FROM orders WHERE id <= 11)", "true"},
		{"SELECT 50 = ANY (SELECT qty FROM orders WHERE id <= 11)", "NULL"},
		{"SELECT 3 = ALL (SELECT 3 UNION ALL SELECT 3)", "true"},
		{"SELECT 3 <> ANY (SELECT 3 UNION ALL SELECT 4)", "true"},
		{"SELECT NULL < ANY (SELECT 1)", "NULL"},
		{"SELECT NULL < ANY (SELECT 1 WHERE false)", "false"},
		{"SELECT count(*) FROM orders WHERE id IN (SELECT 1 UNION SELECT 2 EXCEPT SELECT 2)", "1"},
		{"SELECT count(*) FROM orders WHERE EXISTS (SELECT 1 INTERSECT SELECT 2)", "0"},
		// the subquery is planned from restored text: IS DISTINCT FROM keeps its NOT (markDistinct)
		{"SELECT count(*) FROM orders WHERE id > ALL (SELECT id FROM orders WHERE qty IS DISTINCT FROM 5 AND id < 3)", "1998"},
	} {
		got, err := run(t, e, tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%s: got %v, want %s", tc.sql, got, tc.want)
		}
	}
	for _, tc := range []struct{ sql, msg string }{
		{"SELECT count(*) FROM orders o WHERE id > ALL (SELECT id FROM orders p WHERE p.qty = o.qty)", "> ALL (SELECT …) over a correlated subquery (write it with EXISTS or NOT EXISTS)"},
		{"SELECT count(*) FROM orders WHERE id > ANY (SELECT id, qty FROM orders)", "returns one column"},
		{"SELECT count(*) FROM orders WHERE random() > ANY (SELECT ratio FROM orders)", "volatile"},
		{"SELECT count(*) FROM orders WHERE TRY_CAST(grp AS DATE) > ANY (SELECT day FROM orders)", "in a statement with TRY_CAST or QUALIFY"},
	} {
		_, err := run(t, e, tc.sql)
		if err == nil || !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want an error saying %q", tc.sql, err, tc.msg)
		}
	}
}

// TestScalarMemo: a statement runs each uncorrelated scalar subquery
// once (scalarMemo): planned again from its text — a derived table a
// conjunct moved into, a grouping set — it reads the value kept, here
// after its table is gone; one with a volatile call runs each time.
func TestScalarMemo(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 300, 50)
	b := &builder{ctx: t.Context(), c: c, opts: Options{Alloc: mem}}
	sub := func(sql string) *ast.SelectStmt {
		st, err := parseSQL(sql)
		if err != nil {
			t.Fatal(err)
		}
		return st.(*ast.SelectStmt)
	}
	b.child() // makes the statement's memo, as planning a subquery does
	first, err := b.scalarValue(nil, sub("SELECT max(id) FROM orders"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.scalarValue(nil, sub("SELECT max(id) + random() FROM orders")); err != nil {
		t.Fatal(err)
	}
	c.Drop("orders")
	again, err := b.scalarValue(nil, sub("SELECT max(id) FROM orders"))
	if err != nil || restore(again) != restore(first) || restore(first) != "300" {
		t.Errorf("the kept value: %v, %v (first %v)", again, err, first)
	}
	if again == first {
		t.Error("one node for two uses")
	}
	if _, err := b.scalarValue(nil, sub("SELECT max(id) + random() FROM orders")); err == nil {
		t.Error("a volatile subquery was not run again")
	}
}
