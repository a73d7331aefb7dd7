package query

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// TestWindowRanks checks the ranking functions over items' k, which ties
// in pairs (-3, -2, -1 and 0 twice in 12 rows), against values worked
// out by hand; query/difftest compares every function with DuckDB.
func TestWindowRanks(t *testing.T) {
	e, _ := itemsEngine(t, 12)
	const w = `(ORDER BY k)`
	got, _, err := runOrdered(t, e, strings.ReplaceAll(`SELECT k, rank() OVER w, dense_rank() OVER w, percent_rank() OVER w,
		cume_dist() OVER w, count(*) OVER w, ntile(5) OVER (ORDER BY id), row_number() OVER (ORDER BY id DESC)
		FROM items ORDER BY id`, "OVER w", "OVER "+w))
	if err != nil {
		t.Fatal(err)
	}
	// rank: peers share the first row's number; count(*) over the
	// default frame (RANGE … CURRENT ROW) counts through the last peer;
	// ntile(5) of 12 rows: buckets of 3, 3, 2, 2, 2.
	want := []string{
		"-3|1|1|0|0.16666666666666666|2|1|12",
		"-2|3|2|0.18181818181818182|0.3333333333333333|4|1|11",
		"-1|5|3|0.36363636363636365|0.5|6|1|10",
		"0|7|4|0.5454545454545454|0.6666666666666666|8|2|9",
		"1|9|5|0.7272727272727273|0.75|9|2|8",
		"2|10|6|0.8181818181818182|0.8333333333333334|10|2|7",
		"3|11|7|0.9090909090909091|0.9166666666666666|11|3|6",
		"4|12|8|1|1|12|3|5",
		"-3|1|1|0|0.16666666666666666|2|4|4",
		"-2|3|2|0.18181818181818182|0.3333333333333333|4|4|3",
		"-1|5|3|0.36363636363636365|0.5|6|5|2",
		"0|7|4|0.5454545454545454|0.6666666666666666|8|5|1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWindowFrames checks ROWS frames (sliding sums, min and max through
// the monotone queue, an empty frame), lag/lead with defaults, the
// *_value functions and RANGE peers, by hand, over ids 1..8 partitioned
// by odd and even id.
func TestWindowFrames(t *testing.T) {
	e, _ := itemsEngine(t, 8)
	got, _, err := runOrdered(t, e, `SELECT id,
		sum(id) OVER (PARTITION BY id % 2 ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
		min(k) OVER (PARTITION BY id % 2 ORDER BY id DESC ROWS 1 PRECEDING),
		max(id) OVER (PARTITION BY id % 2 ORDER BY id ROWS BETWEEN 2 FOLLOWING AND 3 FOLLOWING),
		lag(id, 1, 0) OVER (PARTITION BY id % 2 ORDER BY id), lead(id, 2) OVER (ORDER BY id),
		first_value(id) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW),
		last_value(id) OVER (PARTITION BY id % 2 ORDER BY id RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING),
		nth_value(id, 2) OVER (PARTITION BY id % 2 ORDER BY id),
		sum(id) OVER (ORDER BY k > 0 RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING),
		avg(id) OVER (PARTITION BY id % 2)
		FROM items ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	// Odd ids 1 3 5 7 (k -3 -1 1 3), even 2 4 6 8 (k -2 0 2 4); k > 0
	// is false for ids 1-4 and true for 5-8, so RANGE CURRENT ROW to the
	// end sums 36 for the first four and 26 for the rest.
	want := []string{
		"1|4|-3|7|0|3|1|7|NULL|36|4",
		"2|6|-2|8|0|4|1|8|NULL|36|5",
		"3|9|-1|7|1|5|1|7|3|36|4",
		"4|12|0|8|2|6|2|8|4|36|5",
		"5|15|1|NULL|3|7|3|7|3|26|4",
		"6|18|2|NULL|4|8|4|8|4|26|5",
		"7|12|3|NULL|5|NULL|5|7|3|26|4",
		"8|14|4|NULL|6|NULL|6|8|4|26|5",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWindowRangeOffsets: RANGE n PRECEDING/FOLLOWING reaches the rows
// whose ORDER BY key is within n, in either direction, over numbers and
// dates (INTERVAL), NULL keys framing their peers.
func TestWindowRangeOffsets(t *testing.T) {
	e, _ := itemsEngine(t, 10)
	got, _, err := runOrdered(t, e, `SELECT id, k,
		count(*) OVER (ORDER BY k RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING),
		sum(id) OVER (ORDER BY k DESC RANGE BETWEEN 2 PRECEDING AND CURRENT ROW),
		count(*) OVER (ORDER BY ship RANGE BETWEEN INTERVAL 62 DAY PRECEDING AND INTERVAL 1 DAY FOLLOWING),
		min(id) OVER (ORDER BY k * 0.5 RANGE BETWEEN CURRENT ROW AND 1.0 FOLLOWING)
		FROM items ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	// k: -3 -2 -1 0 1 2 3 4 -3 -2 (ids 1-10); ship every 61 days, NULL
	// for id 9 (its peers: itself).
	want := []string{
		"1|-3|4|25|1|1", "2|-2|5|19|2|2", "3|-1|4|12|2|3", "4|0|3|15|2|4", "5|1|3|18|2|5",
		"6|2|3|21|2|6", "7|3|3|15|2|7", "8|4|2|8|2|8", "9|-3|4|25|1|1", "10|-2|5|19|1|2",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWindowHugeOffsets: offsets past any partition are rows outside it,
// without overflowing.
func TestWindowHugeOffsets(t *testing.T) {
	e, _ := itemsEngine(t, 4)
	got, _, err := runOrdered(t, e, `SELECT id, lead(id, 9223372036854775807, -1) OVER (ORDER BY id), lag(id, 9223372036854775807) OVER (ORDER BY id),
		ntile(9223372036854775807) OVER (ORDER BY id), nth_value(id, 9223372036854775807) OVER (ORDER BY id),
		sum(id) OVER (ORDER BY id ROWS BETWEEN 9223372036854775807 PRECEDING AND 9223372036854775807 FOLLOWING)
		FROM items ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1|-1|NULL|1|NULL|10", "2|-1|NULL|2|NULL|10", "3|-1|NULL|3|NULL|10", "4|-1|NULL|4|NULL|10"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestWindowErrors: what is not supported, or wrong, is refused by name
// and position.
func TestWindowErrors(t *testing.T) {
	e, _ := itemsEngine(t, 8)
	for _, c := range []struct {
		sql  string
		kind error
		msg  string
	}{
		{`SELECT sum(id) OVER (ORDER BY id, k RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) FROM items`, ErrInvalid, "needs exactly one ORDER BY key"},
		{`SELECT sum(id) OVER (RANGE BETWEEN 2 PRECEDING AND CURRENT ROW) FROM items`, ErrInvalid, "needs exactly one ORDER BY key"},
		{`SELECT sum(id) OVER (ORDER BY id GROUPS BETWEEN 1.5 PRECEDING AND CURRENT ROW) FROM items`, ErrInvalid, "must be a non-negative integer constant"},
		{`SELECT sum(id) OVER (ORDER BY id GROUPS BETWEEN 1 FOLLOWING AND 1 PRECEDING) FROM items`, ErrInvalid, "start is after its end"},
		{`SELECT id, json_arrayagg(id) OVER () FROM items`, ErrUnsupported, "window function json_arrayagg"},
		{`SELECT id FROM items WHERE row_number() OVER (ORDER BY id) < 3`, ErrInvalid, "window function row_number is not allowed here"},
		{`SELECT k, count(*) FROM items GROUP BY row_number() OVER ()`, ErrInvalid, "not allowed here"},
		{`SELECT ntile(0) OVER (ORDER BY id) FROM items`, ErrInvalid, "number of buckets"},
		{`SELECT nth_value(id, 0) OVER (ORDER BY id) FROM items`, ErrInvalid, "position must be"},
		{`SELECT sum(id) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM items`, ErrInvalid, "start is after its end"},
		{`SELECT DISTINCT k, rank() OVER (ORDER BY k) FROM items`, ErrUnsupported, "SELECT DISTINCT with window functions"},
		{`SELECT sum(name) OVER () FROM items`, ErrInvalid, "sum"},
	} {
		_, _, err := runOrdered(t, e, c.sql)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), "line 1, column") {
			t.Errorf("%s:\n  %v\nwant %v with %q and a position", c.sql, err, c.kind, c.msg)
		}
	}
}

// TestWindowSpill runs windows over 200,000 rows within a 2 MiB limit:
// the sort under the window spills and merges, and the answer is the one
// computed in memory. Without a spill Manager the same query fails with
// ErrMemory, as does a window without PARTITION BY whose one partition
// passes the limit (windowOp holds a partition in memory).
func TestWindowSpill(t *testing.T) {
	keys, limit := 100_000, int64(2<<20)
	if testing.Short() {
		keys = 30_000
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, keys)
	inMem := New(c, Options{Alloc: mem, MemoryLimit: 1 << 30})
	m := spillManager(t, spill.Config{Codec: codec.Setting{Kind: codec.Zstd, Level: 1}})
	spilling := New(c, Options{Alloc: mem, MemoryLimit: limit, Spill: m, Workers: 2})
	const sql = `SELECT k, s, v, row_number() OVER (PARTITION BY g ORDER BY k, s, v, name),
		sum(v) OVER (PARTITION BY g ORDER BY k, s, v, name ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING),
		rank() OVER (PARTITION BY g ORDER BY k), max(name) OVER (PARTITION BY g)
		FROM t`
	want, wst, err := runOrdered(t, inMem, sql)
	if err != nil {
		t.Fatal(err)
	}
	if wst.Spill.Files != 0 {
		t.Errorf("the in-memory run spilled: %+v", wst.Spill)
	}
	got, st, err := runOrdered(t, spilling, sql)
	if err != nil {
		t.Fatal(err)
	}
	if st.Spill.Files == 0 {
		t.Errorf("the window over %d rows within %d bytes did not spill", len(got), limit)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		i := firstDiff(got, want)
		t.Fatalf("%d rows, in memory %d; first difference at row %d: %q, want %q", len(got), len(want), i, at(got, i), at(want, i))
	}
	checkNoSpillFiles(t, m)
	t.Logf("%d rows; peak %d of %d; spilled %v", len(got), st.PeakMemory, limit, st.Spill)
	text, err := spilling.Explain(context.Background(), "EXPLAIN ANALYZE "+sql)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "(input already in order): rank()") || !regexp.MustCompile(`Window over \(PARTITION BY g ORDER BY k, s, v, name\): .*spilled`).MatchString(text) {
		t.Errorf("EXPLAIN ANALYZE does not show the window that sorted and spilled:\n%s", text)
	}
	checkNoSpillFiles(t, m)

	noSpill := New(c, Options{Alloc: mem, MemoryLimit: limit})
	if _, _, err := runOrdered(t, noSpill, sql); !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "the sort of window (PARTITION BY g ORDER BY k, s, v, name)") {
		t.Errorf("without spilling: %v, want ErrMemory naming the window's sort", err)
	}
	// One partition of every row, within an eighth of the limit (so it
	// passes it in -short runs too, where the table is smaller).
	tight := New(c, Options{Alloc: mem, MemoryLimit: limit / 8, Spill: m, Workers: 2})
	_, _, err = runOrdered(t, tight, `SELECT k, sum(v) OVER (ORDER BY k RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t`)
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "window partition") {
		t.Errorf("one partition past the limit: %v, want ErrMemory naming the window partition", err)
	} else {
		t.Log(err)
	}
	checkNoSpillFiles(t, m)
}

// TestWindowSharesSort: a window whose keys are a prefix of another's
// reads that one's sorted output instead of sorting again.
func TestWindowSharesSort(t *testing.T) {
	e, _ := itemsEngine(t, 8)
	text, err := e.Explain(context.Background(), `EXPLAIN SELECT rank() OVER (PARTITION BY k ORDER BY id),
		count(*) OVER (PARTITION BY k), row_number() OVER (PARTITION BY k ORDER BY id, name), sum(id) OVER (ORDER BY id) FROM items`)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text, "(input already in order)"); n != 2 {
		t.Errorf("%d windows read the order below them, want 2 (rank's and count's):\n%s", n, text)
	}
}

// TestQualify: QUALIFY filters by window functions, after GROUP BY; it is
// refused beside HAVING, and its errors point into the user's text.
func TestQualify(t *testing.T) {
	e, _ := itemsEngine(t, 12)
	got, _, err := runOrdered(t, e, `SELECT id, k FROM items QUALIFY row_number() OVER (PARTITION BY k < 0 ORDER BY id DESC) <= 2 ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"10|-2", "11|-1", "8|4", "12|0"}; !slices.Equal(sortedCopy(got), sortedCopy(want)) {
		t.Errorf("got %v, want %v", got, want)
	}
	got, _, err = runOrdered(t, e, `SELECT k % 2 AS m, count(*) FROM items WHERE id > 1 GROUP BY m qualify rank() OVER (ORDER BY count(*) DESC) = 1`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0|6"}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	// 'qualify' in a string is text.
	if got, _, err = runOrdered(t, e, `SELECT 'qualify' FROM items WHERE id = 1`); err != nil || !slices.Equal(got, []string{"qualify"}) {
		t.Errorf("a string 'qualify': %v, %v", got, err)
	}
	_, _, err = runOrdered(t, e, `SELECT k, count(*) FROM items GROUP BY k HAVING count(*) > 1 QUALIFY rank() OVER (ORDER BY k) = 1`)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "line 1, column 62") {
		t.Errorf("QUALIFY with HAVING: %v", err)
	}
	if _, err = e.Exec(context.Background(), `CREATE VIEW v AS SELECT id FROM items QUALIFY rank() OVER (ORDER BY k) = 1`); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "QUALIFY in a view") {
		t.Errorf("a view with QUALIFY: %v", err)
	}
	_, _, err = runOrdered(t, e, `SELECT id FROM items QUALIFY name`)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "not boolean") || !strings.Contains(err.Error(), "column 30") {
		t.Errorf("QUALIFY name: %v", err)
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestWindowNamed: WINDOW w AS (…) names a window that calls use as OVER w
// or refine as OVER (w ORDER BY …) or OVER (w ROWS …).
func TestWindowNamed(t *testing.T) {
	e, _ := itemsEngine(t, 6)
	got, _, err := runOrdered(t, e, `SELECT id, rank() OVER w, sum(id) OVER (w ROWS 1 PRECEDING), count(*) OVER p, row_number() OVER (p ORDER BY id DESC)
		FROM items WINDOW w AS (PARTITION BY id % 2 ORDER BY id), p AS (PARTITION BY id % 2) ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1|1|1|3|3", "2|1|2|3|3", "3|2|4|3|2", "4|2|6|3|2", "5|3|8|3|1", "6|3|10|3|1"}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for _, c := range []struct{ sql, msg string }{
		{`SELECT rank() OVER v FROM items WINDOW w AS (ORDER BY id)`, "window v is not defined"},
		{`SELECT rank() OVER (w PARTITION BY k) FROM items WINDOW w AS (ORDER BY id)`, "takes its PARTITION BY"},
	} {
		if _, _, err := runOrdered(t, e, c.sql); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %q", c.sql, err, c.msg)
		}
	}
}

// TestWindowGroupsExclude checks GROUPS frames and EXCLUDE by hand over
// 12 items whose k ties in pairs for ids 1-4 and 9-12: peer groups by k
// are {1,9} {2,10} {3,11} {4,12} {5} {6} {7} {8}, summing to 10, 12,
// 14, 16, 5, 6, 7, 8 (78 in all).
func TestWindowGroupsExclude(t *testing.T) {
	e, _ := itemsEngine(t, 12)
	got, _, err := runOrdered(t, e, `SELECT id,
		sum(id) OVER (ORDER BY k GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
		sum(id) OVER (ORDER BY k ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP),
		count(*) OVER (ORDER BY k GROUPS BETWEEN CURRENT ROW AND 2 FOLLOWING EXCLUDE TIES),
		max(id) OVER (ORDER BY k, id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW),
		last_value(id) OVER (ORDER BY k RANGE BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING exclude
		  current   row),
		min(id) OVER (ORDER BY k RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE TIES),
		sum(id) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW),
		count(*) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE GROUP),
		count(*) OVER (PARTITION BY id > 6 ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE NO OTHERS),
		avg(id) OVER (ORDER BY k GROUPS 1 PRECEDING EXCLUDE GROUP)
		FROM items WINDOW w AS (ORDER BY k) ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	// GROUPS 1 PRECEDING EXCLUDE GROUP: the group before, e.g. id 5 (k 1)
	// averages {4, 12}; the first group has none.
	want := []string{
		"1|22|68|5|9|8|1|77|0|6|NULL",
		"2|36|66|5|10|8|1|76|0|6|5",
		"3|42|64|4|11|8|1|75|0|6|6",
		"4|35|62|3|12|8|1|74|0|6|7",
		"5|27|73|3|12|8|1|73|0|6|8",
		"6|18|72|3|7|8|1|72|0|6|5",
		"7|21|71|2|8|8|1|71|0|6|6",
		"8|15|70|1|7|7|1|70|0|6|7",
		"9|22|68|5|2|8|9|69|0|6|NULL",
		"10|36|66|5|3|8|1|68|0|6|5",
		"11|42|64|4|4|8|1|67|0|6|6",
		"12|35|62|3|5|8|1|66|0|6|7",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestWindowAggregateFrames checks aggregates evaluated frame by frame
// (string_agg, median, var_samp, arg_max, bool_and) over moving frames
// of items 1..8 (k = id - 4), by hand; query/difftest compares them with
// DuckDB.
func TestWindowAggregateFrames(t *testing.T) {
	e, _ := itemsEngine(t, 8)
	got, _, err := runOrdered(t, e, `SELECT id,
		string_agg(CAST(id AS VARCHAR), '-') OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING),
		median(id) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW),
		var_samp(id) OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW),
		arg_max(k, id) OVER (PARTITION BY id % 2 ORDER BY id),
		bool_and(id > 2) OVER (ORDER BY id ROWS BETWEEN 3 FOLLOWING AND 4 FOLLOWING)
		FROM items ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"1|1-2|1|NULL|-3|true",
		"2|1-2-3|1.5|2|-2|true",
		"3|2-3-4|2|2|-1|true",
		"4|3-4-5|3|2|0|true",
		"5|4-5-6|4|2|1|true",
		"6|5-6-7|5|2|2|NULL",
		"7|6-7-8|6|2|3|NULL",
		"8|7-8|7|NULL|4|NULL",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Frames evaluated one by one visit their rows each time: past the
	// bound, the query is refused by name rather than left to run.
	defer func(v int64) { maxFrameVisits = v }(maxFrameVisits)
	maxFrameVisits = 20
	_, _, err = runOrdered(t, e, `SELECT median(id) OVER (ORDER BY id) FROM items`)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "36 rows in all, past the 20") {
		t.Errorf("median over 8 running frames with a bound of 20 visits: %v", err)
	}
}

// TestNullsRewriteKeepsPositions: the planner reads stddev as written at
// the call's position (the grammar reads it as the population one), so a
// NULLS LAST rewritten before it must not move the positions after it.
func TestNullsRewriteKeepsPositions(t *testing.T) {
	e, _ := itemsEngine(t, 8)
	got, _, err := runOrdered(t, e, `SELECT id, rank() OVER (ORDER BY k NULLS LAST, id), stddev(id) OVER (), stddev_samp(id) OVER ()
		FROM items ORDER BY id LIMIT 1`)
	if err != nil {
		t.Fatal(err)
	}
	if want := "1|1|2.449489742783178|2.449489742783178"; len(got) != 1 || got[0] != want {
		t.Errorf("got %v, want %s", got, want)
	}
}

// TestWindowStreamsPartition runs windows whose partitions pass the
// memory limit many times over (one partition of 60,000 rows, then three
// of 20,000, within 512 KiB) with calls that need only the rows before
// a row and a few after it: the partitions are streamed in chunks, and
// the answer is the one computed in memory. Calls that need the whole
// partition spill it and give the same answer.
func TestWindowStreamsPartition(t *testing.T) {
	t.Parallel() // heavy: overlaps the others under -race
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, 30_000)
	const limit = 512 << 10
	inMem := New(c, Options{Alloc: mem, MemoryLimit: 1 << 30})
	m := spillManager(t, spill.Config{Codec: codec.Setting{Kind: codec.Zstd, Level: 1}})
	tight := New(c, Options{Alloc: mem, MemoryLimit: limit, Spill: m, Workers: 2})
	parts := []string{"", "PARTITION BY g % 3"}
	if testing.Short() { // CI's race pass: the partitions' boundaries, streamed
		parts = parts[1:]
	}
	for _, part := range parts {
		sql := strings.ReplaceAll(`SELECT k, s, v, name, p, row_number() OVER w, rank() OVER (P ORDER BY k), dense_rank() OVER (P ORDER BY k),
			lag(v, 3) OVER w, lead(name, 2, 'end') OVER w, lag(k) OVER w, sum(v) OVER (P ORDER BY k),
			count(*) OVER (P ORDER BY k ROWS UNBOUNDED PRECEDING), avg(d) OVER w, min(name) OVER (P ORDER BY k),
			max(v) OVER w, sum(f) OVER w, sum(p) OVER (P ORDER BY k GROUPS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), count(s) OVER w,
			count_if(v > 5000) OVER w, bool_or(v > 9990) OVER (P ORDER BY k)
			FROM t WINDOW w AS (P ORDER BY k, s, v, name, p, f)`, "P ", part+" ")
		want, _, err := runOrdered(t, inMem, sql)
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := runOrdered(t, tight, sql)
		if err != nil {
			t.Fatalf("%s: %v", part, err)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			i := firstDiff(got, want)
			t.Fatalf("%s: %d rows, in memory %d; first difference at row %d: %q, want %q", part, len(got), len(want), i, at(got, i), at(want, i))
		}
		t.Logf("%s: %d rows; peak %d of %d; spilled %v", part, len(got), st.PeakMemory, limit, st.Spill)
		checkNoSpillFiles(t, m)
	}
	// Calls that need the whole partition spill it (window_spill_test.go,
	// which -short runs leave to: two more sorts of 60,000 rows under
	// -race take half a minute).
	if testing.Short() {
		return
	}
	for _, sql := range []string{`SELECT k, row_number() OVER (ORDER BY k), ntile(4) OVER (ORDER BY k) FROM t`,
		// without ORDER BY, the default frame's CURRENT ROW is every row
		`SELECT k, sum(v) OVER (), count(*) OVER (ROWS UNBOUNDED PRECEDING) FROM t`} {
		want, _, err := runOrdered(t, inMem, sql)
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := runOrdered(t, tight, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			i := firstDiff(got, want)
			t.Fatalf("%s: %d rows, in memory %d; first difference at row %d: %q, want %q", sql, len(got), len(want), i, at(got, i), at(want, i))
		}
		if st.Spill.Files == 0 {
			t.Errorf("%s: nothing spilled", sql)
		}
	}
	checkNoSpillFiles(t, m)
}

// TestWindowFrameTexts: a call with GROUPS or EXCLUDE is named as
// written (the sentinels the parser needs do not show), and a WITH query
// holding one, which the planner restores to text and parses again,
// keeps its frame.
func TestWindowFrameTexts(t *testing.T) {
	e, _ := itemsEngine(t, 12)
	r, err := e.Query(t.Context(), `SELECT sum(id) OVER (ORDER BY k GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE TIES),
		count(*) OVER (ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING EXCLUDE CURRENT ROW) FROM items`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range r.Schema().Fields() {
		names = append(names, f.Name)
	}
	r.Release()
	want := []string{"sum(id) over (order by k groups between 1 preceding and current row exclude ties)",
		"count(*) over (rows between unbounded preceding and unbounded following exclude current row)"}
	if !slices.Equal(names, want) {
		t.Errorf("columns %q, want %q", names, want)
	}
	got, _, err := runOrdered(t, e, `WITH w AS (SELECT id, sum(id) OVER (ORDER BY k GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW EXCLUDE GROUP) AS s FROM items)
		SELECT a.id, a.s, b.s FROM w a JOIN w b ON a.id = b.id WHERE a.id IN (1, 5) ORDER BY a.id`)
	if err != nil {
		t.Fatal(err)
	}
	// id 1 (k -3): no group before; id 5 (k 1): the group before, {4, 12}
	if w := []string{"1|NULL|NULL", "5|16|16"}; !slices.Equal(got, w) {
		t.Errorf("got %q, want %q", got, w)
	}
}
