package tpch

import "fmt"

// Customer (dbgen's mk_cust).

type customerGen struct {
	sc   scale
	s    *streams
	next int64
	buf  []byte
}

func newCustomerGen(sc scale) *customerGen {
	textPool()
	return &customerGen{
		sc:   sc,
		s:    newStreams(sdCAddr, sdCNation, sdCPhone, sdCBal, sdCSegment, sdCComment),
		next: 1,
	}
}

func (g *customerGen) done() bool { return g.next > g.sc.customers }

func (g *customerGen) add(b *rowBuilder) {
	s, key := g.s, g.next
	g.next++
	b.int64(key)
	g.buf = fmt.Appendf(g.buf[:0], "Customer#%09d", key)
	b.str(g.buf)
	b.str(appendVString(g.buf[:0], s, 25, sdCAddr))
	nation := s.random(0, int64(len(distNations.words)-1), sdCNation)
	b.int64(nation)
	b.str(appendPhone(g.buf[:0], s, nation, sdCPhone))
	b.money(s.random(-99999, 999999, sdCBal))
	b.str(distSegment.pick(s, sdCSegment))
	b.str(text(s, 73, sdCComment))
	s.rowDone()
}
