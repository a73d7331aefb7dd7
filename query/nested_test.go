package query

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// nestSchema: lists of every layout and structs, NULLs at every level.
var nestSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
	{Name: "ll", Type: arrow.LargeListOf(arrow.BinaryTypes.String), Nullable: true},
	{Name: "fsl", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float32), Nullable: true},
	{Name: "s", Type: arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "B", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "inner", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true}), Nullable: true},
	), Nullable: true},
	{Name: "nl", Type: arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int32)), Nullable: true},
	{Name: "ls", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true})), Nullable: true},
}, nil)

// nestRows are the rows of "nest", in two batches of three.
var nestRows = [2]string{`[
{"id": 0, "l": [1, 2, 3], "ll": ["a", "b"], "fsl": [1.5, 2.5], "s": {"a": 1, "B": "x", "inner": {"x": 10}}, "nl": [[1], [2, 3]], "ls": [{"k": "p"}]},
{"id": 1, "l": [], "ll": [], "fsl": null, "s": null, "nl": [], "ls": []},
{"id": 2, "l": null, "ll": null, "fsl": [0, -1], "s": {"a": null, "B": "y", "inner": null}, "nl": null, "ls": null}
]`, `[
{"id": 3, "l": [4, null], "ll": [null, "c"], "fsl": [3, null], "s": {"a": 3, "B": null, "inner": {"x": null}}, "nl": [null, [4]], "ls": [null, {"k": null}]},
{"id": 4, "l": [5], "ll": ["d"], "fsl": [4, 5], "s": {"a": 5, "B": "z", "inner": {"x": 50}}, "nl": [[5, 6, 7]], "ls": [{"k": "q"}, {"k": "r"}]},
{"id": 5, "l": [2, 2], "ll": ["b"], "fsl": [2, 2], "s": {"a": 1, "B": "x", "inner": {"x": 10}}, "nl": [[]], "ls": []}
]`}

// nestEngine is an engine over "nest" and "other" (id, name), on a
// checked allocator that must end empty.
func nestEngine(t *testing.T) *Engine {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	var recs []arrow.RecordBatch
	for _, js := range nestRows {
		rec, _, err := array.RecordFromJSON(mem, nestSchema, strings.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		recs = append(recs, rec)
	}
	putTable(t, c, "nest", recs)
	other := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "name", Type: arrow.BinaryTypes.String}}, nil)
	rec, _, err := array.RecordFromJSON(mem, other, strings.NewReader(`[{"id": 0, "name": "zero"}, {"id": 3, "name": "three"}, {"id": 4, "name": "four"}]`))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	putTable(t, c, "other", []arrow.RecordBatch{rec})
	return New(c, Options{Alloc: mem, MemoryLimit: 64 << 20})
}

