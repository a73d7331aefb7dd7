package tpch

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// Load generates tables (default: every table of Tables) at scale factor
// sf and puts each in c under its TPC-H name, with the cache's default
// codec. Batches are generated as the cache encodes them, so memory holds
// the compressed table, not the generated one.
func Load(ctx context.Context, c *cache.Cache, sf float64, tables ...string) error {
	if len(tables) == 0 {
		tables = Tables
	}
	for _, t := range tables {
		if _, err := Schema(t); err != nil {
			return err
		}
	}
	if _, err := newScale(sf); err != nil {
		return err
	}
	for _, t := range tables {
		r, err := NewReader(memory.DefaultAllocator, t, sf)
		if err != nil {
			return err
		}
		_, err = c.Put(ctx, t, r, cache.TableOptions{})
		r.Release()
		if err != nil {
			return fmt.Errorf("tpch: loading %s at SF %v: %w", t, sf, err)
		}
	}
	return nil
}
