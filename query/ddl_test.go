package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
)

// ddlEngine is an engine over an empty cache whose tables and query
// results all use a checked allocator.
func ddlEngine(t *testing.T) (*Engine, *cache.Cache) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, name := range c.Tables() {
			c.Drop(name)
		}
		mem.AssertSize(t, 0)
	})
	return New(c, Options{Alloc: mem}), c
}

// rows runs sql and returns its rows as "a|b" lines.
func rows(t *testing.T, e *Engine, sql string) []string {
	t.Helper()
	r, err := e.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer r.Release()
	var out []string
	for r.Next() {
		rec := r.RecordBatch()
		for i := range int(rec.NumRows()) {
			cells := make([]string, rec.NumCols())
			for j, col := range rec.Columns() {
				cells[j] = col.ValueStr(i)
			}
			out = append(out, strings.Join(cells, "|"))
		}
	}
	if err := r.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

func exec(t *testing.T, e *Engine, sql string) int64 {
	t.Helper()
	n, err := e.Exec(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

func TestSQLTypesMapToArrow(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want arrow.DataType
	}{
		{"TINYINT", arrow.PrimitiveTypes.Int8},
		{"SMALLINT", arrow.PrimitiveTypes.Int16},
		{"INTEGER", arrow.PrimitiveTypes.Int32},
		{"INT", arrow.PrimitiveTypes.Int32},
		{"BIGINT", arrow.PrimitiveTypes.Int64},
		{"BIGINT UNSIGNED", arrow.PrimitiveTypes.Uint64},
		{"BOOLEAN", arrow.FixedWidthTypes.Boolean},
		{"BOOL", arrow.FixedWidthTypes.Boolean},
		{"REAL", arrow.PrimitiveTypes.Float64},
		{"DOUBLE", arrow.PrimitiveTypes.Float64},
		{"FLOAT", arrow.PrimitiveTypes.Float32},
		{"DECIMAL(15,2)", &arrow.Decimal128Type{Precision: 15, Scale: 2}},
		{"DECIMAL", &arrow.Decimal128Type{Precision: 18, Scale: 3}},
		{"NUMERIC(38,10)", &arrow.Decimal128Type{Precision: 38, Scale: 10}},
		{"VARCHAR(30)", arrow.BinaryTypes.String},
		{"VARCHAR", arrow.BinaryTypes.String},
		{"CHAR(3)", arrow.BinaryTypes.String},
		{"TEXT", arrow.BinaryTypes.String},
		{"DATE", arrow.FixedWidthTypes.Date32},
		{"TIMESTAMP", &arrow.TimestampType{Unit: arrow.Microsecond}},
		{"DATETIME", &arrow.TimestampType{Unit: arrow.Microsecond}},
	} {
		st, err := parseSQL("CREATE TABLE t (c " + tc.sql + ")")
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		got, err := arrowType(st.(*ast.CreateTableStmt).Cols[0].Tp)
		if err != nil || !arrow.TypeEqual(got, tc.want) {
			t.Errorf("%s: %v %v, want %v", tc.sql, got, err, tc.want)
		}
	}
	for _, bad := range []string{"JSON", "YEAR", "BIT(3)", "ENUM('a','b')", "DECIMAL(65,2)"} {
		st, err := parseSQL("CREATE TABLE t (c " + bad + ")")
		if err != nil {
			t.Fatalf("%s: %v", bad, err)
		}
		if dt, err := arrowType(st.(*ast.CreateTableStmt).Cols[0].Tp); err == nil {
			t.Errorf("%s: mapped to %v, want an error", bad, dt)
		}
	}
}

func TestCreateInsertSelect(t *testing.T) {
	e, c := ddlEngine(t)
	exec(t, e, `CREATE TABLE t (i INTEGER NOT NULL, d DOUBLE, m DECIMAL(10,2), s VARCHAR, day DATE, b BOOLEAN, small SMALLINT)`)
	// DuckDB's coercions: integers into DOUBLE and DECIMAL, strings into
	// DATE and numbers, a decimal literal into an integer (rounded).
	if n := exec(t, e, `INSERT INTO t VALUES (1, 2, 3, 'x', '2024-02-29', true, '7'), (2, 1.5, 2.345, NULL, NULL, NULL, 2.5)`); n != 2 {
		t.Fatalf("inserted %d", n)
	}
	if n := exec(t, e, `INSERT INTO t (s, i) VALUES ('only', 3)`); n != 1 {
		t.Fatalf("inserted %d", n)
	}
	if n := exec(t, e, `INSERT INTO t (i, d) SELECT i + 10, d * 2 FROM t WHERE d IS NOT NULL`); n != 2 {
		t.Fatalf("inserted %d", n)
	}
	got := rows(t, e, `SELECT i, d, m, s, day, b, small FROM t ORDER BY i`)
	want := []string{
		"1|2|3|x|2024-02-29|true|7",
		"2|1.5|2.35|(null)|(null)|(null)|3",
		"3|(null)|(null)|only|(null)|(null)|(null)",
		"11|4|(null)|(null)|(null)|(null)|(null)",
		"12|3|(null)|(null)|(null)|(null)|(null)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	info, _ := c.Info("t")
	if f := info.Schema.Field(0); f.Type.ID() != arrow.INT32 || f.Nullable {
		t.Errorf("column i: %v", f)
	}

	exec(t, e, `CREATE TABLE u AS SELECT i, i * 2 AS twice, s FROM t WHERE i < 10`)
	if got := rows(t, e, `SELECT count(*), sum(twice) FROM u`); got[0] != "3|12" {
		t.Errorf("CREATE TABLE AS: %v", got)
	}
	info, _ = c.Info("u")
	if info.Schema.Field(0).Type.ID() != arrow.INT32 || info.Schema.Field(1).Type.ID() != arrow.INT64 {
		t.Errorf("CREATE TABLE AS types: %v", info.Schema)
	}
	if n := exec(t, e, `TRUNCATE TABLE u`); n != 3 {
		t.Errorf("TRUNCATE removed %d", n)
	}
	if got := rows(t, e, `SELECT count(*) FROM u`); got[0] != "0" {
		t.Errorf("after TRUNCATE: %v", got)
	}
	exec(t, e, `DROP TABLE u`)
	exec(t, e, `DROP TABLE IF EXISTS u`)
	if _, err := c.Info("u"); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("u after DROP: %v", err)
	}
}

func TestChangeErrors(t *testing.T) {
	e, _ := ddlEngine(t)
	exec(t, e, `CREATE TABLE t (i INTEGER NOT NULL, day DATE, k INTEGER PRIMARY KEY)`)
	exec(t, e, `INSERT INTO t VALUES (1, NULL, 1)`)
	for _, tc := range []struct {
		sql  string
		kind error
		msg  string
	}{
		{`INSERT INTO t VALUES (1, NULL)`, ErrInvalid, "row 1 of VALUES has 2 values for 3 columns"},
		{`INSERT INTO t (day, k) VALUES (NULL, 5)`, ErrInvalid, `column "i" is NOT NULL`},
		{`INSERT INTO t VALUES (NULL, NULL, 5)`, ErrInvalid, `NULL in column "i"`},
		{`INSERT INTO t (i, k, nope) VALUES (1, 2, 3)`, ErrInvalid, `no column "nope"`},
		{`INSERT INTO t (i, i) VALUES (1, 2)`, ErrInvalid, `named twice`},
		{`INSERT INTO t VALUES (1, 'soon', 6)`, ErrExec, "soon"},
		{`INSERT INTO t VALUES (1, true, 6)`, ErrInvalid, `column "day" is DATE and cannot take a BOOLEAN value`},
		{`INSERT INTO t VALUES (1, NULL, 1)`, ErrInvalid, `duplicate key: column "k" is PRIMARY KEY and 1 is already there`},
		{`INSERT INTO t VALUES (1, NULL, 7), (2, NULL, 7)`, ErrInvalid, `duplicate key`},
		{`INSERT INTO t SELECT 1, 2`, ErrInvalid, "the query returns 2 columns for 3"},
		{`INSERT INTO missing VALUES (1)`, ErrNoTable, `"missing"`},
		{`CREATE TABLE t (a INTEGER)`, ErrInvalid, `table "t" exists`},
		{`CREATE TABLE T (a INTEGER)`, ErrInvalid, `table "t" exists`},
		{`CREATE TABLE x (a JSON)`, ErrUnsupported, "no Arrow type"},
		{`CREATE TABLE x (a INTEGER DEFAULT 3)`, ErrUnsupported, "DEFAULT"},
		{`CREATE TABLE x (a INTEGER, a BIGINT)`, ErrInvalid, "defined twice"},
		{`CREATE TABLE x (a INTEGER, b INTEGER, PRIMARY KEY (a, b))`, ErrUnsupported, "several columns"},
		{`CREATE TABLE x AS SELECT 1 AS a, 2 AS a`, ErrInvalid, `two columns named "a"`},
		{`CREATE TABLE other.x (a INTEGER)`, ErrNoTable, `no schema "other"`},
		{`DROP TABLE missing`, ErrNoTable, `"missing"`},
		{`DROP VIEW t`, ErrInvalid, "is a table"},
		{`TRUNCATE missing`, ErrNoTable, `"missing"`},
		{`REPLACE INTO t VALUES (1, NULL, 1)`, ErrUnsupported, "REPLACE"},
		{`CREATE UNIQUE INDEX i ON t (i)`, ErrUnsupported, "UNIQUE INDEX"},
		{`EXPLAIN INSERT INTO t VALUES (1, NULL, 9)`, ErrUnsupported, "EXPLAIN"},
	} {
		_, err := e.Exec(context.Background(), tc.sql)
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %v with %q", tc.sql, err, tc.kind, tc.msg)
		}
	}
	if got := rows(t, e, `SELECT count(*) FROM t`); got[0] != "1" {
		t.Errorf("refused changes changed the table: %v", got)
	}
	if _, err := e.Exec(context.Background(), `SELECT 1`); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "use Query") {
		t.Errorf("Exec of a query: %v", err)
	}
	if !IsChange(`insert into t values (1)`) || IsChange(`SELECT 1`) || IsChange(`nonsense`) {
		t.Error("IsChange")
	}
	// A plain index is accepted and does nothing; UNIQUE allows NULLs.
	exec(t, e, `CREATE INDEX ti ON t (i)`)
	exec(t, e, `CREATE TABLE u (a INTEGER UNIQUE)`)
	exec(t, e, `INSERT INTO u VALUES (NULL), (NULL), (1)`)
}