// TestNestedQueries: lists and structs pass through as stored, and their
// elements and fields are read, filtered on, grouped and aggregated with
// DuckDB's semantics (1-based, negative from the end, out of range NULL).
func TestNestedQueries(t *testing.T) {
	e := nestEngine(t)
	for _, tc := range []struct{ sql, want string }{
		// passed through
		{`SELECT id, l, s FROM nest WHERE id IN (0, 1, 3) ORDER BY id`, `0|[1,2,3]|{"B":"x","a":1,"inner":{"x":10}} 1|[]|NULL 3|[4,null]|{"B":null,"a":3,"inner":{"x":null}}`},
		{`SELECT * FROM nest WHERE id = 4`, `4|[5]|["d"]|[4,5]|{"B":"z","a":5,"inner":{"x":50}}|[[5,6,7]]|[{"k":"q"},{"k":"r"}]`},
		// elements: 1-based, negative from the end, 0 and out of range NULL
		{`SELECT id, l[1], l[2], l[-1], l[0], l[4], l[-4] FROM nest ORDER BY id`,
			"0|1|2|3|NULL|NULL|NULL 1|NULL|NULL|NULL|NULL|NULL|NULL 2|NULL|NULL|NULL|NULL|NULL|NULL 3|4|NULL|NULL|NULL|NULL|NULL 4|5|NULL|5|NULL|NULL|NULL 5|2|2|2|NULL|NULL|NULL"},
		{`SELECT id, ll[2], fsl[1], fsl[2], list_extract(l, 1), list_element(ll, 1) FROM nest ORDER BY id`,
			"0|b|1.5|2.5|1|a 1|NULL|NULL|NULL|NULL|NULL 2|NULL|0|-1|NULL|NULL 3|c|3|NULL|4|NULL 4|NULL|4|5|5|d 5|NULL|2|2|2|b"},
		{`SELECT id, l[id], l[id - 2], l[NULL] FROM nest ORDER BY id`, "0|NULL|2|NULL 1|NULL|NULL|NULL 2|NULL|NULL|NULL 3|NULL|4|NULL 4|NULL|NULL|NULL 5|NULL|NULL|NULL"},
		// nested lists and lists of structs
		{`SELECT id, nl[2], nl[2][1], nl[1][-1], ls[1].k, ls[2]['k'] FROM nest ORDER BY id`,
			"0|[2,3]|2|1|p|NULL 1|NULL|NULL|NULL|NULL|NULL 2|NULL|NULL|NULL|NULL|NULL 3|[4]|4|NULL|NULL|NULL 4|NULL|NULL|7|q|r 5|NULL|NULL|NULL|NULL|NULL"},
		// fields: s.f, s['f'], struct_extract, t.s.f, s.f.g, case-insensitive
		{`SELECT id, s.a, s['B'], struct_extract(s, 'b'), n.s.a, s.inner.x, s.inner, n.s.inner['x'] FROM nest n ORDER BY id`,
			`0|1|x|x|1|10|{"x":10}|10 1|NULL|NULL|NULL|NULL|NULL|NULL|NULL 2|NULL|y|y|NULL|NULL|NULL|NULL 3|3|NULL|NULL|3|NULL|{"x":null}|NULL 4|5|z|z|5|50|{"x":50}|50 5|1|x|x|1|10|{"x":10}|10`},
		// lengths and membership
		{`SELECT id, len(l), length(ll), array_length(fsl), len(nl[2]), length(ll[1]) FROM nest ORDER BY id`,
			"0|3|2|2|2|1 1|0|0|NULL|NULL|NULL 2|NULL|NULL|2|NULL|NULL 3|2|2|2|1|NULL 4|1|1|2|NULL|1 5|2|1|2|NULL|1"},
		{`SELECT id, list_contains(l, 2), list_has(ll, 'c'), array_contains(l, NULL), list_contains(l, id + 1), list_contains(fsl, 2.5) FROM nest ORDER BY id`,
			"0|true|false|NULL|true|true 1|false|false|NULL|false|NULL 2|NULL|NULL|NULL|NULL|false 3|false|true|NULL|true|false 4|false|false|NULL|true|false 5|true|false|NULL|false|false"},
		// IS NULL on the whole value: an empty list is not NULL
		{`SELECT id FROM nest WHERE l IS NULL OR s IS NULL ORDER BY id`, "1 2"},
		{`SELECT count(*) FROM nest WHERE fsl IS NOT NULL AND s.inner IS NOT NULL`, "4"},
		// filters, groups, aggregates and sorts on what is read
		{`SELECT id FROM nest WHERE l[1] > 1 AND s.B IS NOT NULL ORDER BY id`, "4 5"},
		{`SELECT s.a, count(*), sum(l[1]) FROM nest GROUP BY s.a ORDER BY s.a NULLS FIRST`, "NULL|2|NULL 1|2|3 3|1|4 5|1|5"},
		{`SELECT min(ll[1]), max(fsl[2]), sum(len(l)), count(s.inner.x) FROM nest`, "a|5|8|3"},
		{`SELECT id FROM nest ORDER BY l[-1] DESC NULLS LAST, id LIMIT 3`, "4 0 5"},
		{`SELECT DISTINCT s.B FROM nest ORDER BY 1 NULLS FIRST`, "NULL x y z"},
		// through a join and a derived table
		{`SELECT o.name, n.l[1], n.s.a FROM nest n JOIN other o ON n.id = o.id ORDER BY o.id`, "zero|1|1 three|4|3 four|5|5"},
		{`SELECT o.name, n.l FROM nest n JOIN other o ON n.id = o.id WHERE n.l[1] > 3 ORDER BY o.id`, "three|[4,null] four|[5]"},
		{`SELECT a.id, b.id FROM nest a JOIN nest b ON a.l[1] = b.s.a ORDER BY a.id, b.id`, "0|0 0|5 4|4"},
		// through set operations, windows, derived tables, WITH, subqueries
		// and tables made with SQL
		{`SELECT l FROM nest WHERE id < 2 UNION ALL SELECT l FROM nest WHERE id = 4`, "[1,2,3] [] [5]"},
		{`SELECT id, l, row_number() OVER (ORDER BY id DESC) FROM nest WHERE id > 3 ORDER BY id`, "4|[5]|2 5|[2,2]|1"},
		{`SELECT d.l, d.s['a'] FROM (SELECT l, s FROM nest) d WHERE d.l[1] = 1`, "[1,2,3]|1"},
		{`WITH c AS (SELECT id, s FROM nest) SELECT c.s.a, c.s.inner['x'] FROM c WHERE c.id = 4`, "5|50"},
		{`SELECT id FROM nest WHERE id IN (SELECT l[1] FROM nest) ORDER BY id`, "1 2 4 5"},
		{`SELECT id, (SELECT max(l[-1]) FROM nest) FROM nest WHERE id = 0`, "0|5"},
		{`SELECT id, l, l[1] FROM nest LIMIT 2 OFFSET 3`, "3|[4,null]|4 4|[5]|5"},
		// unnest: a row per element, the other items repeated; NULL and
		// empty lists give none
		{`SELECT id, unnest(l) AS v, s.a FROM nest ORDER BY id, v NULLS FIRST`, "0|1|1 0|2|1 0|3|1 3|NULL|3 3|4|3 4|5|5 5|2|1 5|2|1"},
		{`SELECT unnest(ll) FROM nest WHERE id < 4`, "a b NULL c"},
		{`SELECT id, unnest(nl) FROM nest WHERE id = 0`, "0|[1] 0|[2,3]"},
		{`SELECT unnest(fsl) AS x FROM (SELECT fsl FROM nest WHERE id = 0) d`, "1.5 2.5"},
		{`SELECT unnest(nl[2]) FROM nest`, "2 3 4"},
		{`SELECT v, count(*) FROM (SELECT unnest(l) AS v FROM nest) u GROUP BY v ORDER BY v NULLS FIRST`, "NULL|1 1|1 2|3 3|1 4|1 5|1"},
		{`SELECT x.first FROM (SELECT id, l[1] AS first FROM nest) x WHERE x.first IS NOT NULL ORDER BY x.id`, "1 4 5 2"},
	} {
		got, _, err := runOrdered(t, e, tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, s, tc.want)
		}
	}
}

