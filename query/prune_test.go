package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// TestPruningNeverChangesAnAnswer runs random WHERE clauses, a third of
// them under a top-k, with the predicate pushed into the scan (pruning and
// the row filter) and top-k pruning, and without, and requires the same
// rows; it also requires pruning to skip batches for some of them.
func TestPruningNeverChangesAnAnswer(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 2000, 50) // id and day are clustered
	pruned := New(c, Options{Alloc: mem})
	full := New(c, Options{Alloc: mem, NoPruning: true})
	r := rand.New(rand.NewPCG(5, 6))
	atoms := []func() string{
		func() string { return fmt.Sprintf("id %s %d", pick(r, "<", "<=", "=", "<>", ">", ">="), r.IntN(2100)) },
		func() string { return fmt.Sprintf("%d %s id", r.IntN(2100), pick(r, "<", ">=")) },
		func() string { a := r.IntN(2100); return fmt.Sprintf("id BETWEEN %d AND %d", a, a+r.IntN(300)) },
		func() string { return fmt.Sprintf("id IN (%d, %d, NULL)", r.IntN(2100), r.IntN(2100)) },
		func() string { return fmt.Sprintf("qty %s %d", pick(r, "<", "=", ">"), r.IntN(60)) },
		func() string { return pick(r, "qty IS NULL", "qty IS NOT NULL", "grp IS NULL", "grp IS NOT NULL") },
		func() string { return fmt.Sprintf("grp %s '%s'", pick(r, "<", "=", ">="), pick(r, "a", "b", "c", "d")) },
		func() string { return pick(r, "grp LIKE 'a%'", "grp LIKE 'b'", "grp LIKE '%'") },
		func() string { return fmt.Sprintf("price > %d.%02d", r.IntN(100), r.IntN(100)) },
		func() string { return fmt.Sprintf("day < DATE '1997-05-19' + INTERVAL %d DAY", r.IntN(400)) },
		func() string { return fmt.Sprintf("ratio >= %g", float64(r.IntN(10))/4) },
		func() string { return pick(r, "flag", "NOT flag", "flag = true") },
		func() string { return fmt.Sprintf("id = %d", r.IntN(10)) + " OR id > 1990" },
	}
	var where func(depth int) string
	where = func(depth int) string {
		if depth == 0 || r.IntN(3) == 0 {
			return atoms[r.IntN(len(atoms))]()
		}
		switch r.IntN(3) {
		case 0:
			return "(" + where(depth-1) + " AND " + where(depth-1) + ")"
		case 1:
			return "(" + where(depth-1) + " OR " + where(depth-1) + ")"
		}
		return "NOT (" + where(depth-1) + ")"
	}
	skippedSome, lateSkips, n := 0, 0, 300
	if testing.Short() {
		n = 60
	}
	for range n {
		sql := "SELECT id, qty FROM orders WHERE " + where(3) + " ORDER BY id"
		if r.IntN(3) == 0 {
			// A top-k, which may skip batches by its threshold too; id
			// breaks ties so the answer is one list.
			sql = fmt.Sprintf("SELECT id, qty FROM orders WHERE %s ORDER BY %s%s, id LIMIT %d", where(3),
				pick(r, "id", "qty", "grp", "day", "price"), pick(r, "", " DESC", " NULLS FIRST", " DESC NULLS LAST"), 1+r.IntN(40))
		}
		want, err := run(t, full, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		got, st, err := runOrdered(t, pruned, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: pruning changed the answer\n got %d rows %v\nwant %d rows %v", sql, len(got), got, len(want), want)
		}
		if st.Scan.Skipped > 0 {
			skippedSome++
		}
		lateSkips += st.Scan.SkippedLate
	}
	if skippedSome < n/10 {
		t.Errorf("pruning skipped batches for only %d of %d queries", skippedSome, n)
	}
	if lateSkips == 0 && !testing.Short() {
		t.Error("no top-k skipped a batch")
	}
}

