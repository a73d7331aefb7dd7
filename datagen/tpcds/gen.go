package tpcds

import "time"

// Julian day numbers, which TPC-DS uses as date_dim's d_date_sk.
const (
	jdnDataStart = 2_450_815 // 1998-01-01, dsdgen's DATA_START_DATE
	jdnDataEnd   = 2_452_640 // 2002-12-31, DATA_END_DATE
)

// dsdgen's catalog_sales constants (constants.h, tdefs: nNullPct 100,
// kNotNullBitMap 0x28000).
const (
	minShipDelay  = 2
	maxShipDelay  = 90
	giftPct       = 10  // ship-to differs from bill-to when a 0..99 draw ≤ 10
	nullPct       = 100 // of 10,000: a line has a NULL mask 1% of the time
	notNullMask   = 0x28000
	catalogsYear  = 18
	catalogYears  = 6 // YEAR_MAXIMUM − YEAR_MINIMUM + 2
	minLines      = 4
	maxLines      = 14
	secondsPerDay = 86_400
)

// nullBit maps dsdgen's column numbering (columns.h, CS_SOLD_DATE_SK = 0),
// which the NULL bitmap uses, to schema columns: the two orders differ in
// the money columns.
var nullBit = [NumColumns]int{
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
	ColWholesaleCost, ColListPrice, ColSalesPrice, ColCouponAmt,
	ColExtSalesPrice, ColExtDiscountAmt, ColExtWholesaleCost, ColExtListPrice,
	ColExtTax, ColExtShipCost, ColNetPaid, ColNetPaidIncTax, ColNetPaidIncShip,
	ColNetPaidIncShipTax, ColNetProfit,
}

// order holds the columns every line of one order shares.
type order struct {
	number                         int64
	soldDate, soldTime, callCenter int64
	bill, ship                     [4]int64 // customer, cdemo, hdemo, addr
	itemBase                       int64
	lines                          int64
}

// line is one row: its order's columns, its own, and which are NULL
// (bit c = schema column c).
type line struct {
	nulls                       uint64
	shipDate, item, catalogPage int64
	shipMode, warehouse, promo  int64
	p                           pricing
}

// generator makes catalog_sales rows in dsdgen's order: orders numbered
// from 1, 4 to 14 lines each, sale dates advancing through 1998–2002.
type generator struct {
	r       *rng
	d       dims
	rows    int64 // the table's rows
	emitted int64
	cal     calendar

	itemIDs, callCenterIDs int64
	items                  []int32 // dsdgen's item permutation, 0-based
	pagesPerCatalog        int64

	o    order
	left int64 // lines of o still to emit
}

func newGenerator(rows int64, sf float64, seed uint64) *generator {
	g := &generator{r: newRNG(seed), d: scaleDims(sf), rows: rows, cal: newCalendar()}
	g.itemIDs = idCount(g.d.item)
	g.callCenterIDs = idCount(g.d.callCenter)
	g.pagesPerCatalog = g.d.catalogPage / catalogsYear / catalogYears
	// dsdgen's makePermutation: a shuffle of the item ids, walked from a
	// random start per order so that an order never repeats an item.
	g.items = make([]int32, g.itemIDs)
	for i := range g.items {
		g.items[i] = int32(i + 1)
	}
	for i := len(g.items) - 1; i > 0; i-- {
		j := g.r.between(0, int64(i))
		g.items[i], g.items[j] = g.items[j], g.items[i]
	}
	return g
}

func (g *generator) done() bool { return g.emitted >= g.rows }

// next fills l with the next row.
func (g *generator) next(l *line) {
	if g.left == 0 {
		g.newOrder()
	}
	g.left--
	g.emitted++
	r, o := g.r, &g.o

	l.nulls = 0
	if threshold, mask := r.between(0, 9999), r.bits31(); threshold < nullPct {
		for m := uint64(mask) &^ notNullMask; m != 0; m &= m - 1 {
			l.nulls |= 1 << nullBit[trailingZeros(m)]
		}
	}
	l.shipDate = o.soldDate + r.between(minShipDelay, maxShipDelay)
	if o.itemBase++; o.itemBase > g.itemIDs {
		o.itemBase = 1
	}
	l.item = matchSCDSK(int64(g.items[o.itemBase-1]), o.soldDate, g.d.item)
	l.catalogPage = g.catalogPage(o.soldDate)
	l.shipMode = r.between(1, shipModes)
	l.warehouse = r.between(1, g.d.warehouse)
	l.promo = r.between(1, g.d.promotion)
	l.p.set(r)
}