func TestViews(t *testing.T) {
	e, _ := ddlEngine(t)
	exec(t, e, `CREATE TABLE t (a INTEGER, b VARCHAR)`)
	exec(t, e, `INSERT INTO t VALUES (1, 'x'), (2, 'y'), (3, 'z')`)
	exec(t, e, `CREATE VIEW big (n, label) AS SELECT a, b FROM t WHERE a > 1`)
	exec(t, e, `CREATE VIEW bigger AS SELECT n FROM big WHERE n > 2`)
	if got := rows(t, e, `SELECT label FROM big ORDER BY n`); strings.Join(got, ",") != "y,z" {
		t.Errorf("view: %v", got)
	}
	if got := rows(t, e, `SELECT count(*) FROM bigger`); got[0] != "1" {
		t.Errorf("view over a view: %v", got)
	}
	// A join with a view, and a view in a subquery.
	if got := rows(t, e, `SELECT t.b FROM t, big WHERE t.a = big.n ORDER BY 1`); strings.Join(got, ",") != "y,z" {
		t.Errorf("join with a view: %v", got)
	}
	if got := rows(t, e, `SELECT a FROM t WHERE a IN (SELECT n FROM big) ORDER BY 1`); strings.Join(got, ",") != "2,3" {
		t.Errorf("view in a subquery: %v", got)
	}
	// The view reads the table as it is now.
	exec(t, e, `INSERT INTO t VALUES (4, 'w')`)
	if got := rows(t, e, `SELECT count(*) FROM big`); got[0] != "3" {
		t.Errorf("after an insert: %v", got)
	}
	// A WITH name hides a view of the same name.
	if got := rows(t, e, `WITH big AS (SELECT 42 AS n) SELECT n FROM big`); strings.Join(got, ",") != "42" {
		t.Errorf("WITH hiding a view: %v", got)
	}
	if _, err := e.Exec(context.Background(), `CREATE VIEW big AS SELECT 1`); !errors.Is(err, ErrInvalid) {
		t.Errorf("CREATE VIEW of an existing view: %v", err)
	}
	// A view over a set operation, with a column list naming its first SELECT's items.
	exec(t, e, `CREATE VIEW both_ab (v) AS SELECT a FROM t WHERE a < 3 UNION ALL SELECT a * 10 FROM t WHERE b = 'z'`)
	if got := rows(t, e, `SELECT v FROM both_ab WHERE v > 1 ORDER BY v`); strings.Join(got, ",") != "2,30" {
		t.Errorf("view over UNION ALL: %v", got)
	}
	exec(t, e, `CREATE VIEW odd AS SELECT a FROM t EXCEPT SELECT 2`)
	if got := rows(t, e, `SELECT count(*), sum(a) FROM odd`); strings.Join(got, ",") != "3|8" { // 1, 3, 4
		t.Errorf("view over EXCEPT: %v", got)
	}
	// IS DISTINCT FROM kept in a view's restored text (markDistinct)
	exec(t, e, `CREATE VIEW not2 AS SELECT a FROM t WHERE a IS DISTINCT FROM 2`)
	if got := rows(t, e, `SELECT count(*) FROM not2`); strings.Join(got, ",") != "3" {
		t.Errorf("view with IS DISTINCT FROM: %v", got)
	}
	exec(t, e, `DROP VIEW not2`)
	exec(t, e, `DROP VIEW both_ab`)
	exec(t, e, `DROP VIEW odd`)
	exec(t, e, `CREATE OR REPLACE VIEW big AS SELECT a AS n FROM t WHERE a = 1`)
	if got := rows(t, e, `SELECT n FROM big`); strings.Join(got, ",") != "1" {
		t.Errorf("replaced view: %v", got)
	}
	for _, tc := range []struct{ sql, msg string }{
		{`CREATE VIEW t AS SELECT 1`, `a table named "t" exists`},
		{`CREATE VIEW v AS SELECT nope FROM t`, `nope`},
		{`CREATE VIEW v AS SELECT * FROM missing`, `missing`},
		{`CREATE TABLE big (a INTEGER)`, `a view named "big" exists`},
		{`DROP TABLE big`, "is a view"},
		{`INSERT INTO big VALUES (1)`, "is a view"},
	} {
		if _, err := e.Exec(context.Background(), tc.sql); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %q", tc.sql, err, tc.msg)
		}
	}
	// || is NULL with a NULL side, written back and read again too (it
	// was read back as concat(), which skips NULLs).
	exec(t, e, `INSERT INTO t VALUES (6, NULL)`)
	exec(t, e, `CREATE VIEW piped AS SELECT b || '!' AS p, a + 1 || b AS q FROM t`)
	if got := rows(t, e, `SELECT count(p), count(q), max(q) FROM piped`); strings.Join(got, ",") != "4|4|5w" {
		t.Errorf("|| in a view: %v", got)
	}
	exec(t, e, `DROP VIEW bigger`)
	exec(t, e, `DROP VIEW IF EXISTS bigger`)
	if _, err := e.Query(context.Background(), `SELECT * FROM bigger`); !errors.Is(err, ErrNoTable) {
		t.Errorf("dropped view: %v", err)
	}
}

