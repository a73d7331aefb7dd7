package tpch

import "fmt"

// Supplier (dbgen's mk_supp).

// Better Business Bureau comments (TPC-H 4.2.3): in 10 of every 10,000
// suppliers dbgen overwrites part of the comment with "Customer " and,
// noise bytes later, "Complaints" or "Recommends" (Q16 looks for them).
const (
	bbbPerTenThousand = 10
	bbbDeadbeats      = 50 // of 100: Complaints below, Recommends from
	bbbBase           = "Customer "
	bbbLen            = len(bbbBase) + len("Complaints")
)

type supplierGen struct {
	sc      scale
	s       *streams
	next    int64
	buf     []byte
	comment []byte
}

func newSupplierGen(sc scale) *supplierGen {
	textPool()
	return &supplierGen{
		sc: sc,
		s: newStreams(sdSAddr, sdSNation, sdSPhone, sdSBal, sdSComment,
			sdBBBJunk, sdBBBType, sdBBBCmnt, sdBBBOffset),
		next: 1,
	}
}

func (g *supplierGen) done() bool { return g.next > g.sc.suppliers }

func (g *supplierGen) add(b *rowBuilder) {
	s, key := g.s, g.next
	g.next++
	b.int64(key)
	g.buf = fmt.Appendf(g.buf[:0], "Supplier#%09d", key)
	b.str(g.buf)
	b.str(appendVString(g.buf[:0], s, 25, sdSAddr))
	nation := s.random(0, int64(len(distNations.words)-1), sdSNation)
	b.int64(nation)
	b.str(appendPhone(g.buf[:0], s, nation, sdSPhone))
	b.money(s.random(-99999, 999999, sdSBal))
	b.str(g.bbbComment(text(s, 63, sdSComment)))
	s.rowDone()
}

// bbbComment returns comment, or a copy with dbgen's insertions. The
// four draws happen for every supplier.
func (g *supplierGen) bbbComment(comment []byte) []byte {
	s, n := g.s, int64(len(comment))
	bad := s.random(1, 10000, sdBBBCmnt)
	kind := s.random(0, 100, sdBBBType)
	noise := s.random(0, n-int64(bbbLen), sdBBBJunk)
	off := s.random(0, n-(int64(bbbLen)+noise), sdBBBOffset)
	if bad > bbbPerTenThousand {
		return comment
	}
	g.comment = append(g.comment[:0], comment...)
	copy(g.comment[off:], bbbBase)
	word := "Recommends"
	if kind < bbbDeadbeats {
		word = "Complaints"
	}
	copy(g.comment[off+int64(len(bbbBase))+noise:], word)
	return g.comment
}
