package tpch

import (
	"fmt"
	"math"
)

// Table sizes at scale factor 1 (TPC-H 4.2.5), and dbgen's constants for
// orders and lineitem (dss.h).
const (
	baseParts     = 200_000
	baseSuppliers = 10_000
	baseCustomers = 150_000
	baseOrders    = 1_500_000
	suppPerPart   = 4
	clerksPerSF   = 1000
	maxLines      = 7

	// Dates are days since 1992-01-01 (STARTDATE) until they become
	// date32; CURRENTDATE is 1995-06-17.
	epochStart  = 8035 // 1992-01-01 in days since 1970-01-01
	totalDays   = 2557 // 1992-01-01 .. 1998-12-31
	currentDay  = 1263 // 1995-06-17
	maxShipLag  = 121
	maxRecvLag  = 30
	lastOrderDy = totalDays - (maxShipLag + maxRecvLag) - 1 // 1998-08-02
)

// scale is a scale factor as dbgen applies it: below 1 the table bases
// shrink in steps of 0.001 and the multiplier is 1; at 1 and above the
// multiplier is the (whole) scale factor.
type scale struct {
	sf                       float64
	orders, customers, parts int64
	suppliers, clerks        int64
}

func newScale(sf float64) (scale, error) {
	if math.IsNaN(sf) || sf <= 0 || sf > 1000 {
		return scale{}, fmt.Errorf("tpch: scale factor %v out of range (0, 1000]", sf)
	}
	base := func(n int64) int64 { return n }
	mult := int64(sf)
	if sf < 1 {
		thousandths := int64(math.Round(sf * 1000))
		if thousandths < 1 || math.Abs(sf*1000-float64(thousandths)) > 1e-6 {
			return scale{}, fmt.Errorf("tpch: scale factor %v below 1 must be a multiple of 0.001", sf)
		}
		base = func(n int64) int64 { return max(n*thousandths/1000, 1) }
		mult = 1
	} else if float64(mult) != sf {
		return scale{}, fmt.Errorf("tpch: scale factor %v above 1 must be whole", sf)
	}
	return scale{
		sf:        sf,
		orders:    base(baseOrders) * mult,
		customers: base(baseCustomers) * mult,
		parts:     base(baseParts) * mult,
		suppliers: base(baseSuppliers) * mult,
		clerks:    max(mult*clerksPerSF, clerksPerSF),
	}, nil
}

// order is one generated order with its lines; money is in cents, dates
// in days since 1992-01-01, comments are slices of the text pool.
type order struct {
	key, cust, total, clerk int64
	date                    int32
	status                  byte
	priority, comment       []byte
	lines                   [maxLines]line
	n                       int
}

type line struct {
	part, supp, qty, price, disc, tax int64
	ship, commit, receipt             int32
	rflag, status                     byte
	instruct, mode, comment           []byte
}

// generator yields the orders of one scale factor in order.
type generator struct {
	sc   scale
	s    *streams
	next int64 // index of the next order, from 1
}

func newGenerator(sc scale) *generator {
	textPool() // build it before the first row, not inside one
	return &generator{sc: sc, s: orderStreams(), next: 1}
}

func (g *generator) done() bool { return g.next > g.sc.orders }

// sparseKey spreads order keys as dbgen's mk_sparse does: 8 of every 32.
func sparseKey(i int64) int64 { return (i>>3)<<5 | i&7 }

// retailPrice is dbgen's rpb_routine: a part's price in cents.
func retailPrice(part int64) int64 {
	return 90000 + (part/10)%20001 + (part%1000)*100
}

// partSupplier is dbgen's PART_SUPP_BRIDGE: the i-th supplier of a part.
func (sc scale) partSupplier(part, i int64) int64 {
	n := sc.suppliers
	return (part+i*(n/suppPerPart+(part-1)/n))%n + 1
}

// nextOrder fills o with the next order (dbgen's mk_order).
func (g *generator) nextOrder(o *order) {
	s, sc := g.s, g.sc
	o.key = sparseKey(g.next)
	g.next++
	o.cust = s.random(1, sc.customers, sdOCust)
	// A third of the customers have no orders (dbgen's CUST_MORTALITY).
	for delta := int64(1); o.cust%3 == 0; delta = -delta {
		o.cust = min(o.cust+delta, sc.customers)
	}
	o.date = int32(s.random(0, lastOrderDy, sdODate))
	o.priority = distPriority.pick(s, sdOPrio)
	o.clerk = s.random(1, sc.clerks, sdOClerk)
	o.comment = text(s, 49, sdOComment)
	o.total = 0
	o.n = int(s.random(1, maxLines, sdOLines))
	shipped := 0
	for i := range o.n {
		l := &o.lines[i]
		l.qty = s.random(1, 50, sdLQty)
		l.disc = s.random(0, 10, sdLDisc)
		l.tax = s.random(0, 8, sdLTax)
		l.instruct = distInstruct.pick(s, sdLInstr)
		l.mode = distShipMode.pick(s, sdLMode)
		l.comment = text(s, 27, sdLComment)
		l.part = s.random(1, sc.parts, sdLPart)
		l.supp = sc.partSupplier(l.part, s.random(0, 3, sdLSupp))
		l.price = retailPrice(l.part) * l.qty
		o.total += l.price * (100 - l.disc) / 100 * (100 + l.tax) / 100
		l.ship = o.date + int32(s.random(1, maxShipLag, sdLShip))
		l.commit = o.date + int32(s.random(30, 90, sdLCommit))
		l.receipt = l.ship + int32(s.random(1, maxRecvLag, sdLRecv))
		l.rflag = 'N'
		if l.receipt <= currentDay {
			l.rflag = distRFlag.pick(s, sdLRFlag)[0]
		}
		l.status = 'O'
		if l.ship <= currentDay {
			l.status = 'F'
			shipped++
		}
	}
	switch shipped {
	case 0:
		o.status = 'O'
	case o.n:
		o.status = 'F'
	default:
		o.status = 'P'
	}
	s.rowDone()
}
