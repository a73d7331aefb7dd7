package query

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/query/expr"
)

// chainSQL is SELECT sum(id + id + … + id) with terms terms.
func chainSQL(terms int) string {
	return "SELECT sum(id" + strings.Repeat(" + id", terms-1) + ") FROM orders"
}

// unlimitedEngine is an engine over testTable without expression limits.
func unlimitedEngine(t testing.TB, rows, batch int) *Engine {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	c, _ := testTable(t, mem, rows, batch)
	return New(c, Options{Alloc: mem, MaxExprNodes: -1, MaxExprDepth: -1})
}

// TestLongLiteralLimitOne: a 5 MiB string constant in the SELECT list was
// materialized for every row of a scan batch before LIMIT cut it to one
// row (a 40 GiB allocation on a real table). Only the row returned is
// computed now.
func TestLongLiteralLimitOne(t *testing.T) {
	e, _ := newEngine(t, 2000, 256) // 256 rows × 5 MiB = 1.25 GiB before
	lit := strings.Repeat("x", 5<<20)
	var before, after goruntime.MemStats
	goruntime.ReadMemStats(&before)
	start := time.Now()
	got, err := run(t, e, "SELECT '"+lit+"', id FROM orders LIMIT 1")
	elapsed := time.Since(start)
	goruntime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != lit+"|1" {
		t.Fatalf("got %d rows", len(got))
	}
	// The SQL text, its parse, the column's value and the row as text
	// (run's) are a handful of copies of 5 MiB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 128<<20 {
		t.Errorf("allocated %d MiB for one row of a 5 MiB constant", alloc>>20)
	}
	t.Logf("%v, %d MiB allocated", elapsed, (after.TotalAlloc-before.TotalAlloc)>>20)
	// Its name, the SQL text, is cut: every schema sent carries it.
	schema, err := e.Schema("SELECT '" + lit + "' FROM orders LIMIT 1")
	if err != nil {
		t.Fatal(err)
	}
	if name := schema.Field(0).Name; len(name) > 300 || !strings.HasPrefix(name, "'xxx") {
		t.Errorf("column named by %d bytes: %.40q", len(name), name)
	}
}

// TestLongLiteralSorted: a constant beside ORDER BY … LIMIT is computed
// after the sort, for the rows returned: sorted along, it was copied onto
// every row of every batch (256 MiB a batch here, past the 64 MiB limit).
func TestLongLiteralSorted(t *testing.T) {
	e, _ := newEngine(t, 2000, 256)
	lit := strings.Repeat("z", 1<<20)
	for _, sql := range []string{
		"SELECT '" + lit + "' AS c, id FROM orders ORDER BY id DESC LIMIT 2",
		"SELECT '" + lit + "' AS c, id FROM orders ORDER BY 1, id DESC LIMIT 2",
		"SELECT id, '" + lit + "' FROM orders ORDER BY qty DESC, id DESC LIMIT 2",
	} {
		got, err := run(t, e, sql)
		if err != nil {
			t.Fatalf("%.60s…: %v", sql, err)
		}
		want := []string{lit + "|2000", lit + "|1999"}
		if strings.HasPrefix(sql, "SELECT id") {
			want = []string{"2000|" + lit, "1950|" + lit}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%.60s…: got %.80v", sql, got)
		}
	}
	schema, err := e.Schema("SELECT 'k' AS c, id FROM orders ORDER BY id LIMIT 2")
	if err != nil || schema.Field(0).Type.ID() != arrow.STRING || schema.Field(0).Name != "c" {
		t.Errorf("schema %v, %v", schema, err)
	}
}

// TestLongLiteralPastMemoryLimit: without a LIMIT the constant fills
// whole batches; past the query's memory limit that is ErrMemory, not an
// allocation of the product.
func TestLongLiteralPastMemoryLimit(t *testing.T) {
	e, _ := newEngine(t, 2000, 256) // limit 64 MiB
	lit := strings.Repeat("y", 1<<20)
	for _, sql := range []string{
		"SELECT '" + lit + "' FROM orders",
		"SELECT CASE WHEN id > 0 THEN '" + lit + "' END FROM orders",
		"SELECT count(*) FROM orders WHERE COALESCE(grp, '" + lit + "') = grp",
		"SELECT '" + lit + "' AS c, id FROM orders ORDER BY id",
		"SELECT grp || '" + lit + "' FROM orders",
	} {
		_, err := run(t, e, sql)
		if !errors.Is(err, ErrMemory) {
			t.Errorf("%.60s…: got %v, want ErrMemory", sql, err)
			continue
		}
		if !strings.Contains(err.Error(), "memory limit") {
			t.Errorf("error does not name the limit: %v", err)
		}
	}
	// Under the limit the same constants are fine.
	got, err := run(t, e, "SELECT CASE WHEN id > 0 THEN 'short' END FROM orders WHERE id <= 2")
	if err != nil || len(got) != 2 {
		t.Fatalf("got %v, %v", got, err)
	}
}

