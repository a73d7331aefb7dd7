package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/datagen/tpch/tpchcache"
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
	c, infos, err := loadTPCH(ctx, sf, goroutines, logf, tpch.LineitemTable)
	if err != nil {
		return nil, cache.TableInfo{}, err
	}
	return c, infos[0], nil
}

// loadTPCH generates the TPC-H tables named at sf into a new cache, as
// loadLineitem does lineitem, and returns their infos in that order.
func loadTPCH(ctx context.Context, sf float64, goroutines int, logf func(string, ...any), tables ...string) (*cache.Cache, []cache.TableInfo, error) {
	start := time.Now()
	c, err := cache.New(cache.Options{Budget: 1 << 62, Concurrency: goroutines})
	if err != nil {
		return nil, nil, err
	}
	if err := tpchcache.Load(ctx, c, sf, tables...); err != nil {
		return nil, nil, err
	}
	infos := make([]cache.TableInfo, len(tables))
	for i, t := range tables {
		if infos[i], err = c.Info(t); err != nil {
			return nil, nil, err
		}
		logf("bench: %s SF %v: %s rows in %d batches, %.1f MiB in the cache",
			t, sf, commas(infos[i].Rows), infos[i].Batches, float64(infos[i].Compressed)/(1<<20))
	}
	logf("bench: loaded in %v", time.Since(start).Round(time.Millisecond))
	return c, infos, nil
}
