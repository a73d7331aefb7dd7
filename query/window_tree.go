package query

// bestTree is a segment tree of the best row of each range by a
// comparison (min's or max's order), over rows that count (not NULL):
// the best of any range in O(log n). It answers min and max over frames
// with holes (EXCLUDE), where the monotone queue of window_eval.go,
// which needs a frame to be one span, cannot.
type bestTree struct {
	n      int
	node   []int32 // row, or -1: none counts
	better func(a, b int) bool
}

func newBestTree(n int, less func(a, b int) bool, counts func(a int) bool) *bestTree {
	t := &bestTree{n: n, node: make([]int32, 2*n), better: less}
	for i := range n {
		t.node[n+i] = -1
		if counts(i) {
			t.node[n+i] = int32(i)
		}
	}
	for i := n - 1; i > 0; i-- {
		t.node[i] = t.pick(t.node[2*i], t.node[2*i+1])
	}
	return t
}

func (t *bestTree) pick(a, b int32) int32 {
	switch {
	case a < 0:
		return b
	case b < 0 || !t.better(int(b), int(a)):
		return a
	}
	return b
}

// best is the best row of [lo, hi), or -1.
func (t *bestTree) best(lo, hi int) int {
	r := int32(-1)
	if lo < 0 {
		lo = 0
	}
	for lo, hi = lo+t.n, hi+t.n; lo < hi; lo, hi = lo/2, hi/2 {
		if lo&1 == 1 {
			r = t.pick(r, t.node[lo])
			lo++
		}
		if hi&1 == 1 {
			hi--
			r = t.pick(r, t.node[hi])
		}
	}
	return int(r)
}
