package server

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	_ "github.com/apache/arrow-go/v18/arrow/flight/flightsql/driver"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestErrorsMapToCodes(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(100, 100))
	cl := ts.client(t)
	ctx := context.Background()
	for _, tc := range []struct {
		sql  string
		code codes.Code
		msg  string
	}{
		{`SELEC id FROM nums`, codes.InvalidArgument, "syntax error"},
		{`SELECT a.id FROM nums a, LATERAL (SELECT a.id) b`, codes.InvalidArgument, "LATERAL"},
		{`SELECT id FROM missing`, codes.NotFound, `"missing"`},
		{`SELECT nope FROM nums`, codes.InvalidArgument, `no column "nope"`},
		{`DELETE FROM nums`, codes.InvalidArgument, "Delete"},
	} {
		_, err := cl.Execute(ctx, tc.sql)
		if status.Code(err) != tc.code || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: got %v, want %v with %q", tc.sql, err, tc.code, tc.msg)
		}
	}
	// An error while streaming (division by zero at row 0).
	_, err := fetch(t, cl, ctx, `SELECT id / (id - id) FROM nums`)
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("division by zero: %v", err)
	}
	if _, err := cl.ExecuteUpdate(ctx, `DELETE FROM nums`); status.Code(err) != codes.InvalidArgument {
		t.Errorf("update: %v", err)
	}
}

func TestPreparedStatementsWithParameters(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(1000, 100))
	cl := ts.client(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	plain, err := cl.Prepare(ctx, `SELECT count(*) FROM nums WHERE grp = 3`)
	if err != nil {
		t.Fatal(err)
	}
	if plain.DatasetSchema() == nil || plain.DatasetSchema().NumFields() != 1 {
		t.Errorf("dataset schema of a statement without parameters: %v", plain.DatasetSchema())
	}
	info, err := plain.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fetchInfo(ctx, cl, info); err != nil || fmt.Sprint(got) != "[143]" {
		t.Errorf("no parameters: %v %v", got, err)
	}
	plain.Close(ctx)

	stmt, err := cl.Prepare(ctx, `SELECT id, name FROM nums WHERE grp = ? AND id < ? AND name LIKE ? ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close(ctx)
	for _, tc := range []struct {
		grp, below int64
		like, want string
	}{
		{3, 30, "row%", "[3|row 3 10|row 10 17|row 17 24|row 24]"},
		{0, 15, "row 1%", "[14|row 14]"},
	} {
		rec := paramRecord(mem, tc.grp, tc.below, tc.like)
		stmt.SetParameters(rec)
		rec.Release()
		info, err := stmt.Execute(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := fetchInfo(ctx, cl, info); err != nil || fmt.Sprint(got) != tc.want {
			t.Errorf("grp %d below %d: got %v %v, want %s", tc.grp, tc.below, got, err, tc.want)
		}
	}
	// Closed handles are gone.
	handle := stmt.Handle()
	stmt.Close(ctx)
	ts.prepared.mu.Lock()
	_, held := ts.prepared.m[string(handle)]
	ts.prepared.mu.Unlock()
	if held {
		t.Errorf("closed statement %q still held", handle)
	}
}

func paramRecord(mem memory.Allocator, grp, below int64, like string) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "p1", Type: arrow.PrimitiveTypes.Int64}, {Name: "p2", Type: arrow.PrimitiveTypes.Int64}, {Name: "p3", Type: arrow.BinaryTypes.String},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).Append(grp)
	b.Field(1).(*array.Int64Builder).Append(below)
	b.Field(2).(*array.StringBuilder).Append(like)
	return b.NewRecordBatch()
}

// TestDatabaseSQLDriver goes through arrow-go's database/sql driver:
// plain queries and prepared statements with arguments.
func TestDatabaseSQLDriver(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(1000, 100))
	db, err := sql.Open("flightsql", "flightsql://"+ts.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT count(*) FROM nums WHERE id >= 500`).Scan(&n); err != nil || n != 500 {
		t.Fatalf("count: %d %v", n, err)
	}
	rows, err := db.Query(`SELECT id, name, val FROM nums WHERE grp = ? AND id < ? ORDER BY id`, int64(2), int64(20))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id int64
		var name string
		var val float64
		if err := rows.Scan(&id, &name, &val); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %g", id, name, val))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if fmt.Sprint(got) != "[2 row 2 0.5 9 row 9 2.25 16 row 16 4]" {
		t.Errorf("got %v", got)
	}
	if _, err := db.Query(`SELECT id FROM nowhere`); err == nil {
		t.Error("unknown table: no error")
	}
}