// TestNestedWholeValues: whole lists and structs compared, sorted,
// grouped, joined on and aggregated in DuckDB's order (NULL elements
// last and equal to each other, shorter prefixes first); query/difftest
// checks the same against DuckDB on more rows.
func TestNestedWholeValues(t *testing.T) {
	e := nestEngine(t)
	for _, tc := range []struct{ sql, want string }{
		{`SELECT id FROM nest ORDER BY l, id`, "1 0 5 3 4 2"},
		{`SELECT id FROM nest ORDER BY l DESC NULLS FIRST, id`, "2 4 3 5 0 1"},
		{`SELECT id FROM nest ORDER BY s DESC, id`, "2 4 3 0 5 1"},
		{`SELECT s, count(*) FROM nest GROUP BY s ORDER BY s NULLS FIRST`,
			`NULL|1 {"B":"x","a":1,"inner":{"x":10}}|2 {"B":null,"a":3,"inner":{"x":null}}|1 {"B":"z","a":5,"inner":{"x":50}}|1 {"B":"y","a":null,"inner":null}|1`},
		{`SELECT DISTINCT s.inner FROM nest ORDER BY 1`, `{"x":10} {"x":50} {"x":null} NULL`},
		{`SELECT count(DISTINCT s), count(s), count(l), count(DISTINCT l), min(l), max(l), min(s.inner), max(s.inner), max(nl) FROM nest`,
			`4|5|5|5|[]|[5]|{"x":10}|{"x":null}|[null,[4]]`},
		{`SELECT a.id, b.id FROM nest a JOIN nest b ON a.s = b.s AND a.id < b.id`, "0|5"},
		{`SELECT id FROM nest WHERE l > nl[1] ORDER BY id`, "0 5"},
		{`SELECT id FROM nest WHERE fsl = fsl AND ll IS NOT DISTINCT FROM ll ORDER BY id`, "0 2 3 4 5"},
		{`SELECT id, l = l, l <> l, l IS DISTINCT FROM l FROM nest WHERE id IN (2, 3) ORDER BY id`, "2|NULL|NULL|false 3|true|false|false"},
		{`SELECT s.B, s.inner FROM nest GROUP BY s.B, s.inner HAVING count(*) > 1`, `x|{"x":10}`},
		{`SELECT id, l = NULL, NULL < s FROM nest WHERE l IS DISTINCT FROM NULL AND s IS NOT DISTINCT FROM NULL`, "1|NULL|NULL"},
	} {
		got, _, err := runOrdered(t, e, tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, s, tc.want)
		}
	}
}

