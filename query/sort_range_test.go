package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
)

// TestSortByRangesSkew sorts keys most rows share on 3 workers by ranges:
// the output is the serial sort's, and EXPLAIN ANALYZE shows that the
// heavy key has a range (the rows of one key cannot be split: they share
// it) while the other keys still reach the other ranges, so no range
// holds every row.
func TestSortByRangesSkew(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	keys := 20_000
	if testing.Short() {
		keys = 4_000
	}
	c := groupsTable(t, mem, keys) // 2 × keys rows; g = key % 500
	serial := New(c, Options{Alloc: mem})
	ranges := New(c, Options{Alloc: mem, SortWorkers: 3, Workers: 3, SortByRanges: true})
	for _, tc := range []struct {
		sql     string
		maxPart float64 // of the rows, in the largest range
	}{
		// 80% of the rows are true: two keys, so a range stays empty.
		{`SELECT g > 100 AS c FROM t ORDER BY c`, 0.81},
		// 60% of the rows are key 100, in the middle of the others.
		{`SELECT CASE WHEN g BETWEEN 100 AND 399 THEN 100 ELSE g END AS c FROM t ORDER BY c DESC`, 0.65},
		// One key: one range.
		{`SELECT h = 'x' AS c FROM t ORDER BY c`, 1},
	} {
		want, _, err := runOrdered(t, serial, tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := runOrdered(t, ranges, tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			i := firstDiff(got, want)
			t.Fatalf("%s: %d rows, serially %d; first difference at row %d: %q, want %q", tc.sql, len(got), len(want), i, at(got, i), at(want, i))
		}
		parts := rangeRows(t, ranges, tc.sql)
		t.Log(tc.sql, parts)
		total, largest := int64(0), int64(0)
		for _, n := range parts {
			total += n
			largest = max(largest, n)
		}
		if total != int64(len(want)) || float64(largest) > tc.maxPart*float64(total) {
			t.Errorf("%s: ranges of %v rows, want %d in all, none above %.0f%%", tc.sql, parts, len(want), 100*tc.maxPart)
		}
	}
}

// rangeRows returns the rows of each range of the sort of sql, as
// EXPLAIN ANALYZE reports them.
func rangeRows(t *testing.T, e *Engine, sql string) []int64 {
	t.Helper()
	text, err := e.Explain(context.Background(), "EXPLAIN ANALYZE "+sql)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`sorted by ranges of \[([0-9 ]*)\] rows`).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("EXPLAIN ANALYZE does not show the ranges:\n%s", text)
	}
	var rows []int64
	for _, f := range strings.Fields(m[1]) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, n)
	}
	return rows
}

// TestSortByRangesBigTopK: top-ks of a few rows to more than the input
// holds, whose rows end inside the first range, inside the second or
// past the input, are the serial sort's.
func TestSortByRangesBigTopK(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c := groupsTable(t, mem, 3_000)
	for _, limit := range []int{1, 4099, 5999, 6000, 7000} {
		sql := fmt.Sprintf(`SELECT k, name FROM t ORDER BY name DESC, k LIMIT %d`, limit)
		want, _, err := runOrdered(t, New(c, Options{Alloc: mem}), sql)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := runOrdered(t, New(c, Options{Alloc: mem, SortWorkers: 2, Workers: 2, SortByRanges: true}), sql)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			i := firstDiff(got, want)
			t.Fatalf("LIMIT %d: %d rows, serially %d; first difference at row %d: %q, want %q", limit, len(got), len(want), i, at(got, i), at(want, i))
		}
	}
}

// TestSortByRangesClusteredInput: an input already in key order (either
// way) would put every row past its first batches in one range, so it is
// merged instead, which EXPLAIN ANALYZE says; the output is the serial
// sort's either way.
func TestSortByRangesClusteredInput(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	n := 200_000
	if testing.Short() {
		n = 80_000
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "v", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	rng := rand.New(rand.NewPCG(1, 1))
	var recs []arrow.RecordBatch
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.Int64Builder).Append(rng.Int64N(1000))
		if b.Field(0).Len() == 4096 || i == n-1 {
			recs = append(recs, b.NewRecordBatch())
		}
	}
	b.Release()
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := array.NewRecordReader(schema, recs)
	for _, rec := range recs {
		rec.Release()
	}
	_, err = c.Put(context.Background(), "o", r, cache.TableOptions{Codec: cache.Fixed(codec.SettingLZ4)})
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	serial := New(c, Options{Alloc: mem})
	ranges := New(c, Options{Alloc: mem, SortWorkers: 2, Workers: 2, SortByRanges: true})
	for _, tc := range []struct{ sql, explain string }{
		{`SELECT k, v FROM o ORDER BY k DESC`, "input in key order"},
		{`SELECT k, v FROM o ORDER BY k`, "input in key order"},
		{`SELECT k, v FROM o ORDER BY v, k`, "sorted by ranges of"},
	} {
		want, _, err := runOrdered(t, serial, tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := runOrdered(t, ranges, tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			i := firstDiff(got, want)
			t.Fatalf("%s: %d rows, serially %d; first difference at row %d: %q, want %q", tc.sql, len(got), len(want), i, at(got, i), at(want, i))
		}
		text, err := ranges.Explain(context.Background(), "EXPLAIN ANALYZE "+tc.sql)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, tc.explain) {
			t.Errorf("%s: EXPLAIN ANALYZE does not say %q:\n%s", tc.sql, tc.explain, text)
		}
	}
}
