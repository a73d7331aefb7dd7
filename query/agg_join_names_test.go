package query

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestAggregatesOverSameNamedColumns: a join's output holds a.qty and
// b.qty, both named qty; aggregates over each (and arithmetic over calls
// on each, which Share looks at) are different aggregates. They were one:
// count(b.qty) answered count(a.qty), and min(x.k) over a date read an
// integer k and panicked.
func TestAggregatesOverSameNamedColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 300, 50)
	e := New(c, Options{Alloc: mem})
	from := ` FROM orders a JOIN (SELECT id, qty, day AS grp FROM orders WHERE id % 4 = 0) b ON a.id = b.id + 1`
	aggs := []string{"count(a.qty)", "count(b.qty)", "sum(a.qty)", "sum(b.qty)", "min(a.grp)", "min(b.grp)",
		"sum(length(a.grp) * 2)", "sum(CAST(b.qty AS DOUBLE) * 2)", "sum(CAST(a.qty AS DOUBLE) * 2)"}
	var want []string
	for _, a := range aggs {
		rows, err := run(t, e, "SELECT "+a+from)
		if err != nil {
			t.Fatalf("%s: %v", a, err)
		}
		want = append(want, rows...)
	}
	rows, err := run(t, e, "SELECT "+strings.Join(aggs, ", ")+from)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(rows); got != "["+strings.Join(want, "|")+"]" {
		t.Errorf("together %s, one by one %v", got, want)
	}
}
