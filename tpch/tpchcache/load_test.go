package tpchcache

import (
	"context"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/tpch"
)

func TestLoad(t *testing.T) {
	ctx := context.Background()
	c, err := cache.New(cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Load(ctx, c, 0.002); err != nil {
		t.Fatal(err)
	}
	for table, want := range map[string]int64{tpch.LineitemTable: 11957, tpch.OrdersTable: 3000} {
		info, err := c.Info(table)
		if err != nil {
			t.Fatal(err)
		}
		if info.Rows != want {
			t.Errorf("%s: %d rows, want %d", table, info.Rows, want)
		}
	}
	if err := Load(ctx, c, 0.002, "nation"); err == nil {
		t.Error("loaded an unknown table")
	}
}
