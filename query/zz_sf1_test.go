package query

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/datagen/tpch/tpchcache"
)

func TestZZSF1(t *testing.T) {
	sf, _ := strconv.ParseFloat(os.Getenv("ZZSF"), 64)
	if sf == 0 {
		t.Skip()
	}
	c, _ := cache.New(cache.Options{})
	start := time.Now()
	if err := tpchcache.Load(context.Background(), c, sf); err != nil {
		t.Fatal(err)
	}
	fmt.Println("load", time.Since(start))
	e := New(c, Options{})
	qs := []int{}
	for q := 1; q <= 22; q++ {
		qs = append(qs, q)
	}
	if v := os.Getenv("ZZQ"); v != "" {
		n, _ := strconv.Atoi(v)
		qs = []int{n}
		s, err := e.Explain(context.Background(), "EXPLAIN ANALYZE "+tpch.Query(n))
		fmt.Println(s, err)
	}
	for _, q := range qs {
		var ds []time.Duration
		var rows int64
		for range 3 {
			st := time.Now()
			r, err := e.Query(context.Background(), tpch.Query(q))
			if err != nil {
				fmt.Println(q, err)
				break
			}
			rows = 0
			for r.Next() {
				rows += r.RecordBatch().NumRows()
			}
			if r.Err() != nil {
				fmt.Println(q, r.Err())
			}
			r.Release()
			ds = append(ds, time.Since(st))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		if len(ds) > 0 {
			fmt.Printf("Q%02d %8.1f ms  rows %d\n", q, float64(ds[len(ds)/2].Microseconds())/1000, rows)
		}
	}
}
