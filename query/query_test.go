package query

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
)

// testTable is a small table of every engine type with NULLs:
//
//	id int64 (1..n), grp utf8 ('a','b','c', NULL every 7th), qty int32,
//	price decimal(15,2), ratio float64, day date32, flag bool
func testTable(t testing.TB, mem memory.Allocator, n, batch int) (*cache.Cache, [][]any) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "grp", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "qty", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true},
		{Name: "ratio", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	}, nil)
	var rows [][]any
	var recs []arrow.RecordBatch
	for start := 0; start < n; start += batch {
		b := array.NewRecordBuilder(mem, schema)
		for i := start; i < min(start+batch, n); i++ {
			id := int64(i + 1)
			row := []any{id, nil, int64(i % 50), int64(i*37%10000 + 1), float64(i%9) / 4, int64(10000 + i%400), i%3 == 0}
			b.Field(0).(*array.Int64Builder).Append(id)
			if i%7 == 6 {
				b.Field(1).AppendNull()
			} else {
				g := string(rune('a' + i%3))
				row[1] = g
				b.Field(1).(*array.StringBuilder).Append(g)
			}
			if i%11 == 10 {
				row[2] = nil
				b.Field(2).AppendNull()
			} else {
				b.Field(2).(*array.Int32Builder).Append(int32(i % 50))
			}
			b.Field(3).(*array.Decimal128Builder).Append(decimalOf(row[3].(int64)))
			b.Field(4).(*array.Float64Builder).Append(row[4].(float64))
			b.Field(5).(*array.Date32Builder).Append(arrow.Date32(row[5].(int64)))
			if i%13 == 12 {
				row[6] = nil
				b.Field(6).AppendNull()
			} else {
				b.Field(6).(*array.BooleanBuilder).Append(row[6].(bool))
			}
			rows = append(rows, row)
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := array.NewRecordReader(schema, recs)
	defer r.Release()
	for _, rec := range recs {
		rec.Release()
	}
	if _, err := c.Put(context.Background(), "orders", r, cache.TableOptions{Codec: cache.Fixed(codec.SettingLZ4)}); err != nil {
		t.Fatal(err)
	}
	return c, rows
}

// run executes sql and returns its rows as text, one line per row.
func run(t testing.TB, e *Engine, sql string) ([]string, error) {
	t.Helper()
	rows, _, err := runOrdered(t, e, sql)
	return rows, err
}

// runOrdered runs sql with params to the end and returns its rows in the
// order the query returned them, each its cells joined by "|", and its
// Stats.
func runOrdered(t testing.TB, e *Engine, sql string, params ...any) ([]string, Stats, error) {
	t.Helper()
	return runOrderedCtx(t, context.Background(), e, sql, params...)
}

// runCtx is run with ctx (a session's).
func runCtx(t testing.TB, ctx context.Context, e *Engine, sql string) ([]string, error) {
	t.Helper()
	rows, _, err := runOrderedCtx(t, ctx, e, sql)
	return rows, err
}

func runOrderedCtx(t testing.TB, ctx context.Context, e *Engine, sql string, params ...any) ([]string, Stats, error) {
	t.Helper()
	r, err := e.Query(ctx, sql, params...)
	if err != nil {
		return nil, Stats{}, err
	}
	defer r.Release()
	var out []string
	for r.Next() {
		rec := r.RecordBatch()
		for i := range int(rec.NumRows()) {
			cells := make([]string, rec.NumCols())
			for j, col := range rec.Columns() {
				cells[j] = cell(col, i)
			}
			out = append(out, strings.Join(cells, "|"))
		}
	}
	return out, r.Stats(), r.Err()
}

func cell(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "NULL"
	}
	if d, ok := col.(*array.Dictionary); ok { // an index may select a NULL entry
		return cell(d.Dictionary(), d.GetValueIndex(i))
	}
	switch d := col.(type) {
	// The common types without fmt (ValueStr's Sprintf dominated the
	// join tests under -race); the text is ValueStr's.
	case *array.Int64:
		return strconv.FormatInt(d.Value(i), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(d.Value(i)), 10)
	case *array.String:
		return d.Value(i)
	case *array.Boolean:
		return strconv.FormatBool(d.Value(i))
	// decimals with their scale: 1.50, not 1.5
	case *array.Decimal128:
		return d.Value(i).ToString(d.DataType().(*arrow.Decimal128Type).Scale)
	case *array.Decimal64:
		return decimal128.FromI64(int64(d.Value(i))).ToString(d.DataType().(*arrow.Decimal64Type).Scale)
	case *array.Decimal256:
		return d.Value(i).ToString(d.DataType().(*arrow.Decimal256Type).Scale)
	case *array.Decimal32:
		return decimal128.FromI64(int64(d.Value(i))).ToString(d.DataType().(*arrow.Decimal32Type).Scale)
	}
	return col.ValueStr(i)
}

