package server

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestExecuteUpdate: tables made, filled, viewed and dropped with SQL
// through Flight SQL's ExecuteUpdate, with the rows each change affected.
func TestExecuteUpdate(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(100, 30))
	cl := ts.client(t)
	ctx := context.Background()
	update := func(sql string, want int64) {
		t.Helper()
		n, err := cl.ExecuteUpdate(ctx, sql)
		if err != nil || n != want {
			t.Fatalf("%s: %d %v, want %d", sql, n, err, want)
		}
	}
	check := func(sql string, want ...string) {
		t.Helper()
		got, err := fetch(t, cl, ctx, sql)
		if err != nil || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("%s: %v %v, want %v", sql, got, err, want)
		}
	}
	update(`CREATE TABLE people (id INTEGER NOT NULL, name VARCHAR(20), born DATE, score DOUBLE, paid DECIMAL(8,2))`, 0)
	update(`INSERT INTO people VALUES (1, 'ann', '1990-05-01', 7, 12.5), (2, 'bob', NULL, 3.25, 1)`, 2)
	update(`INSERT INTO people (name, id) VALUES ('cy', 3)`, 1)
	update(`INSERT INTO people (id, name) SELECT id + 100, name FROM nums WHERE id < 5`, 5)
	check(`SELECT id, name, born, score, paid FROM people WHERE id < 100 ORDER BY id`,
		"1|ann|1990-05-01|7|12.5", "2|bob|(null)|3.25|1", "3|cy|(null)|(null)|(null)")
	check(`SELECT count(*) FROM people`, "8")
	update(`CREATE TABLE big AS SELECT id, grp FROM nums WHERE grp = 3`, 14)
	update(`CREATE VIEW named AS SELECT id, name FROM people WHERE name IS NOT NULL`, 0)
	check(`SELECT count(*) FROM named`, "8")
	// A view's name is taken for ingest too.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := pointsReader(t, mem, 0, 10, 10)
	_, err := cl.ExecuteIngest(ctx, r, ingestOpts("named", flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionFail))
	r.Release()
	if status.Code(err) != codes.AlreadyExists || !strings.Contains(err.Error(), "is a view") {
		t.Fatalf("ingest under a view's name: %v", err)
	}
	check(`SHOW TABLES`, "big", "named", "nums", "people")
	// Flight SQL's catalog lists the view too, with its schema.
	info, err := cl.GetTables(ctx, &flightsql.GetTablesOpts{IncludeSchema: true, TableTypes: []string{"VIEW"}})
	if err != nil {
		t.Fatal(err)
	}
	rd, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if !rd.Next() || rd.RecordBatch().NumRows() != 1 || rd.RecordBatch().Column(2).ValueStr(0) != "named" || rd.RecordBatch().Column(3).ValueStr(0) != "VIEW" {
		t.Fatalf("GetTables of views: %v", rd.RecordBatch())
	}
	vs, err := flight.DeserializeSchema(rd.RecordBatch().Column(4).(*array.Binary).Value(0), memory.DefaultAllocator)
	if err != nil || vs.NumFields() != 2 || vs.Field(1).Name != "name" {
		t.Fatalf("the view's schema: %v %v", vs, err)
	}
	rd.Release()
	check(`DESCRIBE people`, "id|INTEGER|NO", "name|VARCHAR|YES", "born|DATE|YES", "score|DOUBLE|YES", "paid|DECIMAL(8,2)|YES")
	check(`SELECT table_name, table_type FROM information_schema.tables WHERE table_name LIKE 'n%' ORDER BY 1`,
		"named|VIEW", "nums|BASE TABLE")
	update(`TRUNCATE people`, 8)
	check(`SELECT count(*) FROM named`, "0")
	update(`DROP VIEW named`, 0)
	update(`DROP TABLE big`, 0)
	update(`DROP TABLE IF EXISTS big`, 0)
	check(`SHOW TABLES`, "nums", "people")

	// A client that sends DDL through Execute gets the count as a row.
	check(`INSERT INTO people (id) VALUES (9), (10)`, "2")
	check(`SELECT count(*) FROM people`, "2")

	for _, tc := range []struct {
		sql  string
		code codes.Code
		msg  string
	}{
		{`INSERT INTO people VALUES (1, 'x')`, codes.InvalidArgument, "row 1 of VALUES has 2 values for 5 columns"},
		{`INSERT INTO people (name) VALUES ('x')`, codes.InvalidArgument, `column "id" is NOT NULL`},
		{`INSERT INTO people (id, born) VALUES (5, 'not a date')`, codes.InvalidArgument, "not a date"},
		{`INSERT INTO missing VALUES (1)`, codes.NotFound, `"missing"`},
		{`CREATE TABLE people (a INTEGER)`, codes.InvalidArgument, `table "people" exists`},
		{`CREATE TABLE t (a JSON)`, codes.InvalidArgument, "no Arrow type"},
		{`DROP TABLE missing`, codes.NotFound, `"missing"`},
		{`SELECT 1`, codes.InvalidArgument, "send it with Execute"},
		{`DELETE FROM people`, codes.InvalidArgument, "Delete"},
	} {
		_, err := cl.ExecuteUpdate(ctx, tc.sql)
		if status.Code(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: got %v, want %v with %q", tc.sql, err, tc.code, tc.msg)
		}
	}
	check(`SELECT count(*) FROM people`, "2") // the refused changes changed nothing
}

