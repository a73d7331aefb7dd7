package shuffle

import "fmt"

// Defaults of StatusConfig, Spark's.
const (
	// DefaultMinPartitionsToHighlyCompress is Spark's
	// spark.shuffle.minNumPartitionsToHighlyCompress: statuses of more
	// partitions than this are highly compressed.
	DefaultMinPartitionsToHighlyCompress = 2000
	// DefaultAccurateBlockThreshold is Spark's
	// spark.shuffle.accurateBlockThreshold: a block at least this big is
	// always recorded to within 10%.
	DefaultAccurateBlockThreshold = 100 << 20
	// DefaultMaxAccurateSkewedBlocks is Spark's
	// spark.shuffle.maxAccurateSkewedBlockNumber, used only with SkewFactor.
	DefaultMaxAccurateSkewedBlocks = 100
	// DefaultAverageBound: a block reported as the average is at most this
	// many times the average (see doc.go, "Skew is never averaged away"):
	// Spark's skew-join factor. At 2, a uniform spread of sizes recorded
	// about half its blocks.
	DefaultAverageBound = 5.0
)

// StatusConfig decides how a map task's block sizes are summarized. The
// zero value is Spark's defaults plus the average bound that keeps skew
// visible.
type StatusConfig struct {
	// MinPartitionsToHighlyCompress: more partitions than this make a
	// highly compressed status. 0 means 2,000; negative means never.
	MinPartitionsToHighlyCompress int
	// AccurateBlockThreshold: blocks at least this big are recorded to
	// within 10% in a highly compressed status. 0 means 100 MiB.
	AccurateBlockThreshold int64
	// SkewFactor > 0 turns on Spark's skew-aware threshold
	// (spark.shuffle.accurateBlockSkewedFactor): the threshold becomes
	// min(AccurateBlockThreshold, max(median × SkewFactor, the
	// MaxAccurateSkewedBlocks-th largest size)). 0 (Spark's -1) means off.
	SkewFactor float64
	// MaxAccurateSkewedBlocks caps what SkewFactor records (Spark's rule).
	// 0 means 100.
	MaxAccurateSkewedBlocks int
	// AverageBound: besides the thresholds above, every block bigger than
	// AverageBound × the average of the blocks reported as the average is
	// recorded to within 10%, so no block is reported below
	// 1/AverageBound of its size. 0 means 5; negative turns it off
	// (Spark's behaviour, which can hide skew: SPARK-48290).
	AverageBound float64
}

// Validate reports a field outside its documented range.
func (c StatusConfig) Validate() error {
	if c.AccurateBlockThreshold < 0 {
		return fmt.Errorf("shuffle: AccurateBlockThreshold %d is negative", c.AccurateBlockThreshold)
	}
	if c.SkewFactor < 0 {
		return fmt.Errorf("shuffle: SkewFactor %g is negative (0 turns it off)", c.SkewFactor)
	}
	if c.MaxAccurateSkewedBlocks < 0 {
		return fmt.Errorf("shuffle: MaxAccurateSkewedBlocks %d is negative", c.MaxAccurateSkewedBlocks)
	}
	if c.AverageBound > 0 && c.AverageBound < 1 {
		return fmt.Errorf("shuffle: AverageBound %g is below 1 (negative turns it off)", c.AverageBound)
	}
	return nil
}

func (c StatusConfig) minHighly() int {
	switch {
	case c.MinPartitionsToHighlyCompress == 0:
		return DefaultMinPartitionsToHighlyCompress
	case c.MinPartitionsToHighlyCompress < 0:
		return int(^uint(0) >> 1)
	}
	return c.MinPartitionsToHighlyCompress
}

func (c StatusConfig) accurateThreshold() int64 {
	if c.AccurateBlockThreshold == 0 {
		return DefaultAccurateBlockThreshold
	}
	return c.AccurateBlockThreshold
}

func (c StatusConfig) maxSkewed() int {
	if c.MaxAccurateSkewedBlocks == 0 {
		return DefaultMaxAccurateSkewedBlocks
	}
	return c.MaxAccurateSkewedBlocks
}

func (c StatusConfig) averageBound() float64 {
	if c.AverageBound == 0 {
		return DefaultAverageBound
	}
	return c.AverageBound
}
