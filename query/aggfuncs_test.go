package query

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// TestAggSyntaxRewrite: the text the grammar gets for FILTER, first/last
// and string_agg … ORDER BY, and offsets mapped back to the user's text.
func TestAggSyntaxRewrite(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT count(*) FILTER (WHERE x > 1) FROM t", "SELECT quiver$filter(count(*), x > 1) FROM t"},
		{"SELECT sum(x)filter(where (a) = ')') FROM t", "SELECT quiver$filter(sum(x), (a) = ')') FROM t"},
		{"SELECT 1 + avg(DISTINCT x) FILTER (WHERE f(y)) * 2", "SELECT 1 + quiver$filter(avg(DISTINCT x), f(y)) * 2"},
		{"SELECT first(x), LAST (y), first_value(z) OVER (), t.first(1)", "SELECT quiver$first(x), quiver$last (y), first_value(z) OVER (), t.first(1)"},
		{"SELECT first(x) OVER w, nulls_first", "SELECT first_value(x) OVER w, nulls_first"},
		{"SELECT string_agg(s, '-' ORDER BY k DESC, j)", "SELECT group_concat(s ORDER BY k DESC, j SEPARATOR '-')"},
		{"SELECT listagg(s ORDER BY k)", "SELECT group_concat(s ORDER BY k SEPARATOR ',')"},
		{"SELECT string_agg(s, ',') , 'filter (where'", "SELECT string_agg(s, ',') , 'filter (where'"},
		{"SELECT median(x) OVER (), arg_min(x, y) over w", "SELECT max(quiver$win_median(x)) OVER (), max(quiver$win_arg_min(x, y)) over w"},
		{`SELECT "first"(x), filter FROM t`, `SELECT "first"(x), filter FROM t`},
	} {
		got, edits, err := aggSyntaxForTest(tc.in, tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.in, got, err, tc.want)
		}
		// every byte the user wrote maps back to itself
		if i := strings.LastIndex(got, "x"); i >= 0 && strings.Contains(tc.in, "x") {
			if o := originalOffset(i, edits); tc.in[o] != 'x' {
				t.Errorf("%q: offset %d of %q maps to %d", tc.in, i, got, o)
			}
		}
	}
	for _, sql := range []string{
		"SELECT sum(x) FILTER (WHERE x > 0) OVER (PARTITION BY k) FROM t",
		"SELECT string_agg(x, ',' ORDER BY y) OVER () FROM t",
	} {
		if _, _, err := aggSyntaxForTest(sql, sql); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%q: %v, want ErrUnsupported", sql, err)
		}
	}
}

// longAggRewrites is a statement of n FILTER clauses over first(): 2n
// rewrites.
func longAggRewrites(n int) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("sum(x) FILTER (WHERE first(y) > 0)")
	}
	return b.String()
}

// TestAggSyntaxRewriteLong: a statement of thousands of rewrites is
// rewritten whole (each rewrite resumes where it began, so the scan is
// about once; each edit still copies the statement, which
// BenchmarkAggSyntaxRewrite measures: a wall-clock bound here failed under
// load), and past maxAggRewrites it is refused.
func TestAggSyntaxRewriteLong(t *testing.T) {
	sql := longAggRewrites(maxAggRewrites / 2)
	got, _, err := aggSyntaxForTest(sql, sql)
	if err != nil || strings.Count(got, filterFunc+"(") != maxAggRewrites/2 || strings.Contains(got, "FILTER") {
		t.Fatalf("%v; %d filters rewritten", err, strings.Count(got, filterFunc+"("))
	}
	sql += ", first(z)"
	if _, _, err := aggSyntaxForTest(sql, sql); !errors.Is(err, ErrInvalid) {
		t.Errorf("%d rewrites: %v, want ErrInvalid", maxAggRewrites+1, err)
	}
}