// TestLongErrorClipped: a run-time error quotes its expression, clipped:
// with a 1 MiB literal in it the message was megabytes, past what gRPC
// clients accept.
func TestLongErrorClipped(t *testing.T) {
	e, _ := newEngine(t, 10, 10)
	_, err := run(t, e, "SELECT CASE WHEN grp = '"+strings.Repeat("9", 1<<20)+"' THEN 1 ELSE id * 9223372036854775807 END FROM orders")
	if !errors.Is(err, ErrExec) || !errors.Is(err, expr.ErrOverflow) {
		t.Fatalf("got %.200v", err)
	}
	if n := len(err.Error()); n > 4000 {
		t.Errorf("error of %d bytes", n)
	}
}

// TestExprLimits: a statement past the node or depth limit fails before
// planning with an error naming the limit and the option.
func TestExprLimits(t *testing.T) {
	e, _ := newEngine(t, 10, 10)
	for _, tc := range []struct {
		sql, want string
	}{
		{chainSQL(DefaultMaxExprNodes), "more than 10000 expression nodes; the limit is 10000 (query.Options.MaxExprNodes"},
		{"SELECT " + strings.Repeat("(", 1001) + "id" + strings.Repeat(")", 1001) + " FROM orders", "nest more than 1000 deep; the limit is 1000 (query.Options.MaxExprDepth"},
		{"SELECT " + strings.Repeat("-", 1200) + "id FROM orders", "nest more than 1000 deep"},
		{"SELECT id FROM orders WHERE " + strings.Repeat("NOT ", 1200) + "flag", "nest more than 1000 deep"},
	} {
		_, err := run(t, e, tc.sql)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40s…: got %v, want ErrInvalid with %q", tc.sql, err, tc.want)
		}
	}
	// Just under the limits plans and runs.
	got, err := run(t, e, "SELECT sum(id"+strings.Repeat(" + id", DefaultMaxExprNodes/2-3)+") FROM orders")
	if err != nil || fmt.Sprint(got) != fmt.Sprint([]string{fmt.Sprint(55 * (DefaultMaxExprNodes/2 - 2))}) {
		t.Errorf("under the node limit: %v, %v", got, err)
	}
	got, err = run(t, e, "SELECT "+strings.Repeat("-", 998)+"id FROM orders WHERE id = 3")
	if err != nil || fmt.Sprint(got) != "[3]" {
		t.Errorf("under the depth limit: %v, %v", got, err)
	}
	// An IN list of literals is one set, however long (tools send lists
	// of many thousands); its literals are not nodes.
	var in strings.Builder
	for i := range 3 * DefaultMaxExprNodes {
		fmt.Fprintf(&in, ", %d", i+4)
	}
	got, err = run(t, e, "SELECT count(*) FROM orders WHERE id IN (1"+in.String()+")")
	if err != nil || fmt.Sprint(got) != "[8]" { // ids 1, 4 … 10
		t.Errorf("a long IN list: %v, %v", got, err)
	}
}

// TestPlanLongChainLinear: planning sum(id + … + id) of 100,000 terms
// took minutes (every node re-fingerprinted its subtree, 4,000 terms took
// 3 s); it is linear now. The bound is generous for a shared machine:
// BenchmarkPlanChain shows the growth.
func TestPlanLongChainLinear(t *testing.T) {
	e := unlimitedEngine(t, 100, 100)
	sql := chainSQL(100_000)
	start := time.Now()
	if _, _, err := e.plan(context.Background(), sql, nil); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("planning 100,000 terms took %v", d)
	}
	t.Logf("planned 100,000 terms in %v", time.Since(start))
	start = time.Now()
	// Decimal: the type's text was part of every node's fingerprint.
	got, err := run(t, e, "SELECT sum(price"+strings.Repeat(" + price", 99_999)+") FROM orders WHERE id = 1")
	if err != nil || fmt.Sprint(got) != "[1000.00]" {
		t.Errorf("100,000 decimal terms: %v, %v", got, err)
	}
	t.Logf("100,000 decimal terms planned and run in %v", time.Since(start))
	start = time.Now()
	got, err = run(t, e, "SELECT sum("+strings.Repeat("-", 50_000)+"id) FROM orders")
	if err != nil || fmt.Sprint(got) != "[5050]" {
		t.Errorf("50,000 minus signs: %v, %v", got, err)
	}
	t.Logf("50,000 minus signs in %v", time.Since(start))
	start = time.Now()
	got, err = run(t, e, "SELECT count(*) FROM orders WHERE "+strings.Repeat("NOT ", 100_001)+"(id > 50)")
	if err != nil || fmt.Sprint(got) != "[50]" {
		t.Errorf("100,001 NOTs: %v, %v", got, err)
	}
	t.Logf("100,001 NOTs in %v", time.Since(start))
}

