package tpcds

import (
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func checked(t *testing.T) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// readAll reads r to the end and returns its batches (retained) and r's
// error; the caller releases both.
func readAll(t *testing.T, r array.RecordReader) []arrow.RecordBatch {
	t.Helper()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

func TestSchema(t *testing.T) {
	s := CatalogSalesSchema
	if s.NumFields() != 34 {
		t.Fatalf("%d columns, want 34", s.NumFields())
	}
	counts := map[arrow.Type]int{}
	for i, f := range s.Fields() {
		counts[f.Type.ID()]++
		if f.Nullable == (f.Name == "cs_item_sk" || f.Name == "cs_order_number") {
			t.Errorf("%s: nullable %v", f.Name, f.Nullable)
		}
		if c, err := ColumnIndex(f.Name); err != nil || c != i {
			t.Errorf("ColumnIndex(%q) = %d, %v; want %d", f.Name, c, err, i)
		}
	}
	// 17 surrogate keys and the quantity int32, the order number int64,
	// 15 money columns decimal(7,2).
	if counts[arrow.INT32] != 18 || counts[arrow.INT64] != 1 || counts[arrow.DECIMAL128] != 15 {
		t.Errorf("types: %v", counts)
	}
	if !arrow.TypeEqual(s.Field(ColNetProfit).Type, &arrow.Decimal128Type{Precision: 7, Scale: 2}) {
		t.Errorf("cs_net_profit is %s", s.Field(ColNetProfit).Type)
	}
	if s.Field(ColOrderNumber).Name != "cs_order_number" || s.Field(ColNetProfit).Name != "cs_net_profit" {
		t.Errorf("column constants out of step with the names")
	}
	if _, err := ColumnIndex("cs_nope"); err == nil {
		t.Error("ColumnIndex found a column that does not exist")
	}
	// The numeric projection: four 4-byte columns and four decimals, 81
	// bytes a row with validity, as Kyuubi's cs_numeric measured.
	width := 0
	for _, f := range NumericSchema.Fields() {
		width += f.Type.(arrow.FixedWidthDataType).BitWidth() / 8
	}
	if NumericSchema.NumFields() != 8 || width != 80 {
		t.Errorf("numeric projection: %d columns, %d bytes a row", NumericSchema.NumFields(), width)
	}
}

func TestBatches(t *testing.T) {
	mem := checked(t)
	for _, tc := range []struct {
		rows  int64
		batch int
		want  []int64
	}{
		{0, 100, nil},
		{1, 100, []int64{1}},
		{250, 100, []int64{100, 100, 50}},
		{300, 100, []int64{100, 100, 100}},
		{25_000, 0, []int64{10_000, 10_000, 5_000}},
	} {
		r := CatalogSales(mem, tc.rows, tc.batch)
		var got []int64
		for r.Next() {
			rec := r.RecordBatch()
			got = append(got, rec.NumRows())
			if !rec.Schema().Equal(CatalogSalesSchema) {
				t.Fatalf("batch schema %s", rec.Schema())
			}
			for i, col := range rec.Columns() {
				checkLayout(t, columnNames[i], col)
			}
		}
		r.Release()
		if len(got) != len(tc.want) {
			t.Errorf("%d rows by %d: batches %v, want %v", tc.rows, tc.batch, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%d rows by %d: batches %v, want %v", tc.rows, tc.batch, got, tc.want)
				break
			}
		}
	}
}

// checkLayout checks what arrow-go does not for primitive arrays: the
// value buffer holds every row, and the null count is the bitmap's.
func checkLayout(t *testing.T, name string, col arrow.Array) {
	t.Helper()
	bufs := col.Data().Buffers()
	width := col.DataType().(arrow.FixedWidthDataType).BitWidth() / 8
	if len(bufs) != 2 || bufs[1].Len() < col.Len()*width {
		t.Fatalf("%s: %d buffers, values %d bytes for %d rows", name, len(bufs), bufs[1].Len(), col.Len())
	}
	nulls := 0
	if bufs[0] != nil {
		nulls = col.Len() - bitutil.CountSetBits(bufs[0].Bytes(), 0, col.Len())
	}
	if nulls != col.NullN() {
		t.Fatalf("%s: NullN %d, bitmap says %d", name, col.NullN(), nulls)
	}
}

func TestDeterministic(t *testing.T) {
	mem := checked(t)
	cfg := Config{Rows: 30_000, BatchRows: 7_000}
	a, _ := NewCatalogSales(mem, cfg)
	b, _ := NewCatalogSales(mem, cfg)
	cfg.Seed = 42
	c, _ := NewCatalogSales(mem, cfg)
	cfg.Seed, cfg.Columns = 0, NumericColumns
	p, _ := NewCatalogSales(mem, cfg)
	ra, rb, rc, rp := readAll(t, a), readAll(t, b), readAll(t, c), readAll(t, p)
	defer func() {
		for _, rs := range [][]arrow.RecordBatch{ra, rb, rc, rp} {
			releaseAll(rs)
		}
		for _, r := range []array.RecordReader{a, b, c, p} {
			r.Release()
		}
	}()
	for i := range ra {
		if !array.RecordEqual(ra[i], rb[i]) {
			t.Fatalf("batch %d differs between two readers of one config", i)
		}
		if array.RecordEqual(ra[i], rc[i]) {
			t.Fatalf("batch %d is the same under another seed", i)
		}
		if !rp[i].Schema().Equal(NumericSchema) {
			t.Fatalf("projection schema %s", rp[i].Schema())
		}
		for j, col := range NumericColumns {
			if !array.Equal(ra[i].Column(col), rp[i].Column(j)) {
				t.Fatalf("batch %d: projected %s differs from the full table's", i, columnNames[col])
			}
		}
	}
}

func TestConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Rows: -1}, {BatchRows: -1}, {ScaleFactor: -2}, {Columns: []int{0, 34}}, {Columns: []int{-1}},
	} {
		if _, err := NewCatalogSales(nil, cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("%+v: %v, want ErrConfig", cfg, err)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("CatalogSales(-1 rows) did not panic")
		}
	}()
	CatalogSales(nil, -1, 0)
}