// TestNestedNames: reads into lists and structs are named as written,
// a field by its name (as DuckDB names them).
func TestNestedNames(t *testing.T) {
	e := nestEngine(t)
	r, err := e.Query(context.Background(), `SELECT l[1], s['B'], nl[2][-1], s.a, s.inner.x, len(l), unnest(ll) FROM nest LIMIT 0`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var names []string
	for _, f := range r.Schema().Fields() {
		names = append(names, f.Name)
	}
	if got, want := strings.Join(names, ", "), "l[1], s['B'], nl[2][-1], a, x, len(l), unnest(ll)"; got != want {
		t.Errorf("names %s, want %s", got, want)
	}
	for r.Next() {
	}
}

// TestNestedRefused: what a list or struct cannot do fails with an error
// that names the column and its type, or the construct.
func TestNestedRefused(t *testing.T) {
	e := nestEngine(t)
	for _, tc := range []struct {
		sql  string
		kind error
		want string
	}{
		{`SELECT sum(l) FROM nest`, ErrUnsupported, "sum over a list or struct (l is of type list<item: int32, nullable>)"},
		{`SELECT count(*) FROM nest WHERE l = s`, ErrInvalid, "cannot compare list<item: int32, nullable> with struct<"},
		{`SELECT count(*) FROM nest WHERE l = ll`, ErrInvalid, "lists, structs, maps and unions compare only with one of the same element, field and member types"},
		{`SELECT count(*) FROM nest WHERE l = '[1]'`, ErrUnsupported, "list literals are not supported"},
		{`SELECT min(l) OVER () FROM nest`, ErrUnsupported, "column l of type list"},
		{`SELECT l + 1 FROM nest`, ErrUnsupported, "column l of type list"},
		{`SELECT nl[1] + 1 FROM nest`, ErrUnsupported, "is of type list<item: int32, nullable>"},
		{`SELECT unnest(l), unnest(ll) FROM nest`, ErrUnsupported, "a second unnest"},
		{`SELECT unnest(l) + 1 FROM nest`, ErrUnsupported, "unnest(l) only as a whole item of the SELECT list"},
		{`SELECT unnest(l), count(*) FROM nest GROUP BY 1`, ErrUnsupported, "unnest(l) only as a whole item"},
		{`SELECT unnest(s) FROM nest`, ErrInvalid, "is not a list"},
		{`SELECT unnest(s.inner.x) FROM nest`, ErrInvalid, "is not a list"},
		{`SELECT unnest(id) FROM nest`, ErrInvalid, "id is not a list"},
		{`SELECT l[1:2] FROM nest`, ErrUnsupported, "list slices"},
		{`SELECT [1, 2] FROM nest`, ErrUnsupported, "list literals"},
		{`SELECT s.nope FROM nest`, ErrInvalid, `has no field "nope" (fields: "a", "B", "inner")`},
		{`SELECT s[1] FROM nest`, ErrInvalid, "a struct field is named by a string constant"},
		{`SELECT l['a'] FROM nest`, ErrInvalid, "list index 'a' is utf8, not an integer"},
		{`SELECT l[1].k FROM nest`, ErrInvalid, "only lists have elements and structs fields"},
		{`SELECT id[1] FROM nest`, ErrInvalid, "id is neither"},
		{`SELECT list_contains(l, 'x') FROM nest`, ErrInvalid, "list_contains"},
		{`SELECT CAST(l AS VARCHAR) FROM nest`, ErrUnsupported, "column l of type list"},
	} {
		_, err := run(t, e, tc.sql)
		if err == nil || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %v containing %q", tc.sql, err, tc.kind, tc.want)
		}
	}
}

