package query

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// The relational planner's tests over the one test table (orders, see
// testTable), joined with itself under aliases. Answers against DuckDB
// are in difftest (TestJoins, TestTPCH22); here: plans, errors and
// memory.

func TestJoinAnswers(t *testing.T) {
	e, _ := newEngine(t, 60, 16)
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		// ids 1..60; grp NULL every 7th row; qty = (id-1)%50, NULL every 11th
		// (so 45 ids are a qty, and the groups are a 17, b 17, c 18, NULL 8).
		{`SELECT count(*) FROM orders a JOIN orders b ON a.id = b.id`, []string{"60"}},
		{`SELECT count(*) FROM orders a, orders b WHERE a.grp = b.grp`, []string{fmt.Sprint(18*18 + 17*17 + 17*17)}},
		{`SELECT a.id, b.id FROM orders a JOIN orders b ON a.qty = b.qty AND a.id < b.id ORDER BY 1, 2 LIMIT 3`,
			[]string{"1|51", "2|52", "3|53"}},
		{`SELECT a.id, b.id FROM orders a LEFT JOIN orders b ON a.id = b.qty + 100 WHERE a.id <= 2 ORDER BY 1`,
			[]string{"1|NULL", "2|NULL"}},
		{`SELECT count(*) FROM orders a WHERE EXISTS (SELECT * FROM orders b WHERE b.qty = a.id)`, []string{"45"}},
		{`SELECT count(*) FROM orders a WHERE NOT EXISTS (SELECT * FROM orders b WHERE b.qty = a.id)`, []string{"15"}},
		// qty holds NULLs: NOT IN keeps nothing.
		{`SELECT count(*) FROM orders WHERE id NOT IN (SELECT qty FROM orders)`, []string{"0"}},
		{`SELECT count(*) FROM orders WHERE id NOT IN (SELECT qty FROM orders WHERE qty IS NOT NULL)`, []string{"15"}},
		{`SELECT count(*) FROM orders WHERE id IN (SELECT qty FROM orders)`, []string{"45"}},
		{`SELECT id FROM orders a WHERE a.qty = (SELECT max(b.qty) FROM orders b WHERE b.grp = a.grp) ORDER BY id`,
			[]string{"46", "48", "50"}},
		{`SELECT count(*) FROM orders WHERE id > (SELECT avg(id) FROM orders)`, []string{"30"}},
		{`SELECT count(*) FROM orders a WHERE a.grp = 'a' AND a.qty <= (SELECT max(b.qty) FROM orders b WHERE b.id = a.id)`, []string{"15"}},
		{`SELECT x.g, x.n FROM (SELECT grp AS g, count(*) AS n FROM orders GROUP BY grp) x WHERE x.n > 17 ORDER BY 1`,
			[]string{"c|18"}},
		{`WITH t AS (SELECT id FROM orders WHERE id < 4) SELECT count(*) FROM t a, t b`, []string{"9"}},
		// A WITH query is planned once per use; planning rewrites it
		// (DISTINCT, NOT EXISTS, subqueries), so each use starts afresh.
		{`WITH t AS (SELECT DISTINCT grp FROM orders o WHERE NOT EXISTS (SELECT 1 FROM orders p WHERE p.qty = o.id) AND o.id > (SELECT min(id) FROM orders))
		  SELECT count(*) FROM t a, t b WHERE a.grp = b.grp`, []string{"3"}},
		// A derived table inside a subquery is bound once to learn the
		// subquery's names, on a copy.
		{`SELECT count(*) FROM orders o WHERE EXISTS (SELECT 1 FROM (SELECT DISTINCT qty FROM orders) d WHERE d.qty = o.id)`, []string{"45"}},
		{`SELECT DISTINCT grp FROM orders ORDER BY 1`, []string{"a", "b", "c", "NULL"}},
		{`SELECT id FROM orders WHERE id < 3 UNION SELECT id FROM orders WHERE id < 2 ORDER BY 1`, []string{"1", "2"}},
		{`SELECT grp FROM orders INTERSECT SELECT grp FROM orders WHERE id = 7`, []string{"NULL"}},
		{`SELECT count(*) FROM orders a CROSS JOIN orders b`, []string{"3600"}},
		{`SELECT count(*) FROM orders a JOIN (SELECT CAST(price AS DECIMAL(10,2)) AS p FROM orders) b ON a.price = b.p`, []string{"60"}},
		{`SELECT count(*) FROM orders a, orders b WHERE a.id = b.qty AND ((a.grp = 'a' AND b.id < 5) OR (a.grp = 'b' AND b.id > 50))`, []string{"4"}},
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE b.grp = 'a'`, []string{"14"}},
		// A WITH query sees the names before it, not itself.
		{`WITH orders AS (SELECT * FROM orders WHERE id < 5) SELECT count(*) FROM orders`, []string{"4"}},
		// [NOT] EXISTS over an aggregate without GROUP BY: one row, always.
		{`SELECT count(*) FROM orders WHERE EXISTS (SELECT count(*) FROM orders WHERE id < 0)`, []string{"60"}},
		{`SELECT count(*) FROM orders a WHERE NOT EXISTS (SELECT max(b.qty) FROM orders b WHERE b.id = a.qty)`, []string{"0"}},
		// LIMIT inside IN and EXISTS counts.
		{`SELECT count(*) FROM orders WHERE id IN (SELECT qty FROM orders ORDER BY qty DESC LIMIT 2)`, []string{"2"}},
		{`SELECT count(*) FROM orders WHERE EXISTS (SELECT * FROM orders LIMIT 0)`, []string{"0"}},
		// USING joins a column into one.
		{`SELECT id, a.qty, b.qty FROM orders a JOIN orders b USING (id) WHERE id < 3 ORDER BY 1`, []string{"1|0|0", "2|1|1"}},
		{`SELECT * FROM orders a JOIN orders b USING (id, grp, qty, price, ratio, day, flag) WHERE id = 1`, []string{"1|a|0|0.01|0|1997-05-19|true"}},
		// Columns named alike are still told apart.
		{`SELECT * FROM (SELECT 1 AS a, 2 AS a) x`, []string{"1|2"}},
		{`SELECT id, qty FROM orders WHERE id = 2 UNION SELECT id, id FROM orders WHERE id = 2 ORDER BY 2`, []string{"2|1", "2|2"}},
		{`SELECT count(*) FROM (SELECT id, id FROM orders UNION SELECT id, qty FROM orders) x`, []string{"120"}},
		// INTERSECT binds tighter than UNION.
		{`SELECT 1 AS a UNION SELECT 2 INTERSECT SELECT 2 ORDER BY 1`, []string{"1", "2"}},
		{`SELECT 1 AS a EXCEPT SELECT 2 INTERSECT SELECT 2`, []string{"1"}},
		{`SELECT a.id FROM orders a WHERE a.id < 12 AND EXISTS (SELECT * FROM orders b WHERE b.qty = a.id) ORDER BY 1`,
			[]string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "11"}},
		{`SELECT a.id FROM orders a WHERE a.id < 12 AND NOT EXISTS (SELECT * FROM orders b WHERE b.qty = a.id AND b.id <> a.id + 50) ORDER BY 1`,
			[]string{"10"}},
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE b.grp IS NULL`, []string{"23"}},
	} {
		got, err := run(t, e, tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.sql, got, tc.want)
		}
	}
}

