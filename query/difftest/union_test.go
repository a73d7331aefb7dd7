//go:build duckdb

package difftest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// unionQueries read table un, whose u is a dense and su a sparse union of
// i (BIGINT) and s (VARCHAR), with DuckDB's union_tag and union_extract.
// DuckDB gets the same rows through INSERT … union_value(…). Not u IS
// NULL: an Arrow union has no NULL of its own, so quiver's is its
// member's, where DuckDB's union holding a NULL member is not NULL
// (query/doc.go).
var unionQueries = []testQuery{
	{name: "tag and members", ordered: true, sql: `SELECT id, union_tag(u), union_extract(u, 'i'), union_extract(u, 's'), union_tag(su), union_extract(su, 'i') FROM un ORDER BY id`},
	{name: "filter", ordered: true, sql: `SELECT id FROM un WHERE union_tag(u) = 's' AND union_extract(su, 'i') > 2 OR union_extract(u, 'i') = 3 ORDER BY id`},
	{name: "group by tag", sql: `SELECT union_tag(su), count(*), count(union_extract(su, 's')), sum(union_extract(su, 'i')) FROM un GROUP BY 1`},
	{name: "computed", ordered: true, sql: `SELECT id, union_extract(u, 'i') * 2, upper(union_extract(u, 's')) FROM un ORDER BY id`},
	// whole unions compare, order and group by member, then the member's value (sortkey)
	{name: "group by union", sql: `SELECT union_tag(u), union_extract(u, 'i'), union_extract(u, 's'), count(*) FROM un GROUP BY u`},
	{name: "order by union", ordered: true, sql: `SELECT id, union_tag(su), union_extract(su, 's') FROM un ORDER BY su, id`},
	{name: "order by union desc", ordered: true, sql: `SELECT id FROM un ORDER BY u DESC, id`},
	{name: "union comparisons", ordered: true, sql: `SELECT id, u = su, u < su, u >= su, u IS DISTINCT FROM su FROM un ORDER BY id`},
	{name: "distinct unions", sql: `SELECT count(DISTINCT u), count(DISTINCT su), count(*) FROM un`},
	{name: "union min and max", sql: `SELECT union_tag(min(u)), union_extract(min(u), 'i'), union_tag(max(su)), union_extract(max(su), 's') FROM un`},
	{name: "join on unions", sql: `SELECT a.id, b.id FROM un a JOIN un b ON a.u = b.su WHERE a.id < 40`},
}

func TestUnion(t *testing.T) {
	unOnce.Do(func() { unOnce.err = loadUnions(context.Background()) })
	if unOnce.err != nil {
		t.Fatal(unOnce.err)
	}
	runQueries(t, unionQueries)
}

var unOnce struct {
	sync.Once
	err error
}

// member is one union value: its member (0: i, 1: s) and value (nil:
// NULL).
type member struct {
	code int8
	v    any
}

func loadUnions(ctx context.Context) error {
	const n = 300
	rng := rand.New(rand.NewPCG(15, 3))
	mem := memory.DefaultAllocator
	words := []string{"a", "b", "", "é"}
	random := func() member {
		m := member{code: int8(rng.IntN(2))}
		if rng.IntN(6) != 0 {
			if m.code == 0 {
				m.v = rng.Int64N(7)
			} else {
				m.v = words[rng.IntN(len(words))]
			}
		}
		return m
	}
	fields := []arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}
	dense := array.NewDenseUnionBuilder(mem, arrow.DenseUnionOf(fields, []arrow.UnionTypeCode{0, 1}))
	defer dense.Release()
	sparse := array.NewSparseUnionBuilder(mem, arrow.SparseUnionOf(fields, []arrow.UnionTypeCode{0, 1}))
	defer sparse.Release()
	ids := array.NewInt64Builder(mem)
	defer ids.Release()
	var values []string
	sqlOf := func(m member) string {
		name := fields[m.code].Name
		switch v := m.v.(type) {
		case nil:
			return fmt.Sprintf("union_value(%s := NULL::%s)", name, map[int8]string{0: "BIGINT", 1: "VARCHAR"}[m.code])
		case string:
			return fmt.Sprintf("union_value(%s := '%s')", name, v)
		default:
			return fmt.Sprintf("union_value(%s := %v)", name, v)
		}
	}
	appendTo := func(b array.UnionBuilder, m member, sparseUnion bool) {
		b.Append(m.code)
		for c := range int8(2) {
			if c != m.code && !sparseUnion {
				continue
			}
			cb := b.Child(int(c))
			if c != m.code || m.v == nil {
				cb.AppendNull()
				continue
			}
			switch v := m.v.(type) {
			case int64:
				cb.(*array.Int64Builder).Append(v)
			case string:
				cb.(*array.StringBuilder).Append(v)
			}
		}
	}
	for id := range n {
		u, su := random(), random()
		ids.Append(int64(id))
		appendTo(dense, u, false)
		appendTo(sparse, su, true)
		values = append(values, fmt.Sprintf("(%d, %s, %s)", id, sqlOf(u), sqlOf(su)))
	}
	id, u, su := ids.NewArray(), dense.NewArray(), sparse.NewArray()
	defer id.Release()
	defer u.Release()
	defer su.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: id.DataType()}, {Name: "u", Type: u.DataType()}, {Name: "su", Type: su.DataType()}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{id, u, su}, n)
	defer rec.Release()
	if err := putHalves(ctx, env.c, "un", rec, 140); err != nil {
		return err
	}
	for _, stmt := range []string{
		`CREATE TABLE un (id BIGINT, u UNION(i BIGINT, s VARCHAR), su UNION(i BIGINT, s VARCHAR))`,
		`INSERT INTO un VALUES ` + strings.Join(values, ", "),
	} {
		if _, err := env.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("DuckDB: %.200s: %w", stmt, err)
		}
	}
	return nil
}