func pick(r *rand.Rand, xs ...string) string { return xs[r.IntN(len(xs))] }

// TestDate64OffMidnight: the engine reads a date64 as its day (rounded
// down), so a value past midnight equals its day's DATE literal. Pruning
// and the row filter compare stored milliseconds, where it does not: they
// must leave date64 comparisons to the engine.
func TestDate64OffMidnight(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.FixedWidthTypes.Date64}}, nil)
	const day = 86_400_000
	b := array.NewRecordBuilder(mem, schema)
	// 1997-05-19 is day 10000: noon of it, one millisecond into the next
	// day, and the last millisecond of the day before.
	b.Field(0).(*array.Date64Builder).AppendValues([]arrow.Date64{10000*day + day/2, 10001*day + 1, 10000*day - 1}, nil)
	rec := b.NewRecordBatch()
	b.Release()
	putTable(t, c, "t", []arrow.RecordBatch{rec})
	rec.Release()
	e := New(c, Options{Alloc: mem})
	for _, tc := range []struct {
		where string
		want  int
	}{
		{"d = DATE '1997-05-19'", 1},
		{"d <= DATE '1997-05-19'", 2},
		{"d > DATE '1997-05-19'", 1},
		{"d BETWEEN DATE '1997-05-19' AND DATE '1997-05-19'", 1},
		{"d >= DATE '1997-05-19'", 2},
		{"d < DATE '1997-05-19'", 1},
	} {
		rows, err := run(t, e, "SELECT count(*) FROM t WHERE "+tc.where)
		if err != nil {
			t.Fatalf("%s: %v", tc.where, err)
		}
		if len(rows) != 1 || rows[0] != fmt.Sprint(tc.want) {
			t.Errorf("WHERE %s: count %v, want %d", tc.where, rows, tc.want)
		}
	}
}

// TestRowFilterLeavesUnsupportedToEngine: a comparison the engine refuses
// (a duration, an INTERVAL to the engine, with a number) fails the same
// with the row filter as without: the scan could evaluate it, but the
// planner leaves it in the Filter; and one it takes (a BLOB with text,
// read as a BLOB) answers the same.
func TestRowFilterLeavesUnsupportedToEngine(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "b", Type: arrow.BinaryTypes.Binary}, {Name: "s", Type: arrow.BinaryTypes.LargeString},
		{Name: "dur", Type: arrow.FixedWidthTypes.Duration_s}}, nil)
	bld := array.NewRecordBuilder(mem, schema)
	bld.Field(0).(*array.BinaryBuilder).AppendValues([][]byte{[]byte("x"), []byte("y")}, nil)
	bld.Field(1).(*array.LargeStringBuilder).AppendValues([]string{"ab", "b"}, nil)
	bld.Field(2).(*array.DurationBuilder).AppendValues([]arrow.Duration{5, 6}, nil)
	rec := bld.NewRecordBatch()
	bld.Release()
	putTable(t, c, "t", []arrow.RecordBatch{rec})
	rec.Release()
	with, without := New(c, Options{Alloc: mem}), New(c, Options{Alloc: mem, NoPruning: true})
	_, err1 := run(t, with, "SELECT count(*) FROM t WHERE dur = 5")
	_, err2 := run(t, without, "SELECT count(*) FROM t WHERE dur = 5")
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() {
		t.Errorf("with the row filter: %v; without: %v", err1, err2)
	}
	r1, err1 := run(t, with, "SELECT count(*) FROM t WHERE b = 'x'")
	r2, err2 := run(t, without, "SELECT count(*) FROM t WHERE b = 'x'")
	if err1 != nil || err2 != nil || strings.Join(r1, " ") != "1" || strings.Join(r2, " ") != "1" {
		t.Errorf("BLOB = text: with the row filter %v %v; without %v %v", r1, err1, r2, err2)
	}
	// A large_utf8 column has an engine type: the scan keeps its rows.
	plan, err := with.Explain(t.Context(), "SELECT count(*) FROM t WHERE s LIKE 'a%' AND s IN ('ab', 'c')")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan, "decodes 1 of 3 columns, [s] only to filter rows; keeps rows where s like 'a%' AND s in ('ab','c')") || strings.Contains(plan, "Filter") {
		t.Errorf("plan:\n%s", plan)
	}
	rows, err := run(t, with, "SELECT count(*) FROM t WHERE s LIKE 'a%' AND s IN ('ab', 'c')")
	if err != nil || len(rows) != 1 || rows[0] != "1" {
		t.Errorf("count: %v, %v", rows, err)
	}
}