// BenchmarkAggSyntaxRewrite: rewriting statements of 2n rewrites; each
// edit copies the statement, so the time grows as bytes × rewrites
// (bounded by maxAggRewrites).
func BenchmarkAggSyntaxRewrite(b *testing.B) {
	for _, n := range []int{256, 1024, maxAggRewrites / 2} {
		sql := longAggRewrites(n)
		b.Run(fmt.Sprintf("filters=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(sql)))
			for b.Loop() {
				if _, _, err := aggSyntaxForTest(sql, sql); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestNewAggregateErrors: misuse is refused by name and position.
func TestNewAggregateErrors(t *testing.T) {
	e, _ := itemsEngine(t, 8)
	for _, tc := range []struct {
		sql  string
		kind error
		want string
	}{
		{"SELECT upper(name) FILTER (WHERE k > 1) FROM items", ErrInvalid, "FILTER (WHERE …) follows an aggregate, not upper(name)"},
		{"SELECT count(*) FILTER (WHERE name) FROM items", ErrInvalid, "line 1, column 31: FILTER (WHERE name) needs a boolean condition, got utf8"},
		{"SELECT count(*) FILTER (WHERE nosuch > 1), stddev(k) FROM items", ErrInvalid, `line 1, column 31: no column "nosuch"`},
		{"SELECT sum(k) FILTER (WHERE sum(k) > 1) FROM items", ErrInvalid, "aggregate sum(k) not allowed here"},
		{"SELECT sum(k) FILTER (WHERE k > 1) OVER () FROM items", ErrUnsupported, "FILTER (WHERE …) on a window function"},
		{"SELECT median(k, 0.5) FROM items", ErrInvalid, "median takes one argument"},
		{"SELECT quantile_cont(k, 1.5) FROM items", ErrInvalid, "quantile_cont: the quantile must be a constant between 0 and 1, not 1.5"},
		{"SELECT quantile_disc(k, k) FROM items", ErrInvalid, "the quantile must be a constant between 0 and 1, not k"},
		{"SELECT quantile_cont(name, 0.5) FROM items", ErrInvalid, "quantile_cont over utf8 is not supported"},
		{"SELECT string_agg(name, name) FROM items", ErrInvalid, "line 1, column 25: string_agg: the separator must be a constant, not name"},
		{"SELECT listagg(DISTINCT name) FROM items", ErrSyntax, ""}, // the grammar takes DISTINCT in group_concat only
		{"SELECT group_concat(DISTINCT name) FROM items", ErrUnsupported, "group_concat(DISTINCT …)"},
		{"SELECT sum(k ORDER BY id) FROM items", ErrSyntax, ""},
		{"SELECT first(k, id) FROM items", ErrInvalid, "first takes one argument"},
	} {
		_, err := run(t, e, tc.sql)
		if err == nil || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want %v containing %q", tc.sql, err, tc.kind, tc.want)
		}
	}
}

// TestNewAggregates: FILTER, first/last in table order over several
// batches and workers, string_agg, quantiles and the names of their
// columns.
func TestNewAggregates(t *testing.T) {
	e, _ := itemsEngine(t, 30) // batches of 4 rows
	for _, tc := range []struct{ sql, want string }{
		{"SELECT count(*) FILTER (WHERE k > 2), sum(k) FILTER (WHERE k > 2), count(*) FROM items", "6|21|30"},
		{"SELECT k, count(*) FILTER (WHERE id > 20), count(DISTINCT mode) FILTER (WHERE id % 2 = 0) FROM items WHERE k < -1 GROUP BY k ORDER BY k",
			"-3|1|0,-2|1|4"},
		{"SELECT first(id), last(id), first(name), last(ship), string_agg(id, '') FILTER (WHERE id < 12) FROM items",
			"1|30|héllo|1996-11-04|1234567891011"},
		{"SELECT k, first(id), last(id), string_agg(CAST(id AS VARCHAR), ',' ORDER BY id DESC) FROM items GROUP BY k ORDER BY k LIMIT 2",
			"-3|1|25|25,17,9,1,-2|2|26|26,18,10,2"},
		{"SELECT median(id), quantile_cont(k, 0.25), quantile_disc(id, 0.1), median(ship), approx_quantile(name, 0.5) FROM items",
			"15.5|-1.75|3|1994-05-04T00:00:00|carefully special ironic requests"},
		{"SELECT approx_count_distinct(mode), approx_count_distinct(k), approx_count_distinct(NULL) FROM items", "7|8|0"},
		{"SELECT median(id) FROM items WHERE id < 0", "NULL"},
		// as window functions, over whole partitions
		{"SELECT id, median(id) OVER (PARTITION BY k), string_agg(mode, ',') OVER (PARTITION BY k), stddev(id) OVER (PARTITION BY k), " +
			"arg_max(mode, id) OVER (PARTITION BY k), approx_count_distinct(mode) OVER () " +
			"FROM items WHERE id < 12 AND k < 0 ORDER BY id",
			"1|5|AIR,MAIL|5.656854249492381|MAIL|4,2|6|MAIL,REG AIR|5.656854249492381|REG AIR|4,3|7|REG AIR,TRUCK|5.656854249492381|TRUCK|4," +
				"9|5|AIR,MAIL|5.656854249492381|MAIL|4,10|6|MAIL,REG AIR|5.656854249492381|REG AIR|4,11|7|REG AIR,TRUCK|5.656854249492381|TRUCK|4"},
		{"SELECT id, first(id) OVER (PARTITION BY k ORDER BY id DESC), last(id) OVER (PARTITION BY k ORDER BY id DESC) FROM items WHERE id < 4 ORDER BY id",
			"1|1|1,2|2|2,3|3|3"},
		{"SELECT k, median(k) OVER () FROM items GROUP BY k ORDER BY k LIMIT 2", "-3|0.5,-2|0.5"},
		// any_value: the first non-NULL value in row order (DuckDB's), not
		// the smallest: k = 0 is ids 4 (NULL name), 12 (green forest), 20
		// (Customer x Complaints), 28 (NULL)
		{"SELECT any_value(name), min(name) FROM items WHERE id >= 4", "日本語テキスト|"},
		{"SELECT k, any_value(name), any_value(name) FILTER (WHERE id <> 12) FROM items WHERE k = 0 GROUP BY k", "0|green forest|Customer x Complaints"},
		{"SELECT id, any_value(name) OVER (PARTITION BY k), any_value(name) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM items QUALIFY id BETWEEN 3 AND 4 ORDER BY id",
			"3|forest green|forest green,4|green forest|日本語テキスト"},
	} {
		rows, err := run(t, e, tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if got := strings.Join(rows, ","); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, got, tc.want)
		}
	}
	r, err := e.Query(t.Context(), "SELECT count(*) FILTER (WHERE k > 2) AS c, sum(k) FILTER (WHERE k > 2) + 1, first(k), string_agg(mode, ',' ORDER BY id) FROM items")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var names []string
	for _, f := range r.Schema().Fields() {
		names = append(names, f.Name)
	}
	if want := []string{"c", "sum(k) FILTER (WHERE k>2)+1", "first(k)", "group_concat(mode order by id separator ',')"}; !slices.Equal(names, want) {
		t.Errorf("columns %q, want %q", names, want)
	}
}

// TestSerialAggregateMemory: string_agg and the quantiles do not spill;
// past the memory limit they fail with ErrMemory naming the aggregate,
// with spilling on or off. FILTER, approx_count_distinct, first and
// last spill, and give the answer of the query run in memory (first and
// last by the rows' positions, whichever worker and run held them).
func TestSerialAggregateMemory(t *testing.T) {
	t.Parallel() // heavy: overlaps the others under -race
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rows, limit := 60_000, int64(4<<20)
	if testing.Short() { // CI's race pass: half the table in half the memory
		rows, limit = 30_000, 2<<20
	}
	c := groupsTable(t, mem, rows)
	m := spillManager(t, spill.Config{Codec: codec.SettingLZ4})
	inMem := New(c, Options{Alloc: mem, MemoryLimit: 1 << 30, Workers: 1}) // scan order, no merges
	for _, opts := range []Options{{Alloc: mem, MemoryLimit: limit, Spill: m, Workers: 2}, {Alloc: mem, MemoryLimit: limit}} {
		e := New(c, opts)
		for _, sql := range []string{
			`SELECT k, string_agg(s, ',') FROM t GROUP BY k`,
			`SELECT k, median(v) FROM t GROUP BY k`,
		} {
			_, err := run(t, e, sql)
			if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "does not spill") {
				t.Errorf("spill %v: %s: %v, want ErrMemory saying it does not spill", opts.Spill != nil, sql, err)
			}
		}
	}
	spilling := New(c, Options{Alloc: mem, MemoryLimit: limit, Spill: m, Workers: 2})
	// approx_count_distinct's sketches are large in a hash table: a run
	// holds few groups, so the runs and the merge grow with the rows. The
	// race pass spills a third of them (still some 230 runs).
	where := ""
	if testing.Short() {
		where = "WHERE k < 10000 "
	}
	for _, sql := range []string{
		`SELECT k % 20000 AS m, count(*) FILTER (WHERE v > 5000), sum(v) FILTER (WHERE name > 'm'), count(DISTINCT v) FILTER (WHERE f > 0),
		        approx_count_distinct(s), min(s) FILTER (WHERE v < 100), count(*) FROM t ` + where + `GROUP BY m`,
		`SELECT k % 20000 AS m, first(name), last(s), first(v) FILTER (WHERE v > 5000), last(d), count(*) FROM t ` + where + `GROUP BY m`,
	} {
		want, _, err := runStats(t, inMem, sql)
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := runStats(t, spilling, sql)
		if err != nil {
			t.Fatal(err)
		}
		if st.Spill.Files+st.Spill.Held == 0 { // files, or map outputs held in memory
			t.Errorf("did not spill: %+v", st)
		}
		t.Logf("%d groups; spilled %v; peak memory %d", len(want), st.Spill, st.PeakMemory)
		// The merge combines groups by bytes too: approx_count_distinct's
		// 4 KiB sketches took the peak to 9.8 MB of 2 MiB by a count of
		// groups alone.
		if st.PeakMemory > limit {
			t.Errorf("%s: peak memory %d passes the %d-byte limit", sql, st.PeakMemory, limit)
		}
		if !slices.Equal(got, want) {
			i := firstDiff(got, want)
			t.Fatalf("%s: %d rows, in memory %d; first difference at row %d: %q, want %q", sql, len(got), len(want), i, at(got, i), at(want, i))
		}
		checkNoSpillFiles(t, m)
	}
}

// TestWindowAggregateMemory: an aggregate over a window partition that
// does not fit what the query has left fails with ErrMemory naming it.
func TestWindowAggregateMemory(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, 20_000)
	e := New(c, Options{Alloc: mem, MemoryLimit: 3 << 20})
	_, err := run(t, e, `SELECT g, string_agg(name || name || name || name, ',') OVER (PARTITION BY g) FROM t`)
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "as a window function needs more than") {
		t.Fatalf("%v, want ErrMemory naming the window aggregate", err)
	}
	rows, err := run(t, e, `SELECT g, count(*), median(sum(v)) OVER () FROM t GROUP BY g`)
	if err != nil || len(rows) != 500 {
		t.Fatalf("%d rows, %v; want 500", len(rows), err)
	}
}

// TestExplainWindowAggregate: EXPLAIN names a window aggregate as written.
func TestExplainWindowAggregate(t *testing.T) {
	e, _ := itemsEngine(t, 8)
	rows, err := run(t, e, "EXPLAIN SELECT median(id) OVER (PARTITION BY k) FROM items")
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(rows, "\n")
	if !strings.Contains(plan, "median(id) over (partition by k)") || strings.Contains(plan, "quiver$") {
		t.Errorf("plan:\n%s", plan)
	}
}

// aggSyntaxForTest is rewriteAggSyntax with the edits it made returned.
func aggSyntaxForTest(text, sql string) (string, []textEdit, error) {
	var edits []textEdit
	text, err := rewriteAggSyntax(text, sql, &edits)
	return text, edits, err
}
