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

// TestMessagesSayWhatTheUserWrote (issue 14 item 10): errors name the
// user's SQL and settings, not the engine's internals.
func TestMessagesSayWhatTheUserWrote(t *testing.T) {
	e, _ := newEngine(t, 10, 10)
	for _, tc := range []struct {
		sql, want string
		kind      error
	}{
		// was: syntax error near ", \"quiver$nulls_first\""
		{`SELECT id FROM orders WHERE id > 1 NULLS FIRST`, "at line 1, column 36: NULLS FIRST only follows an ORDER BY item", ErrSyntax},
		{`SELECT id FROM orders WHERE id > 1 nulls last ORDER BY id`, "NULLS LAST only follows an ORDER BY item", ErrSyntax},
		{`SELECT id FROM orders LIMIT 3 NULLS FIRST`, "NULLS FIRST only follows", ErrSyntax},
		// was: INTERVAL with a value that is not an integer constant
		{`SELECT day + INTERVAL 9223372036854775807 DAY FROM orders`, "INTERVAL 9223372036854775807 DAY is out of range: the count must be between -178956970 and 178956970", ErrInvalid},
		{`SELECT day - INTERVAL 18446744073709551616 YEAR FROM orders`, "is out of range", ErrInvalid},
		{`SELECT day + INTERVAL '99999999999999999999' DAY FROM orders`, "is out of range", ErrInvalid},
		{`SELECT day + INTERVAL 1.5 DAY FROM orders`, "INTERVAL 1.5 DAY: the count must be an integer constant", ErrUnsupported},
		{`SELECT id FROM orders WHERE qty IS TRUE`, "at line 1, column 29: IS [NOT] TRUE/FALSE tests a boolean, not BIGINT", ErrInvalid},
	} {
		_, err := run(t, e, tc.sql)
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), sentinelPrefix) {
			t.Errorf("%s: %v; want %v containing %q", tc.sql, err, tc.kind, tc.want)
		}
	}
	got, err := run(t, e, `SELECT day + INTERVAL 178956970 DAY > DATE '2000-01-01' FROM orders LIMIT 1`)
	if err != nil || fmt.Sprint(got) != "[true]" {
		t.Errorf("INTERVAL at the bound: %v, %v", got, err)
	}
}

// TestGroupByNullKey: GROUP BY NULL, or a column of Arrow type null, is
// one group (it failed with "ORDER BY: agg: unsupported: key 0 of type
// null").
func TestGroupByNullKey(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "n", Type: arrow.Null, Nullable: true}}, nil)
	ids := array.NewInt64Builder(mem)
	ids.AppendValues([]int64{1, 2, 3}, nil)
	idArr := ids.NewArray()
	ids.Release()
	nulls := array.NewNull(3)
	rec := array.NewRecordBatch(schema, []arrow.Array{idArr, nulls}, 3)
	idArr.Release()
	nulls.Release()
	c, _ := cache.New(cache.Options{Alloc: mem})
	r, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
	rec.Release()
	if _, err := c.Put(context.Background(), "t", r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	r.Release()
	e := New(c, Options{Alloc: mem})
	for _, tc := range []struct{ sql, want string }{
		{`SELECT count(*), sum(id) FROM t GROUP BY NULL`, "[3|6]"},
		{`SELECT n, count(*) FROM t GROUP BY n ORDER BY n`, "[NULL|3]"},
		{`SELECT n, id, count(*) FROM t GROUP BY n, id ORDER BY id DESC LIMIT 1`, "[NULL|3|1]"},
		{`SELECT count(*) FROM t WHERE id > 5 GROUP BY NULL`, "[]"},
	} {
		got, err := run(t, e, tc.sql)
		if err != nil || fmt.Sprint(got) != tc.want {
			t.Errorf("%s: %v, %v; want %s", tc.sql, got, err, tc.want)
		}
	}
}

// TestSortMemoryMessage: an ORDER BY past the limit with spilling off
// says by how much, and how to turn spilling on in the caller's terms
// (it said "give the engine a spill Manager").
func TestSortMemoryMessage(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, 30_000)
	const sql = `SELECT s, k, name FROM t ORDER BY s, k`
	for _, tc := range []struct {
		opts Options
		want []string
	}{
		{Options{}, []string{"ORDER BY needs ", "more bytes beyond the query memory limit (1048576 bytes; it holds ", "spilling is off (Options.Spill is nil)"}},
		{Options{MemoryLimitName: "--query-memory", NoSpillName: "--no-spill"}, []string{"beyond --query-memory (1048576 bytes;", "spilling is off (--no-spill)"}},
	} {
		tc.opts.Alloc, tc.opts.MemoryLimit = mem, 1<<20
		_, _, err := runOrdered(t, New(c, tc.opts), sql)
		if !errors.Is(err, ErrMemory) || strings.Contains(err.Error(), "Manager") {
			t.Errorf("%v, want ErrMemory not naming the Manager", err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v does not say %q", err, w)
			}
		}
	}
}
