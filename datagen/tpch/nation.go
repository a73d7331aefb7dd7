package tpch

// Nation and region (dbgen's mk_nation, mk_region): the rows of dbgen's
// nations and regions lists, keys from 0, at every scale factor; a
// nation's region key is its cumulative weight in the list (dists.dss
// gives each nation's region as the difference from the one before).

type nationGen struct {
	s    *streams
	next int
}

func newNationGen() *nationGen {
	textPool()
	return &nationGen{s: newStreams(sdNComment)}
}

func (g *nationGen) done() bool { return g.next == len(distNations.words) }

func (g *nationGen) add(b *rowBuilder) {
	i := g.next
	g.next++
	b.int64(int64(i))
	b.str(distNations.words[i])
	b.int64(distNations.cum[i])
	b.str(text(g.s, 72, sdNComment))
	g.s.rowDone()
}

type regionGen struct {
	s    *streams
	next int
}

func newRegionGen() *regionGen {
	textPool()
	return &regionGen{s: newStreams(sdRComment)}
}

func (g *regionGen) done() bool { return g.next == len(distRegions.words) }

func (g *regionGen) add(b *rowBuilder) {
	i := g.next
	g.next++
	b.int64(int64(i))
	b.str(distRegions.words[i])
	b.str(text(g.s, 72, sdRComment))
	g.s.rowDone()
}
