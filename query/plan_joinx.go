package query

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/query/agg"
)

// Choosing a hash join's strategy: broadcast or partitioned (op_joinx.go).
//
// The rule: a join with keys, run on more than one worker, whose build
// side holds at least Options.BroadcastJoinBytes (DefaultBroadcastJoinBytes,
// 10 MiB, by default: Spark's spark.sql.autoBroadcastJoinThreshold) is
// partitioned: both sides hash-partitioned by the key, one partition a
// worker, each building and probing its own table; unless its one key is
// an integer dense enough for the dense index (denseKey), which the
// broadcast join builds and probes faster than any partitions. A smaller
// build side is broadcast: one table of all of it, built on one goroutine, which
// every worker probes (in one process the broadcast is a shared pointer;
// no rows are copied). The choice is made on the build side's actual
// bytes, once it is drained (its rows held, before the table is built),
// so a wrong estimate costs nothing; EXPLAIN shows the planner's estimate
// of the choice, EXPLAIN ANALYZE the one made and the rows and bytes of
// each partition. A build side that spills (a grace hash join,
// op_gracejoin.go) is partitioned to files instead, and one whose table
// would not fit the memory limit is not partitioned in memory either.
//
// Why a threshold: partitioning copies every probe row once more (the
// exchange), which a small build side's table, that fits the caches,
// does not repay; a large table misses the caches on every probe, and
// its serial build is a floor under the join's time on any number of
// cores. BENCHMARKS §16e has the measurements.
const DefaultBroadcastJoinBytes = 10 << 20

// broadcastBytes is the threshold the options set (see
// Options.BroadcastJoinBytes).
func (o Options) broadcastBytes() int64 {
	if o.BroadcastJoinBytes == 0 {
		return DefaultBroadcastJoinBytes
	}
	return o.BroadcastJoinBytes
}

// partitionChosen decides, the build side drained into c, whether the
// join runs partitioned, and records the choice and why for EXPLAIN
// ANALYZE.
func (o *hashJoinOp) partitionChosen(c *buildCollector) bool {
	t, held := o.rt.broadcastBytes, c.b.held
	why := ""
	switch {
	case len(o.n.buildKeys) == 0:
		return false // a nested loop
	case o.rt.workers < 2:
		why = "broadcast: one worker"
	case t >= 0 && held < t:
		why = fmt.Sprintf("broadcast: build %s < threshold %s", byteSize(held), byteSize(t))
	case !c.finishFits():
		why = fmt.Sprintf("broadcast: build %s, partitions would not fit the memory limit", byteSize(held))
	case t < 0:
		why = fmt.Sprintf("partitioned: build %s, forced (BroadcastJoinBytes < 0)", byteSize(held))
	case o.denseKey(c):
		why = fmt.Sprintf("broadcast: build %s, one dense integer key (an index, not a hash table, to build and probe)", byteSize(held))
	default:
		why = fmt.Sprintf("partitioned: build %s >= threshold %s", byteSize(held), byteSize(t))
	}
	o.strategy = why
	return why[0] == 'p'
}

// denseKey reports whether the build side c holds has one integer key
// dense enough for the dense index (agg.DenseFits): the broadcast join
// then numbers its keys without hashing and probes an array, which
// partitions cannot beat (each would span the whole range with fewer
// keys, too sparse for an index of its own, and hash), while the
// exchange still copies every probe row. Measured in BENCHMARKS §16e.
func (o *hashJoinOp) denseKey(c *buildCollector) bool {
	if len(o.n.buildKeys) != 1 {
		return false
	}
	var r keyRange
	for _, a := range c.cols[o.n.buildKeys[0]] {
		if a != nil {
			r.add(a)
		}
	}
	return !r.unsupported && r.seen && agg.DenseFits(r.lo, r.hi, c.b.rows)
}

// planStrategy is the strategy EXPLAIN shows for a join whose build side
// is estimated at buildRows rows: the planner's guess, the actual size
// decides (partitionChosen).
func (b *builder) planStrategy(n *hashJoinNode, buildRows float64) string {
	if len(n.buildKeys) == 0 {
		return ""
	}
	t := b.opts.broadcastBytes()
	workers := b.opts.Workers
	if workers < 2 {
		return "broadcast: one worker"
	}
	if t < 0 {
		return "partitioned: forced"
	}
	if buildRows < 0 {
		return fmt.Sprintf("build size unknown: by its size at run time against %s", byteSize(t))
	}
	est := buildRows * rowBytes(n.build.schema())
	if est < float64(t) {
		return fmt.Sprintf("broadcast: build ~%s < %s", byteSize(int64(est)), byteSize(t))
	}
	why := fmt.Sprintf("partitioned x%d: build ~%s >= %s", joinFanout(workers), byteSize(int64(min(est, math.MaxInt64/2))), byteSize(t))
	if len(n.buildKeys) == 1 {
		why += ", unless its key is a dense integer"
	}
	return why
}

// rowBytes guesses the bytes of a row of schema in memory: each fixed
// width its width, a string or binary value 20 (offsets and bytes),
// anything else 16.
func rowBytes(s *arrow.Schema) float64 {
	var n float64
	for _, f := range s.Fields() {
		switch t := f.Type.(type) {
		case arrow.FixedWidthDataType:
			n += math.Max(1, float64(t.BitWidth())/8)
		case arrow.BinaryDataType:
			n += 20
		default:
			n += 16
		}
	}
	return n
}

// byteSize renders n bytes for EXPLAIN: KiB, MiB or GiB, one decimal.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
