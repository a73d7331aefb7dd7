package query

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/spill"
)

// The grace hash join's plan from its map statuses (op_gracejoin_plan.go).

// graceStat returns the number before what in the grace join's part of
// an EXPLAIN ANALYZE text.
func graceStat(t *testing.T, text, what string) int {
	t.Helper()
	at := strings.Index(text, "shuffled to")
	if at < 0 {
		t.Fatalf("the join did not spill:\n%s", text)
	}
	m := regexp.MustCompile(`(\d+) ` + regexp.QuoteMeta(what)).FindStringSubmatch(text[at:])
	if m == nil {
		t.Fatalf("no %q in\n%s", what, text)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// TestGraceJoinSkewSplit: a build side whose key 0 holds 40% of its rows,
// partitions of at most 200 build rows in memory (so the partition of key
// 0 does not fit, and its blocks are not lost among the per-batch
// overheads of the tiny batches a tiny memory limit writes). The skew rule
// flags that partition, which is split by map ranges of the build side,
// each joined with the whole probe partition: every kind answers as the
// reference does, nothing is partitioned again. With the split off the
// same partition is partitioned again (and, its key being one, falls
// back to the nested loop), with the same answers.
func TestGraceJoinSkewSplit(t *testing.T) {
	// Not parallel: how many map outputs hold the hot partition, and so
	// whether it splits, depends on both workers writing at once.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, recs := joinTables(t, mem, 11,
		joinSide{rows: 1500, batch: 100, domain: 5000, nullP: 0.05, hot: 0.01},
		joinSide{rows: 3000, batch: 90, domain: 5000, nullP: 0.05, hot: 0.4})
	m := spillManager(t, spill.Config{Codec: heavySpillCodec()})
	mk := func(jc joinCase) planNode { return jc.node(t, c) }
	for _, split := range []bool{true, false} {
		e := New(c, Options{Alloc: mem, Workers: 2, Spill: m})
		e.joinSpill = joinSpillTuning{force: true, maxRows: 200, noSkewSplit: !split}
		for _, kind := range shortJoinKinds() {
			residual := kind%2 == 0 // each kind once, with or without
			jc := joinCase{kind: kind, probeKeys: []int{0}, buildKeys: []int{0}, residual: residual}
			t.Run(fmt.Sprintf("split=%v/%s/residual=%v", split, kind, residual), func(t *testing.T) {
				checkJoin(t, e, mem, jc, mk, recs)
				checkNoSpillFiles(t, m)
			})
		}
		jc := joinCase{kind: joinLeft, probeKeys: []int{0}, buildKeys: []int{0}, residual: true}
		text, err := e.analyze(context.Background(), &analyzeRoot{in: jc.node(t, c)})
		if err != nil {
			t.Fatal(err)
		}
		splits, ranges := graceStat(t, text, "skewed partitions split into"), graceStat(t, text, "map ranges")
		levels := graceStat(t, text, "repartition levels")
		if split && (splits != 1 || ranges < 2 || levels != 0) {
			t.Errorf("split on: %d partitions split into %d ranges, %d repartition levels; want 1 into 2 or more, none:\n%s", splits, ranges, levels, text)
		}
		if !split && (splits != 0 || levels == 0) {
			t.Errorf("split off: %d partitions split, %d repartition levels; want none split, partitioned again:\n%s", splits, levels, text)
		}
		checkNoSpillFiles(t, m)
	}
}

// TestGraceJoinSkipsEmptyPartitions: a build side of three keys fills 3
// of 32 partitions. An inner join writes no probe row of the others (its
// statuses say their build blocks are empty) and joins only those 3; a
// left join writes or joins every probe row (they return unmatched).
// The 3 partitions fit, so they are kept in memory while the probe side
// is partitioned: their probe rows are joined, not written.
func TestGraceJoinSkipsEmptyPartitions(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, recs := joinTables(t, mem, 12,
		joinSide{rows: 2000, batch: 100, domain: 1000},
		joinSide{rows: 300, batch: 50, domain: 3})
	m := spillManager(t, spill.Config{})
	e := New(c, Options{Alloc: mem, Workers: 2, Spill: m})
	e.joinSpill = joinSpillTuning{force: true}
	mk := func(jc joinCase) planNode { return jc.node(t, c) }
	for _, tc := range []struct {
		kind    joinKind
		skipped int // partitions
	}{{joinInner, 29}, {joinLeft, 0}} {
		jc := joinCase{kind: tc.kind, probeKeys: []int{0}, buildKeys: []int{0}}
		checkJoin(t, e, mem, jc, mk, recs)
		text, err := e.analyze(context.Background(), &analyzeRoot{in: jc.node(t, c)})
		if err != nil {
			t.Fatal(err)
		}
		skipped := graceStat(t, text, "partitions; ")
		written := graceStat(t, text, "rows in") - 300 // the probe's
		kept, joined := graceStat(t, text, "partitions in memory"), graceStat(t, text, "probe rows joined unspilled")
		if skipped != tc.skipped {
			t.Errorf("%s: %d partitions skipped, want %d:\n%s", tc.kind, skipped, tc.skipped, text)
		}
		if kept != 3 || joined == 0 {
			t.Errorf("%s: kept %d partitions (%d probe rows), want 3:\n%s", tc.kind, kept, joined, text)
		}
		// The inner join's probe rows: only those of the 3 partitions
		// of keys 0, 1 and 2 (about 3/32 of 2,000), all joined in memory.
		if tc.kind == joinInner && (written != 0 || joined > 2000/4) || tc.kind == joinLeft && written+joined != 2000 {
			t.Errorf("%s: %d probe rows written, %d joined in memory:\n%s", tc.kind, written, joined, text)
		}
		checkNoSpillFiles(t, m)
	}
}

// TestGraceJoinKeepsPartitions: under a memory limit that holds some of
// the build side's partitions, those are kept in memory while the probe
// side is partitioned, and the rest are written and joined after, a few
// at a time (coalesced); every kind answers as the reference does.
func TestGraceJoinKeepsPartitions(t *testing.T) {
	t.Parallel() // heavy: overlaps the others under -race
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, recs := joinTables(t, mem, 15,
		joinSide{rows: 3000, batch: 100, domain: 4000, nullP: 0.05},
		joinSide{rows: 3000, batch: 100, domain: 4000, nullP: 0.05})
	m := spillManager(t, spill.Config{Codec: heavySpillCodec()})
	e := New(c, Options{Alloc: mem, MemoryLimit: 256 << 10, Workers: 2, Spill: m})
	mk := func(jc joinCase) planNode { return jc.node(t, c) }
	for _, kind := range shortJoinKinds() {
		jc := joinCase{kind: kind, probeKeys: []int{0}, buildKeys: []int{0}, residual: kind%2 == 1}
		t.Run(kind.String(), func(t *testing.T) {
			checkJoin(t, e, mem, jc, mk, recs)
			checkNoSpillFiles(t, m)
		})
	}
	jc := joinCase{kind: joinFull, probeKeys: []int{0}, buildKeys: []int{0}, residual: true}
	text, err := e.analyze(context.Background(), &analyzeRoot{in: jc.node(t, c)})
	if err != nil {
		t.Fatal(err)
	}
	if kept := graceStat(t, text, "partitions in memory"); kept == 0 || kept == 32 || graceStat(t, text, "probe rows joined unspilled") == 0 {
		t.Errorf("kept %d of 32 partitions; want some, not all:\n%s", kept, text)
	}
	// The partitions not kept are small: joined a few at a time.
	if n := graceStat(t, text, "partitions into"); n < 2 {
		t.Errorf("coalesced %d partitions:\n%s", n, text)
	}
	checkNoSpillFiles(t, m)
}

// TestGraceJoinSkewSplitCancel: a query cancelled while a skewed
// partition's map ranges are joined stops, gives every byte back and
// leaves no file.
func TestGraceJoinSkewSplitCancel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := joinTables(t, mem, 13,
		joinSide{rows: 1500, batch: 100, domain: 5000, hot: 0.3},
		joinSide{rows: 3000, batch: 90, domain: 5000, hot: 0.4})
	m := spillManager(t, spill.Config{})
	e := New(c, Options{Alloc: mem, Workers: 2, Spill: m})
	e.joinSpill = joinSpillTuning{force: true, maxRows: 200}
	jc := joinCase{kind: joinInner, probeKeys: []int{0}, buildKeys: []int{0}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := e.run(ctx, jc.node(t, c))
	if err != nil {
		t.Fatal(err)
	}
	// The fitting partitions come first; read on into the skewed one.
	for n := int64(0); n < 20000 && r.Next(); n += r.RecordBatch().NumRows() {
	}
	cancel()
	for r.Next() {
	}
	if !errors.Is(r.Err(), context.Canceled) {
		t.Errorf("cancelled while joining a split partition: %v", r.Err())
	}
	r.Release()
	if used := r.mt.used.Load(); used != 0 || mem.CurrentAlloc() != 0 {
		t.Errorf("after a cancel: tracker %d, allocated %d", used, mem.CurrentAlloc())
	}
	checkNoSpillFiles(t, m)
	if !strings.Contains(fmt.Sprint(r.Stats().Spill), "files") || r.Stats().Spill.Files == 0 {
		t.Errorf("the join did not spill: %v", r.Stats().Spill)
	}
}

// TestGraceJoinSkewSplitMemoryLimit: the skew split under a memory limit
// (not a row cap): 30,000 build rows, 40% of them key 0, within 1 MiB.
// The partition of key 0 is split, the others joined in memory, and the
// answers are the in-memory join's.
func TestGraceJoinSkewSplitMemoryLimit(t *testing.T) {
	// Not parallel: how many map outputs hold the hot partition, and so
	// whether it splits, depends on both workers writing at once.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := joinTables(t, mem, 14,
		joinSide{rows: 20000, batch: 1000, domain: 50000, nullP: 0.01, hot: 0.0005},
		joinSide{rows: 30000, batch: 1000, domain: 50000, nullP: 0.01, hot: 0.4})
	m := spillManager(t, spill.Config{Codec: heavySpillCodec()})
	plain := New(c, Options{Alloc: mem, Workers: 2})
	e := New(c, Options{Alloc: mem, MemoryLimit: 1 << 20, Workers: 2, Spill: m})
	for _, kind := range []joinKind{joinInner, joinLeft, joinRightAnti} {
		jc := joinCase{kind: kind, probeKeys: []int{0}, buildKeys: []int{0}, residual: true}
		want, _, err := runJoin(t, plain, mem, jc.node(t, c))
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := runJoin(t, e, mem, jc.node(t, c))
		if err != nil {
			t.Fatal(err)
		}
		if i := firstDiff(got, want); len(got) != len(want) || i < len(got) {
			t.Fatalf("%s: %d rows, want %d; first difference at %d", kind, len(got), len(want), i)
		}
		text, err := e.analyze(context.Background(), &analyzeRoot{in: jc.node(t, c)})
		if err != nil {
			t.Fatal(err)
		}
		if splits, levels := graceStat(t, text, "skewed partitions split into"), graceStat(t, text, "repartition levels"); splits != 1 || levels != 0 {
			t.Errorf("%s: %d partitions split, %d repartition levels; want 1, 0:\n%s", kind, splits, levels, text)
		}
		checkNoSpillFiles(t, m)
	}
}

