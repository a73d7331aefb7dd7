package difftest

import (
	"context"
	"errors"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/datagen/tpch/tpchcache"
	"github.com/quiverdb/quiver/query"
)

// TestTPCH22Parse runs without DuckDB (no build tag): each of the 22
// TPC-H queries of package tpch is taken by quiver's parser and binds
// against the eight tables, so it either runs or is refused as not
// supported yet, never as a syntax error or an invalid query.
// TestTPCH22 (-tags duckdb) compares the answers.
func TestTPCH22Parse(t *testing.T) {
	ctx := context.Background()
	c, err := cache.New(cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := tpchcache.Load(ctx, c, 0.001); err != nil {
		t.Fatal(err)
	}
	e := query.New(c, query.Options{})
	for n := 1; n <= tpch.NumQueries; n++ {
		r, err := e.Query(ctx, tpch.Query(n))
		switch {
		case err == nil:
			for r.Next() {
			}
			if err := r.Err(); err != nil {
				t.Errorf("Q%d failed while running: %v", n, err)
			}
			r.Release()
		case !errors.Is(err, query.ErrUnsupported):
			t.Errorf("Q%d: %v (want an answer or %v)", n, err, query.ErrUnsupported)
		}
	}
}
