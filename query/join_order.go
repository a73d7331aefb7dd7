package query

import "math/bits"

// Join ordering by dynamic programming (DPsub, as in Moerkotte and
// Neumann's "Analysis of Two Existing and One New Dynamic Programming
// Algorithm for the Generation of Optimal Bushy Join Trees"): for every
// set of the region's parts, from pairs up to all of them, the cheapest
// way to join it is the cheapest split into two sets that an equality
// connects, each joined its cheapest way. Only connected splits are
// tried, so no cross product is planned where a join exists; a region
// whose parts no equalities connect is left to the greedy order
// (from_join.go), which joins the unconnected groups last.
//
// The cost of a plan is C_out plus the build sides: the rows every join
// returns (what the operators above it read) and the rows of the smaller
// input (the hash table it builds, a row costing about what an output row
// does). Sets are bitmasks over the parts, so the table has 2^n entries:
// up to maxDPParts parts (1,024 sets, 3^10 = 59,049 splits at most); a
// larger region takes the greedy order.
const maxDPParts = 10

// dpGain is how much cheaper than the greedy order's the DP's plan must
// be estimated to replace it. The estimates are rough, and chains of key
// to foreign-key joins often cost the same in any order (each build side
// is counted once whatever the order): there the greedy order, which
// joins the smallest results first and so gives the big scans the most
// selective runtime filters, measured faster (TPC-H Q5, Q9 at SF 1: about
// a tenth).
const dpGain = 0.9

// regionSet is a set of a region's parts (bit i: part i).
type regionSet uint32

// joinTree is a join order: a leaf (one part) or a join of two trees.
type joinTree struct {
	leaf        int // the part, for a leaf; -1 for a join
	left, right *joinTree
}

// joinSizer estimates the rows of joining two disjoint sets of parts,
// given the rows each returns; connected is false when no equality joins
// them.
type joinSizer func(l, r regionSet, lRows, rRows float64) (rows float64, connected bool)

// dpEntry is the cheapest plan found for one set.
type dpEntry struct {
	cost, rows  float64
	left, right regionSet // the split; zero for a leaf
	ok          bool      // a plan exists (the set is connected)
}

// dpJoinOrder returns the cheapest bushy join tree over parts whose
// estimated rows are leafRows, and its cost; ok is false when the parts
// are not all connected by equalities (or there are too many).
func dpJoinOrder(leafRows []float64, size joinSizer) (tree *joinTree, cost float64, ok bool) {
	n := len(leafRows)
	if n == 0 || n > maxDPParts {
		return nil, 0, false
	}
	best := make([]dpEntry, 1<<n)
	for i, r := range leafRows {
		best[1<<i] = dpEntry{rows: r, ok: true}
	}
	full := regionSet(1<<n - 1)
	// Every proper subset of s is numerically smaller than s, so it is
	// final when s is reached.
	for s := regionSet(3); s <= full; s++ {
		if bits.OnesCount32(uint32(s)) < 2 {
			continue
		}
		e := &best[s]
		// Each split once: l holds s's lowest part.
		low := s & -s
		for l := (s - 1) & s; l != 0; l = (l - 1) & s {
			if l&low == 0 {
				continue
			}
			r := s &^ l
			bl, br := &best[l], &best[r]
			if !bl.ok || !br.ok {
				continue
			}
			rows, connected := size(l, r, bl.rows, br.rows)
			if !connected {
				continue
			}
			c := bl.cost + br.cost + rows + min(bl.rows, br.rows)
			if !e.ok || c < e.cost {
				*e = dpEntry{cost: c, rows: rows, left: l, right: r, ok: true}
			}
		}
	}
	if !best[full].ok {
		return nil, 0, false
	}
	return dpTree(best, full), best[full].cost, true
}

// greedyCost is the cost, as dpJoinOrder counts it, of the tree greedy
// operator ordering builds (from_join.go's greedyOrder over the same
// estimates): join the connected pair whose join is estimated smallest
// (then the pair of smaller inputs) until one is left. ok is false when
// the parts are not all connected.
func greedyCost(leafRows []float64, size joinSizer) (cost float64, ok bool) {
	type item struct {
		set  regionSet
		rows float64
	}
	items := make([]item, len(leafRows))
	for i, r := range leafRows {
		items[i] = item{set: 1 << i, rows: r}
	}
	for len(items) > 1 {
		bi, bj, best := pickPair(len(items), func(i, j int) (float64, bool) {
			return size(items[i].set, items[j].set, items[i].rows, items[j].rows)
		}, func(i, j int) float64 { return items[i].rows + items[j].rows })
		if bi < 0 {
			return 0, false
		}
		x, y := items[bi], items[bj]
		cost += best + min(x.rows, y.rows)
		items[bi] = item{set: x.set | y.set, rows: best}
		items = append(items[:bj], items[bj+1:]...)
	}
	return cost, true
}

// pickPair is greedy operator ordering's choice among n items (greedyCost
// here, greedyOrder in from_join.go): the connected pair i < j whose join
// is estimated smallest, then the one of smaller inputs; bi is -1 when no
// pair is connected.
func pickPair(n int, join func(i, j int) (rows float64, connected bool), inputs func(i, j int) float64) (bi, bj int, best float64) {
	bi, bj = -1, -1
	for i := range n {
		for j := i + 1; j < n; j++ {
			rows, connected := join(i, j)
			if !connected {
				continue
			}
			if bi < 0 || rows < best || rows == best && inputs(i, j) < inputs(bi, bj) {
				bi, bj, best = i, j, rows
			}
		}
	}
	return bi, bj, best
}

// dpTree reads the tree of set s out of the table.
func dpTree(best []dpEntry, s regionSet) *joinTree {
	e := best[s]
	if e.left == 0 {
		return &joinTree{leaf: bits.TrailingZeros32(uint32(s))}
	}
	return &joinTree{leaf: -1, left: dpTree(best, e.left), right: dpTree(best, e.right)}
}
