package shuffle

import (
	"fmt"
	"math"
)

// Defaults of CoalesceConfig, Spark's.
const (
	// DefaultAdvisoryPartitionSize is Spark's
	// spark.sql.adaptive.advisoryPartitionSizeInBytes.
	DefaultAdvisoryPartitionSize = 64 << 20
	// DefaultMinPartitionSize is Spark's
	// spark.sql.adaptive.coalescePartitions.minPartitionSize.
	DefaultMinPartitionSize = 1 << 20
)

// CoalesceConfig configures Coalesce. The zero value is Spark's defaults
// with one minimum partition.
type CoalesceConfig struct {
	// AdvisorySize is the size a coalesced partition aims at. 0 means
	// 64 MiB.
	AdvisorySize int64
	// MinPartitions: the target is lowered so that at least this many
	// partitions come out when the data allows (Spark passes the default
	// parallelism, i.e. the cores, when parallelismFirst is on, its
	// default). 0 means 1.
	MinPartitions int
	// MinPartitionSize floors the target. 0 means 1 MiB.
	MinPartitionSize int64
}

// Validate reports a field outside its documented range.
func (c CoalesceConfig) Validate() error {
	if c.AdvisorySize < 0 || c.MinPartitions < 0 || c.MinPartitionSize < 0 {
		return fmt.Errorf("shuffle: CoalesceConfig %+v has a negative field", c)
	}
	return nil
}

func (c CoalesceConfig) norm() CoalesceConfig {
	if c.AdvisorySize == 0 {
		c.AdvisorySize = DefaultAdvisoryPartitionSize
	}
	if c.MinPartitions == 0 {
		c.MinPartitions = 1
	}
	if c.MinPartitionSize == 0 {
		c.MinPartitionSize = DefaultMinPartitionSize
	}
	return c
}

// PartitionRange is reduce partitions [Start, End) read by one task, and
// their bytes over all the shuffles coalesced.
type PartitionRange struct {
	Start, End int
	Bytes      int64
}

// CoalesceTarget is the size Coalesce packs to (Spark's
// ShufflePartitionsUtil.coalescePartitions): max(min(max(ceil(total /
// MinPartitions), 16), AdvisorySize), MinPartitionSize), total being the
// bytes of all partitions of all shuffles.
func CoalesceTarget(totals [][]int64, cfg CoalesceConfig) int64 {
	cfg = cfg.norm()
	var total int64
	for _, t := range totals {
		for _, n := range t {
			total += n
		}
	}
	maxTarget := max(int64(math.Ceil(float64(total)/float64(cfg.MinPartitions))), 16)
	return max(min(maxTarget, cfg.AdvisorySize), cfg.MinPartitionSize)
}

// Coalesce packs contiguous reduce partitions into tasks of about the
// target size (CoalesceTarget), as Spark's CoalesceShufflePartitions:
// totals holds each shuffle's per-partition bytes (Totals), all of the
// same length, and partition i of every shuffle goes to the same task.
// A partition starts a new task when adding it would pass the target;
// ranges with no bytes are dropped, except that an all-empty input still
// gets one task. It returns nil when the shuffles' partition counts
// differ (Spark leaves those alone too).
func Coalesce(totals [][]int64, cfg CoalesceConfig) []PartitionRange {
	if len(totals) == 0 {
		return nil
	}
	n := len(totals[0])
	for _, t := range totals {
		if len(t) != n {
			return nil
		}
	}
	return coalesceRange(totals, 0, n, CoalesceTarget(totals, cfg), false)
}

// coalesceRange is ShufflePartitionsUtil's private coalescePartitions over
// partitions [start, end).
func coalesceRange(totals [][]int64, start, end int, target int64, allowEmpty bool) []PartitionRange {
	var out []PartitionRange
	var size int64
	split := start
	emit := func(i int, force bool) {
		if size > 0 || force {
			out = append(out, PartitionRange{Start: split, End: i, Bytes: size})
		}
	}
	for i := start; i < end; i++ {
		var cur int64
		for _, t := range totals {
			cur += t[i]
		}
		if i > split && size+cur > target {
			emit(i, false)
			split, size = i, cur
		} else {
			size += cur
		}
	}
	emit(end, !allowEmpty && len(out) == 0)
	return out
}
