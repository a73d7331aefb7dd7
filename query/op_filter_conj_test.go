package query

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/query/expr"
)

// TestFilterTermOrder: terms run in written order until each has been
// measured, then by time per row dropped.
func TestFilterTermOrder(t *testing.T) {
	mk := func(name string, nanos, in, kept int64) *filterTerm {
		f := &filterTerm{e: expr.Column(0, name, arrow.FixedWidthTypes.Boolean)}
		f.nanos.Store(nanos)
		f.in.Store(in)
		f.kept.Store(kept)
		return f
	}
	names := func(fs []*filterTerm) string {
		var s []string
		for _, f := range fs {
			s = append(s, f.e.String())
		}
		return fmt.Sprint(s)
	}
	// slow keeps 2% at 100 ns a row; cheap keeps half at 10 ns; rare keeps
	// 90% at 1 ns: per row dropped 102, 20 and 10 ns.
	slow, cheap, rare := mk("slow", 100*1e4, 1e4, 200), mk("cheap", 10*1e4, 1e4, 5e3), mk("rare", 1e4, 1e4, 9e3)
	if got := names(orderConjuncts([]*filterTerm{slow, cheap, rare})); got != "[rare cheap slow]" {
		t.Errorf("measured: %s", got)
	}
	fresh := mk("fresh", 0, 0, 0)
	if got := names(orderConjuncts([]*filterTerm{slow, fresh, cheap})); got != "[slow fresh cheap]" {
		t.Errorf("one unmeasured: %s", got)
	}
}

// TestFilterTerms: a WHERE of several terms answers as one predicate
// does, whichever term drops the rows and whether or not the batch is
// gathered between terms, and memory is released.
func TestFilterTerms(t *testing.T) {
	pruned, _ := newEngine(t, 300, 32)
	// Without pruning every term is the engine's filter, not the scan's.
	e := New(pruned.c, Options{Alloc: pruned.opts.Alloc, NoPruning: true})
	plan, err := e.Explain(context.Background(), "EXPLAIN SELECT count(*) FROM orders WHERE id > 10 AND grp = 'a'")
	if err != nil || !strings.Contains(plan, "Filter (id > 10) AND (grp = 'a')") {
		t.Fatalf("no engine filter: %v\n%s", err, plan)
	}
	for _, where := range []string{
		"id > 10 AND grp = 'a' AND qty < 40",
		"grp = 'b' AND id > 250",
		"id > 0 AND id < 1000 AND qty IS NOT NULL",
		"lower(grp) LIKE 'c%' AND id % 2 = 0",
		"id < 0 AND grp = 'a'",
	} {
		got, _, err := runOrdered(t, e, "SELECT count(*), sum(id) FROM orders WHERE "+where)
		if err != nil {
			t.Fatal(err)
		}
		// The same predicate kept whole, as one CASE: not an AND.
		want, _, err := runOrdered(t, e, "SELECT count(*), sum(id) FROM orders WHERE CASE WHEN "+where+" THEN true ELSE false END")
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v, want %v", where, got, want)
		}
	}
}