func newEngine(t testing.TB, n, batch int) (*Engine, [][]any) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	c, rows := testTable(t, mem, n, batch)
	return New(c, Options{Alloc: mem, MemoryLimit: 64 << 20}), rows
}

func TestQueries(t *testing.T) {
	e, _ := newEngine(t, 100, 16)
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{`SELECT count(*) FROM orders`, []string{"100"}},
		{`SELECT id, grp FROM orders WHERE id <= 3`, []string{"1|a", "2|b", "3|c"}},
		{`SELECT id FROM orders WHERE grp IS NULL ORDER BY id LIMIT 3`, []string{"7", "14", "21"}},
		{`SELECT id FROM orders WHERE id BETWEEN 10 AND 12 AND qty IN (9, 11, 99)`, []string{"10", "12"}},
		{`SELECT id * 2 + 1 AS x FROM orders WHERE id > 98 ORDER BY x DESC`, []string{"201", "199"}},
		{`SELECT id FROM orders ORDER BY id DESC LIMIT 2 OFFSET 1`, []string{"99", "98"}},
		{`SELECT count(DISTINCT grp) FROM orders`, []string{"3"}},
		{`SELECT id, CASE WHEN id < 2 THEN 'low' WHEN id < 3 THEN 'mid' ELSE 'high' END FROM orders WHERE id < 4`, []string{"1|low", "2|mid", "3|high"}},
		{`SELECT COALESCE(grp, 'none') FROM orders WHERE id IN (6, 7)`, []string{"c", "none"}},
		{`SELECT id FROM orders WHERE day = DATE '1997-05-20' + INTERVAL 2 DAY ORDER BY id`, []string{"4"}},
		{`SELECT id, price, price * 2, ratio FROM orders WHERE id = 3`, []string{"3|0.75|1.50|0.5"}},
		{`SELECT EXPLAIN_ME FROM orders`, nil},
	} {
		got, err := run(t, e, tc.sql)
		if tc.want == nil {
			if err == nil {
				t.Errorf("%s: no error", tc.sql)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.sql, got, tc.want)
		}
	}
}

// TestGroupByAgainstGo checks GROUP BY with every aggregate against the
// same aggregation done row by row in Go.
func TestGroupByAgainstGo(t *testing.T) {
	e, rows := newEngine(t, 1000, 64)
	type acc struct{ n, nq, sum, minID, maxID int64 }
	groups := map[string]*acc{}
	for _, r := range rows {
		k := "NULL"
		if r[1] != nil {
			k = r[1].(string)
		}
		a := groups[k]
		if a == nil {
			a = &acc{minID: 1 << 62}
			groups[k] = a
		}
		a.n++
		if r[2] != nil {
			a.nq++
			a.sum += r[2].(int64)
		}
		a.minID, a.maxID = min(a.minID, r[0].(int64)), max(a.maxID, r[0].(int64))
	}
	var want []string
	for _, k := range []string{"NULL", "a", "b", "c"} {
		a := groups[k]
		want = append(want, fmt.Sprintf("%s|%d|%d|%d|%d|%d", k, a.n, a.nq, a.sum, a.minID, a.maxID))
	}
	got, err := run(t, e, `SELECT grp, count(*), count(qty), sum(qty), min(id), max(id) FROM orders GROUP BY grp ORDER BY grp NULLS FIRST`)
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, %v\nwant %v", got, err, want)
	}
	got, err = run(t, e, `SELECT grp AS g, count(*) AS n FROM orders GROUP BY g HAVING count(*) > 300 ORDER BY 2 DESC, g`)
	var wantH []string
	for _, k := range []string{"a", "b", "c", "NULL"} {
		if groups[k].n > 300 {
			wantH = append(wantH, fmt.Sprintf("%s|%d", k, groups[k].n))
		}
	}
	if err != nil || len(got) != len(wantH) {
		t.Errorf("HAVING: got %v, %v; want (some order of) %v", got, err, wantH)
	}
}

