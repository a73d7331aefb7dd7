package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCastUnwrapRewrites: before and after for every comparison a date's
// cast to TIMESTAMP comes off, and the forms left alone.
func TestCastUnwrapRewrites(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 200, 50) // day is a DATE column
	for _, tc := range []struct{ in, want string }{
		{"CAST(day AS TIMESTAMP) >= TIMESTAMP '1997-06-01 00:00:00'", "day>=DATE '1997-06-01'"},
		{"CAST(day AS TIMESTAMP) >= TIMESTAMP '1997-06-01 00:00:01'", "day>DATE '1997-06-01'"},
		{"CAST(day AS TIMESTAMP) > TIMESTAMP '1997-06-01 10:00:00'", "day>DATE '1997-06-01'"},
		{"CAST(day AS TIMESTAMP) > TIMESTAMP '1997-06-01'", "day>DATE '1997-06-01'"},
		{"CAST(day AS TIMESTAMP) < TIMESTAMP '1997-06-01'", "day<DATE '1997-06-01'"},
		{"CAST(day AS TIMESTAMP) < TIMESTAMP '1997-06-01 23:59:59.999999'", "day<=DATE '1997-06-01'"},
		{"CAST(day AS TIMESTAMP) <= TIMESTAMP '1997-06-01 12:00:00'", "day<=DATE '1997-06-01'"},
		{"CAST(day AS TIMESTAMP) = TIMESTAMP '1997-06-01'", "day=DATE '1997-06-01'"},
		{"CAST(day AS TIMESTAMP) <> TIMESTAMP '1997-06-01'", "day!=DATE '1997-06-01'"},
		{"TIMESTAMP '1997-06-01 06:00:00' < day::TIMESTAMP", "day>DATE '1997-06-01'"},
		{"CAST(day AS TIMESTAMP) >= DATE '1997-06-01'", "day>=DATE '1997-06-01'"},
		{"CAST(day AS TIMESTAMP) >= '1997-06-01 08:00:00'", "day>DATE '1997-06-01'"},
		{"CAST(day AS TIMESTAMP) >= TIMESTAMP '1969-12-31 23:00:00'", "day>DATE '1969-12-31'"}, // before the epoch: the day rounds down
		{"CAST(day AS TIMESTAMP) BETWEEN TIMESTAMP '1997-06-01 01:00:00' AND TIMESTAMP '1997-07-01 01:00:00'",
			"day between DATE '1997-06-02' and DATE '1997-07-01'"},
		{"id > 3 AND CAST(day AS TIMESTAMP) < TIMESTAMP '1998-01-01'", "id>3 and day<DATE '1998-01-01'"},
		// left alone:
		{"CAST(day AS TIMESTAMP) = TIMESTAMP '1997-06-01 10:00:00'", "cast(day as datetime)=TIMESTAMP '1997-06-01 10:00:00'"},
		{"CAST(day AS TIMESTAMP) NOT BETWEEN TIMESTAMP '1997-06-01' AND TIMESTAMP '1997-07-01'",
			"cast(day as datetime) not between TIMESTAMP '1997-06-01' and TIMESTAMP '1997-07-01'"},
		{"CAST(day AS TIMESTAMP WITH TIME ZONE) >= TIMESTAMP '1997-06-01'", "cast(day as datetime(4))>=TIMESTAMP '1997-06-01'"},
		{"CAST(day AS TIMESTAMP) > ?", "cast(day as datetime)>?"},
		{"CAST(day AS TIMESTAMP) > NULL", "cast(day as datetime)>null"},
		{"CAST(grp AS TIMESTAMP) > TIMESTAMP '1997-06-01'", "cast(grp as datetime)>TIMESTAMP '1997-06-01'"},
		{"CAST(day AS DATE) > DATE '1997-06-01'", "cast(day as date)>DATE '1997-06-01'"},
	} {
		got := rewriteWhere(t, c, Options{}, tc.in)
		if got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
	if got := rewriteWhere(t, c, Options{NoPruning: true}, "CAST(day AS TIMESTAMP) > TIMESTAMP '1997-06-01'"); !strings.Contains(got, "cast") {
		t.Errorf("NoPruning rewrote: %s", got)
	}
}

// TestCastUnwrapKeepsAnswers: random comparisons of day's cast with
// timestamps at and between midnights give the rows they give with
// NoPruning (the rule off), NULL days included, and prune batches.
func TestCastUnwrapKeepsAnswers(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 2000, 50) // day 1997-05-19 + i%400
	e := New(c, Options{Alloc: mem})
	full := New(c, Options{Alloc: mem, NoPruning: true})
	plan, err := e.Explain(context.Background(), "SELECT count(*) FROM (SELECT CAST(day AS TIMESTAMP) AS ts FROM orders) t WHERE ts < TIMESTAMP '1997-05-20 00:00:00'")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "keeps rows where day<DATE '1997-05-20'") {
		t.Errorf("the filter did not reach the scan as a date comparison:\n%s", plan)
	}
	r := rand.New(rand.NewPCG(7, 3))
	ops := []string{"<", "<=", "=", "<>", ">", ">="}
	stamp := func() string {
		day := 10000 + r.IntN(420) - 10
		clock := "00:00:00"
		if r.IntN(2) == 0 {
			clock = fmt.Sprintf("%02d:%02d:%02d", r.IntN(24), r.IntN(60), r.IntN(60))
		}
		return fmt.Sprintf("TIMESTAMP '%s %s'", dayText(day), clock)
	}
	n := 150
	if testing.Short() {
		n = 40
	}
	for range n {
		var w string
		if r.IntN(3) == 0 {
			w = fmt.Sprintf("CAST(day AS TIMESTAMP) BETWEEN %s AND %s", stamp(), stamp())
		} else {
			w = fmt.Sprintf("CAST(day AS TIMESTAMP) %s %s", pick(r, ops...), stamp())
		}
		for _, sql := range []string{
			"SELECT id FROM orders WHERE " + w + " ORDER BY id",
			"SELECT id FROM (SELECT id, day FROM orders) t WHERE " + w + " ORDER BY id",
		} {
			want, err := run(t, full, sql)
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			got, err := run(t, e, sql)
			if err != nil {
				t.Fatalf("%s: %v", sql, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%s: the rewrite changed the answer\n got %d rows\nwant %d rows", sql, len(got), len(want))
			}
		}
	}
}

// dayText is a day since the epoch as YYYY-MM-DD.
func dayText(day int) string {
	return arrow.Date32(day).FormattedString()
}