func TestJoinPlans(t *testing.T) {
	e, _ := newEngine(t, 60, 16)
	for _, tc := range []struct {
		sql  string
		want []string // lines the plan contains, in order
	}{
		// Conjuncts over one table go into its scan; the equality is the key.
		{`SELECT a.id FROM orders a, orders b WHERE a.id = b.qty AND a.grp = 'a' AND b.id < 10`, []string{
			"HashJoin Inner on", "id = qty", "keeps rows where a.grp='a'", "keeps rows where b.id<10"}},
		// The key every branch of an OR has comes out of it (TPC-H Q19).
		{`SELECT count(*) FROM orders a, orders b WHERE (a.id = b.id AND a.qty < 5) OR (a.id = b.id AND b.qty > 40)`, []string{
			"HashJoin Inner on id = id and"}},
		// An OR whose branches each restrict a table gives that table's
		// scan the OR of the restrictions (TPC-H Q7, Q19).
		{`SELECT count(*) FROM orders a, orders b WHERE a.id = b.qty AND ((a.grp = 'a' AND b.id < 5) OR (a.grp = 'b' AND b.id > 50))`, []string{
			"pruning on (a.grp='a' OR a.grp='b')", "pruning on (b.id<5 OR b.id>50)"}},
		{`SELECT count(*) FROM orders a WHERE EXISTS (SELECT * FROM orders b WHERE b.qty = a.id AND b.grp <> a.grp)`, []string{
			"HashJoin Semi on id = $c0 and"}},
		{`SELECT count(*) FROM orders a WHERE NOT EXISTS (SELECT * FROM orders b WHERE b.qty = a.id)`, []string{"HashJoin Anti"}},
		// A subquery much larger than the rows it tests: those are built.
		{`SELECT count(*) FROM orders a WHERE a.id < 4 AND EXISTS (SELECT * FROM orders b WHERE b.qty = a.id)`, []string{
			"HashJoin RightSemi on $c0 = id", "build:", "keeps rows where a.id<4"}},
		{`SELECT count(*) FROM orders a WHERE a.id < 4 AND NOT EXISTS (SELECT * FROM orders b WHERE b.qty = a.id AND b.grp <> a.grp)`, []string{
			"HashJoin RightAnti on $c0 = id and", "build:", "keeps rows where a.id<4"}},
		{`SELECT count(*) FROM orders WHERE id NOT IN (SELECT qty FROM orders)`, []string{"HashJoin NullAwareAnti on id = $in"}},
		{`SELECT id FROM orders a WHERE a.qty < (SELECT max(b.qty) FROM orders b WHERE b.grp = a.grp)`, []string{
			"HashJoin Inner on grp = $k0 and qty < $value", "HashAggregate by grp: max(b.qty)"}},
		// A correlated scalar subquery aggregates only the groups the outer
		// rows can look up: those of the outer table's filtered keys.
		{`SELECT count(*) FROM orders a WHERE a.grp = 'a' AND a.qty <= (SELECT max(b.qty) FROM orders b WHERE b.id = a.id)`, []string{
			"HashAggregate by id: max(b.qty)", "Semi on", "keeps rows where a.grp='a'"}},
		// An uncorrelated scalar subquery is a constant of the plan.
		{`SELECT count(*) FROM orders WHERE id > (SELECT max(qty) FROM orders)`, []string{"keeps rows where id>49"}},
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.id AND b.qty > 3`, []string{
			"HashJoin Left on id = id", "keeps rows where b.qty>3"}},
		// A preserved side much smaller than the other is built: RIGHT.
		// (Filtered on a column that is not its key: a.id < 5 would reach
		// b's scan as b.qty < 5, rule_infer.go.)
		{`SELECT count(*), count(b.id) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE a.qty < 3`, []string{
			"HashJoin Right on qty = id", "build:", "keeps rows where a.qty<3"}},
		{`SELECT count(*) FROM orders a, orders b`, []string{"NestedLoopJoin Inner"}},
		{`SELECT x.id, (SELECT max(y.qty) FROM orders y WHERE y.id = x.id) FROM orders x`, []string{"Project id, (select max(y.qty) from orders as y where y.id=x.id)"}},
		// Decimals of one scale are keys whatever their precisions.
		{`SELECT count(*) FROM orders a JOIN (SELECT CAST(price AS DECIMAL(10,2)) AS p FROM orders) b ON a.price = b.p`, []string{
			"HashJoin Inner on"}},
		// A WHERE conjunct that rejects NULLs of the inner side makes a
		// LEFT JOIN inner; one that does not (IS NULL) leaves it.
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE b.grp = 'a'`, []string{
			"HashJoin Inner on", "keeps rows where b.grp='a'"}},
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE b.grp IS NULL`, []string{"HashJoin Left"}},
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE coalesce(b.grp, 'x') = 'x'`, []string{"HashJoin Left"}},
		// Only operands whose NULL makes the condition not TRUE count.
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE a.qty IN (b.qty, 1)`, []string{"HashJoin Left"}},
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE a.qty NOT BETWEEN b.qty AND 0`, []string{"HashJoin Left"}},
		{`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE a.qty BETWEEN b.qty AND 40`, []string{"HashJoin Inner"}},
		// A FULL JOIN narrows by the sides whose NULLs WHERE rejects (the
		// smaller preserved side built, as for LEFT).
		{`SELECT count(*) FROM orders a FULL JOIN orders b ON a.id = b.qty WHERE a.qty < 3`, []string{
			"HashJoin Right on qty = id", "keeps rows where a.qty<3"}},
		{`SELECT count(*) FROM orders a FULL JOIN orders b ON a.id = b.qty WHERE b.id < 5`, []string{
			"HashJoin Right on id = qty", "keeps rows where b.id<5"}},
		{`SELECT count(*) FROM orders a FULL JOIN orders b ON a.id = b.qty WHERE b.id < 5 AND a.grp = 'a'`, []string{"HashJoin Inner"}},
		{`SELECT count(*) FROM orders a FULL JOIN orders b ON a.id = b.qty WHERE b.id IS NULL OR a.id < 5`, []string{"HashJoin Full"}},
		// An equality of expressions connects its tables for the join
		// order: the selective a joins b first, not last as a cross part.
		{`SELECT count(*) FROM orders a, orders b, orders c WHERE a.id = b.qty + 1 AND c.id = b.id AND a.id < 3`, []string{
			"HashJoin Inner on id = id", "HashJoin Inner on qty + 1 = id", "keeps rows where a.id<3", "build:", "Scan orders: decodes 1 of 7 columns [id] (~60 rows)"}},
	} {
		plan, err := e.Explain(context.Background(), tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		rest := plan
		for _, w := range tc.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: plan lacks %q (after the lines before it):\n%s", tc.sql, w, plan)
				break
			}
			rest = rest[i+len(w):]
		}
	}
}