// TestFilterKeepsBooleansWithNulls: a filtered Boolean column with NULLs
// keeps its values. arrow-go v18.8's FilterArray turns this column, built
// by array.FromJSON, and this selection into [true null null null null
// null null]; the engine gathers with take instead (op_filter.go).
func TestFilterKeepsBooleansWithNulls(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}}, nil)
	rec, _, err := array.RecordFromJSON(mem, schema, strings.NewReader(`[{"id":1,"b":false},{"id":2,"b":true},{"id":3,"b":false},{"id":4,"b":true},{"id":5,"b":null},
		{"id":6,"b":true},{"id":7,"b":null},{"id":8,"b":false},{"id":9,"b":true},{"id":10,"b":true}]`))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := cache.New(cache.Options{Alloc: mem})
	r, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	rec.Release()
	if _, err := c.Put(context.Background(), "t", r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	r.Release()
	got, err := run(t, New(c, Options{Alloc: mem}), `SELECT b FROM t WHERE id BETWEEN 2 AND 7 OR id = 10`)
	if want := "[true false true NULL true NULL true]"; err != nil || fmt.Sprint(got) != want {
		t.Errorf("got %v, %v; want %s", got, err, want)
	}
}

func TestUnsupportedNamesConstructAndPosition(t *testing.T) {
	e, _ := newEngine(t, 10, 10)
	for _, tc := range []struct {
		sql, want string
		kind      error
	}{
		{"SELECT a.id FROM orders a\n  FULL JOIN orders b USING (id)", "FULL JOIN … USING", ErrUnsupported},
		{"SELECT id FROM orders a WHERE id = 1 OR\n  qty > ALL (SELECT qty FROM orders b WHERE b.id = a.qty)", "line 2, column 3", ErrUnsupported},
		{"SELECT DISTINCT grp, count(*) FROM orders GROUP BY grp", "DISTINCT with GROUP BY", ErrUnsupported},
		{"SELECT id FROM orders INTERSECT ALL SELECT id FROM orders", "INTERSECT ALL", ErrUnsupported},
		{"SELECT id,\n  substrin(grp, 1) FROM orders", "line 2, column 3: function substrin (did you mean substring?)", ErrUnsupported},
		{"DELETE FROM orders", "Delete statements", ErrUnsupported},
		{"SELECT nope FROM orders", `no column "nope"`, ErrInvalid},
		{"SELECT id FROM nowhere", `"nowhere"`, ErrNoTable},
		{"SELECT id, count(*) FROM orders", "must appear in GROUP BY", ErrInvalid},
		{"SELECT id FROM orders WHERE count(*) > 1", "aggregate", ErrInvalid},
		{"SELECT id FROM orders WHERE grp < 5", "cannot compare", ErrInvalid},
		{"SELEC id FROM orders", "syntax error", ErrSyntax},
		{"SELECT id FROM orders GROUP BY id NULLS FIRST", "NULLS FIRST/LAST", ErrInvalid},
	} {
		_, err := run(t, e, tc.sql)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.kind) {
			t.Errorf("%q: %v; want %v containing %q", tc.sql, err, tc.kind, tc.want)
		}
	}
}

func TestExplainShowsColumnsAndPruning(t *testing.T) {
	e, _ := newEngine(t, 100, 10)
	plan, err := e.Explain(context.Background(), `SELECT grp, sum(qty) FROM orders WHERE id BETWEEN 95 AND 100 GROUP BY grp ORDER BY grp NULLS FIRST LIMIT 2`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Limit 2", "TopK 2 by grp ASC NULLS FIRST", "HashAggregate by grp",
		"Scan orders: decodes 3 of 7 columns [grp, qty], [id] only to filter rows; keeps rows where id between 95 and 100; pruning on that",
		"10 batches, pruning skips 9"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %q:\n%s", want, plan)
		}
	}
	if strings.Contains(plan, "Filter") {
		t.Errorf("the scan filters all of WHERE, the plan has a Filter too:\n%s", plan)
	}
	// What the scan cannot evaluate stays in the Filter, and prunes.
	plan, err = e.Explain(context.Background(), `SELECT grp FROM orders WHERE id BETWEEN 95 AND 100 AND (qty > 3 OR id = 99)`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Filter (qty > 3) OR (id = 99); passes on [grp]",
		"Scan orders: decodes 3 of 7 columns [id, grp, qty]; keeps rows where id between 95 and 100; pruning on that and (qty>3 OR id=99)"} {
		if !strings.Contains(plan, want) {
			t.Errorf("plan lacks %q:\n%s", want, plan)
		}
	}
	plan, _ = e.Explain(context.Background(), `SELECT count(*) FROM orders`)
	if !strings.Contains(plan, "row counts only") || !strings.Contains(plan, "from row counts") {
		t.Errorf("count(*) plan:\n%s", plan)
	}
	got, err := run(t, e, `EXPLAIN SELECT id FROM orders`)
	if err != nil || len(got) != 2 {
		t.Errorf("EXPLAIN as a query: %v, %v", got, err)
	}
}

