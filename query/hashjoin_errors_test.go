package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/expr"
)

// TestJoinErrorsReleaseEverything: a build side past the memory limit,
// a single join's second row, a nested loop past MaxJoinPairs and a
// cancel in the middle of the probe all fail the query cleanly, with
// every byte given back.
func TestJoinErrorsReleaseEverything(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := joinTables(t, mem, 3, joinSide{rows: 3000, batch: 50, domain: 50, nullP: 0.05}, joinSide{rows: 3000, batch: 40, domain: 50, nullP: 0.05})
	inner := joinCase{kind: joinInner, probeKeys: []int{0}, buildKeys: []int{0}}

	e := New(c, Options{Alloc: mem, MemoryLimit: 20_000, Workers: 2})
	_, _, err := runJoin(t, e, mem, inner.node(t, c))
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "HashJoin Inner on i = i") || !strings.Contains(err.Error(), "spilling is off") {
		t.Errorf("build side past the limit: %v", err)
	}

	e = New(c, Options{Alloc: mem, MemoryLimit: 64 << 20, Workers: 2})
	single := joinCase{kind: joinSingle, probeKeys: []int{0}, buildKeys: []int{0}}
	_, _, err = runJoin(t, e, mem, single.node(t, c))
	if !errors.Is(err, ErrExec) || !strings.Contains(err.Error(), "more than one row returned by a subquery used as an expression") {
		t.Errorf("single join: %v", err)
	}

	cross := joinCase{kind: joinSemi} // counts its pairs without walking them
	e = New(c, Options{Alloc: mem, Workers: 2, MaxJoinPairs: 1_000_000})
	_, _, err = runJoin(t, e, mem, cross.node(t, c))
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "MaxJoinPairs") || !strings.Contains(err.Error(), "1000000") {
		t.Errorf("nested loop past MaxJoinPairs: %v", err)
	}
	e = New(c, Options{Alloc: mem, Workers: 2, MaxJoinPairs: 100_000_000})
	rows := 0
	if err := runQuiet(t, e, mem, cross.node(t, c), func(rec arrow.RecordBatch) { rows += int(rec.NumRows()) }); err != nil || rows != 3000 {
		t.Errorf("nested loop within MaxJoinPairs: %d rows, %v", rows, err)
	}

	// Cancelled while the build side is drained: the join stops within a
	// batch of the cancel.
	e = New(c, Options{Alloc: mem, Workers: 2})
	ctx, cancel := context.WithCancel(context.Background())
	n := inner.node(t, c)
	counted := &countingNode{planNode: n.build, after: 5, cancel: cancel}
	n.build = counted
	r, err := e.run(ctx, n)
	if err != nil {
		t.Fatal(err)
	}
	if r.Next() || !errors.Is(r.Err(), context.Canceled) {
		t.Errorf("cancelled during the build: %v", r.Err())
	}
	r.Release()
	if counted.batches > 6 {
		t.Errorf("the build side was read %d batches, cancelled after 5", counted.batches)
	}
	if used := r.mt.used.Load(); used != 0 || mem.CurrentAlloc() != 0 {
		t.Errorf("after a cancel during the build: tracker %d, allocated %d", used, mem.CurrentAlloc())
	}

	// Past the memory limit, mid-build: batches were held before it failed.
	e = New(c, Options{Alloc: mem, MemoryLimit: 20_000, Workers: 2})
	n = inner.node(t, c)
	counted = &countingNode{planNode: n.build}
	n.build = counted
	if _, _, err = runJoin(t, e, mem, n); !errors.Is(err, ErrMemory) || counted.batches < 2 {
		t.Errorf("past the limit after %d build batches: %v", counted.batches, err)
	}

	for _, w := range []int{1, 3} {
		e = New(c, Options{Alloc: mem, Workers: w})
		ctx, cancel := context.WithCancel(context.Background())
		r, err := e.run(ctx, inner.node(t, c))
		if err != nil {
			t.Fatal(err)
		}
		if !r.Next() {
			t.Fatalf("no first batch: %v", r.Err())
		}
		cancel()
		for r.Next() {
		}
		if !errors.Is(r.Err(), context.Canceled) {
			t.Errorf("workers=%d: cancelled: %v", w, r.Err())
		}
		r.Release()
		if used := r.mt.used.Load(); used != 0 {
			t.Errorf("workers=%d: the tracker holds %d bytes after a cancel", w, used)
		}
		if got := mem.CurrentAlloc(); got != 0 {
			t.Errorf("workers=%d: %d bytes allocated after a cancel", w, got)
		}
	}
}