// newOrder starts the next order (dsdgen's mk_master).
func (g *generator) newOrder() {
	r, o := g.r, &g.o
	o.number++
	o.soldDate = g.cal.day(float64(g.emitted) / float64(g.rows))
	// dsdgen weights the hour by a "hours" distribution; we draw the
	// time of day uniformly.
	o.soldTime = r.between(0, secondsPerDay-1)
	o.callCenter = matchSCDSK(r.between(1, g.callCenterIDs), o.soldDate, g.d.callCenter)
	o.bill = g.customer()
	if r.between(0, 99) <= giftPct {
		o.ship = g.customer()
	} else {
		o.ship = o.bill
	}
	o.itemBase = r.between(1, g.itemIDs)
	o.lines = r.between(minLines, maxLines)
	g.left = o.lines
}

// customer draws a customer, demographics and address, independently
// and uniformly, as dsdgen's mk_join does.
func (g *generator) customer() [4]int64 {
	return [4]int64{
		g.r.between(1, g.d.customer),
		g.r.between(1, cdemoRows),
		g.r.between(1, hdemoRows),
		g.r.between(1, g.d.address),
	}
}

// catalogPage is dsdgen's cp_join: a page of a catalog current on the
// sale date, catalogs being bi-annual, quarterly or monthly. dsdgen weighs
// the three by its catalog_page_type distribution; we draw them evenly.
func (g *generator) catalogPage(date int64) int64 {
	kind := g.r.between(1, 3)
	page := g.r.between(1, g.pagesPerCatalog)
	off := date - jdnDataStart - 1
	n := off / 365 * catalogsYear
	off %= 365
	switch kind {
	case 1:
		if off > 183 {
			n++
		}
	case 2:
		n += off / 91
	case 3:
		n += off / 31
	}
	return n*g.pagesPerCatalog + page
}

// The revision boundaries of history-keeping dimensions (scd.c).
const (
	jdnH1 = jdnDataStart + (jdnDataEnd-jdnDataStart)/2
	jdnT1 = jdnDataStart + (jdnDataEnd-jdnDataStart)/3
	jdnT2 = jdnT1 + (jdnDataEnd-jdnDataStart)/3
)

// matchSCDSK is dsdgen's: the surrogate key of business id k's revision
// current on date, in a dimension of rows rows where every 6 keys hold
// ids with 1, 2 and 3 revisions.
func matchSCDSK(k, date, rows int64) int64 {
	var sk int64
	switch k % 3 {
	case 1:
		sk = k/3*6 + 1
	case 2:
		sk = k/3*6 + 2
		if date > jdnH1 {
			sk++
		}
	default:
		sk = k/3*6 - 2
		if date > jdnT1 {
			sk++
		}
		if date > jdnT2 {
			sk++
		}
	}
	return min(sk, rows)
}

// calendar spreads the sale dates over 1998–2002 with dsdgen's seasonal
// shape: its "calendar" distribution has three sales zones, January to
// July, August to October and November to December, each denser than the
// one before. The weights 1, 2, 3 are ours; dsdgen's differ.
type calendar struct {
	cum []float64 // cum[d]: share of sales up to and including day d
	at  int
}

func newCalendar() calendar {
	n := jdnDataEnd - jdnDataStart + 1
	c := calendar{cum: make([]float64, n)}
	start := time.Date(1998, 1, 1, 0, 0, 0, 0, time.UTC)
	total := 0.0
	for d := range n {
		w := 1.0
		switch m := start.AddDate(0, 0, d).Month(); {
		case m >= time.November:
			w = 3
		case m >= time.August:
			w = 2
		}
		total += w
		c.cum[d] = total
	}
	for d := range c.cum {
		c.cum[d] /= total
	}
	return c
}

// day returns the date at share f of all sales; f must not decrease
// between calls.
func (c *calendar) day(f float64) int64 {
	for c.at < len(c.cum)-1 && c.cum[c.at] <= f {
		c.at++
	}
	return jdnDataStart + int64(c.at)
}