func TestJoinErrors(t *testing.T) {
	e, _ := newEngine(t, 20, 16)
	for _, tc := range []struct {
		sql  string
		kind error
		msg  string
	}{
		{`SELECT id FROM orders a, orders b`, ErrInvalid, `column "id" is ambiguous: it could be a.id or b.id`},
		{`SELECT a.qtyy FROM orders a, orders b`, ErrInvalid, `no column "qtyy" in a, b (did you mean a.qty or b.qty?)`},
		{`SELECT c.id FROM orders a, orders b`, ErrInvalid, `no table "c" in FROM`},
		{`SELECT 1 FROM orders, orders`, ErrInvalid, `table name "orders" is used twice`},
		{`SELECT 1 FROM orders a FULL JOIN orders b USING (id)`, ErrUnsupported, `FULL JOIN … USING`},
		{`SELECT 1 FROM orders a NATURAL JOIN (SELECT 1 AS x) b`, ErrInvalid, `NATURAL JOIN: no column name is on both sides (left: id, grp, qty, price, ratio, day, flag; right: x)`},
		{`SELECT id FROM orders WHERE id = (SELECT id FROM orders)`, ErrExec, `more than one row`},
		{`SELECT id FROM orders WHERE id = (SELECT id, qty FROM orders)`, ErrInvalid, `returns one column`},
		{`SELECT id FROM orders WHERE id IN (SELECT id, qty FROM orders)`, ErrInvalid, `one column`},
		{`SELECT id FROM orders UNION SELECT id, qty FROM orders`, ErrInvalid, `2 columns`},
		{`SELECT id FROM orders INTERSECT ALL SELECT id FROM orders`, ErrUnsupported, `INTERSECT ALL`},
		{`WITH a AS (SELECT * FROM b), b AS (SELECT * FROM orders) SELECT count(*) FROM a`, ErrNoTable, `"b"`},
		{`SELECT 1 FROM orders x, orders y LEFT JOIN orders z ON x.id = z.id`, ErrInvalid, `reads a table outside its join`},
		{`SELECT count(*) FROM orders WHERE id NOT IN (SELECT grp FROM orders)`, ErrUnsupported, `NOT IN`},
		{`SELECT count(*) FROM orders a WHERE a.qty IN (SELECT b.qty FROM orders b WHERE b.id = a.id LIMIT 1)`, ErrUnsupported, `LIMIT`},
		{strings.Repeat("SELECT count(*) FROM (", 70) + "SELECT id FROM orders" + strings.Repeat(") x", 70), ErrInvalid, `nest more than 64 deep`},
	} {
		_, err := run(t, e, tc.sql)
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s:\n got %v\nwant %v containing %q", tc.sql, err, tc.kind, tc.msg)
		}
	}
}

