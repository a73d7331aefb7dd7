package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/tpch"
	"github.com/quiverdb/quiver/tpch/tpchcache"
)

// progressf returns the logger the benchmarks write progress lines with:
// one line per call to w, or nothing when w is nil.
func progressf(w io.Writer) func(format string, args ...any) {
	return func(format string, args ...any) {
		if w != nil {
			fmt.Fprintf(w, format+"\n", args...)
		}
	}
}

// loadLineitem generates TPC-H lineitem at sf into a new cache (codec
// auto, goroutines for Put and scans) and logs what it holds.
func loadLineitem(ctx context.Context, sf float64, goroutines int, logf func(string, ...any)) (*cache.Cache, cache.TableInfo, error) {
	start := time.Now()
	c, err := cache.New(cache.Options{Budget: 1 << 62, Concurrency: goroutines})
	if err != nil {
		return nil, cache.TableInfo{}, err
	}
	if err := tpchcache.Load(ctx, c, sf, tpch.LineitemTable); err != nil {
		return nil, cache.TableInfo{}, err
	}
	info, err := c.Info(tpch.LineitemTable)
	if err != nil {
		return nil, cache.TableInfo{}, err
	}
	logf("bench: lineitem SF %v: %s rows in %d batches, %.1f MiB in the cache, loaded in %v",
		sf, commas(info.Rows), info.Batches, float64(info.Compressed)/(1<<20), time.Since(start).Round(time.Millisecond))
	return c, info, nil
}
