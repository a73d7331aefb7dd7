package tpchcache

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/datagen/tpch"
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
	want := map[string]int64{
		tpch.RegionTable: 5, tpch.NationTable: 25, tpch.PartTable: 400, tpch.SupplierTable: 20,
		tpch.PartsuppTable: 1600, tpch.CustomerTable: 300, tpch.OrdersTable: 3000, tpch.LineitemTable: 11957,
	}
	if got := len(c.Tables()); got != len(want) {
		t.Errorf("%d tables in the cache, want %d", got, len(want))
	}
	for table, rows := range want {
		info, err := c.Info(table)
		if err != nil {
			t.Fatal(err)
		}
		if info.Rows != rows {
			t.Errorf("%s: %d rows, want %d", table, info.Rows, rows)
		}
	}
}

// TestLoadErrors: an unknown table or a bad scale factor loads nothing.
func TestLoadErrors(t *testing.T) {
	ctx := context.Background()
	c, err := cache.New(cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := Load(ctx, c, 0.002, tpch.NationTable, "nations"); err == nil || !strings.Contains(err.Error(), `"nations"`) {
		t.Errorf("unknown table: %v", err)
	}
	if err := Load(ctx, c, 0.0125); err == nil || !strings.Contains(err.Error(), "multiple of 0.001") {
		t.Errorf("bad scale factor: %v", err)
	}
	if n := len(c.Tables()); n != 0 {
		t.Errorf("%d tables loaded after errors", n)
	}
}