// TestJoinMemory runs joins to the end, to an error and to a cancel with
// a checked allocator (newEngine asserts nothing is left).
func TestJoinMemory(t *testing.T) {
	e, _ := newEngine(t, 500, 16)
	for _, sql := range []string{
		`SELECT a.id, b.grp FROM orders a JOIN orders b ON a.qty = b.qty`,
		`SELECT count(*) FROM orders a LEFT JOIN orders b ON a.id = b.qty WHERE b.id IS NULL`,
		`SELECT id FROM orders WHERE id = (SELECT qty FROM orders)`,
	} {
		_, _ = run(t, e, sql)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r, err := e.Query(ctx, `SELECT a.id FROM orders a JOIN orders b ON a.qty = b.qty`)
	if err != nil {
		t.Fatal(err)
	}
	r.Next()
	cancel()
	for r.Next() {
	}
	if !errors.Is(r.Err(), context.Canceled) {
		t.Errorf("after cancel: %v", r.Err())
	}
	r.Release()
}

// TestRuntimeFilter: the build side's key range reaches the probe side's
// scan, which skips the batches outside it, and the answer is the one
// without pruning.
func TestRuntimeFilter(t *testing.T) {
	e, _ := newEngine(t, 600, 16)
	// b.id + 0, not b.id: a filter on the bare key would be copied to a's
	// scan (rule_infer.go), leaving the runtime filter nothing to skip.
	const sql = `SELECT count(*), sum(a.qty) FROM orders a JOIN orders b ON a.id = b.id WHERE b.id + 0 BETWEEN 100 AND 110`
	plan, err := e.Explain(context.Background(), "EXPLAIN ANALYZE "+sql)
	if err != nil {
		t.Fatal(err)
	}
	// 38 batches of 16 ids: ids 100..110 are all in one (ids 97..112);
	// the batches the scan read ahead while the build side was built are
	// not skipped. The keys (11 of 600 distinct ids) go to the scan too:
	// the batch of ids 97..112 is decoded and its other 5 rows dropped.
	m := regexp.MustCompile(`runtime filters on id \(skipped (\d+) batches, dropped (\d+) rows\)`).FindStringSubmatch(plan)
	if m == nil {
		t.Fatalf("no runtime filter with keys on the probe scan:\n%s", plan)
	}
	if n, _ := strconv.Atoi(m[1]); n < 28 || n > 37 {
		t.Errorf("the runtime filter skipped %d batches, want 28..37:\n%s", n, plan)
	}
	if n, _ := strconv.Atoi(m[2]); n < 5 {
		t.Errorf("the runtime filter's keys dropped %d rows, want at least 5:\n%s", n, plan)
	}
	got, err := run(t, e, sql)
	if err != nil {
		t.Fatal(err)
	}
	off := New(e.c, Options{Alloc: e.opts.Alloc, NoPruning: true})
	want, err := run(t, off, sql)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(got) != "[11|85]" {
		t.Errorf("got %v, without pruning %v", got, want)
	}
}

// TestRuntimeFilterIntoSubquery: a table only a subquery names (TPC-H
// Q4's EXISTS over lineitem) gets the join's key filter too, not the key
// range alone: its statistics are read for the scan the filter reaches.
func TestRuntimeFilterIntoSubquery(t *testing.T) {
	e, _ := newEngine(t, 600, 16)
	if _, err := e.Exec(context.Background(), "CREATE TABLE items AS SELECT id % 300 AS oid, qty FROM orders"); err != nil {
		t.Fatal(err)
	}
	const sql = `SELECT count(*) FROM orders o WHERE o.id % 50 = 0 AND EXISTS (SELECT * FROM items i WHERE i.oid = o.id)`
	plan, err := e.Explain(context.Background(), "EXPLAIN "+sql)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "runtime filters on oid (range and keys)") {
		t.Fatalf("the subquery's scan has no key filter:\n%s", plan)
	}
	got, err := run(t, e, sql)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[5]" { // ids 50, 100, …, 250 have items (oid < 300)
		t.Errorf("got %v, want [5]", got)
	}
}

