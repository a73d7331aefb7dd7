package query

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// TestJoinBuildCompacts: a build side of a few rows sliced from a large
// batch (a LIMIT's, a HAVING's) is copied out rather than held with the
// whole batch's buffers, so the join counts its rows' bytes, not the
// batch's (TPC-H Q18: 57 build rows held 193 MiB).
func TestJoinBuildCompacts(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	pad := strings.Repeat("x", 300)
	for i := range 8000 { // one batch of about 2.4 MB
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(pad + strconv.Itoa(i))
	}
	big := b.NewRecordBatch()
	b.Release()
	putTable(t, c, "big", []arrow.RecordBatch{big})
	big.Release()
	e := New(c, Options{Alloc: mem, Workers: 1})
	sql := "SELECT count(*), max(length(b.s)) FROM big a JOIN (SELECT k, s FROM big LIMIT 10) b ON a.k = b.k"
	rows, err := run(t, e, sql)
	if err != nil || len(rows) != 1 || !strings.HasPrefix(rows[0], "10") {
		t.Fatalf("%v: %v", rows, err)
	}
	plan, err := run(t, e, "EXPLAIN ANALYZE "+sql)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(plan, "\n")
	m := regexp.MustCompile(`build 10 rows, (\d+) bytes`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no build of 10 rows in:\n%s", text)
	}
	if n, _ := strconv.Atoi(m[1]); n > 64<<10 {
		t.Errorf("the 10 build rows hold %d bytes: the batch they were cut from, not copied out\n%s", n, text)
	}
}