func TestCatalogCalls(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(10, 10), wideStrings(5, 5, 3))
	cl := ts.client(t)
	ctx := context.Background()
	rows := func(info *flight.FlightInfo, err error) []string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		got, err := fetchInfo(ctx, cl, info)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := rows(cl.GetCatalogs(ctx)); fmt.Sprint(got) != "[quiver]" {
		t.Errorf("catalogs: %v", got)
	}
	pattern := "ma%"
	if got := rows(cl.GetDBSchemas(ctx, &flightsql.GetDBSchemasOpts{DbSchemaFilterPattern: &pattern})); fmt.Sprint(got) != "[quiver|main]" {
		t.Errorf("schemas: %v", got)
	}
	if got := rows(cl.GetTableTypes(ctx)); fmt.Sprint(got) != "[TABLE VIEW]" {
		t.Errorf("table types: %v", got)
	}
	if got := rows(cl.GetTables(ctx, &flightsql.GetTablesOpts{})); fmt.Sprint(got) != "[quiver|main|nums|TABLE quiver|main|wide|TABLE]" {
		t.Errorf("tables: %v", got)
	}
	tp := "w_d%"
	info, err := cl.GetTables(ctx, &flightsql.GetTablesOpts{TableNameFilterPattern: &tp, IncludeSchema: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Next() || r.RecordBatch().NumRows() != 1 {
		t.Fatal("GetTables with a pattern: not one row")
	}
	blob := r.RecordBatch().Column(4).(*array.Binary).Value(0)
	schema, err := flight.DeserializeSchema(blob, memory.DefaultAllocator)
	if err != nil || schema.Field(0).Name != "s" {
		t.Errorf("table schema: %v %v", schema, err)
	}

	info, err = cl.GetSqlInfo(ctx, []flightsql.SqlInfo{flightsql.SqlInfoFlightSqlServerName, flightsql.SqlInfoFlightSqlServerBulkIngestion})
	if err != nil {
		t.Fatal(err)
	}
	if got := rows(info, nil); len(got) != 2 || !strings.Contains(got[0], "quiver") {
		t.Errorf("sql info: %v", got)
	}
}

func TestLikePatternsAreLinear(t *testing.T) {
	for _, tc := range []struct {
		p, s string
		want bool
	}{
		{"%", "", true}, {"a%", "abc", true}, {"%c", "abc", true}, {"a_c", "abc", true},
		{"a_c", "ac", false}, {"%b%", "abc", true}, {"x%", "abc", false}, {"", "", true}, {"", "a", false},
		{strings.Repeat("%a", 40) + "b", strings.Repeat("a", 5000), false},
	} {
		if got := like([]rune(tc.p), []rune(tc.s)); got != tc.want {
			t.Errorf("%q LIKE %q = %v", tc.s, tc.p, got)
		}
	}
}

// TestConcurrentClients runs 16 clients at once, each with its own
// session codec and parameters, each checking its own rows.
func TestConcurrentClients(t *testing.T) {
	ts := startServer(t, Config{MaxQueries: 4}, numbersTable(20000, 1000))
	codecs := []string{"none", "lz4", "zstd:1", "zstd:3"}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for c := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := ts.client(t)
			ctx := context.Background()
			setCodec(t, cl, ctx, codecs[c%4])
			for round := range 3 {
				lo := int64(c*1000 + round*100)
				got, err := fetch(t, cl, ctx, fmt.Sprintf(`SELECT id, name FROM nums WHERE id >= %d AND id < %d ORDER BY id DESC`, lo, lo+300))
				if err != nil {
					errs <- err
					return
				}
				if len(got) != 300 {
					errs <- fmt.Errorf("client %d round %d: %d rows", c, round, len(got))
					return
				}
				for i, row := range got {
					if id := lo + 299 - int64(i); row != fmt.Sprintf("%d|row %d", id, id) {
						errs <- fmt.Errorf("client %d round %d: row %d is %q", c, round, i, row)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestBoundStringsOutliveTheirUpload: a string parameter is copied out of
// the uploaded batch, whose buffers go back to the allocator (and, with
// the server's recycling allocator, to the next batch) once read.
func TestBoundStringsOutliveTheirUpload(t *testing.T) {
	ts := startServerOn(t, poisonAllocator{memory.NewGoAllocator()}, Config{}, 256<<20, numbersTable(100, 100))
	cl := ts.client(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	stmt, err := cl.Prepare(ctx, `SELECT id, name FROM nums WHERE grp = ? AND id < ? AND name LIKE ? ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close(ctx)
	rec := paramRecord(mem, 3, 30, "row 1%")
	stmt.SetParameters(rec)
	rec.Release()
	info, err := stmt.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := fetchInfo(ctx, cl, info); err != nil || fmt.Sprint(got) != "[10|row 10 17|row 17]" {
		t.Errorf("got %v %v", got, err)
	}
}

// TestParametersAreBoundedLikeSQL: the values bound to a prepared
// statement are kept with it, as its SQL is, and bounded by the same
// limit (--max-sql-bytes); they went around every limit before, an 8 MiB
// string bound to a server that refuses 1 KiB of SQL.
func TestParametersAreBoundedLikeSQL(t *testing.T) {
	ts := startServer(t, Config{MaxSQLBytes: 1024}, numbersTable(100, 100))
	cl := ts.client(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	stmt, err := cl.Prepare(ctx, `SELECT count(*) FROM nums WHERE grp = ? AND id < ? AND name <> ?`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close(ctx)
	rec := paramRecord(mem, 3, 30, strings.Repeat("x", 8<<20))
	stmt.SetParameters(rec)
	rec.Release()
	_, err = stmt.Execute(ctx)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "--max-sql-bytes") {
		t.Fatalf("8 MiB of parameters: %v, want ResourceExhausted naming --max-sql-bytes", err)
	}
	rec = paramRecord(mem, 3, 30, "small")
	stmt.SetParameters(rec)
	rec.Release()
	info, err := stmt.Execute(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got, err := fetchInfo(ctx, cl, info)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := cl.Execute(ctx, `SELECT count(*) FROM nums WHERE grp = 3 AND id < 30 AND name <> 'small'`)
	if err != nil {
		t.Fatal(err)
	}
	if want, err := fetchInfo(ctx, cl, plain); err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("small parameters: %v, want %v (%v)", got, want, err)
	}
}
