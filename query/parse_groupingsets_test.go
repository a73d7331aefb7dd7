package query

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestRewriteGroupingSets: the words become calls the grammar takes,
// () inside GROUPING SETS the empty set, and nothing in strings, quoted
// names or other words changes.
func TestRewriteGroupingSets(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"GROUP BY ROLLUP (a, b)", "GROUP BY quiver$rollup (a, b)"},
		{"group by cube(a)", "group by quiver$cube(a)"},
		{"GROUP BY GROUPING  SETS ((a, b), (), ( ))", "GROUP BY quiver$grouping_sets ((a, b), quiver$set(), quiver$set())"},
		{"GROUP BY x, GROUPING SETS ((a), ())", "GROUP BY x, quiver$grouping_sets ((a), quiver$set())"},
		{"SELECT 'rollup(' FROM \"cube(\"", "SELECT 'rollup(' FROM \"cube(\""},
		{"SELECT myrollup(a), count() FROM t GROUP BY a WITH ROLLUP", "SELECT myrollup(a), count() FROM t GROUP BY a WITH ROLLUP"},
	} {
		var edits []textEdit
		if got := rewriteGroupingSets(tc.in, &edits); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// TestGroupingSets: answers of ROLLUP and CUBE against sums computed
// from the test table's rows, and the forms refused with what to write.
// (query/difftest compares many more with DuckDB.)
func TestGroupingSets(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, rows := testTable(t, mem, 300, 50)
	e := New(c, Options{Alloc: mem})
	byGrp := map[string]int{}
	for _, r := range rows {
		g := "NULL"
		if r[1] != nil {
			g = r[1].(string)
		}
		byGrp[g]++
	}
	got, err := run(t, e, "SELECT grp, count(*), GROUPING(grp) FROM orders GROUP BY ROLLUP (grp) ORDER BY 3, 1 NULLS FIRST")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"NULL|" + strconv.Itoa(byGrp["NULL"]) + "|0", "a|" + strconv.Itoa(byGrp["a"]) + "|0", "b|" + strconv.Itoa(byGrp["b"]) + "|0",
		"c|" + strconv.Itoa(byGrp["c"]) + "|0", "NULL|300|1",
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("ROLLUP (grp):\n got %v\nwant %v", got, want)
	}
	// CUBE without aggregates: the groups of (grp, flag), (grp), (flag)
	// and the one row of ().
	sets := []map[string]bool{{}, {}, {}, {"NULL|NULL": true}}
	for _, r := range rows {
		g, f := fmt.Sprint(r[1]), fmt.Sprint(r[6])
		sets[0][g+"|"+f], sets[1][g+"|NULL"], sets[2]["NULL|"+f] = true, true, true
	}
	n := len(sets[0]) + len(sets[1]) + len(sets[2]) + 1
	got, err = run(t, e, "SELECT count(*) FROM (SELECT grp, flag FROM orders GROUP BY CUBE (grp, flag)) x")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != strconv.Itoa(n) {
		t.Errorf("CUBE (grp, flag) groups: %v, want %d", got, n)
	}
	got, err = run(t, e, "SELECT grp, flag FROM orders WHERE id < 0 GROUP BY ROLLUP (grp, flag)")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "NULL|NULL" {
		t.Errorf("ROLLUP over no rows: %v, want the one row of ()", got)
	}
	for _, tc := range []struct{ sql, msg string }{
		{"SELECT grp, row_number() OVER (ORDER BY grp) FROM orders GROUP BY ROLLUP (grp)", "window functions or QUALIFY with grouping sets"},
		{"SELECT * FROM orders GROUP BY ROLLUP (grp)", "* with grouping sets"},
		{"SELECT grp FROM orders GROUP BY ROLLUP (grp) ORDER BY qty", "ORDER BY qty with grouping sets"},
		{"SELECT grp FROM orders GROUP BY CUBE (id, grp, qty, price, ratio, day, flag, id + 1, id + 2)", "CUBE of more than 8 keys"},
		{"SELECT grp, GROUPING(qty) FROM orders GROUP BY ROLLUP (grp)", "grouping(qty): not a grouping key"},
		{"SELECT grp FROM orders GROUP BY ROLLUP (3)", "position 3 is not in the SELECT list"},
		{"SELECT grp, TRY_CAST(grp AS DATE) FROM orders GROUP BY ROLLUP (grp)", "grouping sets in a statement with TRY_CAST or QUALIFY"},
	} {
		_, err := run(t, e, tc.sql)
		if err == nil || !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want an error saying %q", tc.sql, err, tc.msg)
		}
	}
}
