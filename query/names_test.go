package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// putIDs stores table name with one int64 column id of n rows.
func putIDs(t *testing.T, c *cache.Cache, mem memory.Allocator, name string, n int) error {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	r, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	defer r.Release()
	_, err := c.Put(context.Background(), name, r, cache.TableOptions{})
	return err
}

// TestTableNamesFoldAndQuote: unquoted table names match ignoring case,
// quoted ones exactly, a table differing only in case cannot be added, and
// a schema other than main is an error (issue 13: FROM LINEITEM read a
// table loaded later as LINEITEM, and FROM nosuchdb.lineitem answered).
func TestTableNamesFoldAndQuote(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := cache.New(cache.Options{Alloc: mem})
	if err := putIDs(t, c, mem, "lineitem", 5); err != nil {
		t.Fatal(err)
	}
	if err := putIDs(t, c, mem, "Upper", 3); err != nil {
		t.Fatal(err)
	}
	if err := putIDs(t, c, mem, "LINEITEM", 2); !errors.Is(err, cache.ErrNameClash) {
		t.Fatalf("a table differing only in case: %v", err)
	}
	e := New(c, Options{Alloc: mem})
	for _, tc := range []struct{ from, want string }{
		{`lineitem`, "5"},
		{`LINEITEM`, "5"},
		{`LineItem`, "5"},
		{`"lineitem"`, "5"},
		{`main.lineitem`, "5"},
		{`MAIN.LineItem l`, "5"},
		{`"main"."lineitem"`, "5"},
		{`quiver.main.lineitem`, "5"},
		{`"quiver" . MAIN . "lineitem" AS l`, "5"},
		{`/* FROM x */ lineitem -- FROM y`, "5"},
		{`upper`, "3"},
		{`UPPER`, "3"},
		{`"Upper"`, "3"},
		{"`Upper`", "3"},
	} {
		got, err := run(t, e, "SELECT count(*) FROM "+tc.from)
		if err != nil || fmt.Sprint(got) != "["+tc.want+"]" {
			t.Errorf("FROM %s: %v, %v; want %s", tc.from, got, err, tc.want)
		}
	}
	got, err := run(t, e, `SELECT max(main.lineitem.id), max(lineitem.id) FROM lineitem WHERE main.lineitem.id < 3`)
	if err != nil || fmt.Sprint(got) != "[2|2]" {
		t.Errorf("main.lineitem.id: %v, %v", got, err)
	}
	if _, err := run(t, e, `SELECT other.lineitem.id FROM lineitem`); !errors.Is(err, ErrInvalid) {
		t.Errorf("other.lineitem.id: %v", err)
	}
	for _, tc := range []struct{ sql, want string }{
		{`SELECT count(*) FROM "LINEITEM"`, `at line 1, column 22: "LINEITEM" (quoted names match exactly; did you mean "lineitem"?)`},
		{`SELECT count(*) FROM "upper"`, `did you mean "Upper"?`},
		{"SELECT count(*)\nFROM  nosuchdb.lineitem", `at line 2, column 7: no schema "nosuchdb": the tables are in schema main (catalog quiver)`},
		{`SELECT count(*) FROM "MAIN".lineitem`, `no schema "MAIN"`},
		{`SELECT count(*) FROM quiver.lineitem`, `no schema "quiver"`},
		{`SELECT count(*) FROM lineitm`, `"lineitm" (tables: Upper, lineitem)`},
		{`SELECT count(*) FROM other.main.lineitem`, `at line 1, column 22: no catalog "other": the tables are in catalog quiver, schema main`},
		{`SELECT count(*) FROM "QUIVER".main.lineitem`, `no catalog "QUIVER"`},
		{`SELECT count(*) FROM quiver.nosuch.lineitem`, `at line 1, column 29: no schema "nosuch"`},
	} {
		_, err := run(t, e, tc.sql)
		if !errors.Is(err, ErrNoTable) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want ErrNoTable containing %q", tc.sql, err, tc.want)
		}
	}
}

func TestFromName(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{`SELECT a FROM t`, `[{t false 14}]`},
		{`SELECT EXTRACT(YEAR FROM d), 'from x', "from" FROM "T""q" WHERE 1`, `[{T"q true 51}]`},
		{"SELECT a -- FROM x\n# FROM y\n FROM /* FROM z */ s . `U`", "[{s false 47} {U true 51}]"},
		{`SELECT 'it''s \' FROM x' FROM t`, `[{t false 30}]`},
		{`SELECT 1`, `[]`},
	} {
		if got := fmt.Sprint(fromName(tc.sql)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.sql, got, tc.want)
		}
	}
}
