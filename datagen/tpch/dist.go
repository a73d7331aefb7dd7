package tpch

import (
	"fmt"

	"github.com/pingcap/go-tpc/tpch/dbgen/dist"
)

// dist is one of dbgen's weighted word lists (dists.dss); the lists come
// from go-tpc's copy of dists.dss, the weights made cumulative.
type distribution struct {
	words [][]byte
	cum   []int64 // cumulative weights
}

func loadDist(name string) *distribution {
	items, ok := dist.Maps[name]
	if !ok || len(items) == 0 {
		panic(fmt.Sprintf("tpch: distribution %q missing from go-tpc's dists", name))
	}
	d := &distribution{}
	var sum int64
	for _, it := range items {
		sum += int64(it.Weight)
		d.words = append(d.words, []byte(it.Text))
		d.cum = append(d.cum, sum)
	}
	return d
}

// pick is dbgen's pick_str: a word drawn by weight from stream sd.
func (d *distribution) pick(s *streams, sd int) []byte {
	return d.words[d.pickIndex(s, sd)]
}

func (d *distribution) pickIndex(s *streams, sd int) int {
	j := s.random(1, d.cum[len(d.cum)-1], sd)
	i := 0
	for d.cum[i] < j {
		i++
	}
	return i
}

// The lists the tables draw from; read only.
var (
	distPriority  = loadDist("o_oprio")
	distInstruct  = loadDist("instruct")
	distShipMode  = loadDist("smode")
	distRFlag     = loadDist("rflag")
	distColors    = loadDist("colors")
	distPartType  = loadDist("p_types")
	distContainer = loadDist("p_cntr")
	distSegment   = loadDist("msegmnt")
	distNations   = loadDist("nations")
	distRegions   = loadDist("regions")
)
