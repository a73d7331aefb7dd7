package server

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/internal/datagen"
)

// allTypesSchema is datagen.AllTypes and the types it leaves out: the
// other integer widths, and timestamps of every unit with and without a
// zone.
func allTypesSchema() *arrow.Schema {
	fields := datagen.AllTypes().Fields()
	for _, f := range []arrow.Field{
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16},
		{Name: "u32", Type: arrow.PrimitiveTypes.Uint32},
		{Name: "ts_s", Type: &arrow.TimestampType{Unit: arrow.Second}},
		{Name: "ts_ms_tz", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "Europe/Berlin"}},
		{Name: "ts_us", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
		{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}},
		{Name: "ts_ns_tz", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "America/New_York"}},
	} {
		f.Nullable = true
		fields = append(fields, f)
	}
	return arrow.NewSchema(fields, nil)
}

// TestAllTypesThroughServer (issue 15): a table with a column of every
// type is ingested through the Flight SQL server, read back with
// arrow-go's client and compared, and each column is then selected,
// filtered, sorted, grouped and aggregated through the server. What a
// type cannot do must fail with an error that names it, never an internal
// one; the types below in queryable must do all of it. The test logs the
// whole matrix.
func TestAllTypesThroughServer(t *testing.T) {
	ts := startServer(t, Config{})
	cl := ts.client(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	schema := allTypesSchema()
	b := array.NewRecordBuilder(mem, schema)
	r := rand.New(rand.NewPCG(15, 7))
	for range 300 {
		for i, f := range schema.Fields() {
			datagen.AppendRandom(b.Field(i), f.Type, 0.2, r)
		}
	}
	rec := b.NewRecordBatch()
	b.Release()
	defer rec.Release()

	// Ingest column by column, so one type ingest refuses does not hide
	// the others.
	var ingested []string
	for i, f := range schema.Fields() {
		one := arrow.NewSchema([]arrow.Field{f}, nil)
		col := array.NewRecordBatch(one, []arrow.Array{rec.Column(i)}, rec.NumRows())
		rr, err := array.NewRecordReader(one, []arrow.RecordBatch{col})
		col.Release()
		if err != nil {
			t.Fatal(err)
		}
		table := "t_" + f.Name
		n, err := cl.ExecuteIngest(ctx, rr, ingestOpts(table, flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionFail))
		rr.Release()
		if err != nil {
			t.Logf("%-10s %-40s ingest: %v", f.Name, f.Type, err)
			checkClear(t, f, "ingest", err)
			continue
		}
		if n != rec.NumRows() {
			t.Errorf("%s: ingested %d rows, want %d", f.Name, n, rec.NumRows())
		}
		ingested = append(ingested, f.Name)
		// read back: the same values
		got, err := readAll(ctx, cl, mem, `SELECT * FROM `+table)
		if err != nil {
			// SELECT refuses a type with no engine type: clearly
			checkClear(t, f, "SELECT *", err)
			continue
		}
		if len(got) != 1 || !sameValues(got[0], rec.Column(i)) {
			t.Errorf("%s (%s): read back differs from what was ingested", f.Name, f.Type)
		}
		for _, a := range got {
			a.Release()
		}
	}

	ops := []struct{ name, sql string }{
		{"select", `SELECT c FROM %s WHERE c IS NOT NULL LIMIT 3`},
		{"filter", `SELECT count(*) FROM %s WHERE c = c`},
		{"order by", `SELECT c FROM %s ORDER BY c NULLS FIRST LIMIT 5`},
		{"group by", `SELECT c, count(*) FROM %s GROUP BY c`},
		{"min/max", `SELECT min(c), max(c) FROM %s`},
	}
	queryable := map[string]bool{
		"bool": true, "i8": true, "i16": true, "i32": true, "i64": true, "u8": true, "u16": true, "u32": true, "u64": true,
		"f32": true, "f64": true, "dec32": true, "dec64": true, "dec128": true, "date32": true, "date64": true,
		"dec256": true, // its 76 digits compute as DOUBLE, as DuckDB's Parquet reader reads them
		// not ts_s: its random seconds pass ±292,000 years, which the
		// engine's microseconds do not hold (a clear error naming it)
		"time32": true, "time64": true, "ts": true, "ts_ms_tz": true, "ts_us": true, "ts_ns": true, "ts_ns_tz": true,
		"str": true, "lstr": true, "dict": true, "f16": true,
		"bin": true, "lbin": true, "fsb": true, "binview": true, "strview": true,
		"dur": true, "ivl_m": true, "ivl_dt": true, "ivl_mdn": true, // as INTERVAL
	}
	for _, name := range []string{"list", "llist", "listview", "llistview", "fsl", "struct", "listdict"} {
		// whole lists and structs are compared, sorted, grouped and
		// taken by min and max by their keys, in DuckDB's order (query's
		// build_nestedkey.go)
		queryable[name] = true
	}
	// run-end encoded columns compute as their values (query's
	// package expr, ree.go)
	queryable["ree"] = true
	// maps and unions too: a map as the list of its entries, a union by
	// member, then value (package sortkey); a union is also read with
	// union_tag and union_extract (checkNestedAccess)
	for _, name := range []string{"map", "sunion", "dunion"} {
		queryable[name] = true
	}
	var matrix []string
	for _, name := range ingested {
		f, _ := schema.FieldsByName(name)
		line := fmt.Sprintf("%-10s %-34s", name, f[0].Type)
		for _, op := range ops {
			sql := fmt.Sprintf(strings.ReplaceAll(op.sql, "c", `"`+name+`"`), "t_"+name)
			sql = strings.Replace(sql, `"`+name+`"ount(*)`, "count(*)", -1)
			_, err := fetch(t, cl, ctx, sql)
			if err != nil {
				line += " " + op.name + ":NO"
				checkClear(t, f[0], op.name, err)
				if queryable[name] {
					t.Errorf("%s (%s): %s: %v", name, f[0].Type, sql, err)
				}
				continue
			}
			line += " " + op.name + ":ok"
		}
		matrix = append(matrix, line)
	}
	t.Logf("what each type does through the server:\n%s", strings.Join(matrix, "\n"))
	checkNestedAccess(t, ctx, cl, schema, rec, ingested) // alltypes_nested_test.go

	// computed intervals and BLOBs reach the client as Arrow's types
	for _, tc := range []struct{ sql, typ, val string }{
		{`SELECT INTERVAL '1 day 2 hours'`, "month_day_nano_interval", `{"months":0,"days":1,"nanoseconds":7200000000000}`},
		{`SELECT TIMESTAMP '2024-03-02 03:00' - TIMESTAMP '2024-01-01'`, "month_day_nano_interval", `{"months":0,"days":61,"nanoseconds":10800000000000}`},
		{`SELECT x'0AFF'`, "binary", "Cv8="},
	} {
		got, err := readAll(ctx, cl, mem, tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if len(got) != 1 || got[0].DataType().String() != tc.typ || got[0].ValueStr(0) != tc.val {
			t.Errorf("%s: %v, want %s %s", tc.sql, got, tc.typ, tc.val)
		}
		for _, a := range got {
			a.Release()
		}
	}
}

// readAll runs sql and returns its single column, one array per batch.
func readAll(ctx context.Context, cl *flightsql.Client, mem memory.Allocator, sql string) ([]arrow.Array, error) {
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		return nil, err
	}
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var out []arrow.Array
	for r.Next() {
		c := r.RecordBatch().Column(0)
		c.Retain()
		out = append(out, c)
	}
	if len(out) > 1 {
		whole, err := array.Concatenate(out, mem)
		for _, a := range out {
			a.Release()
		}
		if err != nil {
			return nil, err
		}
		out = []arrow.Array{whole}
	}
	return out, r.Err()
}

// checkClear fails unless err is a client error (not Internal or Unknown)
// whose message names the column's type or name.
func checkClear(t *testing.T, f arrow.Field, op string, err error) {
	t.Helper()
	code := status.Code(err)
	msg := strings.ToLower(err.Error())
	if code == codes.Internal || code == codes.Unknown {
		t.Errorf("%s (%s): %s: an internal error: %v", f.Name, f.Type, op, err)
	}
	engine := "\x00"
	if f.Type.ID() == arrow.DURATION || strings.Contains(f.Type.Name(), "interval") {
		engine = "interval" // read as INTERVAL: errors past that name the engine type
	}
	if !strings.Contains(msg, strings.ToLower(f.Name)) && !strings.Contains(msg, strings.ToLower(f.Type.String())) &&
		!strings.Contains(msg, strings.ToLower(f.Type.Name())) && !strings.Contains(msg, engine) {
		t.Errorf("%s (%s): %s: the error names neither the column nor its type: %v", f.Name, f.Type, op, err)
	}
}

// sameValues reports whether a and b hold the same values row by row (a
// dictionary column may come back with another dictionary).
func sameValues(a, b arrow.Array) bool {
	if a.Len() != b.Len() {
		return false
	}
	for i := range a.Len() {
		if a.IsNull(i) != b.IsNull(i) || !a.IsNull(i) && a.ValueStr(i) != b.ValueStr(i) {
			return false
		}
	}
	return true
}