// TestUnnestSplitsLongLists: a list longer than a batch comes out over
// several batches of at most unnestBatchRows rows, every element once.
func TestUnnestSplitsLongLists(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	ids, lb := b.Field(0).(*array.Int64Builder), b.Field(1).(*array.ListBuilder)
	ids.AppendValues([]int64{0, 1, 2}, nil)
	lb.Append(true)
	for i := range 20000 {
		lb.ValueBuilder().(*array.Int64Builder).Append(int64(i))
	}
	lb.AppendNull()
	lb.Append(true)
	lb.ValueBuilder().(*array.Int64Builder).Append(7)
	rec := b.NewRecordBatch()
	defer rec.Release()
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	putTable(t, c, "big", []arrow.RecordBatch{rec})
	e := New(c, Options{Alloc: mem, MemoryLimit: 64 << 20})
	got, err := run(t, e, `SELECT count(*), sum(v), min(v), max(v), count(DISTINCT id) FROM (SELECT id, unnest(l) AS v FROM big) u`)
	if err != nil || strings.Join(got, " ") != "20001|199990007|0|19999|2" {
		t.Fatalf("got %v, %v", got, err)
	}
	r, err := e.Query(context.Background(), `SELECT unnest(l) FROM big`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	rows, batches := 0, 0
	for r.Next() {
		n := int(r.RecordBatch().NumRows())
		if n > unnestBatchRows {
			t.Errorf("a batch of %d rows, past %d", n, unnestBatchRows)
		}
		rows, batches = rows+n, batches+1
	}
	if r.Err() != nil || rows != 20001 || batches < 3 {
		t.Errorf("%d rows in %d batches (%v), want 20001 in at least 3", rows, batches, r.Err())
	}
}

// TestNestedThroughSQLTables: CREATE TABLE … AS SELECT and INSERT …
// SELECT store lists and structs as they are, and they read back.
func TestNestedThroughSQLTables(t *testing.T) {
	e := nestEngine(t)
	for _, sql := range []string{
		`CREATE TABLE n2 AS SELECT id, l, s FROM nest WHERE id < 2`,
		`INSERT INTO n2 SELECT id, l, s FROM nest WHERE id = 4`,
	} {
		if _, err := e.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	got, err := run(t, e, `SELECT id, l[-1], s.inner.x, l FROM n2 ORDER BY id`)
	if want := "0|3|10|[1,2,3] 1|NULL|NULL|[] 4|5|50|[5]"; err != nil || strings.Join(got, " ") != want {
		t.Errorf("got %v (%v), want %s", got, err, want)
	}
}

// TestNestedParams: an index, a field name and a list_contains value may
// be bound parameters.
func TestNestedParams(t *testing.T) {
	e := nestEngine(t)
	got, _, err := runOrdered(t, e, `SELECT id, l[?], s[?] FROM nest WHERE list_contains(l, ?) ORDER BY id`, int64(2), "a", int64(2))
	if want := "0|2|1 5|2|1"; err != nil || strings.Join(got, " ") != want {
		t.Errorf("got %v (%v), want %s", got, err, want)
	}
}
