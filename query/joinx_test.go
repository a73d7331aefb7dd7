package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestPartitionedJoinMatchesNestedLoop runs every kind through the
// partitioned join (BroadcastJoinBytes < 0 forces it), over keys of
// several types, two keys, a unique key, with and without a residual,
// over empty sides too, on 2 workers and on 3 (4 partitions, one more
// than workers): NULL and repeated keys, many batches. The answers are
// the reference's, every byte is given back (runJoin's CheckedAllocator
// and tracker checks), and EXPLAIN ANALYZE shows the partitions.
func TestPartitionedJoinMatchesNestedLoop(t *testing.T) {
	t.Parallel() // heavy: overlaps the others under -race
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, recs := joinTables(t, mem, 1, joinSide{rows: 230, batch: 17, domain: 8, nullP: 0.1}, joinSide{rows: 150, batch: 13, domain: 8, nullP: 0.1})
	engines := map[int]*Engine{}
	for _, w := range []int{2, 3} {
		engines[w] = New(c, Options{Alloc: mem, MemoryLimit: 64 << 20, Workers: w, BroadcastJoinBytes: -1})
	}
	keys := []struct {
		name     string
		pk, bk   []int
		workers  []int
		allSides bool
	}{
		{"i", []int{0}, []int{0}, []int{2, 3}, true},
		{"f", []int{1}, []int{1}, []int{2}, false},
		{"s", []int{3}, []int{3}, []int{3}, false},
		{"i,s", []int{0, 3}, []int{0, 3}, []int{3}, true},
		{"i=id", []int{0}, []int{7}, []int{2}, false},
		{"i=u", []int{0}, []int{9}, []int{3}, false},
	}
	if testing.Short() { // CI's race pass: the full pass ran them all
		keys = keys[:1]
		keys[0].workers = []int{3}
	}
	residuals := []bool{false, true}
	if testing.Short() {
		residuals = residuals[:1]
	}
	mk := func(jc joinCase) planNode { return jc.node(t, c) }
	for _, k := range keys {
		for _, kind := range shortJoinKinds() {
			for _, residual := range residuals {
				sides := [][2]bool{{false, false}}
				if k.allSides {
					sides = append(sides, [2]bool{true, false}, [2]bool{false, true})
				}
				for _, side := range sides {
					for _, w := range k.workers {
						jc := joinCase{kind: kind, probeKeys: k.pk, buildKeys: k.bk, residual: residual, emptyProbe: side[0], emptyBuild: side[1]}
						name := fmt.Sprintf("%s/%s/residual=%v/emptyProbe=%v/emptyBuild=%v/workers=%d", kind, k.name, residual, side[0], side[1], w)
						t.Run(name, func(t *testing.T) { checkJoin(t, engines[w], mem, jc, mk, recs) })
					}
				}
			}
		}
	}
	jc := joinCase{kind: joinFull, probeKeys: []int{0}, buildKeys: []int{0}, residual: true}
	text, err := engines[3].analyze(context.Background(), &analyzeRoot{in: jc.node(t, c)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "partitioned: build") || !strings.Contains(text, "partitioned to 4 workers") {
		t.Errorf("EXPLAIN ANALYZE shows no partitioned join:\n%s", text)
	}
}

// TestJoinStrategyThreshold: a build side under BroadcastJoinBytes is
// broadcast, one at or over it partitioned, unless its key is one dense
// integer; one worker always broadcasts; the answers agree.
func TestJoinStrategyThreshold(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	probe, build := 600, 400
	if testing.Short() {
		probe, build = 200, 150
	}
	c, recs := joinTables(t, mem, 2, joinSide{rows: probe, batch: 50, domain: 200, nullP: 0.05}, joinSide{rows: build, batch: 30, domain: 200, nullP: 0.05})
	mk := func(jc joinCase) planNode { return jc.node(t, c) }
	for _, tc := range []struct {
		threshold int64
		workers   int
		keys      []int // {0}: one integer, dense; {0, 3}: with a string
		want      string
	}{
		{0, 2, []int{0, 3}, "broadcast: build"}, // 10 MiB
		{1 << 8, 2, []int{0, 3}, "partitioned: build"},
		{1 << 8, 1, []int{0, 3}, "broadcast: one worker"},
		{1 << 8, 2, []int{0}, "one dense integer key"},
		{-1, 2, []int{0}, "partitioned: build"}, // forced, dense or not
	} {
		jc := joinCase{kind: joinLeft, probeKeys: tc.keys, buildKeys: tc.keys}
		e := New(c, Options{Alloc: mem, MemoryLimit: 64 << 20, Workers: tc.workers, BroadcastJoinBytes: tc.threshold})
		checkJoin(t, e, mem, jc, mk, recs)
		text, err := e.analyze(context.Background(), &analyzeRoot{in: jc.node(t, c)})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, tc.want) {
			t.Errorf("threshold %d, %d workers: want %q in\n%s", tc.threshold, tc.workers, tc.want, text)
		}
	}
}

// TestPartitionedJoinExplain: EXPLAIN shows the planner's choice.
func TestPartitionedJoinExplain(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 60, 16)
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{Alloc: mem, Workers: 2}, "[broadcast: build ~"},
		{Options{Alloc: mem, Workers: 2, BroadcastJoinBytes: -1}, "[partitioned: forced]"},
		{Options{Alloc: mem, Workers: 1}, "[broadcast: one worker]"},
	} {
		text, err := New(c, tc.opts).Explain(context.Background(), "SELECT a.id FROM orders a, orders b WHERE a.id = b.qty")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, tc.want) {
			t.Errorf("want %q in\n%s", tc.want, text)
		}
	}
}

// TestPartitionedJoinCancel: a query cancelled while the partitions probe
// stops its workers and gives every byte back.
func TestPartitionedJoinCancel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := joinTables(t, mem, 13,
		joinSide{rows: 1500, batch: 100, domain: 50},
		joinSide{rows: 3000, batch: 90, domain: 50})
	e := New(c, Options{Alloc: mem, Workers: 2, BroadcastJoinBytes: -1})
	jc := joinCase{kind: joinFull, probeKeys: []int{0}, buildKeys: []int{0}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := e.run(ctx, jc.node(t, c))
	if err != nil {
		t.Fatal(err)
	}
	for n := int64(0); n < 5000 && r.Next(); n += r.RecordBatch().NumRows() {
	}
	cancel()
	for r.Next() {
	}
	if !errors.Is(r.Err(), context.Canceled) {
		t.Errorf("cancelled while probing: %v", r.Err())
	}
	r.Release()
	if used := r.mt.used.Load(); used != 0 || mem.CurrentAlloc() != 0 {
		t.Errorf("after a cancel: tracker %d, allocated %d", used, mem.CurrentAlloc())
	}
}