// TestPlanLongGroupByLinear: after GROUP BY every node of an expression
// was compared with the keys by its restored text, quadratic in a long
// expression (3,000 terms took 2 s to plan, 20,000 would take over a
// minute).
func TestPlanLongGroupByLinear(t *testing.T) {
	e := unlimitedEngine(t, 100, 100)
	for _, sql := range []string{
		"SELECT grp, sum(id)" + strings.Repeat(" + sum(id)", 20_000) + " FROM orders GROUP BY grp",
		"SELECT id % 3, count(*) FROM orders GROUP BY id % 3 HAVING count(*)" + strings.Repeat(" + count(*)", 20_000) + " > 0",
	} {
		start := time.Now()
		if _, _, err := e.plan(context.Background(), sql, nil); err != nil {
			t.Fatal(err)
		}
		d := time.Since(start)
		if d > 15*time.Second {
			t.Errorf("%.40s…: planning took %v", sql, d)
		}
		t.Logf("%.40s…: planned in %v", sql, d)
	}
	// Keys written again inside longer expressions still match.
	got, err := run(t, e, "SELECT id % 3 + 1, count(*) + (id % 3) FROM orders GROUP BY id % 3 ORDER BY 1")
	if err != nil || fmt.Sprint(got) != "[1|33 2|35 3|35]" {
		t.Errorf("got %v, %v", got, err)
	}
}

// BenchmarkPlanChain plans sum(id + … + id) (parse included): the time
// per term should stay flat from 1k to 100k terms.
func BenchmarkPlanChain(b *testing.B) {
	e := unlimitedEngine(b, 100, 100)
	for _, terms := range []int{1_000, 10_000, 100_000} {
		sql := chainSQL(terms)
		b.Run(fmt.Sprintf("terms=%d", terms), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := e.plan(context.Background(), sql, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(terms), "ns/term")
		})
	}
}

// BenchmarkEvalChain runs sum(id + … + id) over 100,000 rows.
func BenchmarkEvalChain(b *testing.B) {
	e := unlimitedEngine(b, 100_000, 8192)
	for _, terms := range []int{100, 1_000, 10_000} {
		sql := chainSQL(terms)
		b.Run(fmt.Sprintf("terms=%d", terms), func(b *testing.B) {
			for b.Loop() {
				if _, err := run(b, e, sql); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(terms), "ns/term")
		})
	}
}

// TestCancelPlanning: planning stops when the query's context ends, and
// Query returns the cancellation (it used to plan to the end and return a
// Result).
func TestCancelPlanning(t *testing.T) {
	e := unlimitedEngine(t, 100, 100)
	sql := chainSQL(200_000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	r, err := e.Query(ctx, sql)
	if err == nil {
		r.Release()
		t.Fatal("Query planned and returned a result after its context was cancelled")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	t.Logf("returned after %v", time.Since(start))
	// Already cancelled: not even parsed (text that does not parse would
	// fail as a syntax error otherwise).
	if _, err := e.Query(ctx, "SELECT FROM WHERE"); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: got %v", err)
	}
}

// floatTerms returns n distinct conjuncts true on every row of orders,
// over a float (which no rule moves to the scan's row filter).
func floatTerms(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("ratio + 0e0 >= -%d", i)
	}
	return out
}

// TestCancelEvaluation: a query evaluating a long expression over a large
// batch stops within a step of the expression when cancelled, not at the
// end of the batch.
func TestCancelEvaluation(t *testing.T) {
	e := unlimitedEngine(t, 200_000, 200_000)
	for _, sql := range []string{
		chainSQL(5000),
		"SELECT id" + strings.Repeat(" * 1", 5000) + " FROM orders",
		// Terms each as costly as a float sum over every row, which the
		// filter ANDs, none dropping a row: plain boolean columns are
		// ANDed so fast that the query ends before the cancel.
		"SELECT count(*) FROM orders WHERE " + strings.Join(floatTerms(3000), " AND "),
	} {
		ctx, cancel := context.WithCancel(context.Background())
		r, err := e.Query(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		for r.Next() {
		}
		d := time.Since(start)
		err = r.Err()
		r.Release()
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%.40s…: got %v after %v, want context.Canceled", sql, err, d)
			continue
		}
		if d > 2*time.Second {
			t.Errorf("%.40s…: returned %v after the cancel", sql, d)
		}
		t.Logf("%.40s…: returned after %v", sql, d)
	}
}
