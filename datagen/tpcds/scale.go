package tpcds

import "math"

// RowsPerSF is catalog_sales's row count at scale factor 1 (dsdgen -scale 1).
// A run of R rows is treated as the table at scale factor R / RowsPerSF
// (at least 1) unless Config.ScaleFactor says otherwise.
const RowsPerSF = 1_441_548

// dims are the row counts of the dimensions catalog_sales joins to.
type dims struct {
	customer, address, item, promotion, callCenter, catalogPage, warehouse int64
}

// Dimensions that do not scale (TPC-DS specification, table 3-2).
const (
	cdemoRows = 1_920_800
	hdemoRows = 7_200
	shipModes = 20
)

// dimsAt lists the specification's row counts (table 3-2) at the scale
// factors it defines; scaleDims interpolates between them.
var dimsAt = []struct {
	sf float64
	d  dims
}{
	{1, dims{100_000, 50_000, 18_000, 300, 6, 11_718, 5}},
	{10, dims{500_000, 250_000, 102_000, 500, 24, 12_000, 10}},
	{100, dims{2_000_000, 1_000_000, 204_000, 1_000, 30, 20_400, 15}},
	{300, dims{5_000_000, 2_500_000, 264_000, 1_300, 36, 26_000, 17}},
	{1000, dims{12_000_000, 6_000_000, 300_000, 1_500, 42, 30_000, 20}},
}

// scaleDims returns the dimension sizes at sf: the specification's at its
// scale factors, linear between them, SF 1's below 1 and SF 1000's above.
func scaleDims(sf float64) dims {
	if sf <= dimsAt[0].sf {
		return dimsAt[0].d
	}
	for i := 1; i < len(dimsAt); i++ {
		lo, hi := dimsAt[i-1], dimsAt[i]
		if sf > hi.sf {
			continue
		}
		f := (sf - lo.sf) / (hi.sf - lo.sf)
		at := func(a, b int64) int64 { return a + int64(math.Round(f*float64(b-a))) }
		return dims{
			customer:    at(lo.d.customer, hi.d.customer),
			address:     at(lo.d.address, hi.d.address),
			item:        at(lo.d.item, hi.d.item),
			promotion:   at(lo.d.promotion, hi.d.promotion),
			callCenter:  at(lo.d.callCenter, hi.d.callCenter),
			catalogPage: at(lo.d.catalogPage, hi.d.catalogPage),
			warehouse:   at(lo.d.warehouse, hi.d.warehouse),
		}
	}
	return dimsAt[len(dimsAt)-1].d
}

// idCount is dsdgen's getIDCount for a type-2 (history-keeping) dimension
// of rows rows: every 6 surrogate keys hold 3 business ids with 1, 2 and 3
// revisions.
func idCount(rows int64) int64 {
	return rows/6*3 + [6]int64{0, 1, 2, 2, 3, 3}[rows%6]
}
