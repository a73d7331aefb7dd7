package tpcds

import (
	"math"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// table is catalog_sales read into Go slices, with NULLs marked.
type table struct {
	n    int
	v    [NumColumns][]int64 // money in cents
	null [NumColumns][]bool
}

func load(t *testing.T, cfg Config) *table {
	t.Helper()
	r, err := NewCatalogSales(checked(t), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	tb := &table{}
	for r.Next() {
		rec := r.RecordBatch()
		for c := range NumColumns {
			col := rec.Column(c)
			if notNull(c) && col.Data().Buffers()[0] != nil {
				t.Fatalf("NOT NULL column %s has a validity bitmap", columnNames[c])
			}
			for i := range col.Len() {
				var v int64
				switch a := col.(type) {
				case *array.Int32:
					v = int64(a.Value(i))
				case *array.Int64:
					v = a.Value(i)
				case *array.Decimal128:
					v = int64(a.Value(i).LowBits())
				}
				tb.v[c] = append(tb.v[c], v)
				tb.null[c] = append(tb.null[c], col.IsNull(i))
			}
		}
		tb.n += int(rec.NumRows())
	}
	return tb
}

func testRows() int64 {
	if testing.Short() {
		return 200_000
	}
	return 1_000_000
}

// TestRanges checks every value against the range dsdgen draws it from
// at the scale factor the row count implies (SF 1 here).
func TestRanges(t *testing.T) {
	tb := load(t, Config{Rows: testRows()})
	d := scaleDims(1)
	maxPage := (int64(jdnDataEnd-jdnDataStart-1)/365*catalogsYear + 11 + 1) * (d.catalogPage / catalogsYear / catalogYears)
	ranges := map[int][2]int64{
		ColSoldDateSK:     {jdnDataStart, jdnDataEnd},
		ColSoldTimeSK:     {0, secondsPerDay - 1},
		ColBillCustomerSK: {1, d.customer}, ColShipCustomerSK: {1, d.customer},
		ColBillCdemoSK: {1, cdemoRows}, ColShipCdemoSK: {1, cdemoRows},
		ColBillHdemoSK: {1, hdemoRows}, ColShipHdemoSK: {1, hdemoRows},
		ColBillAddrSK: {1, d.address}, ColShipAddrSK: {1, d.address},
		ColCallCenterSK:  {1, d.callCenter},
		ColCatalogPageSK: {1, min(maxPage, d.catalogPage)},
		ColShipModeSK:    {1, shipModes},
		ColWarehouseSK:   {1, d.warehouse},
		ColItemSK:        {1, d.item},
		ColPromoSK:       {1, d.promotion},
		ColQuantity:      {1, 100},
		ColWholesaleCost: {100, 10_000},
		ColListPrice:     {100, 30_000},
		ColSalesPrice:    {0, 30_000},
		ColExtListPrice:  {100, 3_000_000},
		ColExtTax:        {0, 270_000},
		ColNetProfit:     {-1_000_000, 3_000_000},
		// decimal(7,2) holds at most 99,999.99.
		ColNetPaidIncShipTax: {0, 9_999_999},
	}
	for c, rg := range ranges {
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for i, v := range tb.v[c] {
			if tb.null[c][i] {
				continue
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		if lo < rg[0] || hi > rg[1] {
			t.Errorf("%s spans [%d, %d], want within [%d, %d]", columnNames[c], lo, hi, rg[0], rg[1])
		}
	}
	// The sale dates advance through all five years.
	first, last := tb.v[ColSoldDateSK][0], tb.v[ColSoldDateSK][tb.n-1]
	if first != jdnDataStart || last < jdnDataEnd-3 {
		t.Errorf("sale dates run from %d to %d, want %d to about %d", first, last, jdnDataStart, jdnDataEnd)
	}
}

// TestCorrelations checks what ties columns together: orders of 4 to 14
// lines sharing their order columns, items distinct within an order,
// ship dates 2 to 90 days after the sale, gifts (ship-to ≠ bill-to) on
// about 11% of orders, and dsdgen's pricing identities.
func TestCorrelations(t *testing.T) {
	tb := load(t, Config{Rows: testRows()})
	v, null := &tb.v, &tb.null
	ok := func(i int, cs ...int) bool {
		for _, c := range cs {
			if null[c][i] {
				return false
			}
		}
		return true
	}
	orders, gifts, coupons, priced := 0, 0, 0, 0
	start := 0
	for i := 0; i <= tb.n; i++ {
		if i < tb.n && i > 0 && v[ColOrderNumber][i] == v[ColOrderNumber][i-1] {
			continue
		}
		if i > 0 { // the order [start, i) is complete
			lines := i - start
			if (lines < minLines && i != tb.n) || lines > maxLines {
				t.Fatalf("order %d has %d lines", v[ColOrderNumber][start], lines)
			}
			items := map[int64]bool{}
			for j := start; j < i; j++ {
				if items[v[ColItemSK][j]] {
					t.Fatalf("order %d repeats item %d", v[ColOrderNumber][start], v[ColItemSK][j])
				}
				items[v[ColItemSK][j]] = true
			}
			if v[ColBillCustomerSK][start] != v[ColShipCustomerSK][start] {
				gifts++
			}
		}
		if i == tb.n {
			break
		}
		if i > 0 && v[ColOrderNumber][i] != v[ColOrderNumber][i-1]+1 {
			t.Fatalf("row %d: order %d follows %d", i, v[ColOrderNumber][i], v[ColOrderNumber][i-1])
		}
		if i > 0 && v[ColSoldDateSK][i] < v[ColSoldDateSK][i-1] && ok(i, ColSoldDateSK) && ok(i-1, ColSoldDateSK) {
			t.Fatalf("row %d: sale date goes back", i)
		}
		orders++
		start = i
	}
	for i := range tb.n {
		if ok(i, ColSoldDateSK, ColShipDateSK) {
			if lag := v[ColShipDateSK][i] - v[ColSoldDateSK][i]; lag < minShipDelay || lag > maxShipDelay {
				t.Fatalf("row %d: shipped %d days after the sale", i, lag)
			}
		}
		if !ok(i, ColQuantity, ColWholesaleCost, ColListPrice, ColSalesPrice, ColExtDiscountAmt, ColExtSalesPrice,
			ColExtWholesaleCost, ColExtListPrice, ColExtTax, ColCouponAmt, ColExtShipCost, ColNetPaid, ColNetPaidIncTax) {
			continue
		}
		priced++
		q, w, l, s := v[ColQuantity][i], v[ColWholesaleCost][i], v[ColListPrice][i], v[ColSalesPrice][i]
		np := v[ColNetPaid][i]
		switch {
		case l < w || l > 3*w:
			t.Fatalf("row %d: list price %d outside 1–3× wholesale %d", i, l, w)
		case s > l:
			t.Fatalf("row %d: sales price %d above list %d", i, s, l)
		case v[ColExtWholesaleCost][i] != w*q, v[ColExtListPrice][i] != l*q, v[ColExtSalesPrice][i] != s*q:
			t.Fatalf("row %d: an ext_ price is not price × quantity", i)
		case v[ColExtDiscountAmt][i] != (l-s)*q:
			t.Fatalf("row %d: ext_discount_amt %d ≠ ext_list − ext_sales", i, v[ColExtDiscountAmt][i])
		case np != s*q-v[ColCouponAmt][i] || v[ColCouponAmt][i] > s*q:
			t.Fatalf("row %d: net_paid %d ≠ ext_sales − coupon", i, np)
		case v[ColExtTax][i] > np*9/100 || v[ColNetPaidIncTax][i] != np+v[ColExtTax][i]:
			t.Fatalf("row %d: tax %d on %d paid", i, v[ColExtTax][i], np)
		case v[ColExtShipCost][i]%q != 0 || v[ColExtShipCost][i]/q > l/2:
			t.Fatalf("row %d: ship cost %d is not a per-unit share of list %d", i, v[ColExtShipCost][i], l)
		case v[ColNetPaidIncShip][i] != np+v[ColExtShipCost][i],
			v[ColNetPaidIncShipTax][i] != np+v[ColExtShipCost][i]+v[ColExtTax][i],
			v[ColNetProfit][i] != np-w*q:
			t.Fatalf("row %d: a net_ column is not the sum dsdgen makes", i)
		}
		if v[ColCouponAmt][i] > 0 {
			coupons++
		}
	}
	// 11 of every 100 orders are gifts; 20% of lines have a coupon (less
	// the ~1% whose coupon share is drawn as 0).
	between(t, "gift share of orders", float64(gifts)/float64(orders), 0.09, 0.13)
	between(t, "coupon share of lines", float64(coupons)/float64(priced), 0.18, 0.21)
	between(t, "lines per order", float64(tb.n)/float64(orders), 8.7, 9.3)
}

// TestNulls checks dsdgen's NULL rates: 1% of lines carry a random
// 31-bit mask, so each column dsdgen can null is NULL on ~0.5% of rows;
// the primary key never is, and the last three columns, whose bits lie
// past the mask's 31, never are either.
func TestNulls(t *testing.T) {
	tb := load(t, Config{Rows: testRows()})
	anyNull := 0
	for i := range tb.n {
		for c := range NumColumns {
			if tb.null[c][i] {
				anyNull++
				break
			}
		}
	}
	between(t, "rows with a NULL", float64(anyNull)/float64(tb.n), 0.008, 0.012)
	for c := range NumColumns {
		n := 0
		for _, isNull := range tb.null[c] {
			if isNull {
				n++
			}
		}
		rate := float64(n) / float64(tb.n)
		switch c {
		case ColItemSK, ColOrderNumber, ColNetPaidIncShip, ColNetPaidIncShipTax, ColNetProfit:
			if n != 0 {
				t.Errorf("%s: %d NULLs, want none", columnNames[c], n)
			}
		default:
			between(t, columnNames[c]+" NULL rate", rate, 0.0035, 0.0065)
		}
	}
}

func between(t *testing.T, what string, got, lo, hi float64) {
	t.Helper()
	if got < lo || got > hi {
		t.Errorf("%s = %.4f, want in [%.4f, %.4f]", what, got, lo, hi)
	}
}

// TestPricingArithmetic pins dsdgen's truncations on one hand-worked
// line: products of two 2-place decimals are cut, not rounded.
func TestPricingArithmetic(t *testing.T) {
	// wholesale 7.48, markup 0.05 → list 7.854 → 7.85; discount 0.59 →
	// sales 3.2185 → 3.21.
	if got := int64(748) * (100 + 5) / 100; got != 785 {
		t.Fatalf("list = %d", got)
	}
	if got := int64(785) * (100 - 59) / 100; got != 321 {
		t.Fatalf("sales = %d", got)
	}
	var p pricing
	r := newRNG(1)
	for range 10_000 {
		p.set(r)
		if p.get(ColListPrice) < p.get(ColWholesaleCost) || p.get(ColNetPaidIncShipTax) > 9_999_999 {
			t.Fatalf("%+v", p)
		}
	}
}