// TestGraceJoinUngroups: coalesced groups that do not fit when their turn
// comes (groups of up to 1,000 build rows, partitions of at most 200 in
// memory) are joined partition by partition; every kind answers as the
// reference does. Partitioning such a group again as one partition read
// only its first partition's rows (TPC-H Q10 within 1 MiB lost rows so).
func TestGraceJoinUngroups(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, recs := joinTables(t, mem, 16,
		joinSide{rows: 2000, batch: 100, domain: 3000, nullP: 0.05},
		joinSide{rows: 1500, batch: 100, domain: 3000, nullP: 0.05})
	m := spillManager(t, spill.Config{})
	e := New(c, Options{Alloc: mem, Workers: 2, Spill: m})
	e.joinSpill = joinSpillTuning{force: true, maxRows: 200, groupRows: 1000}
	mk := func(jc joinCase) planNode { return jc.node(t, c) }
	for _, kind := range shortJoinKinds() {
		jc := joinCase{kind: kind, probeKeys: []int{0}, buildKeys: []int{0}, residual: kind%2 == 1}
		t.Run(kind.String(), func(t *testing.T) {
			checkJoin(t, e, mem, jc, mk, recs)
			checkNoSpillFiles(t, m)
		})
	}
	jc := joinCase{kind: joinInner, probeKeys: []int{0}, buildKeys: []int{0}}
	text, err := e.analyze(context.Background(), &analyzeRoot{in: jc.node(t, c)})
	if err != nil {
		t.Fatal(err)
	}
	if groups, levels := graceStat(t, text, "partitions into"), graceStat(t, text, "repartition levels"); groups == 0 || levels != 0 {
		t.Errorf("%d groups, %d repartition levels; want groups, none partitioned again:\n%s", groups, levels, text)
	}
	checkNoSpillFiles(t, m)
}