// TestUpdatesSurviveRestart: with a data directory, tables and views made
// and filled with SQL are there after a restart.
func TestUpdatesSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	ts, stop := startDurable(t, dir)
	cl := ts.client(t)
	for _, sql := range []string{
		`CREATE TABLE t (k BIGINT, s VARCHAR)`,
		`INSERT INTO t VALUES (1, 'a'), (2, 'b')`,
		`INSERT INTO t VALUES (3, 'c')`,
		`CREATE TABLE u AS SELECT k * 10 AS k10 FROM t`,
		`CREATE VIEW big AS SELECT k FROM t WHERE k > 1`,
		`CREATE TABLE gone (x INTEGER)`,
		`DROP TABLE gone`,
	} {
		if _, err := cl.ExecuteUpdate(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	stop()

	ts2, _ := startDurable(t, dir)
	cl2 := ts2.client(t)
	for sql, want := range map[string]string{
		`SELECT count(*), sum(k), max(s) FROM t`: "3|6|c",
		`SELECT sum(k10) FROM u`:                 "60",
		`SELECT count(*) FROM big`:               "2",
		`SHOW TABLES`:                            "big,t,u",
	} {
		got, err := fetch(t, cl2, ctx, sql)
		if err != nil || strings.Join(got, ",") != want {
			t.Errorf("after the restart, %s: %v %v, want %s", sql, got, err, want)
		}
	}
}

// TestDatabaseSQLUpdates: arrow-go's database/sql driver makes and fills
// a table with db.Exec, with and without arguments (a prepared update
// with a row of parameters), and reads the rows affected.
func TestDatabaseSQLUpdates(t *testing.T) {
	ts := startServer(t, Config{})
	db, err := sql.Open("flightsql", "flightsql://"+ts.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	affected := func(sql string, args ...any) int64 {
		t.Helper()
		res, err := db.Exec(sql, args...)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	affected(`CREATE TABLE kv (k BIGINT PRIMARY KEY, v VARCHAR)`)
	if n := affected(`INSERT INTO kv VALUES (1, 'one'), (2, 'two')`); n != 2 {
		t.Errorf("plain insert: %d rows", n)
	}
	for i := int64(3); i <= 5; i++ {
		if n := affected(`INSERT INTO kv VALUES (?, ?)`, i, fmt.Sprint("v", i)); n != 1 {
			t.Errorf("insert with arguments: %d rows", n)
		}
	}
	if _, err := db.Exec(`INSERT INTO kv VALUES (?, ?)`, int64(3), "again"); err == nil || !strings.Contains(err.Error(), "duplicate key") {
		t.Errorf("duplicate key: %v", err)
	}
	var n int64
	var maxV string
	if err := db.QueryRow(`SELECT count(*), max(v) FROM kv`).Scan(&n, &maxV); err != nil || n != 5 || maxV != "v5" {
		t.Errorf("after the inserts: %d %q %v", n, maxV, err)
	}
}

// TestSmallIngestsCoalesce: a hundred one-row bulk-ingest appends leave a
// few batches, not a hundred.
func TestSmallIngestsCoalesce(t *testing.T) {
	ts := startServer(t, Config{})
	cl := ts.client(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for i := range 100 {
		r := pointsReader(t, mem, i, i+1, 1)
		_, err := cl.ExecuteIngest(ctx, r, ingestOpts("points", flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionAppend))
		r.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	info, err := ts.cache.Info("points")
	if err != nil || info.Rows != 100 || info.Batches > 8 {
		t.Fatalf("%d rows in %d batches, %v", info.Rows, info.Batches, err)
	}
	if got, err := fetch(t, cl, ctx, `SELECT count(DISTINCT k), min(k), max(k) FROM points`); err != nil || got[0] != "100|0|99" {
		t.Fatalf("%v %v", got, err)
	}
}
