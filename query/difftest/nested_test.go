//go:build duckdb

package difftest

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// nestedQueries read into lists and structs (issue 15) against DuckDB's
// list and struct functions: elements by positive, negative, zero and
// out-of-range index, lengths, list_contains with NULLs, fields of
// structs and of structs in structs, IS NULL, and filters, groups and
// aggregates over what is read, and unnest. DuckDB reads table nest from Parquet as
// quiver's cache holds it (the large list and the fixed-size list arrive
// as DuckDB lists, which index the same way; pqarrow writes no NULL
// fixed-size list, so f has NULL elements only). Whole lists and structs
// are not compared: quiver only passes them through.
var nestedQueries = []testQuery{
	{name: "elements", ordered: true, sql: `SELECT id, l[1], l[2], l[-1], l[-3], l[0], l[5], ls[1], ls[-1], f[2] FROM nest ORDER BY id`},
	{name: "computed index", ordered: true, sql: `SELECT id, l[id % 6 - 3], ls[k], l[k + 1] FROM nest ORDER BY id`},
	{name: "spellings", ordered: true, sql: `SELECT id, list_extract(l, 2), list_element(ls, 1), array_extract(l, -2) FROM nest ORDER BY id`},
	{name: "lengths", ordered: true, sql: `SELECT id, len(l), length(ls), array_length(f), len(nl), len(nl[1]) FROM nest ORDER BY id`},
	{name: "list_contains", ordered: true, sql: `
SELECT id, list_contains(l, 3), list_contains(l, k), list_has(ls, 'b'), array_contains(l, NULL), list_contains(f, 0.5),
       array_has(nl[1], 2), list_contains(l, 2.0)
FROM nest ORDER BY id`},
	{name: "nested lists", ordered: true, sql: `SELECT id, nl[1][1], nl[-1][-1], nl[2][k], len(nl[-1]) FROM nest ORDER BY id`},
	{name: "fields", ordered: true, sql: `SELECT id, s.a, s['b'], struct_extract(s, 'a'), s.inner.x, s.inner['y'], nest.s.a FROM nest ORDER BY id`},
	{name: "list of structs", ordered: true, sql: `SELECT id, sl[1].v, sl[-1]['v'], len(sl) FROM nest ORDER BY id`},
	{name: "is null", sql: `
SELECT count(*) FILTER (WHERE l IS NULL), count(*) FILTER (WHERE s IS NULL), count(*) FILTER (WHERE s.inner IS NULL),
       count(*) FILTER (WHERE nl[1] IS NOT NULL), count(*) FILTER (WHERE l[1] IS NULL), count(*) FILTER (WHERE f IS NOT NULL)
FROM nest`},
	{name: "filter", ordered: true, sql: `SELECT id FROM nest WHERE l[1] > 2 AND s.a IS NOT NULL OR ls[-1] = 'c' ORDER BY id`},
	{name: "group and aggregate", ordered: true, sql: `
SELECT s.a % 3 AS g, count(*), sum(l[1]), min(l[-1]), max(ls[1]), avg(len(l)), count(s.inner.x)
FROM nest GROUP BY g ORDER BY g NULLS FIRST`},
	{name: "group by element", ordered: true, sql: `SELECT l[1], count(*) FROM nest GROUP BY l[1] ORDER BY l[1] NULLS FIRST`},
	{name: "order by element", ordered: true, sql: `SELECT id, l[-1] FROM nest ORDER BY l[-1] DESC NULLS LAST, s.b, id LIMIT 40`},
	{name: "unnest", sql: `SELECT id, unnest(l), s.a FROM nest`},
	{name: "unnest filtered", sql: `SELECT id, k, unnest(ls) AS v FROM nest WHERE id % 3 = 0`},
	{name: "unnest of an element", sql: `SELECT id, unnest(nl[1]) FROM nest`},
	{name: "unnest ordered and limited", ordered: true, sql: `SELECT id, unnest(f) AS v FROM nest ORDER BY v DESC NULLS LAST, id LIMIT 25`},
	{name: "aggregate over unnest", ordered: true, sql: `SELECT v, count(*), sum(id) FROM (SELECT id, unnest(l) AS v FROM nest) u GROUP BY v ORDER BY v NULLS FIRST`},
	{name: "self join on elements", ordered: true, sql: `
SELECT a.id, b.id FROM nest a JOIN nest b ON a.l[1] = b.s.a WHERE a.id < 40 AND b.id < 40 ORDER BY a.id, b.id`},
}

func TestNested(t *testing.T) {
	nestOnce.Do(func() { nestOnce.err = loadNest(context.Background()) })
	if nestOnce.err != nil {
		t.Fatal(nestOnce.err)
	}
	runQueries(t, nestedQueries)
}

