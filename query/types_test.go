package query

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/expr"
)

// typedSchema has a column of every stored type that is not an engine
// type, and NOT NULL columns among them.
var typedSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	{Name: "i16", Type: arrow.PrimitiveTypes.Int16},
	{Name: "i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "u8", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
	{Name: "u32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
	{Name: "u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
	{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "d128", Type: &arrow.Decimal128Type{Precision: 7, Scale: 2}},
	{Name: "d64", Type: &arrow.Decimal64Type{Precision: 7, Scale: 2}, Nullable: true},
	{Name: "d32", Type: &arrow.Decimal32Type{Precision: 7, Scale: 2}, Nullable: true},
	{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
	{Name: "dt", Type: arrow.FixedWidthTypes.Date64, Nullable: true},
}, nil)

// typedRecords builds n rows of typedSchema in batches: values that
// repeat (for GROUP BY and ties), NULLs at different periods per column,
// a NaN and a -0 among the floats.
func typedRecords(mem memory.Allocator, n, batch int) []arrow.RecordBatch {
	words := []string{"", "a", "ab", "abc", "b", "ba", "zeta", "Alpha", "über"}
	var recs []arrow.RecordBatch
	for start := 0; start < n; start += batch {
		b := array.NewRecordBuilder(mem, typedSchema)
		for i := start; i < min(start+batch, n); i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i + 1))
			appendOr(b.Field(1), i%9 == 4, func(x array.Builder) { x.(*array.Int8Builder).Append(int8(i%200 - 100)) })
			b.Field(2).(*array.Int16Builder).Append(int16(i*7%3000 - 1500))
			appendOr(b.Field(3), i%11 == 10, func(x array.Builder) { x.(*array.Int32Builder).Append(int32(i * 13 % 100000)) })
			b.Field(4).(*array.Uint8Builder).Append(uint8(i % 256))
			appendOr(b.Field(5), i%10 == 3, func(x array.Builder) { x.(*array.Uint16Builder).Append(uint16(i * 31 % 65536)) })
			appendOr(b.Field(6), i%13 == 1, func(x array.Builder) { x.(*array.Uint32Builder).Append(uint32(4_000_000_000 - i*1000)) })
			appendOr(b.Field(7), i%8 == 5, func(x array.Builder) { x.(*array.Uint64Builder).Append(uint64(i%17) * 1_000_000_000_000) })
			appendOr(b.Field(8), i%8 == 2, func(x array.Builder) {
				f := float32(i%40)/8 - 2
				switch i % 97 {
				case 3:
					f = float32(math.Copysign(0, -1))
				case 50:
					f = float32(math.NaN())
				}
				x.(*array.Float32Builder).Append(f)
			})
			b.Field(9).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i*37%2_000_000 - 1_000_000)))
			appendOr(b.Field(10), i%7 == 6, func(x array.Builder) {
				x.(*array.Decimal64Builder).Append(decimal.Decimal64(i*53%1_999_999 - 999_999))
			})
			appendOr(b.Field(11), i%5 == 0, func(x array.Builder) {
				x.(*array.Decimal32Builder).Append(decimal.Decimal32(i*101%300_000 - 150_000))
			})
			appendOr(b.Field(12), i%6 == 1, func(x array.Builder) { x.(*array.LargeStringBuilder).Append(words[i%len(words)]) })
			appendOr(b.Field(13), i%12 == 7, func(x array.Builder) { x.(*array.Date64Builder).Append(arrow.Date64((10000 + i%500) * 86_400_000)) })
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return recs
}

func appendOr(b array.Builder, isNull bool, value func(array.Builder)) {
	if isNull {
		b.AppendNull()
		return
	}
	value(b)
}

