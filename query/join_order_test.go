package query

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDPJoinOrderIsOptimal: on random join graphs (connected, with
// random table sizes and edge selectivities, so a set's rows do not
// depend on how it is joined), the DP's cost equals the cheapest of
// every bushy tree without cross products, found by brute force, and its
// tree joins every part once, each join over an edge.
func TestDPJoinOrderIsOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	greedyWorse := 0
	defer func() {
		if greedyWorse == 0 {
			t.Error("the greedy order was never worse than the DP's: the test cannot tell them apart")
		}
	}()
	for round := range 300 {
		n := 2 + rng.IntN(6)
		leafRows := make([]float64, n)
		for i := range leafRows {
			leafRows[i] = math.Round(math.Pow(10, 1+rng.Float64()*6))
		}
		sel := map[[2]int]float64{}
		for i := 1; i < n; i++ { // a spanning tree keeps the graph connected
			sel[[2]int{rng.IntN(i), i}] = 1 / math.Max(leafRows[i], 2)
		}
		for range rng.IntN(n) { // and some cycles
			a, b := rng.IntN(n), rng.IntN(n)
			if a < b {
				sel[[2]int{a, b}] = math.Pow(10, -rng.Float64()*4)
			}
		}
		size := func(l, r regionSet, lRows, rRows float64) (float64, bool) {
			rows, connected := lRows*rRows, false
			for e, s := range sel {
				if l&(1<<e[0]) != 0 && r&(1<<e[1]) != 0 || l&(1<<e[1]) != 0 && r&(1<<e[0]) != 0 {
					rows *= s
					connected = true
				}
			}
			return rows, connected
		}
		tree, cost, ok := dpJoinOrder(leafRows, size)
		if !ok {
			t.Fatalf("round %d: a connected graph of %d parts has no plan", round, n)
		}
		want, _, _ := bruteJoinCost(leafRows, size, regionSet(1<<n-1))
		if math.Abs(cost-want) > 1e-9*want {
			t.Fatalf("round %d (%d parts): DP cost %g, the best tree costs %g", round, n, cost, want)
		}
		g, ok := greedyCost(leafRows, size)
		if !ok || g < cost*(1-1e-9) {
			t.Fatalf("round %d: the greedy order costs %g (ok %v), below the optimum %g", round, g, ok, cost)
		}
		if g > cost*(1+1e-9) {
			greedyWorse++
		}
		var seen regionSet
		var walk func(*joinTree) regionSet
		walk = func(t2 *joinTree) regionSet {
			if t2.leaf >= 0 {
				if seen&(1<<t2.leaf) != 0 {
					t.Fatalf("round %d: part %d joined twice", round, t2.leaf)
				}
				seen |= 1 << t2.leaf
				return 1 << t2.leaf
			}
			l, r := walk(t2.left), walk(t2.right)
			if _, connected := size(l, r, 1, 1); !connected {
				t.Fatalf("round %d: a cross product %b × %b", round, l, r)
			}
			return l | r
		}
		if walk(tree) != regionSet(1<<n-1) {
			t.Fatalf("round %d: the tree misses parts", round)
		}
	}
}

// bruteJoinCost is the cheapest cost of set s over every connected
// split, recursively, with the DP's cost function.
func bruteJoinCost(leafRows []float64, size joinSizer, s regionSet) (cost, rows float64, ok bool) {
	if s&(s-1) == 0 {
		for i := range leafRows {
			if s == 1<<i {
				return 0, leafRows[i], true
			}
		}
	}
	best := math.Inf(1)
	for l := (s - 1) & s; l != 0; l = (l - 1) & s {
		r := s &^ l
		cl, rl, okl := bruteJoinCost(leafRows, size, l)
		cr, rr, okr := bruteJoinCost(leafRows, size, r)
		if !okl || !okr {
			continue
		}
		out, connected := size(l, r, rl, rr)
		if !connected {
			continue
		}
		if c := cl + cr + out + math.Min(rl, rr); c < best {
			best, rows, ok = c, out, true
		}
	}
	return best, rows, ok
}

// TestDPJoinOrderRefuses: parts no equality connects, and regions past
// maxDPParts, are left to the greedy order.
func TestDPJoinOrderRefuses(t *testing.T) {
	none := func(l, r regionSet, _, _ float64) (float64, bool) { return 0, false }
	if _, _, ok := dpJoinOrder([]float64{1, 2, 3}, none); ok {
		t.Fatal("a plan for unconnected parts")
	}
	// parts 0-1 connected, 2 alone
	pair := func(l, r regionSet, a, b float64) (float64, bool) {
		return a * b, (l|r)&3 == 3 && (l == 1 || r == 1)
	}
	if _, _, ok := dpJoinOrder([]float64{1, 2, 3}, pair); ok {
		t.Fatal("a plan for a graph in two pieces")
	}
	all := func(l, r regionSet, a, b float64) (float64, bool) { return a * b, true }
	if _, _, ok := dpJoinOrder(make([]float64, maxDPParts+1), all); ok {
		t.Fatal("a DP plan past maxDPParts")
	}
}