// countingNode counts the batches its node's operator returns and calls
// cancel once it has returned after of them.
type countingNode struct {
	planNode
	after   int
	cancel  func()
	batches int
}

func (n *countingNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	op, err := n.planNode.open(ctx, rt, c)
	if err != nil {
		return nil, err
	}
	return &countingOp{operator: op, n: n}, nil
}

type countingOp struct {
	operator
	n *countingNode
}

func (o *countingOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := o.operator.Next(ctx)
	if err == nil {
		o.n.batches++
		if o.n.batches == o.n.after && o.n.cancel != nil {
			o.n.cancel()
		}
	}
	return rec, err
}

// TestJoinRefusesBadNodes: a node whose keys do not pair up, are of
// different or non-engine types, or whose residual is not boolean fails
// to open with ErrInvalid naming the join, before reading anything.
func TestJoinRefusesBadNodes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := joinTables(t, mem, 5, joinSide{rows: 10, batch: 5, domain: 3}, joinSide{rows: 10, batch: 5, domain: 3})
	e := New(c, Options{Alloc: mem})
	for _, tc := range []struct {
		name   string
		pk, bk []int
		res    expr.Expr
		want   string
	}{
		{"types", []int{0}, []int{3}, nil, "HashJoin Inner on i = s: key 0: int64 = utf8, not one engine type"},
		{"stored type", []int{8}, []int{8}, nil, "key 0: int32 = int32, not one engine type"},
		{"pairs", []int{0, 1}, []int{0}, nil, "2 probe keys, 1 build keys"},
		{"range", []int{0}, []int{99}, nil, "key 0: columns 0 and 99 of 10 and 10"},
		{"residual", []int{0}, []int{0}, expr.Column(6, "v", arrow.PrimitiveTypes.Int64), "residual v is int64, not boolean"},
	} {
		n := &hashJoinNode{probe: joinScan(t, c, "p"), build: joinScan(t, c, "b"), kind: joinInner, probeKeys: tc.pk, buildKeys: tc.bk, residual: tc.res}
		_, err := e.run(context.Background(), n)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalid %q", tc.name, err, tc.want)
		}
	}
}

// TestJoinExplainAnalyze: EXPLAIN ANALYZE reports the join's build and
// probe sides, under the join's line, with its children wrapped.
func TestJoinExplainAnalyze(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, recs := joinTables(t, mem, 4, joinSide{rows: 230, batch: 17, domain: 8, nullP: 0.1}, joinSide{rows: 150, batch: 13, domain: 8, nullP: 0.1})
	e := New(c, Options{Alloc: mem, Workers: 2})
	jc := joinCase{kind: joinInner, probeKeys: []int{0}, buildKeys: []int{0}}
	want, _ := jc.reference(recs)
	text, err := e.analyze(context.Background(), &analyzeRoot{in: jc.node(t, c)})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		fmt.Sprintf("HashJoin Inner on i = i (rows %d, ", len(want)),
		"; build 150 rows, ",
		"; probe 230 rows in ",
		fmt.Sprintf("%d rows out", len(want)),
		"  Scan p: decodes 10 of 10 columns",
		"    Scan b: decodes 10 of 10 columns",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("no %q in\n%s", s, text)
		}
	}
}