// toEngineRecords converts every column to its engine type, keeping the
// nullability: the table as the engine used to see it.
func toEngineRecords(t testing.TB, mem memory.Allocator, recs []arrow.RecordBatch) []arrow.RecordBatch {
	t.Helper()
	var fields []arrow.Field
	for _, f := range typedSchema.Fields() {
		et, _ := expr.EngineType(f.Type)
		fields = append(fields, arrow.Field{Name: f.Name, Type: et, Nullable: f.Nullable})
	}
	schema := arrow.NewSchema(fields, nil)
	var out []arrow.RecordBatch
	for _, rec := range recs {
		cols := make([]arrow.Array, rec.NumCols())
		for i, c := range rec.Columns() {
			var err error
			if cols[i], err = expr.ToEngine(context.Background(), mem, c); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, array.NewRecordBatch(schema, cols, rec.NumRows()))
		releaseAll(cols)
	}
	return out
}

func putTable(t testing.TB, c *cache.Cache, name string, recs []arrow.RecordBatch) {
	t.Helper()
	r, err := array.NewRecordReader(recs[0].Schema(), recs)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if _, err := c.Put(context.Background(), name, r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
}

// typedEngine returns an engine over "typed" (typedSchema, 1000 rows in
// batches of 64) and "wide", the same values converted to engine types,
// on a checked allocator that must end empty.
func typedEngine(t *testing.T, opts Options) *Engine {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	recs := typedRecords(mem, 1000, 64)
	wide := toEngineRecords(t, mem, recs)
	putTable(t, c, "typed", recs)
	putTable(t, c, "wide", wide)
	for _, r := range append(recs, wide...) {
		r.Release()
	}
	opts.Alloc = mem
	return New(c, opts)
}

// querySchema runs sql and checks that Schema, the Result and every batch
// agree on the schema, which it returns with the rows.
func querySchema(t *testing.T, e *Engine, sql string) (*arrow.Schema, []string) {
	t.Helper()
	planned, err := e.Schema(sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	r, err := e.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer r.Release()
	if !r.Schema().Equal(planned) {
		t.Errorf("%s: Schema says\n%v\nthe result\n%v", sql, planned, r.Schema())
	}
	var rows []string
	for r.Next() {
		rec := r.RecordBatch()
		if !rec.Schema().Equal(r.Schema()) {
			t.Errorf("%s: a batch of schema\n%v\nin a result of\n%v", sql, rec.Schema(), r.Schema())
		}
		for i := range int(rec.NumRows()) {
			cells := make([]string, rec.NumCols())
			for j, col := range rec.Columns() {
				if !rec.Schema().Field(j).Nullable && col.IsNull(i) {
					t.Errorf("%s: NULL in NOT NULL column %s", sql, rec.ColumnName(j))
				}
				cells[j] = cell(col, i)
			}
			rows = append(rows, strings.Join(cells, "|"))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return r.Schema(), rows
}

// tableFields returns typedSchema's fields of the named columns.
func tableFields(names ...string) []arrow.Field {
	var out []arrow.Field
	for _, n := range names {
		i := typedSchema.FieldIndices(n)[0]
		out = append(out, typedSchema.Field(i))
	}
	return out
}

func sameFields(t *testing.T, sql string, got *arrow.Schema, want []arrow.Field) {
	t.Helper()
	if got.NumFields() != len(want) {
		t.Errorf("%s: %d columns, want %d:\n%v", sql, got.NumFields(), len(want), got)
		return
	}
	for i, w := range want {
		g := got.Field(i)
		if g.Name != w.Name || !arrow.TypeEqual(g.Type, w.Type) || g.Nullable != w.Nullable {
			t.Errorf("%s: column %d is %v, want %v", sql, i, g, w)
		}
	}
}

var allTyped = []string{"id", "i8", "i16", "i32", "u8", "u16", "u32", "u64", "f32", "d128", "d64", "d32", "ls", "dt"}

// TestPassThroughKeepsTableTypes: columns a query returns unchanged come
// out as the table holds them — type and nullability — through *, WHERE,
// ORDER BY, LIMIT and OFFSET, with the values the engine types give.
func TestPassThroughKeepsTableTypes(t *testing.T) {
	e := typedEngine(t, Options{})
	for _, tc := range []struct {
		sql  string
		cols []string
	}{
		{"SELECT * FROM typed", allTyped},
		{"SELECT * FROM typed WHERE i16 > 0 AND f32 < 1 AND ls LIKE 'a%'", allTyped},
		{"SELECT i8, d64 FROM typed WHERE i8 > 10 AND d32 < 500", []string{"i8", "d64"}},
		{"SELECT d128, ls, dt FROM typed WHERE i32 BETWEEN 100 AND 50000 OR u64 IS NULL", []string{"d128", "ls", "dt"}},
		{"SELECT ls, id, i16 FROM typed ORDER BY d32 DESC, id LIMIT 10 OFFSET 3", []string{"ls", "id", "i16"}},
		{"SELECT u8, u16, u32, u64 FROM typed ORDER BY u16 NULLS FIRST, id LIMIT 40", []string{"u8", "u16", "u32", "u64"}},
		{"SELECT (d32), typed.f32 FROM typed WHERE dt > DATE '1997-05-01' LIMIT 100 OFFSET 7", []string{"d32", "f32"}},
		{"SELECT i16, i16 FROM typed WHERE i16 + 1 > 0", []string{"i16", "i16"}},
		{"SELECT * FROM typed ORDER BY ls NULLS FIRST, dt DESC, id LIMIT 50", allTyped},
		{"SELECT id FROM typed ORDER BY f32, id", []string{"id"}},
	} {
		got, rows := querySchema(t, e, tc.sql)
		want := tableFields(tc.cols...)
		if strings.Contains(tc.sql, "(d32)") {
			want[0].Name = got.Field(0).Name // a parenthesized column is named by its text
		}
		sameFields(t, tc.sql, got, want)
		_, wide := querySchema(t, e, strings.ReplaceAll(strings.ReplaceAll(tc.sql, "typed.", "wide."), "typed", "wide"))
		if fmt.Sprint(rows) != fmt.Sprint(wide) {
			t.Errorf("%s: %d rows differ from the engine types' %d at row %d", tc.sql, len(rows), len(wide), firstDiff(rows, wide))
		}
		if len(rows) == 0 {
			t.Errorf("%s: no rows (the test needs some)", tc.sql)
		}
	}
}

// TestExpressionsOverStoredTypes: expressions, predicates, sort keys and
// aggregates over columns of every stored type give what they gave when
// the scan converted everything to engine types (table "wide"), with the
// same (engine) result types.
func TestExpressionsOverStoredTypes(t *testing.T) {
	e := typedEngine(t, Options{Workers: 3})
	for _, sql := range []string{
		"SELECT id, i8 + 1, i16 * 2, i32 - 5, u8 + u16, u32 + 0, u64 / 1000, f32 * 2, d128 + d64, d32 * 2, COALESCE(ls, 'none'), dt + INTERVAL 1 DAY FROM typed ORDER BY id",
		"SELECT id, i8 FROM typed WHERE i8 > 10 AND i8 < 50 OR d32 < -1000 ORDER BY id",
		"SELECT id, CASE WHEN i8 > 0 THEN d64 ELSE d32 END, CAST(CASE WHEN f32 < 100 THEN f32 END AS DECIMAL(10,3)), CAST(d32 AS DOUBLE), CAST(i16 AS CHAR) FROM typed WHERE ls IN ('a', 'ab') ORDER BY id",
		"SELECT id, u32 FROM typed WHERE u32 > 3999000000 AND dt <= DATE '1997-06-01' ORDER BY u32 DESC, id",
		"SELECT i16 % 10 AS k, sum(i8), sum(d64), avg(f32), min(ls), max(dt), count(u32), sum(u64), min(d32), max(i32) FROM typed GROUP BY k ORDER BY k",
		"SELECT ls, count(*), sum(d128) FROM typed GROUP BY ls ORDER BY ls NULLS FIRST",
		"SELECT dt, u8, count(*) FROM typed WHERE id < 300 GROUP BY dt, u8 HAVING count(*) > 0 ORDER BY dt, u8",
		"SELECT f32, count(*) FROM typed GROUP BY f32 ORDER BY f32 NULLS FIRST",
		"SELECT d32, d64, i8 FROM typed GROUP BY d32, d64, i8 ORDER BY d32 DESC NULLS LAST, d64, i8 LIMIT 30",
		"SELECT id, i8 + 1 AS a, i8 * 2 AS b FROM typed WHERE i8 < 0 ORDER BY i8, id",
		"SELECT count(*), count(DISTINCT i8), count(DISTINCT ls), sum(u16), min(f32), max(f32) FROM typed WHERE d64 > 0",
		"SELECT u16 FROM typed ORDER BY u16 + 0 DESC NULLS FIRST, id LIMIT 25",
		"SELECT count(*) FROM typed WHERE d64 > 0 AND ls LIKE 'a%'", // the filter passes no column on
		"SELECT i32, count(*), sum(d32) FROM typed WHERE i32 > 9000 GROUP BY i32 ORDER BY 3 DESC, 1",
	} {
		got, rows := querySchema(t, e, sql)
		wideSQL := strings.ReplaceAll(sql, "typed", "wide")
		wantSchema, want := querySchema(t, e, wideSQL)
		if fmt.Sprint(rows) != fmt.Sprint(want) {
			t.Errorf("%s: %d rows differ from the engine types' %d at row %d", sql, len(rows), len(want), firstDiff(rows, want))
		}
		if len(rows) == 0 {
			t.Errorf("%s: no rows (the test needs some)", sql)
		}
		// A bare column (or GROUP BY key) has its stored type and
		// nullability; a computed one the type it had, nullable.
		for i, f := range got.Fields() {
			w := wantSchema.Field(i)
			if tf := typedSchema.FieldIndices(f.Name); len(tf) == 1 {
				w = typedSchema.Field(tf[0])
			}
			if !arrow.TypeEqual(f.Type, w.Type) || f.Nullable != w.Nullable {
				t.Errorf("%s: column %s is %v, want %v", sql, f.Name, f, w)
			}
		}
	}
}

// TestGroupByKeysKeepStoredTypes: a GROUP BY key that is a bare column
// comes out in its stored type and nullability; a computed key and the
// aggregates in their engine types.
func TestGroupByKeysKeepStoredTypes(t *testing.T) {
	e := typedEngine(t, Options{Workers: 2})
	sql := "SELECT i16, i8 AS small, d32, ls, dt, f32, u64, i16 % 3 AS m, count(*), sum(i8) FROM typed GROUP BY i16, small, d32, ls, dt, f32, u64, m ORDER BY i16, small, d32, ls, dt, f32, u64 LIMIT 500"
	got, rows := querySchema(t, e, sql)
	want := tableFields("i16", "i8", "d32", "ls", "dt", "f32", "u64")
	want[1].Name = "small"
	want = append(want,
		arrow.Field{Name: "m", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "count(*)", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "sum(i8)", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	sameFields(t, sql, got, want)
	_, wide := querySchema(t, e, strings.ReplaceAll(sql, "typed", "wide"))
	if fmt.Sprint(rows) != fmt.Sprint(wide) || len(rows) != 500 {
		t.Errorf("%d rows differ from the engine types' %d at row %d", len(rows), len(wide), firstDiff(rows, wide))
	}
	// GROUP BY 1 and a key read in HAVING and in an expression too
	sql = "SELECT u8, u8 + 1 AS next, count(*) FROM typed GROUP BY 1 HAVING u8 > 250 ORDER BY u8"
	got, rows = querySchema(t, e, sql)
	sameFields(t, sql, got, append(tableFields("u8"),
		arrow.Field{Name: "next", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "count(*)", Type: arrow.PrimitiveTypes.Int64, Nullable: true}))
	if fmt.Sprint(rows) != "[251|252|3 252|253|3 253|254|3 254|255|3 255|256|3]" {
		t.Errorf("%s: %v", sql, rows)
	}
}

// TestExplainConvertsOnlyWhatExpressionsRead: EXPLAIN shows one
// conversion per column, below the filter for the predicate's columns and
// above it for the others, none for a column passed through, and a filter
// that passes on only what is read above it. The comparisons of i32 with
// constants are the scan's row filter, so i32 is converted above.
func TestExplainConvertsOnlyWhatExpressionsRead(t *testing.T) {
	e := typedEngine(t, Options{})
	plan, err := e.Explain(context.Background(), "SELECT i8, i16 + 1, i32 * 2 FROM typed WHERE i32 > 5 AND i32 < 100000 AND u16 > 3")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(plan), "\n")
	want := []string{
		"Project i8, i16 + 1 AS i16+1, i32 * 2 AS i32*2",
		"ToEngine i16 int16 → int64, i32 int32 → int64",
		"Filter u16 > 3; passes on [i8, i16, i32]",
		"ToEngine u16 uint16 → int64",
		"Scan typed: decodes 4 of 14 columns [i8, i16, i32, u16]",
	}
	if len(lines) != len(want) {
		t.Fatalf("plan:\n%s", plan)
	}
	for i, w := range want {
		got := strings.TrimSpace(lines[i])
		if i == len(want)-1 {
			got, _, _ = strings.Cut(got, ";") // the scan's row filter and pruning
		}
		if got != w {
			t.Errorf("plan line %d is %q, want %q\n%s", i, lines[i], w, plan)
		}
	}
	// A pass-through query converts nothing.
	plan, _ = e.Explain(context.Background(), "SELECT * FROM typed ORDER BY d64 LIMIT 3")
	if strings.Contains(plan, "ToEngine") {
		t.Errorf("a pass-through query converts:\n%s", plan)
	}
	// EXPLAIN as a query: one utf8 column "plan".
	got, rows := querySchema(t, e, "EXPLAIN SELECT i8 FROM typed WHERE i8 <> 0")
	if !got.Equal(explainSchema) || len(rows) != 4 || !strings.Contains(strings.Join(rows, "\n"), "ToEngine i8 int8 → int64") {
		t.Errorf("EXPLAIN: %v\n%s", got, strings.Join(rows, "\n"))
	}
}

// TestLargeUint64PassesThrough: a uint64 above MaxInt64 is returned as it
// is, and an expression reads it as decimal(20,0) (uint64_test.go).
func TestLargeUint64PassesThrough(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "u", Type: arrow.PrimitiveTypes.Uint64}, {Name: "k", Type: arrow.PrimitiveTypes.Int8}}, nil)
	rec, _, err := array.RecordFromJSON(mem, schema, strings.NewReader(`[{"u": 18446744073709551615, "k": 1}, {"u": 3, "k": 2}]`))
	if err != nil {
		t.Fatal(err)
	}
	c, _ := cache.New(cache.Options{Alloc: mem})
	putTable(t, c, "big", []arrow.RecordBatch{rec})
	rec.Release()
	e := New(c, Options{Alloc: mem})
	got, err := run(t, e, "SELECT u FROM big WHERE k > 0 ORDER BY u DESC")
	if err != nil || fmt.Sprint(got) != "[18446744073709551615 3]" {
		t.Errorf("pass-through: %v, %v", got, err)
	}
	got, err = run(t, e, "SELECT u + 1 FROM big")
	if err != nil || fmt.Sprint(got) != "[18446744073709551616 4]" {
		t.Errorf("expression over it: %v, %v", got, err)
	}
}