// TestJoinParams: ? placeholders in a WITH query used twice (each later
// use is planned from a fresh parse) keep their values.
func TestJoinParams(t *testing.T) {
	e, _ := newEngine(t, 60, 16)
	got, _, err := runOrdered(t, e, `WITH t AS (SELECT id FROM orders WHERE id > ? AND id < ?) SELECT count(*) FROM t a, t b WHERE a.id = b.id`, int64(2), int64(5))
	if err != nil || fmt.Sprint(got) != "[2]" {
		t.Errorf("got %v, %v; want [2]", got, err)
	}
	got, _, err = runOrdered(t, e, `SELECT count(*) FROM orders o WHERE EXISTS (SELECT 1 FROM (SELECT qty FROM orders WHERE grp LIKE ?) d WHERE d.qty = o.id)`, "a%")
	if err != nil || fmt.Sprint(got) != "[14]" {
		t.Errorf("got %v, %v; want [14]", got, err)
	}
}

// TestJoinDecimalKeys: decimals of one scale and different precisions
// are hash keys (not a nested loop's residual), in memory and through the
// grace join's partitioning.
func TestJoinDecimalKeys(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 60, 16)
	m := spillManager(t, spill.Config{Codec: codec.SettingLZ4})
	const sql = `SELECT count(*) FROM orders a JOIN (SELECT CAST(price AS DECIMAL(10,2)) AS p FROM orders) b ON a.price = b.p`
	for _, force := range []bool{false, true} {
		e := New(c, Options{Alloc: mem, Spill: m, ForceJoinSpill: force})
		got, err := run(t, e, sql)
		if err != nil || fmt.Sprint(got) != "[60]" {
			t.Errorf("spilling=%v: %v, %v; want [60]", force, got, err)
		}
	}
}
