package query

import (
	"github.com/quiverdb/quiver/shuffle"
)

// A grace hash join's plan of one round (op_gracejoin.go), decided from
// the map statuses of its two sides (package shuffle), as Spark's
// adaptive execution decides from a finished map stage's:
//
//   - a partition whose blocks are empty on a side that decides (the
//     build side of a kind that returns nothing for an unmatched probe
//     row; the probe side of one that returns no build rows) is not
//     joined, and its other side's blocks are not read; a probe row of
//     an inner-like join whose build partition is empty is not even
//     written (writeProbe);
//   - the partitions whose build rows fit in memory are joined first, in
//     order, the rest after; those that fit are packed into groups joined
//     together while a group fits in half of what the limit leaves
//     (coalesce), and the smallest were kept in memory while the probe
//     side was partitioned (op_gracejoin_keep.go) and are done already;
//   - a partition whose build rows do not fit and that shuffle's skew rule
//     flags (bigger than 5 × the median partition: shuffle.SkewThreshold,
//     not fitting standing for Spark's 256 MiB) is split by map ranges of
//     about what fits (shuffle.SplitByMaps), each joined with the whole
//     probe partition
//     (replicated: read once per range). Partitioning it again would not
//     help: the bytes that make it skewed are one key's, or a few keys'.
//     A range that does not fit after all is cut further as the nested
//     loop's chunks are; a partition too big but not skewed is
//     partitioned again with the next level's seed, as before.
//
// Sizes are the statuses' bytes (the blocks as written, compressed by the
// spill codec); whether a partition fits is judged, as before, by the
// memory its rows held and their hash table's.

// plan puts the partitions of round r that need joining on the work
// list, the first to join last; done: those joined already (kept in
// memory while the probe side was partitioned), or nil.
func (g *graceJoin) plan(r *graceRound, done []bool) {
	o := g.o
	buildTotals, probeTotals := r.build.totals(), r.probe.totals()
	returnsBuild := o.n.kind == joinRight || o.n.kind == joinFull || o.n.kind == joinRightAnti
	var fit, big []*gracePart
	for p := range r.build.fanout {
		if done != nil && done[p] {
			continue
		}
		if buildTotals[p] == 0 && (o.innerLike() || probeTotals[p] == 0) || probeTotals[p] == 0 && !returnsBuild {
			g.st.skipped.Add(1)
			continue
		}
		q := &gracePart{r: r, p: p, buildRows: r.build.rows[p], buildMem: r.build.mem[p], probeRows: r.probe.rows[p]}
		if g.fits(q) {
			fit = append(fit, q)
		} else {
			big = append(big, q)
		}
	}
	if len(big) > 0 && !o.rt.joinSpill.noSkewSplit {
		g.planSkew(r, buildTotals, big)
	}
	fit = g.coalesce(fit)
	r.left = len(fit) + len(big)
	for i := len(big) - 1; i >= 0; i-- {
		g.work = append(g.work, big[i])
	}
	for i := len(fit) - 1; i >= 0; i-- {
		g.work = append(g.work, fit[i])
	}
	if r.left == 0 {
		r.build.remove()
		r.probe.remove()
	}
}

// planSkew marks the partitions of big (too big for memory) that the
// skew rule flags to be split by map ranges of the build side.
func (g *graceJoin) planSkew(r *graceRound, totals []int64, big []*gracePart) {
	maps := r.build.maps
	if maps < 2 {
		return
	}
	// Spark's threshold is max(256 MiB, 5 × the median); here "too big"
	// is fits' (memory) verdict, so only the factor is left.
	threshold := shuffle.SkewThreshold(totals, shuffle.SkewConfig{Threshold: 1})
	st := r.build.sh.Statuses()
	sizes := make([]int64, maps)
	for _, q := range big {
		if totals[q.p] <= threshold {
			continue
		}
		for m := range sizes {
			sizes[m] = st.Size(m, q.p)
		}
		// Ranges of what fits, in the partition's own bytes: its blocks
		// compress as its rows do (one key's compress well), so a ratio
		// of the whole side's would misjudge them.
		target := max(int64(float64(totals[q.p])*g.fitShare(q)), 1)
		ranges := shuffle.SplitByMaps(sizes, target)
		if len(ranges) < 2 {
			continue
		}
		q.split = ranges
		g.st.splits.Add(1)
		g.st.ranges.Add(int64(len(ranges)))
	}
}

// fitShare is the share of p's build rows that fit in memory now.
func (g *graceJoin) fitShare(p *gracePart) float64 {
	share := 1.0
	if mt := g.o.rt.mt; mt.limit > 0 {
		share = min(share, float64(mt.limit-mt.firm())/float64(max(g.need(p.buildRows, p.buildMem), 1)))
	}
	if m := g.o.rt.joinSpill.maxRows; m > 0 {
		share = min(share, float64(m)/float64(max(p.buildRows, 1)))
	}
	return max(share, 0)
}

// coalesce packs the partitions that fit, in order, into groups joined
// together (Spark's CoalesceShufflePartitions, by what fits rather than
// an advisory size): a group grows while its build rows would fit in half
// of what the memory limit leaves (and under the row cap of
// Options.ForceJoinSpill), so that a join spilled into many small
// partitions builds and probes a few times, not once per partition.
func (g *graceJoin) coalesce(fit []*gracePart) []*gracePart {
	var out []*gracePart
	for _, q := range fit {
		if n := len(out); n > 0 {
			cur := out[n-1]
			sum := &gracePart{r: q.r, p: cur.p, buildRows: cur.buildRows + q.buildRows, buildMem: cur.buildMem + q.buildMem,
				probeRows: cur.probeRows + q.probeRows}
			if g.groupFits(sum) {
				sum.group = append(cur.parts(), q.p)
				out[n-1] = sum
				continue
			}
		}
		out = append(out, q)
	}
	for _, q := range out {
		if len(q.group) > 1 {
			g.st.coalesced.Add(int64(len(q.group)))
			g.st.groups.Add(1)
		}
	}
	return out
}

// groupFits: a group of p's size fits with room to spare.
func (g *graceJoin) groupFits(p *gracePart) bool {
	if m := g.o.rt.joinSpill.groupRows; m > 0 {
		return p.buildRows <= m
	}
	if m := g.o.rt.joinSpill.maxRows; m > 0 && p.buildRows > m {
		return false
	}
	mt := g.o.rt.mt
	return mt.limit <= 0 || mt.firm()+2*g.need(p.buildRows, p.buildMem) <= mt.limit
}

// ungroup puts the partitions of a group that did not fit after all on
// the work list one by one.
func (g *graceJoin) ungroup(p *gracePart) {
	r := p.r
	for i := len(p.group) - 1; i >= 0; i-- {
		q := p.group[i]
		g.work = append(g.work, &gracePart{r: r, p: q, buildRows: r.build.rows[q], buildMem: r.build.mem[q], probeRows: r.probe.rows[q]})
	}
	r.left += len(p.group)
}
