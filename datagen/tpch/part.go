package tpch

import "fmt"

// Part and partsupp (dbgen's mk_part, which writes a part and its four
// partsupp rows together). Each table has its own reader with the streams
// of its own columns: since every stream is advanced to its boundary
// after each part, partsupp's values do not depend on part's draws.

type partGen struct {
	sc   scale
	s    *streams
	next int64 // key of the next part, from 1
	perm []int // scratch for the name's permutation of the colors
	buf  []byte
}

func newPartGen(sc scale) *partGen {
	textPool()
	return &partGen{
		sc:   sc,
		s:    newStreams(sdPMfg, sdPBrand, sdPType, sdPSize, sdPCntr, sdPComment, sdPName),
		next: 1,
		perm: make([]int, len(distColors.words)),
	}
}

func (g *partGen) done() bool { return g.next > g.sc.parts }

func (g *partGen) add(b *rowBuilder) {
	s, key := g.s, g.next
	g.next++
	b.int64(key)
	b.str(g.name())
	mfgr := s.random(1, 5, sdPMfg)
	g.buf = fmt.Appendf(g.buf[:0], "Manufacturer#%d", mfgr)
	b.str(g.buf)
	g.buf = fmt.Appendf(g.buf[:0], "Brand#%02d", mfgr*10+s.random(1, 5, sdPBrand))
	b.str(g.buf)
	b.str(distPartType.pick(s, sdPType))
	b.int32(s.random(1, 50, sdPSize))
	b.str(distContainer.pick(s, sdPCntr))
	b.money(retailPrice(key))
	b.str(text(s, 14, sdPComment))
	s.rowDone()
}

// name is dbgen's agg_str(colors, 5, P_NAME_SD): the first five of a
// random permutation of the 92 colors, joined by spaces. The
// permutation takes one draw per color, so the stream's 92 per row.
func (g *partGen) name() []byte {
	p := g.perm
	for i := range p {
		p[i] = i
	}
	for i := range p {
		j := g.s.random(int64(i), int64(len(p)-1), sdPName)
		p[i], p[j] = p[j], p[i]
	}
	g.buf = g.buf[:0]
	for i := range 5 {
		if i > 0 {
			g.buf = append(g.buf, ' ')
		}
		g.buf = append(g.buf, distColors.words[p[i]]...)
	}
	return g.buf
}

type partsuppGen struct {
	sc   scale
	s    *streams
	part int64 // the part whose rows come next, from 1
	i    int64 // its supplier, 0 to suppPerPart-1
}

func newPartsuppGen(sc scale) *partsuppGen {
	textPool()
	return &partsuppGen{sc: sc, s: newStreams(sdPSQty, sdPSCost, sdPSComment), part: 1}
}

func (g *partsuppGen) done() bool { return g.part > g.sc.parts }

func (g *partsuppGen) add(b *rowBuilder) {
	s := g.s
	b.int64(g.part)
	b.int64(g.sc.partSupplier(g.part, g.i))
	b.int32(s.random(1, 9999, sdPSQty))
	b.money(s.random(100, 100000, sdPSCost))
	b.str(text(s, 124, sdPSComment))
	if g.i++; g.i == suppPerPart {
		g.i = 0
		g.part++
		s.rowDone()
	}
}
