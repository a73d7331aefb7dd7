package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestIngestRefusesANameDifferingOnlyInCase: issue 13 loaded LINEITEM next
// to lineitem, after which FROM LINEITEM read the new table. The ingest is
// refused before the upload is read, naming both tables, and queries keep
// reading the one table under any unquoted spelling.
func TestIngestRefusesANameDifferingOnlyInCase(t *testing.T) {
	ts := startServer(t, Config{})
	cl := ts.client(t)
	ctx := context.Background()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := pointsReader(t, mem, 0, 100, 50)
	_, err := cl.ExecuteIngest(ctx, r, ingestOpts("points", flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionFail))
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	for _, exists := range []flightsql.TableDefinitionOptionsTableExistsOption{
		flightsql.TableDefinitionOptionsTableExistsOptionFail, flightsql.TableDefinitionOptionsTableExistsOptionReplace,
	} {
		r = pointsReader(t, mem, 0, 2, 2)
		_, err = cl.ExecuteIngest(ctx, r, ingestOpts("POINTS", flightsql.TableDefinitionOptionsTableNotExistOptionCreate, exists))
		r.Release()
		if status.Code(err) != codes.AlreadyExists || !strings.Contains(err.Error(), `table "POINTS" would clash with table "points"`) {
			t.Errorf("ingest POINTS (if exists: %v): %v", exists, err)
		}
	}
	if got := ts.cache.Tables(); fmt.Sprint(got) != "[points]" {
		t.Errorf("tables %v", got)
	}
	for _, from := range []string{"points", "POINTS", "main.Points", `"points"`, `"quiver"."main"."points"`} {
		got, err := fetch(t, cl, ctx, "SELECT count(*) FROM "+from)
		if err != nil || fmt.Sprint(got) != "[100]" {
			t.Errorf("FROM %s: %v, %v", from, got, err)
		}
	}
	for sql, want := range map[string]string{
		`SELECT count(*) FROM nosuchdb.points`: `no schema "nosuchdb"`,
		`SELECT count(*) FROM "POINTS"`:        `did you mean "points"?`,
		`SELECT count(*) FROM x.main.points`:   `no catalog "x"`,
	} {
		_, err := fetch(t, cl, ctx, sql)
		if status.Code(err) != codes.NotFound || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want NotFound containing %q", sql, err, want)
		}
	}
}

// TestSelectWithoutFromOverFlightSQL: SELECT 1+1 and 'a' || 'b' answer
// one row through the server (issue 13: "not supported", "OR needs
// boolean operands").
func TestSelectWithoutFromOverFlightSQL(t *testing.T) {
	ts := startServer(t, Config{})
	cl := ts.client(t)
	got, err := fetch(t, cl, context.Background(), `SELECT 1+1, 'a' || 'b'`)
	if err != nil || fmt.Sprint(got) != "[2|ab]" {
		t.Errorf("got %v, %v", got, err)
	}
}