func TestCatalogQueries(t *testing.T) {
	e, _ := ddlEngine(t)
	exec(t, e, `CREATE TABLE b (x INTEGER NOT NULL, y DECIMAL(7,2))`)
	exec(t, e, `CREATE TABLE a (s VARCHAR)`)
	exec(t, e, `CREATE VIEW v AS SELECT x + 1 AS x1 FROM b`)
	for sql, want := range map[string]string{
		`SHOW TABLES`: "a,b,v",
		`DESCRIBE b`:  "x|INTEGER|NO,y|DECIMAL(7,2)|YES",
		`DESC v`:      "x1|BIGINT|YES",
		`SELECT table_name, table_type FROM information_schema.tables ORDER BY 1`:                       "a|BASE TABLE,b|BASE TABLE,v|VIEW",
		`SELECT count(*) FROM information_schema.columns WHERE table_schema = 'main'`:                   "4",
		`SELECT c.column_name FROM information_schema.columns c WHERE c.ordinal_position = 2`:           "y",
		`SELECT t.table_name FROM information_schema.tables t JOIN b ON 1 = 1 WHERE t.table_name = 'a'`: "",
	} {
		if got := strings.Join(rows(t, e, sql), ","); got != want {
			t.Errorf("%s: %q, want %q", sql, got, want)
		}
	}
	if _, err := e.Query(context.Background(), `DESCRIBE missing`); !errors.Is(err, ErrNoTable) {
		t.Errorf("DESCRIBE missing: %v", err)
	}
	if _, err := e.Query(context.Background(), `SELECT * FROM information_schema.schemata`); !errors.Is(err, ErrNoTable) {
		t.Errorf("unknown information_schema table: %v", err)
	}
}