func TestScale(t *testing.T) {
	if d := scaleDims(0.01); d != dimsAt[0].d {
		t.Errorf("below SF 1: %+v", d)
	}
	if d := scaleDims(10); d.customer != 500_000 || d.item != 102_000 || d.catalogPage != 12_000 {
		t.Errorf("SF 10: %+v", d)
	}
	if d := scaleDims(5.5); d.customer != 300_000 || d.warehouse != 8 {
		t.Errorf("SF 5.5 (halfway from 1 to 10): %+v", d)
	}
	if d := scaleDims(5000); d != dimsAt[len(dimsAt)-1].d {
		t.Errorf("above SF 1000: %+v", d)
	}
	// dsdgen's id counts: SF1's 18,000 items are 9,000 ids; 6 call
	// centers are 3; 7 keys hold 4 ids.
	for rows, ids := range map[int64]int64{18_000: 9_000, 6: 3, 7: 4, 8: 5, 9: 5, 10: 6, 11: 6} {
		if got := idCount(rows); got != ids {
			t.Errorf("idCount(%d) = %d, want %d", rows, got, ids)
		}
	}
	// Each id maps to the keys of its own revisions: id 1 → 1; id 2 →
	// 2 then 3 after mid-2000; id 3 → 4, 5, 6 by thirds.
	for _, tc := range []struct{ id, date, want int64 }{
		{1, jdnDataStart, 1}, {1, jdnDataEnd, 1},
		{2, jdnDataStart, 2}, {2, jdnH1 + 1, 3},
		{3, jdnDataStart, 4}, {3, jdnT1 + 1, 5}, {3, jdnT2 + 1, 6},
		{4, jdnDataStart, 7}, {6, jdnDataEnd, 12},
		{3, jdnDataEnd, 5}, // clamped to a 5-row dimension
	} {
		rows := int64(1000)
		if tc.want == 5 {
			rows = 5
		}
		if got := matchSCDSK(tc.id, tc.date, rows); got != tc.want {
			t.Errorf("matchSCDSK(%d, %d) = %d, want %d", tc.id, tc.date, got, tc.want)
		}
	}
}