func TestLimitStopsTheScan(t *testing.T) {
	e, _ := newEngine(t, 1000, 10)
	r, err := e.Query(context.Background(), `SELECT id FROM orders LIMIT 15`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r.Next() {
		n += int(r.RecordBatch().NumRows())
	}
	r.Release()
	s := r.Stats()
	if n != 15 || s.Scan.Decoded > 3 {
		t.Errorf("%d rows; scan decoded %d of %d batches", n, s.Scan.Decoded, s.Scan.Batches)
	}
}

func TestMemoryLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 5000, 500)
	e := New(c, Options{Alloc: mem, MemoryLimit: 10_000})
	_, err := run(t, e, `SELECT id, grp FROM orders ORDER BY grp, id`)
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "ORDER BY") {
		t.Errorf("sort over the limit: %v", err)
	}
	got, err := run(t, e, `SELECT id FROM orders ORDER BY id DESC LIMIT 3`)
	if err != nil || fmt.Sprint(got) != "[5000 4999 4998]" {
		t.Errorf("top-k within the limit: %v %v", got, err)
	}
}

func TestCancelStopsWithinABatch(t *testing.T) {
	e, _ := newEngine(t, 1000, 10)
	ctx, cancel := context.WithCancel(context.Background())
	r, err := e.Query(ctx, `SELECT id FROM orders`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	r.Next()
	cancel()
	if r.Next() {
		t.Error("a batch after cancel")
	}
	if !errors.Is(r.Err(), context.Canceled) {
		t.Errorf("err %v", r.Err())
	}
}

func TestNullsRewrite(t *testing.T) {
	for _, sql := range []string{
		"SELECT a FROM t ORDER BY a DESC NULLS LAST, b nulls first",
		"SELECT a FROM t\nORDER BY a   NULLS\n FIRST LIMIT 3",
		"SELECT 'NULLS FIRST' FROM t ORDER BY a NULLS LAST",
	} {
		if _, err := parseSQL(sql); err != nil {
			t.Errorf("%q: %v", sql, err)
		}
	}
	if _, err := parseSQL("SELECT a FROM t WHERE NULLS FIRST"); err == nil {
		t.Error("NULLS FIRST in WHERE parsed")
	}
}

func decimalOf(v int64) decimal128.Num { return decimal128.FromI64(v) }

// TestTopKMatchesFullSort: ORDER BY … LIMIT k (a bounded top-k that
// discards rows against its k-th) returns the first k rows of the full,
// stable sort, ties and NULLs included.
func TestTopKMatchesFullSort(t *testing.T) {
	e, _ := newEngine(t, 3000, 100)
	for _, order := range []string{"grp", "grp DESC NULLS FIRST, qty", "qty NULLS FIRST", "ratio DESC", "price, id DESC", "day DESC, grp NULLS LAST", "flag, qty DESC NULLS LAST"} {
		all, err := run(t, e, "SELECT id, grp, qty FROM orders ORDER BY "+order)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{0, 1, 7, 250, 2999, 5000} {
			got, err := run(t, e, fmt.Sprintf("SELECT id, grp, qty FROM orders ORDER BY %s LIMIT %d", order, k))
			if err != nil {
				t.Fatal(err)
			}
			want := all[:min(k, len(all))]
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("ORDER BY %s LIMIT %d: got %d rows, first difference at %d", order, k, len(got), firstDiff(got, want))
			}
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
