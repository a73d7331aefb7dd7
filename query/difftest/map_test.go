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

// mapQueries read table maps (m: MAP(VARCHAR, BIGINT) with NULL and
// empty maps and NULL values; k: a key or NULL) with DuckDB 1.5's map
// functions: m[k] and map_extract_value the value, element_at and
// map_extract the value in a list, cardinality, map_keys, map_values.
var mapQueries = []testQuery{
	{name: "lookups", ordered: true, sql: `SELECT id, m['a'], m[k], map_extract_value(m, 'b'), element_at(m, 'a'), map_extract(m, k) FROM maps ORDER BY id`},
	{name: "missing and NULL keys", ordered: true, sql: `SELECT id, m['zz'], element_at(m, 'zz'), m[NULL], map_extract(m, NULL) FROM maps ORDER BY id`},
	{name: "parts", ordered: true, sql: `SELECT id, cardinality(m), map_keys(m), map_values(m) FROM maps ORDER BY id`},
	{name: "filter and group", sql: `SELECT m['a'] AS a, count(*), sum(cardinality(m)) FROM maps WHERE m['b'] IS NULL OR m['b'] > 2 GROUP BY a`},
	// whole maps compare, order and group as lists of entries (sortkey);
	// the harness reads a map as its keys and values
	{name: "group by map", sql: `SELECT map_keys(m), map_values(m), count(*), min(id) FROM maps GROUP BY m`},
	{name: "order by map", ordered: true, sql: `SELECT id, map_keys(m), map_values(m) FROM maps ORDER BY m NULLS FIRST, id`},
	{name: "order by map desc", ordered: true, sql: `SELECT id, map_keys(m), map_values(m) FROM maps ORDER BY m DESC NULLS LAST, id`},
	{name: "distinct maps", sql: `SELECT map_keys(m), map_values(m) FROM (SELECT DISTINCT m FROM maps) AS d`},
	{name: "map aggregates", sql: `SELECT map_keys(min(m)), map_values(min(m)), map_keys(max(m)), map_values(max(m)), count(DISTINCT m), count(m) FROM maps`},
	{name: "map of a group's aggregate", sql: `SELECT id % 3, cardinality(max(m)), max(m)['a'] FROM maps GROUP BY id % 3`},
	{name: "map comparisons", ordered: true, sql: `SELECT a.id, b.id, a.m = b.m, a.m < b.m, a.m IS DISTINCT FROM b.m FROM maps a JOIN maps b ON a.id + 1 = b.id ORDER BY a.id`},
	{name: "join on maps", sql: `SELECT a.id, b.id FROM maps a JOIN maps b ON a.m = b.m WHERE a.id < b.id AND a.id < 60`},
	{name: "maps in set operations", sql: `SELECT map_keys(m), map_values(m) FROM (SELECT m FROM maps WHERE id < 100 INTERSECT SELECT m FROM maps WHERE id >= 50) AS s`},
}

func TestMap(t *testing.T) {
	mapsOnce.Do(func() { mapsOnce.err = loadMaps(context.Background()) })
	if mapsOnce.err != nil {
		t.Fatal(mapsOnce.err)
	}
	runQueries(t, mapQueries)
}

var mapsOnce struct {
	sync.Once
	err error
}

func loadMaps(ctx context.Context) error {
	const n = 300
	rng := rand.New(rand.NewPCG(15, 4))
	mem := memory.DefaultAllocator
	keys := []string{"a", "b", "c", "é"}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for id := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(id))
		mb := b.Field(1).(*array.MapBuilder)
		if rng.IntN(7) == 0 {
			mb.AppendNull()
		} else {
			mb.Append(true)
			for _, j := range rng.Perm(len(keys))[:rng.IntN(len(keys)+1)] { // distinct keys
				mb.KeyBuilder().(*array.StringBuilder).Append(keys[j])
				appendOr(mb.ItemBuilder(), rng.IntN(5) == 0, func(v array.Builder) { v.(*array.Int64Builder).Append(rng.Int64N(6)) })
			}
		}
		appendOr(b.Field(2), rng.IntN(6) == 0, func(v array.Builder) { v.(*array.StringBuilder).Append(keys[rng.IntN(len(keys))]) })
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	if err := putHalves(ctx, env.c, "maps", rec, 130); err != nil {
		return err
	}
	return duckTable(ctx, env.db, "maps", "*", []arrow.RecordBatch{rec})
}
