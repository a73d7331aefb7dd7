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

// reeQueries read table runs, whose columns r (strings) and ri (int64s)
// quiver keeps run-end encoded and DuckDB, which has no such type, reads
// decoded from Parquet: quiver must answer as if they were stored
// decoded (package expr's ree.go).
var reeQueries = []testQuery{
	{name: "select", ordered: true, sql: `SELECT id, r, ri FROM runs ORDER BY id`},
	{name: "star", ordered: true, sql: `SELECT * FROM runs WHERE id % 7 = 0 ORDER BY id`},
	{name: "filter", ordered: true, sql: `SELECT id FROM runs WHERE r = 'b' OR ri > 3 AND r IS NOT NULL ORDER BY id`},
	{name: "computed", ordered: true, sql: `SELECT id, length(r), r || '!', ri * 2, upper(r) FROM runs ORDER BY id`},
	{name: "order by", ordered: true, sql: `SELECT id, r FROM runs ORDER BY r DESC NULLS FIRST, ri, id`},
	{name: "group by", sql: `SELECT r, count(*), sum(ri), min(id) FROM runs GROUP BY r`},
	{name: "group by two", sql: `SELECT r, ri, count(*) FROM runs GROUP BY r, ri`},
	{name: "distinct", sql: `SELECT DISTINCT ri FROM runs`},
	{name: "aggregates", sql: `SELECT min(r), max(r), count(r), count(DISTINCT r), sum(ri), avg(ri), max(ri) FROM runs`},
	{name: "join", sql: `SELECT a.id, b.id FROM runs a JOIN runs b ON a.r = b.r AND a.ri = b.ri WHERE a.id < b.id AND a.id < 100`},
}

func TestRunEndEncoded(t *testing.T) {
	runsOnce.Do(func() { runsOnce.err = loadRuns(context.Background()) })
	if runsOnce.err != nil {
		t.Fatal(runsOnce.err)
	}
	runQueries(t, reeQueries)
}

var runsOnce struct {
	sync.Once
	err error
}

// valueRun is one run of a column: its length and value (nil: NULL).
type valueRun struct {
	n int
	v any
}

// randomRuns splits n rows into runs of 1 to 6 rows, about a sixth NULL.
func randomRuns(rng *rand.Rand, n int, value func() any) []valueRun {
	var rs []valueRun
	for at := 0; at < n; {
		l := min(1+rng.IntN(6), n-at)
		at += l
		var v any
		if rng.IntN(6) != 0 {
			v = value()
		}
		rs = append(rs, valueRun{l, v})
	}
	return rs
}

// buildRuns makes the run-end encoded column of rs and the same rows
// decoded.
func buildRuns(mem memory.Allocator, vt arrow.DataType, rs []valueRun) (ree, plain arrow.Array) {
	ends := array.NewInt32Builder(mem)
	defer ends.Release()
	vb, pb := array.NewBuilder(mem, vt), array.NewBuilder(mem, vt)
	defer vb.Release()
	defer pb.Release()
	appendV := func(b array.Builder, v any) {
		switch v := v.(type) {
		case nil:
			b.AppendNull()
		case string:
			b.(*array.StringBuilder).Append(v)
		case int64:
			b.(*array.Int64Builder).Append(v)
		}
	}
	at := 0
	for _, r := range rs {
		at += r.n
		ends.Append(int32(at))
		appendV(vb, r.v)
		for range r.n {
			appendV(pb, r.v)
		}
	}
	e, vals := ends.NewArray(), vb.NewArray()
	defer e.Release()
	defer vals.Release()
	return array.NewRunEndEncodedArray(e, vals, at, 0), pb.NewArray()
}

// loadRuns makes table runs, 500 rows: id; r, runs of a few strings or
// NULL; ri, runs of int64s, on other boundaries. quiver gets r and ri
// run-end encoded, in two batches that start inside runs; DuckDB gets
// them decoded.
func loadRuns(ctx context.Context) error {
	const n = 500
	rng := rand.New(rand.NewPCG(15, 2))
	mem := memory.DefaultAllocator
	words := []string{"a", "b", "c", "", "é"}
	ib := array.NewInt64Builder(mem)
	defer ib.Release()
	for i := range n {
		ib.Append(int64(i))
	}
	id := ib.NewArray()
	defer id.Release()
	r, rPlain := buildRuns(mem, arrow.BinaryTypes.String, randomRuns(rng, n, func() any { return words[rng.IntN(len(words))] }))
	defer r.Release()
	defer rPlain.Release()
	ri, riPlain := buildRuns(mem, arrow.PrimitiveTypes.Int64, randomRuns(rng, n, func() any { return rng.Int64N(7) - 1 }))
	defer ri.Release()
	defer riPlain.Release()

	field := func(name string, a arrow.Array) arrow.Field {
		return arrow.Field{Name: name, Type: a.DataType(), Nullable: true}
	}
	encoded := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{field("id", id), field("r", r), field("ri", ri)}, nil), []arrow.Array{id, r, ri}, n)
	defer encoded.Release()
	plain := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{field("id", id), field("r", rPlain), field("ri", riPlain)}, nil), []arrow.Array{id, rPlain, riPlain}, n)
	defer plain.Release()
	if err := putHalves(ctx, env.c, "runs", encoded, 251); err != nil {
		return err
	}
	return duckTable(ctx, env.db, "runs", "*", []arrow.RecordBatch{plain})
}
