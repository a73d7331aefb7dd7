package query

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// FuzzGroupingSets: any text goes through the grouping-set rewrite
// without panicking, every offset of the result maps into the input,
// and planning what parses (ROLLUP, CUBE and GROUPING SETS expanded over
// the test table) fails cleanly or answers, never panics.
func FuzzGroupingSets(f *testing.F) {
	for _, s := range []string{
		"SELECT grp, count(*) FROM orders GROUP BY ROLLUP (grp, qty)",
		"SELECT grp, qty, GROUPING(grp, qty) FROM orders GROUP BY CUBE (grp, qty) ORDER BY 3, 1",
		"SELECT grp FROM orders GROUP BY GROUPING SETS ((grp, qty), (), ( ), grp, ROLLUP (qty))",
		"SELECT grp FROM orders GROUP BY grp WITH ROLLUP",
		"grouping sets (", "rollup(((", "cube (()", "GROUPING SETS ((),", "'rollup(' cube(\"x\"",
		"SELECT 1 FROM orders GROUP BY GROUPING SETS ((1), (2), (3))",
	} {
		f.Add(s)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	c, _ := testTable(f, mem, 60, 20)
	e := New(c, Options{Alloc: mem, MemoryLimit: 16 << 20})
	f.Fuzz(func(t *testing.T, sql string) {
		var edits []textEdit
		got := rewriteGroupingSets(sql, &edits)
		for i := 0; i <= len(got); i++ {
			if o := originalOffset(i, edits); o < 0 || o > len(sql) {
				t.Fatalf("offset %d of %q maps to %d, outside %q", i, got, o, sql)
			}
		}
		if len(sql) > 2000 {
			return
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		r, err := e.Query(ctx, sql)
		if err == nil {
			for r.Next() {
			}
			r.Release()
		}
	})
}
