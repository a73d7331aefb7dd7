// Package tpchcache puts the TPC-H tables of package tpch into a
// cache.Cache: the demo data of quiver serve --demo, and the tables of
// the benchmarks and the differential tests. It is a package of its own
// so that the generator does not depend on the storage layer.
package tpchcache

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/datagen/tpch"
)

// Load generates tables (default: all eight, tpch.Tables) at scale factor
// sf and puts each in c under its TPC-H name, with the cache's default
// codec. Batches are generated as the cache encodes them, so memory holds
// the compressed table, not the generated one.
func Load(ctx context.Context, c *cache.Cache, sf float64, tables ...string) error {
	if len(tables) == 0 {
		tables = tpch.Tables
	}
	// An unknown table fails before any is loaded; so does a bad sf, at
	// the first NewReader.
	for _, t := range tables {
		if _, err := tpch.Schema(t); err != nil {
			return err
		}
	}
	for _, t := range tables {
		r, err := tpch.NewReader(memory.DefaultAllocator, t, sf)
		if err != nil {
			return err
		}
		_, err = c.Put(ctx, t, r, cache.TableOptions{})
		r.Release()
		if err != nil {
			return fmt.Errorf("tpchcache: loading %s at SF %v: %w", t, sf, err)
		}
	}
	return nil
}