// TestSmallInsertsCoalesce: a thousand single-row INSERTs leave a few
// batches, not a thousand, and every row.
func TestSmallInsertsCoalesce(t *testing.T) {
	e, c := ddlEngine(t)
	exec(t, e, `CREATE TABLE t (k BIGINT, s VARCHAR)`)
	const n = 1000
	for i := range n {
		exec(t, e, fmt.Sprintf(`INSERT INTO t VALUES (%d, 'row %d')`, i, i))
	}
	info, _ := c.Info("t")
	if info.Rows != n || info.Batches > 12 {
		t.Fatalf("%d rows in %d batches", info.Rows, info.Batches)
	}
	if got := rows(t, e, `SELECT count(DISTINCT k), min(k), max(k), count(DISTINCT s) FROM t`); got[0] != "1000|0|999|1000" {
		t.Fatalf("%v", got)
	}
}

// TestInsertSelectRebatches: a query's small batches become batches of
// up to insertBatchRows rows.
func TestInsertSelectRebatches(t *testing.T) {
	e, c := ddlEngine(t)
	exec(t, e, `CREATE TABLE t (k BIGINT)`)
	values := make([]string, 300)
	for i := range values {
		values[i] = fmt.Sprintf("(%d)", i)
	}
	exec(t, e, `INSERT INTO t VALUES `+strings.Join(values, ", "))
	exec(t, e, `CREATE TABLE u AS SELECT a.k * 1000 + b.k AS k FROM t a, t b`)
	info, _ := c.Info("u")
	if info.Rows != 90000 || info.Batches != 2 {
		t.Fatalf("%d rows in %d batches", info.Rows, info.Batches)
	}
}

