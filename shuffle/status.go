package shuffle

import (
	"fmt"
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// StatusKind tells how a MapStatus summarizes its block sizes. It is the
// kind byte of the serialized form (doc.go).
type StatusKind uint8

const (
	// KindMissing: no status (the map task has not finished, or its
	// output was lost). Only in a serialized set of statuses.
	KindMissing StatusKind = 0
	// KindCompressed: one size byte per block.
	KindCompressed StatusKind = 1
	// KindHighlyCompressed: empty blocks as a bitmap, the average of the
	// others, and the blocks past the thresholds to within 10%.
	KindHighlyCompressed StatusKind = 2
)

func (k StatusKind) String() string {
	switch k {
	case KindMissing:
		return "missing"
	case KindCompressed:
		return "compressed"
	case KindHighlyCompressed:
		return "highly-compressed"
	}
	return fmt.Sprintf("StatusKind(%d)", uint8(k))
}

// MapStatus is what one map task reports: where its output is, its id,
// and the size of each of its blocks (one per reduce partition), as
// Spark's MapStatus. A MapStatus is immutable and safe for concurrent use.
type MapStatus struct {
	location string
	mapID    int64
	kind     StatusKind
	sizes    []byte  // KindCompressed: one byte per block (status_size.go)
	hi       *highly // KindHighlyCompressed
}

// highly is a highly compressed summary, of a MapStatus or of a decoded
// record (whose bitmaps then point into the decoded body).
type highly struct {
	partitions      int
	avg             int64           // every block neither empty nor accurate
	empty, accurate *roaring.Bitmap // blocks of size 0; blocks recorded to within 10%
	accSizes        []byte          // the accurate blocks' size bytes, in block order
}

func (h *highly) size(p int) int64 {
	x := uint32(p)
	if h.empty.Contains(x) {
		return 0
	}
	if h.accurate.Contains(x) {
		return DecompressSize(h.accSizes[h.accurate.Rank(x)-1])
	}
	return h.avg
}

// NewMapStatus summarizes the exact block sizes of one map task: as one
// byte per block for up to cfg's MinPartitionsToHighlyCompress blocks,
// highly compressed above (doc.go). location says where the output is (a
// worker's address, a file); mapID identifies the task. cfg must be valid
// (StatusConfig.Validate); NewMapStatus panics otherwise.
func NewMapStatus(location string, mapID int64, sizes []int64, cfg StatusConfig) *MapStatus {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	s := &MapStatus{location: location, mapID: mapID}
	if len(sizes) <= cfg.minHighly() {
		s.kind = KindCompressed
		s.sizes = make([]byte, len(sizes))
		for i, n := range sizes {
			s.sizes[i] = CompressSize(n)
		}
		return s
	}
	s.kind = KindHighlyCompressed
	s.buildHighly(sizes, cfg)
	return s
}

// buildHighly fills the highly compressed summary. A block is recorded to
// within 10% when it is at least the threshold (Spark's rule) or bigger
// than the average bound allows (averageCut); the others are empty or
// the average.
func (s *MapStatus) buildHighly(sizes []int64, cfg StatusConfig) {
	threshold := cfg.accurateThreshold()
	if cfg.SkewFactor > 0 {
		// Spark's skew-aware rule needs the median and the k-th largest:
		// a sort, as Spark's (only when configured, as Spark's).
		nonEmpty := make([]int64, 0, len(sizes))
		for _, n := range sizes {
			if n > 0 {
				nonEmpty = append(nonEmpty, n)
			}
		}
		slices.Sort(nonEmpty)
		threshold = sparkThreshold(nonEmpty, len(sizes), cfg)
	}
	cut, avg := averageCut(sizes, threshold, cfg.averageBound())
	h := &highly{partitions: len(sizes), avg: avg}
	var empty, acc []uint32
	for i, n := range sizes {
		switch {
		case n <= 0:
			empty = append(empty, uint32(i))
		case n >= threshold || n > cut:
			acc = append(acc, uint32(i))
			h.accSizes = append(h.accSizes, CompressSize(n))
		}
	}
	h.empty = roaring.BitmapOf(empty...)
	h.empty.RunOptimize()
	h.accurate = roaring.BitmapOf(acc...)
	h.accurate.RunOptimize()
	s.hi = h
}

// sparkThreshold is Spark's huge-block threshold
// (HighlyCompressedMapStatus.apply): AccurateBlockThreshold, or with a
// skew factor min(AccurateBlockThreshold, max(median × factor, the
// k-th largest size)), the median and the k-th largest taken over all n
// sizes, empty ones included (Utils.median, at least 1).
func sparkThreshold(nonEmpty []int64, n int, cfg StatusConfig) int64 {
	t := cfg.accurateThreshold()
	if cfg.SkewFactor <= 0 {
		return t
	}
	zeros := n - len(nonEmpty)
	at := func(i int) int64 { // i-th of all n sizes sorted
		if i < zeros {
			return 0
		}
		return nonEmpty[i-zeros]
	}
	median := at(n / 2)
	if n%2 == 0 {
		median = (at(n/2) + at(n/2-1)) / 2
	}
	median = max(median, 1)
	k := min(cfg.maxSkewed(), n)
	skew := max(float64(median)*cfg.SkewFactor, float64(at(n-k)))
	if skew < float64(t) {
		return int64(skew)
	}
	return t
}

// averageCut decides which of the non-empty blocks below threshold are
// reported as their average: the largest set of the smallest ones whose
// biggest is at most bound × their mean. It returns that biggest size
// (the cut: blocks above it are recorded) and the mean, rounded down.
// For bound ≤ 0 every such block is averaged (Spark's rule).
//
// It takes passes over the sizes instead of sorting them: each pass drops
// the blocks above bound × the mean of those left, which lowers the mean,
// until none is above. No block of the answer is ever dropped (the set
// left always contains it, so its mean is at least the answer's), so the
// passes end at the answer; one or two passes on the distributions seen,
// and after 32 it sorts (averageCutSorted).
func averageCut(sizes []int64, threshold int64, bound float64) (cut, avg int64) {
	var sum, count, top int64
	for _, n := range sizes {
		if n > 0 && n < threshold {
			sum, count, top = sum+n, count+1, max(top, n)
		}
	}
	if bound <= 0 || count == 0 {
		return math.MaxInt64, sum / max(count, 1)
	}
	for range 32 {
		if float64(top)*float64(count) <= bound*float64(sum) {
			return top, sum / count
		}
		limit := bound * float64(sum) / float64(count)
		sum, count, top = 0, 0, 0
		for _, n := range sizes {
			if n > 0 && n < threshold && float64(n) <= limit {
				sum, count, top = sum+n, count+1, max(top, n)
			}
		}
	}
	return averageCutSorted(sizes, threshold, bound)
}

// averageCutSorted is averageCut by sorting: with the blocks ascending,
// the largest k with asc[k-1] ≤ bound × mean(asc[:k]). When asc[k] ==
// asc[k-1], k+1 would qualify too (adding a value at least the mean
// raises the mean), so no tie straddles the cut.
func averageCutSorted(sizes []int64, threshold int64, bound float64) (cut, avg int64) {
	var asc []int64
	var sum int64
	for _, n := range sizes {
		if n > 0 && n < threshold {
			asc = append(asc, n)
			sum += n
		}
	}
	slices.Sort(asc)
	k := len(asc)
	for k > 0 && float64(asc[k-1])*float64(k) > bound*float64(sum) {
		k--
		sum -= asc[k]
	}
	if k == 0 {
		return 0, 0
	}
	return asc[k-1], sum / int64(k)
}

// Location returns where the map output is.
func (s *MapStatus) Location() string { return s.location }

// MapID returns the map task's id.
func (s *MapStatus) MapID() int64 { return s.mapID }

// Partitions returns the number of blocks (reduce partitions).
func (s *MapStatus) Partitions() int {
	if s.kind == KindHighlyCompressed {
		return s.hi.partitions
	}
	return len(s.sizes)
}

// Kind returns how the sizes are summarized.
func (s *MapStatus) Kind() StatusKind { return s.kind }

// Size returns the estimated size of block p: 0 exactly when the block is
// empty; for a block recorded to within 10%, a size no smaller than the
// real one and at most 10% above it; otherwise the average. p must be in
// [0, Partitions()).
func (s *MapStatus) Size(p int) int64 {
	if s.kind == KindCompressed {
		return DecompressSize(s.sizes[p])
	}
	if p < 0 || p >= s.hi.partitions {
		panic(fmt.Sprintf("shuffle: block %d of a status with %d partitions", p, s.hi.partitions))
	}
	return s.hi.size(p)
}

// Average returns the size reported for the blocks neither empty nor
// recorded accurately (highly compressed statuses; 0 otherwise).
func (s *MapStatus) Average() int64 {
	if s.hi == nil {
		return 0
	}
	return s.hi.avg
}

// Accurate returns how many blocks a highly compressed status records to
// within 10% (0 for a compressed one, which records all).
func (s *MapStatus) Accurate() int {
	if s.hi == nil {
		return 0
	}
	return int(s.hi.accurate.GetCardinality())
}