// TestTimestampPushdown: comparisons of timestamp (and time) columns of every unit
// with constants give the engine's answer whether the scan prunes and
// filters them (an exact constant in the column's unit) or the Filter
// does (a constant between two of the unit's values, any nanosecond
// column).
func TestTimestampPushdown(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: &arrow.TimestampType{Unit: arrow.Second}},
		{Name: "ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}},
		{Name: "us", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
		{Name: "ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}},
		{Name: "t", Type: arrow.FixedWidthTypes.Time32ms},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	// 2024-01-01 00:00:00 plus 0, 1 and 2 seconds, each value a little
	// past the second in the finer units.
	const base = 1704067200
	for i := range int64(3) {
		sec := base + i
		b.Field(0).(*array.TimestampBuilder).Append(arrow.Timestamp(sec))
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(sec*1000 + 1))
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(sec*1_000_000 + 1))
		b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(sec*1_000_000_000 + 1001))
		b.Field(4).(*array.Time32Builder).Append(arrow.Time32(i*1000 + 1)) // 00:00:0i.001
	}
	rec := b.NewRecordBatch()
	b.Release()
	putTable(t, c, "t", []arrow.RecordBatch{rec})
	rec.Release()
	e := New(c, Options{Alloc: mem})
	for _, tc := range []struct {
		where string
		want  int
	}{
		{"s = TIMESTAMP '2024-01-01 00:00:01'", 1},
		{"s > TIMESTAMP '2024-01-01 00:00:00.5'", 2},
		{"s <= '2024-01-01 00:00:01'", 2},
		{"ms = TIMESTAMP '2024-01-01 00:00:01.001'", 1},
		{"ms < TIMESTAMP '2024-01-01 00:00:01.0015'", 2},
		{"us BETWEEN TIMESTAMP '2024-01-01 00:00:00.000001' AND TIMESTAMP '2024-01-01 00:00:01.000001'", 2},
		{"us IN (TIMESTAMP '2024-01-01 00:00:02.000001', TIMESTAMP '2024-01-01 00:00:02')", 1},
		{"ns = TIMESTAMP '2024-01-01 00:00:01.000001'", 1}, // 1001 ns reads as 1 µs
		{"ns <= TIMESTAMP '2024-01-01 00:00:00.000001'", 1},
		{"ns > TIMESTAMP '2024-01-01 00:00:00.000001'", 2},
		{"t = TIME '00:00:01.001'", 1},
		{"t < '00:00:01.0015'", 2},
		{"t >= TIME '00:00:01'", 2},
	} {
		rows, err := run(t, e, "SELECT count(*) FROM t WHERE "+tc.where)
		if err != nil {
			t.Fatalf("%s: %v", tc.where, err)
		}
		if len(rows) != 1 || rows[0] != fmt.Sprint(tc.want) {
			t.Errorf("WHERE %s: count %v, want %d", tc.where, rows, tc.want)
		}
	}
	plan, err := e.Explain(context.Background(), "SELECT count(*) FROM t WHERE s > TIMESTAMP '2024-01-01 00:00:01'")
	if err != nil || !strings.Contains(plan, "keeps rows where s>") {
		t.Errorf("EXPLAIN shows no pushed timestamp comparison: %v\n%s", err, plan)
	}
}
