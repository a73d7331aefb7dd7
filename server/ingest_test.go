package server

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// pointsReader makes batches of (k int64, label utf8) rows from..to.
func pointsReader(t *testing.T, mem memory.Allocator, from, to, batchRows int) array.RecordReader {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var recs []arrow.RecordBatch
	for start := from; start < to; start += batchRows {
		b := array.NewRecordBuilder(mem, schema)
		for i := start; i < min(to, start+batchRows); i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			if i%5 == 0 {
				b.Field(1).AppendNull()
			} else {
				b.Field(1).(*array.StringBuilder).Append("p" + string(rune('a'+i%26)))
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	r, err := array.NewRecordReader(schema, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recs {
		rec.Release()
	}
	return r
}

func ingestOpts(table string, notExist flightsql.TableDefinitionOptionsTableNotExistOption, exists flightsql.TableDefinitionOptionsTableExistsOption) *flightsql.ExecuteIngestOpts {
	return &flightsql.ExecuteIngestOpts{Table: table, TableDefinitionOptions: &flightsql.TableDefinitionOptions{IfNotExist: notExist, IfExists: exists}}
}

func TestIngestCreateAppendReplaceThenQuery(t *testing.T) {
	ts := startServer(t, Config{})
	cl := ts.client(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	r := pointsReader(t, mem, 0, 1000, 256)
	n, err := cl.ExecuteIngest(ctx, r, ingestOpts("points", flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionFail))
	r.Release()
	if err != nil || n != 1000 {
		t.Fatalf("create: %d rows, %v", n, err)
	}
	check := func(what, want string) {
		t.Helper()
		got, err := fetch(t, cl, ctx, `SELECT count(*), count(label), min(k), max(k) FROM points`)
		if err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("%s: got %v %v, want %s", what, got, err, want)
		}
	}
	check("create", "1000|800|0|999")

	// Exists + fail.
	r = pointsReader(t, mem, 0, 10, 10)
	_, err = cl.ExecuteIngest(ctx, r, ingestOpts("points", flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionFail))
	r.Release()
	if status.Code(err) != codes.AlreadyExists {
		t.Errorf("exists+fail: %v", err)
	}
	check("after refused create", "1000|800|0|999")

	// Append, compressed upload (the server reads any IPC codec).
	r = pointsReader(t, mem, 1000, 1500, 100)
	n, err = cl.ExecuteIngestWithIPC(ctx, r, ingestOpts("points", flightsql.TableDefinitionOptionsTableNotExistOptionFail, flightsql.TableDefinitionOptionsTableExistsOptionAppend), []ipc.Option{ipc.WithZstd()})
	r.Release()
	if err != nil || n != 500 {
		t.Fatalf("append: %d, %v", n, err)
	}
	check("append", "1500|1200|0|1499")

	// Replace.
	r = pointsReader(t, mem, 7, 17, 4)
	n, err = cl.ExecuteIngest(ctx, r, ingestOpts("points", flightsql.TableDefinitionOptionsTableNotExistOptionFail, flightsql.TableDefinitionOptionsTableExistsOptionReplace))
	r.Release()
	if err != nil || n != 10 {
		t.Fatalf("replace: %d, %v", n, err)
	}
	check("replace", "10|8|7|16")

	// Missing + fail.
	r = pointsReader(t, mem, 0, 10, 10)
	_, err = cl.ExecuteIngest(ctx, r, ingestOpts("nowhere", flightsql.TableDefinitionOptionsTableNotExistOptionFail, flightsql.TableDefinitionOptionsTableExistsOptionAppend))
	r.Release()
	if status.Code(err) != codes.NotFound {
		t.Errorf("missing+fail: %v", err)
	}

	// Append with another schema.
	other := wideReader(t, mem)
	_, err = cl.ExecuteIngest(ctx, other, ingestOpts("points", flightsql.TableDefinitionOptionsTableNotExistOptionFail, flightsql.TableDefinitionOptionsTableExistsOptionAppend))
	other.Release()
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("append with another schema: %v", err)
	}
	check("after refused append", "10|8|7|16")
}

func wideReader(t *testing.T, mem memory.Allocator) array.RecordReader {
	schema := arrow.NewSchema([]arrow.Field{{Name: "z", Type: arrow.PrimitiveTypes.Float64}}, nil)
	b := array.NewFloat64Builder(mem)
	b.AppendValues([]float64{1, 2}, nil)
	col := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 2)
	col.Release()
	r, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	rec.Release()
	return r
}

func TestIngestOverBudgetIsResourceExhausted(t *testing.T) {
	ts := startServerBudget(t, Config{}, 4<<10)
	cl := ts.client(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := pointsReader(t, mem, 0, 200000, 8192)
	defer r.Release()
	_, err := cl.ExecuteIngest(ctx, r, ingestOpts("big", flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionFail))
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("got %v, want ResourceExhausted", err)
	}
	if len(ts.cache.Tables()) != 0 || ts.cache.Used() != 0 {
		t.Errorf("a failed ingest left %v, %d bytes", ts.cache.Tables(), ts.cache.Used())
	}
}

func TestIngestRefusesWhatItCannotDo(t *testing.T) {
	ts := startServer(t, Config{})
	cl := ts.client(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tmp := true
	cat, sch := "elsewhere", "other"
	for name, opts := range map[string]*flightsql.ExecuteIngestOpts{
		"temporary":           {Table: "t", Temporary: tmp, TableDefinitionOptions: &flightsql.TableDefinitionOptions{IfNotExist: 1, IfExists: 1}},
		"catalog":             {Table: "t", Catalog: &cat, TableDefinitionOptions: &flightsql.TableDefinitionOptions{IfNotExist: 1, IfExists: 1}},
		"schema":              {Table: "t", Schema: &sch, TableDefinitionOptions: &flightsql.TableDefinitionOptions{IfNotExist: 1, IfExists: 1}},
		"unspecified options": {Table: "t", TableDefinitionOptions: &flightsql.TableDefinitionOptions{}},
	} {
		r := pointsReader(t, mem, 0, 10, 10)
		_, err := cl.ExecuteIngest(ctx, r, opts)
		r.Release()
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if len(ts.cache.Tables()) != 0 {
		t.Errorf("tables after refused ingests: %v", ts.cache.Tables())
	}
}