func TestInsertParameters(t *testing.T) {
	e, _ := ddlEngine(t)
	exec(t, e, `CREATE TABLE p (i INTEGER, s VARCHAR, day DATE)`)
	if n, err := e.Exec(context.Background(), `INSERT INTO p VALUES (?, ?, ?), (? + 1, 'b', NULL)`, 7, "a", "2024-01-31", 7); err != nil || n != 2 {
		t.Fatalf("INSERT with parameters: %d %v", n, err)
	}
	if got := strings.Join(rows(t, e, `SELECT i, s, day FROM p ORDER BY i`), ","); got != "7|a|2024-01-31,8|b|(null)" {
		t.Errorf("%s", got)
	}
}

// TestReadersSeeWholeInserts: while INSERTs of 10 rows run (coalescing
// the table's trailing batches), readers count a multiple of 10 rows.
func TestReadersSeeWholeInserts(t *testing.T) {
	e, _ := ddlEngine(t)
	exec(t, e, `CREATE TABLE t (k BIGINT, s VARCHAR)`)
	values := make([]string, 10)
	for i := range values {
		values[i] = fmt.Sprintf("(%d, 'v')", i)
	}
	insert := `INSERT INTO t VALUES ` + strings.Join(values, ", ")
	done := make(chan error, 1)
	go func() {
		for range 200 {
			if _, err := e.Exec(context.Background(), insert); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for reading := true; reading; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			reading = false
		default:
		}
		got := rows(t, e, `SELECT count(*), count(s), sum(k) FROM t`)
		var n, ns, sum int64
		fmt.Sscanf(strings.ReplaceAll(got[0], "|", " "), "%d %d %d", &n, &ns, &sum)
		if n%10 != 0 || ns != n || sum != n/10*45 {
			t.Fatalf("a reader saw part of an insert: %s", got[0])
		}
	}
	if got := rows(t, e, `SELECT count(*) FROM t`); got[0] != "2000" {
		t.Fatalf("%v", got)
	}
}

