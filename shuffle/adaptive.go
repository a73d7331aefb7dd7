package shuffle

// The adaptive decisions (adaptive_*.go) are pure functions of block
// sizes, Spark's adaptive query execution rules computed from map
// statuses: which reduce partitions to read together (Coalesce), which
// to split by map ranges (SkewJoin), and whether a join side is small
// enough to broadcast (Broadcast). They take their sizes through
// SizeSource, which *Statuses implements, so the planner can run them on
// the statuses of a finished map stage and nothing else.

// SizeSource is a matrix of block sizes: map m's block for partition p.
type SizeSource interface {
	Maps() int
	Partitions() int
	Size(m, p int) int64
}

// Totals returns each partition's size summed over all maps: Spark's
// MapOutputStatistics.bytesByPartitionId, what coalescing and skew
// detection look at.
func Totals(s SizeSource) []int64 {
	out := make([]int64, s.Partitions())
	for m := range s.Maps() {
		for p := range out {
			out[p] += s.Size(m, p)
		}
	}
	return out
}

// mapSizes returns partition p's block size in every map: what a skewed
// partition is split by.
func mapSizes(s SizeSource, p int) []int64 {
	out := make([]int64, s.Maps())
	for m := range out {
		out[m] = s.Size(m, p)
	}
	return out
}

// median is Spark's Utils.median: the middle of the sorted sizes (the
// mean of the two middle ones, rounded down, for an even count), at
// least 1. sorted must be ascending.
func median(sorted []int64) int64 {
	n := len(sorted)
	if n == 0 {
		return 1
	}
	if n%2 == 0 {
		return max((sorted[n/2]+sorted[n/2-1])/2, 1)
	}
	return max(sorted[n/2], 1)
}
