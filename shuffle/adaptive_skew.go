package shuffle

import (
	"fmt"
	"slices"
)

// Defaults of SkewConfig, Spark's.
const (
	// DefaultSkewFactor is spark.sql.adaptive.skewJoin.skewedPartitionFactor.
	DefaultSkewFactor = 5.0
	// DefaultSkewThreshold is
	// spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes.
	DefaultSkewThreshold = 256 << 20
)

// SkewConfig configures SkewJoin. The zero value is Spark's defaults.
type SkewConfig struct {
	// Factor: a partition is skewed when bigger than Factor × the median
	// partition and than Threshold. 0 means 5.
	Factor float64
	// Threshold: see Factor. 0 means 256 MiB.
	Threshold int64
	// Coalesce packs the partitions that are not skewed, and its
	// AdvisorySize is the least size a skewed partition is split to.
	Coalesce CoalesceConfig
}

// Validate reports a field outside its documented range.
func (c SkewConfig) Validate() error {
	if c.Factor < 0 || c.Threshold < 0 {
		return fmt.Errorf("shuffle: SkewConfig factor %g, threshold %d: negative", c.Factor, c.Threshold)
	}
	return c.Coalesce.Validate()
}

func (c SkewConfig) norm() SkewConfig {
	if c.Factor == 0 {
		c.Factor = DefaultSkewFactor
	}
	if c.Threshold == 0 {
		c.Threshold = DefaultSkewThreshold
	}
	c.Coalesce = c.Coalesce.norm()
	return c
}

// SkewThreshold is the size past which a partition of one join side is
// skewed (Spark's OptimizeSkewedJoin.getSkewThreshold): max(Threshold,
// median partition × Factor).
func SkewThreshold(totals []int64, cfg SkewConfig) int64 {
	cfg = cfg.norm()
	sorted := slices.Sorted(slices.Values(totals))
	return max(cfg.Threshold, int64(float64(median(sorted))*cfg.Factor))
}

// SkewTarget is the size a skewed partition is split to
// (OptimizeSkewedJoin.targetSize): the mean of the partitions not past
// threshold, or the advisory size if larger (or if every partition is
// past it).
func SkewTarget(totals []int64, threshold int64, cfg SkewConfig) int64 {
	cfg = cfg.norm()
	var sum, n int64
	for _, t := range totals {
		if t <= threshold {
			sum += t
			n++
		}
	}
	if n == 0 {
		return cfg.Coalesce.AdvisorySize
	}
	return max(cfg.Coalesce.AdvisorySize, sum/n)
}

// MapRange is the blocks of maps [Start, End) of one partition, and their
// bytes.
type MapRange struct {
	Start, End int
	Bytes      int64
}

// SplitByMaps cuts one partition's per-map block sizes into contiguous
// map ranges of about target bytes (Spark's
// ShufflePartitionsUtil.splitSizeListByTargetSize): a range closes when
// the next map would pass target, and is merged into the one before when
// the two together are under 1.2 × target or either is under 0.2 ×
// target.
func SplitByMaps(sizes []int64, target int64) []MapRange {
	const smallFactor, mergedFactor = 0.2, 1.2
	starts := []int{0}
	var cur int64
	last := int64(-1)
	tryMerge := func() {
		if last > -1 && (float64(cur+last) < float64(target)*mergedFactor ||
			float64(cur) < float64(target)*smallFactor || float64(last) < float64(target)*smallFactor) {
			starts = starts[:len(starts)-1]
			last += cur
		} else {
			last = cur
		}
	}
	for i, n := range sizes {
		if i > 0 && cur+n > target {
			tryMerge()
			starts = append(starts, i)
			cur = n
		} else {
			cur += n
		}
	}
	tryMerge()
	out := make([]MapRange, len(starts))
	for k, s := range starts {
		end := len(sizes)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		out[k] = MapRange{Start: s, End: end}
		for _, n := range sizes[s:end] {
			out[k].Bytes += n
		}
	}
	return out
}

// JoinTask is one reduce task of a shuffled join: partitions
// Partitions.Start..End of both sides, each side read from its map range
// (all maps unless the side was split). A skewed partition gives one
// task per pair of left and right pieces, so the side that was not split
// is read once per piece of the other (replicated).
type JoinTask struct {
	Partitions  PartitionRange // Bytes: both sides
	Left, Right MapRange
	Skewed      bool // one of the sides was split
}

// SkewJoin plans the reduce tasks of a join from the statuses of its two
// shuffles, as Spark's OptimizeSkewedJoin followed by
// CoalesceShufflePartitions: a partition bigger than its side's
// SkewThreshold is split by map ranges (SplitByMaps to SkewTarget) on
// each side that splitLeft/splitRight allow (the join type decides:
// inner both, left outer/semi/anti the left, right outer the right), and
// the runs of partitions between skewed ones are coalesced. Both sides
// must have the same partitions.
func SkewJoin(left, right SizeSource, splitLeft, splitRight bool, cfg SkewConfig) ([]JoinTask, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if left.Partitions() != right.Partitions() {
		return nil, fmt.Errorf("shuffle: join sides of %d and %d partitions", left.Partitions(), right.Partitions())
	}
	lt, rt := Totals(left), Totals(right)
	lthr, rthr := SkewThreshold(lt, cfg), SkewThreshold(rt, cfg)
	ltarget, rtarget := SkewTarget(lt, lthr, cfg), SkewTarget(rt, rthr, cfg)
	totals := [][]int64{lt, rt}
	target := CoalesceTarget(totals, cfg.Coalesce)
	lall, rall := MapRange{0, left.Maps(), 0}, MapRange{0, right.Maps(), 0}

	skewed := func(p int) bool { return splitLeft && lt[p] > lthr || splitRight && rt[p] > rthr }
	var out []JoinTask
	coalesce := func(start, end int, allowEmpty bool) {
		for _, r := range coalesceRange(totals, start, end, target, allowEmpty) {
			l, rr := lall, rall
			l.Bytes, rr.Bytes = sumRange(lt, r), sumRange(rt, r)
			out = append(out, JoinTask{Partitions: r, Left: l, Right: rr})
		}
	}
	start, any := 0, false
	for p := range lt {
		if !skewed(p) {
			continue
		}
		coalesce(start, p, true)
		start, any = p+1, true
		lp := []MapRange{{0, left.Maps(), lt[p]}} // read whole: replicated
		if splitLeft && lt[p] > lthr {
			lp = SplitByMaps(mapSizes(left, p), ltarget)
		}
		rp := []MapRange{{0, right.Maps(), rt[p]}}
		if splitRight && rt[p] > rthr {
			rp = SplitByMaps(mapSizes(right, p), rtarget)
		}
		for _, l := range lp {
			for _, r := range rp {
				out = append(out, JoinTask{
					Partitions: PartitionRange{p, p + 1, l.Bytes + r.Bytes},
					Left:       l, Right: r, Skewed: len(lp) > 1 || len(rp) > 1,
				})
			}
		}
	}
	coalesce(start, len(lt), any)
	return out, nil
}

func sumRange(t []int64, r PartitionRange) int64 {
	var s int64
	for _, n := range t[r.Start:r.End] {
		s += n
	}
	return s
}