// TestBareVarchar: a bare VARCHAR (DuckDB's and PostgreSQL's spelling)
// parses in CREATE TABLE; the word inside strings, quoted names and
// comments is left alone.
func TestBareVarchar(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{`CREATE TABLE t (a VARCHAR, b varchar(3))`, `CREATE TABLE t (a TEXT, b varchar(3))`},
		{`CREATE TABLE "varchar" ("VARCHAR" VARCHAR) -- VARCHAR`, `CREATE TABLE "varchar" ("VARCHAR" TEXT) -- VARCHAR`},
		{`CREATE VIEW v AS SELECT 'VARCHAR' AS varchar_x /* VARCHAR */ FROM t`, ``},
		{`SELECT CAST(a AS VARCHAR) FROM t`, ``},
	} {
		got, ok := rewriteBareVarchar(tc.in)
		if tc.out == "" {
			if ok {
				t.Errorf("%s: rewritten to %s", tc.in, got)
			}
			continue
		}
		if !ok || got != tc.out {
			t.Errorf("%s: %q %v, want %q", tc.in, got, ok, tc.out)
		}
	}
	e, c := ddlEngine(t)
	exec(t, e, `CREATE TABLE t (a VARCHAR, "varchar" VARCHAR NOT NULL)`)
	info, _ := c.Info("t")
	if info.Schema.Field(1).Name != "varchar" || info.Schema.Field(1).Type.ID() != arrow.STRING || info.Schema.Field(1).Nullable {
		t.Errorf("%v", info.Schema)
	}
}

// TestNullIntoAnyColumn: NULL goes into a column of any type, also one
// that INSERT cannot convert other values to yet (TIMESTAMP), and a
// value out of a column's range is refused naming it.
func TestNullIntoAnyColumn(t *testing.T) {
	e, c := ddlEngine(t)
	exec(t, e, `CREATE TABLE t (ts TIMESTAMP, ti TINYINT, u BIGINT UNSIGNED)`)
	exec(t, e, `INSERT INTO t VALUES (NULL, NULL, 18446744073709551615)`)
	info, _ := c.Info("t")
	if info.Rows != 1 || info.Columns[0].Nulls != 1 {
		t.Fatalf("%+v", info)
	}
	for sql, msg := range map[string]string{
		`INSERT INTO t (ti) VALUES (300)`: `column "ti": value 300 out of range for int8`,
		`INSERT INTO t (u) VALUES (-1)`:   `column "u": value -1 out of range for uint64`,
	} {
		if _, err := e.Exec(context.Background(), sql); !errors.Is(err, ErrExec) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", sql, err, msg)
		}
	}
}

// TestCreateOrReplaceTable: DuckDB's CREATE OR REPLACE TABLE replaces a
// table atomically, with columns or AS SELECT.
func TestCreateOrReplaceTable(t *testing.T) {
	e, c := ddlEngine(t)
	exec(t, e, `CREATE TABLE t (a INTEGER)`)
	exec(t, e, `INSERT INTO t VALUES (1), (2)`)
	exec(t, e, `create or replace table T AS SELECT a * 10 AS b FROM t`)
	if got := strings.Join(rows(t, e, `SELECT b FROM t ORDER BY b`), ","); got != "10,20" {
		t.Fatalf("%s", got)
	}
	exec(t, e, "CREATE OR REPLACE\nTABLE t (x VARCHAR)")
	info, _ := c.Info("t")
	if info.Rows != 0 || info.Schema.Field(0).Name != "x" || len(c.Tables()) != 1 {
		t.Fatalf("%+v %v", info, c.Tables())
	}
	exec(t, e, `CREATE OR REPLACE TABLE fresh (y INTEGER)`)
	if _, err := c.Info("fresh"); err != nil {
		t.Fatal(err)
	}
}