var nestOnce struct {
	sync.Once
	err error
}

// loadNest makes table nest, 600 rows: id; l, a list of int32 (empty,
// NULL, and NULL elements among them); ls, a large list of strings; f, a
// fixed-size list of two float64; nl, a list of lists; s, a struct with
// a struct inside; sl, a list of structs; k, a small integer index.
func loadNest(ctx context.Context) error {
	inner := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int32), Nullable: true},
		{Name: "ls", Type: arrow.LargeListOf(arrow.BinaryTypes.String), Nullable: true},
		{Name: "f", Type: arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float64), Nullable: true},
		{Name: "nl", Type: arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int64)), Nullable: true},
		{Name: "s", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "inner", Type: inner, Nullable: true}), Nullable: true},
		{Name: "sl", Type: arrow.ListOf(arrow.StructOf(arrow.Field{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true})), Nullable: true},
	}, nil)
	rng := rand.New(rand.NewPCG(15, 1))
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	words := []string{"a", "b", "c", "", "é"}
	for id := range 600 {
		null := func(k int) bool { return rng.IntN(k) == 0 }
		b.Field(0).(*array.Int64Builder).Append(int64(id))
		appendOr(b.Field(1), null(8), func(f array.Builder) { f.(*array.Int64Builder).Append(rng.Int64N(9) - 4) })
		appendOr(b.Field(2), null(7), func(f array.Builder) {
			lb := f.(*array.ListBuilder)
			lb.Append(true)
			for range rng.IntN(5) {
				appendOr(lb.ValueBuilder(), null(6), func(v array.Builder) { v.(*array.Int32Builder).Append(rng.Int32N(7)) })
			}
		})
		appendOr(b.Field(3), null(9), func(f array.Builder) {
			lb := f.(*array.LargeListBuilder)
			lb.Append(true)
			for range rng.IntN(4) {
				appendOr(lb.ValueBuilder(), null(5), func(v array.Builder) { v.(*array.StringBuilder).Append(words[rng.IntN(len(words))]) })
			}
		})
		// never a NULL list: pqarrow cannot write a NULL fixed-size list
		// (its slot has a length)
		appendOr(b.Field(4), false, func(f array.Builder) {
			lb := f.(*array.FixedSizeListBuilder)
			lb.Append(true)
			for range 2 {
				appendOr(lb.ValueBuilder(), null(5), func(v array.Builder) { v.(*array.Float64Builder).Append(float64(rng.IntN(5)) / 2) })
			}
		})
		appendOr(b.Field(5), null(8), func(f array.Builder) {
			lb := f.(*array.ListBuilder)
			lb.Append(true)
			for range rng.IntN(4) {
				appendOr(lb.ValueBuilder(), null(5), func(v array.Builder) {
					ib := v.(*array.ListBuilder)
					ib.Append(true)
					for range rng.IntN(4) {
						ib.ValueBuilder().(*array.Int64Builder).Append(rng.Int64N(5))
					}
				})
			}
		})
		appendOr(b.Field(6), null(7), func(f array.Builder) {
			sb := f.(*array.StructBuilder)
			sb.Append(true)
			appendOr(sb.FieldBuilder(0), null(6), func(v array.Builder) { v.(*array.Int32Builder).Append(rng.Int32N(9) - 2) })
			appendOr(sb.FieldBuilder(1), null(6), func(v array.Builder) { v.(*array.StringBuilder).Append(words[rng.IntN(len(words))]) })
			appendOr(sb.FieldBuilder(2), null(5), func(v array.Builder) {
				ib := v.(*array.StructBuilder)
				ib.Append(true)
				appendOr(ib.FieldBuilder(0), null(4), func(x array.Builder) { x.(*array.Int64Builder).Append(rng.Int64N(100)) })
				appendOr(ib.FieldBuilder(1), null(4), func(x array.Builder) { x.(*array.StringBuilder).Append(words[rng.IntN(len(words))]) })
			})
		})
		appendOr(b.Field(7), null(8), func(f array.Builder) {
			lb := f.(*array.ListBuilder)
			lb.Append(true)
			for range rng.IntN(3) {
				appendOr(lb.ValueBuilder(), null(5), func(v array.Builder) {
					sb := v.(*array.StructBuilder)
					sb.Append(true)
					appendOr(sb.FieldBuilder(0), null(4), func(x array.Builder) { x.(*array.Int64Builder).Append(rng.Int64N(10)) })
				})
			}
		})
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	// two batches in quiver, so that a filter meets more than one
	if err := putHalves(ctx, env.c, "nest", rec, 300); err != nil {
		return err
	}
	return duckTable(ctx, env.db, "nest", "*", []arrow.RecordBatch{rec})
}
