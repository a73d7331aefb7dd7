package shuffle

import (
	"reflect"
	"testing"

	"github.com/quiverdb/quiver/codec"
)

// matrix is a SizeSource of exact sizes: matrix[m][p].
type matrix [][]int64

func (x matrix) Maps() int           { return len(x) }
func (x matrix) Partitions() int     { return len(x[0]) }
func (x matrix) Size(m, p int) int64 { return x[m][p] }

// The example in the doc comment of Spark's
// ShufflePartitionsUtil.coalescePartitions: shuffles of [100, 20, 100,
// 10, 30] and [10, 10, 70, 5, 5] MiB at a 128 MiB target give partitions
// {0} 110, {1} 30, {2} 170 and {3, 4} 50 MiB.
func TestCoalesceSparkExample(t *testing.T) {
	const mib = 1 << 20
	totals := [][]int64{{100 * mib, 20 * mib, 100 * mib, 10 * mib, 30 * mib}, {10 * mib, 10 * mib, 70 * mib, 5 * mib, 5 * mib}}
	got := Coalesce(totals, CoalesceConfig{AdvisorySize: 128 * mib})
	want := []PartitionRange{{0, 1, 110 * mib}, {1, 2, 30 * mib}, {2, 3, 170 * mib}, {3, 5, 50 * mib}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// CoalesceTarget = max(min(max(ceil(total / minPartitions), 16),
// advisory), minPartitionSize), by hand.
func TestCoalesceTarget(t *testing.T) {
	for _, c := range []struct {
		total int64
		cfg   CoalesceConfig
		want  int64
	}{
		{1000, CoalesceConfig{MinPartitions: 4, MinPartitionSize: 1}, 250},              // ceil(1000/4)
		{1001, CoalesceConfig{MinPartitions: 4, MinPartitionSize: 1}, 251},              // ceil(250.25)
		{1000, CoalesceConfig{MinPartitions: 4}, 1 << 20},                               // floored at 1 MiB
		{0, CoalesceConfig{MinPartitionSize: 1}, 16},                                    // never below 16
		{10 << 30, CoalesceConfig{MinPartitions: 8}, 64 << 20},                          // 1.25 GiB capped at 64 MiB
		{10 << 30, CoalesceConfig{MinPartitions: 8, AdvisorySize: 2 << 30}, 1280 << 20}, // 10 GiB / 8
	} {
		if got := CoalesceTarget([][]int64{{c.total}}, c.cfg); got != c.want {
			t.Errorf("total %d %+v: %d, want %d", c.total, c.cfg, got, c.want)
		}
	}
}

// Empty partitions are dropped (Spark: "a waste to launch an empty
// task"), but an all-empty shuffle keeps one task.
func TestCoalesceEmpty(t *testing.T) {
	got := Coalesce([][]int64{{0, 0, 0}}, CoalesceConfig{})
	if !reflect.DeepEqual(got, []PartitionRange{{0, 3, 0}}) {
		t.Fatalf("all empty: %v", got)
	}
	got = Coalesce([][]int64{{0, 5, 0, 0}}, CoalesceConfig{AdvisorySize: 4, MinPartitionSize: 1})
	// target 4: 0 + 5 passes it, so {0} closes with no bytes (dropped),
	// {1} holds 5 and closes at the next partition, {2, 3} has no bytes
	// (dropped).
	if !reflect.DeepEqual(got, []PartitionRange{{1, 2, 5}}) {
		t.Fatalf("got %v", got)
	}
	if Coalesce([][]int64{{1}, {1, 2}}, CoalesceConfig{}) != nil {
		t.Fatal("shuffles of different partition counts coalesced")
	}
}

// Spark's ShufflePartitionsUtilSuite "splitSizeListByTargetSize": sizes
// [15, 90, 15, 15, 15, 90, 15] at target 100 split at [0, 2, 5]. By
// hand: 15 | 90 opens a range at 1; 90 | 15 at 2, and 15 + 90 < 120
// merges 1 back; 45 | 90 at 5 (45 + 105 ≥ 120, neither under 20); 90 |
// 15 at 6, and 90 + 15 < 120 merges 6 back.
func TestSplitByMapsSpark(t *testing.T) {
	got := SplitByMaps([]int64{15, 90, 15, 15, 15, 90, 15}, 100)
	want := []MapRange{{0, 2, 105}, {2, 5, 45}, {5, 7, 105}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// A tiny tail (under 0.2 × target) merges into the range before.
	got = SplitByMaps([]int64{100, 100, 10}, 100)
	if want := []MapRange{{0, 1, 100}, {1, 3, 110}}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tail: got %v, want %v", got, want)
	}
}

// Spark's OptimizeSkewedJoin on a constructed join, by hand. Left totals
// [20, 20, 400, 20, 20]: median 20, threshold max(100, 5 × 20) = 100, so
// partition 2 is skewed; target max(advisory 100, mean of the others 20)
// = 100; its map sizes [300, 30, 50, 20] split as [300] and [30 + 50 + 20]
// (300 + 100 is not under 120). Right totals all 40: threshold
// max(100, 200), nothing skewed, read whole by both pieces. Coalescing
// target: min(680 total, advisory 100) = 100, so each non-skewed partition
// (20 + 40 = 60) stays alone.
func TestSkewJoin(t *testing.T) {
	left := matrix{
		{5, 5, 300, 5, 5},
		{5, 5, 30, 5, 5},
		{5, 5, 50, 5, 5},
		{5, 5, 20, 5, 5},
	}
	right := matrix{{10, 10, 10, 10, 10}, {10, 10, 10, 10, 10}, {10, 10, 10, 10, 10}, {10, 10, 10, 10, 10}}
	cfg := SkewConfig{Threshold: 100, Coalesce: CoalesceConfig{AdvisorySize: 100, MinPartitionSize: 1}}
	got, err := SkewJoin(left, right, true, true, cfg)
	if err != nil {
		t.Fatal(err)
	}
	whole := func(p, l, r int64) JoinTask {
		return JoinTask{Partitions: PartitionRange{int(p), int(p) + 1, l + r}, Left: MapRange{0, 4, l}, Right: MapRange{0, 4, r}}
	}
	want := []JoinTask{
		whole(0, 20, 40), whole(1, 20, 40),
		{Partitions: PartitionRange{2, 3, 340}, Left: MapRange{0, 1, 300}, Right: MapRange{0, 4, 40}, Skewed: true},
		{Partitions: PartitionRange{2, 3, 140}, Left: MapRange{1, 4, 100}, Right: MapRange{0, 4, 40}, Skewed: true},
		whole(3, 20, 40), whole(4, 20, 40),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", got, want)
	}
	// A right outer join cannot split the left side: plain coalescing.
	got, err = SkewJoin(left, right, false, true, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 || got[2] != whole(2, 400, 40) {
		t.Fatalf("left not splittable: %+v", got)
	}
}

// SPARK-48290 end to end: 100 map tasks of 4,000 partitions (highly
// compressed), each with 50 MiB in partition 7 and 10 KiB elsewhere.
// Under Spark's rule each status reports partition 7 as its average,
// (3,999 × 10,240 + 52,428,800) / 4,000 = 23,344, so the partition totals
// 2.3 MB and is not skewed; with the average bound it totals ≥ 5 GiB, is
// skewed, and splits into one piece per map (each ≈ 55 MB, two would
// pass 1.2 × the 64 MiB target).
func TestSkewVisibleThroughStatuses(t *testing.T) {
	build := func(cfg StatusConfig) *Statuses {
		st := make([]*MapStatus, 100)
		for m := range st {
			sizes := make([]int64, 4000)
			for p := range sizes {
				sizes[p] = 10 << 10
			}
			sizes[7] = 50 << 20
			st[m] = NewMapStatus("w", int64(m), sizes, cfg)
		}
		b, err := AppendStatuses(nil, st, 4000, codec.Setting{Kind: codec.Zstd, Level: 1})
		if err != nil {
			t.Fatal(err)
		}
		v, err := DecodeStatuses(b, DecodeLimits{})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	spark := Totals(build(StatusConfig{AverageBound: -1}))
	if spark[7] != 100*23_344 || spark[7] > SkewThreshold(spark, SkewConfig{}) {
		t.Fatalf("Spark's rule: partition 7 totals %d (threshold %d)", spark[7], SkewThreshold(spark, SkewConfig{}))
	}
	v := build(StatusConfig{})
	totals := Totals(v)
	if totals[7] < 100*50<<20 || totals[7] <= SkewThreshold(totals, SkewConfig{}) {
		t.Fatalf("partition 7 totals %d (threshold %d)", totals[7], SkewThreshold(totals, SkewConfig{}))
	}
	small := matrix(make([][]int64, 1))
	small[0] = make([]int64, 4000)
	tasks, err := SkewJoin(v, small, true, false, SkewConfig{})
	if err != nil {
		t.Fatal(err)
	}
	pieces := 0
	for _, task := range tasks {
		if task.Partitions.Start == 7 {
			pieces++
			if !task.Skewed || task.Left.End-task.Left.Start != 1 || task.Right != (MapRange{0, 1, 0}) {
				t.Fatalf("piece %+v", task)
			}
		}
	}
	if pieces != 100 {
		t.Fatalf("partition 7 in %d pieces, want 100", pieces)
	}
}

// Spark's JoinSelection: a side of at most the threshold is broadcast,
// the smaller if both are, the right on a tie.
func TestBroadcast(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		l, r       int64
		canL, canR bool
		threshold  int64
		want       BuildSide
	}{
		{5 * mib, 20 * mib, true, true, 0, BuildLeft},
		{20 * mib, 5 * mib, true, true, 0, BuildRight},
		{10 * mib, 10 * mib, true, true, 0, BuildRight}, // at the threshold: broadcast; tie: right
		{10*mib + 1, 20 * mib, true, true, 0, BuildNone},
		{1, 20 * mib, false, true, 0, BuildNone}, // left outer join: only the right can build
		{1, 2, true, true, -1, BuildNone},
		{3 * mib, 2 * mib, true, true, 2*mib + 1, BuildRight},
	} {
		if got := Broadcast(c.l, c.r, c.canL, c.canR, c.threshold); got != c.want {
			t.Errorf("%+v: %s, want %s", c, got, c.want)
		}
	}
}
