package query

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/agg"
)

// EXPLAIN ANALYZE runs the query to the end, discarding its rows, and
// prints the plan with what each operator did (one line per operator,
// wrapped here; TestExplainAnalyze, a GROUP BY of 30,000 keys in 1 MiB):
//
//	Limit 5 (rows 5, batches 1, time 19.637ms)
//	  TopK 5 by n DESC NULLS LAST, k ASC NULLS LAST (rows 5, batches 1, time 19.444ms)
//	    Project k, count(*) AS n (rows 29647, batches 41, time 18.877ms)
//	      HashAggregate by k: count(*) (rows 29647, batches 41, time 18.867ms;
//	          spilled 14 runs: 14 files, 331528 bytes, 49579 rows in 7.079ms,
//	          0 merge passes in 0s, 2325 groups kept in memory)
//	        Filter (k + 0) <> -1 (rows 53532, batches 15, time 822µs summed over workers)
//	          Scan t: decodes 2 of 10 columns [k], [v] only to filter rows;
//	              keeps rows where v>=0; pruning on that (rows 54059, batches 15,
//	              time 221µs; decoded 15 of 15 batches, skipped 0 (0 rows),
//	              227568 bytes decompressed into 975000, row filter dropped 5941 rows)
//	Execution: 5 rows in 19.701ms; peak memory 776874 of 1048576 bytes;
//	    spilled 14 files, 331528 bytes, 49579 rows in 7.079ms
//
// Every node of the plan is wrapped in an analyzeNode whose operator
// counts the rows and batches its operator returns and the time spent in
// it. An operator pulled by its parent is timed with its inputs; filters
// and projections that a GROUP BY's workers run are timed on their own,
// summed over the workers (the parallel part of the query), and the scan
// under them is timed per batch handed out. Sorts and aggregates add what
// they spilled (spillReporter; the aggregate its runs and merge passes
// too), the scan its cache.ScanMetrics, a join its build side (rows,
// bytes held, time to drain and hash it), its probe side (rows, time
// summed over its workers) and the rows it returned, and, when it spilled
// (a grace hash join), its map outputs, bytes, rows and time writing
// them, how many levels it repartitioned and how many partitions fell
// back to the nested loop, in how many chunks; and the last line
// sums the query: Result.Stats.
//
// A grace hash join's spill is a shuffle (op_gracejoin_plan.go): its line
// says how many partitions, map outputs (the files), bytes and rows it
// wrote, how many partitions it kept in memory while partitioning the
// probe side (and the probe rows they joined), how many empty blocks its
// statuses let it skip reading and how many partitions it did not join
// at all, how many small partitions it joined in how many groups, and
// how many skewed partitions it split into how many map ranges:
//
//	HashJoin Full on i = i and p.v < b.v (…; shuffled to 32 partitions:
//	    8 map outputs, 1498679 bytes, 5110 rows in 121.628ms; kept 10
//	    partitions in memory (890 probe rows joined unspilled); skipped 4
//	    empty blocks, 0 partitions; coalesced 22 partitions into 3; 0
//	    skewed partitions split into 0 map ranges; 0 repartition levels,
//	    0 nested-loop fallbacks (0 chunks))
//
// A GROUP BY through the hash exchange (Options.Exchange) says what it
// moved: partitions, rows, bytes, pieces sent and empty pieces skipped,
// and its largest partition's bytes (skew shows there).

// analyzeRoot marks the plan of an EXPLAIN ANALYZE.
type analyzeRoot struct{ in planNode }

func (n *analyzeRoot) schema() *arrow.Schema { return explainSchema }
func (n *analyzeRoot) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	return n.in.open(ctx, rt, c)
}
func (n *analyzeRoot) explain(b *strings.Builder, depth int) { n.in.explain(b, depth) }

// opStats is what one operator did, counted from every goroutine that
// calls it.
type opStats struct {
	rows, batches atomic.Int64
	nanos         atomic.Int64
	steps         atomic.Bool // ran as a step on aggregate workers
}

// analyzeNode wraps a plan node: its operator is wrapped in an analyzeOp.
type analyzeNode struct {
	in   planNode
	st   opStats
	op   operator           // what in opened
	scan *cache.ScanMetrics // the scan's, filled in after the run
}

func (n *analyzeNode) schema() *arrow.Schema { return n.in.schema() }

func (n *analyzeNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	op, err := n.in.open(ctx, rt, c)
	if err != nil {
		return nil, err
	}
	n.op = op
	return &analyzeOp{op: op, st: &n.st}, nil
}

// explain writes the wrapped node's line with what its operator did,
// then its inputs (themselves wrapped).
func (n *analyzeNode) explain(b *strings.Builder, depth int) {
	var sub strings.Builder
	n.in.explain(&sub, depth)
	text := sub.String()
	eol := strings.IndexByte(text, '\n')
	if eol < 0 {
		eol = len(text)
	}
	b.WriteString(text[:eol])
	b.WriteString(n.annotation())
	b.WriteString(text[eol:])
}

func (n *analyzeNode) annotation() string {
	var b strings.Builder
	if n.op == nil {
		return " (never run)"
	}
	d := time.Duration(n.st.nanos.Load()).Round(time.Microsecond)
	fmt.Fprintf(&b, " (rows %d, batches %d, time %v", n.st.rows.Load(), n.st.batches.Load(), d)
	if n.st.steps.Load() {
		b.WriteString(" summed over workers")
	}
	if m := n.scan; m != nil {
		fmt.Fprintf(&b, "; decoded %d of %d batches, skipped %d (%d rows), %d bytes decompressed into %d",
			m.Decoded, m.Batches, m.Skipped, m.SkippedRows, m.CompressedBytes, m.DecodedBytes)
		if m.FilteredRows > 0 {
			fmt.Fprintf(&b, ", row filter dropped %d rows", m.FilteredRows)
		}
		if m.SkippedLate > 0 {
			fmt.Fprintf(&b, ", skipped while running (top-k, runtime filters) %d batches (%d rows)", m.SkippedLate, m.SkippedLateRows)
		}
	}
	if a, ok := n.op.(interface {
		spillMetrics() (agg.SpillMetrics, bool)
	}); ok {
		if m, ok := a.spillMetrics(); ok && (m.Runs > 0 || m.Files > 0) {
			fmt.Fprintf(&b, "; spilled %d runs: %d files, %d bytes, %d rows in %v, %d merge passes in %v, %d groups kept in memory",
				m.Runs, m.Files, m.Bytes, m.Rows, m.Time.Round(time.Microsecond), m.MergePasses, m.MergeTime.Round(time.Microsecond), m.KeptRows)
		}
	} else if j, ok := n.op.(*hashJoinOp); ok {
		b.WriteString(j.st.String())
		if j.strategy != "" {
			b.WriteString("; " + j.strategy)
		}
		if j.px != nil {
			b.WriteString(j.px.String())
		}
		if g := j.gst.Load(); g != nil {
			b.WriteString(g.String())
		}
	} else if s, ok := n.op.(spillReporter); ok {
		if st := s.spillStats(); st.Files > 0 || st.Held > 0 {
			fmt.Fprintf(&b, "; spilled %v", st)
		}
	}
	if s, ok := n.op.(*extSortOp); ok && s.ranges.Load() != nil {
		b.WriteString("; " + *s.ranges.Load())
	}
	if a, ok := n.op.(*aggregateOp); ok && a.exchange != nil {
		b.WriteString(a.exchange.String())
	}
	if a, ok := n.op.(*aggregateOp); ok {
		if hs := a.hashSpill(); hs != nil && hs.spilled() {
			b.WriteString(hs.String())
		}
	}
	b.WriteString(")")
	return b.String()
}

// analyzeOp counts what its operator returns and times it.
type analyzeOp struct {
	op operator
	st *opStats
}

func (o *analyzeOp) Schema() *arrow.Schema { return o.op.Schema() }

func (o *analyzeOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	start := time.Now()
	rec, err := o.op.Next(ctx)
	o.st.nanos.Add(int64(time.Since(start)))
	if rec != nil {
		o.st.rows.Add(rec.NumRows())
		o.st.batches.Add(1)
	}
	return rec, err
}

func (o *analyzeOp) Close() { o.op.Close() }

// peel lets an aggregate's workers run a wrapped filter or projection as
// a step (pipeline in op_aggregate.go), timed here.
func (o *analyzeOp) peel() (step, operator, bool) {
	_, in, ok := peel(o.op)
	if !ok {
		return nil, o, false
	}
	return o, in, true
}

func (o *analyzeOp) apply(ctx context.Context, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	o.st.steps.Store(true)
	s, _, _ := peel(o.op)
	start := time.Now()
	out, err := s.apply(ctx, rec)
	o.st.nanos.Add(int64(time.Since(start)))
	if out != nil {
		o.st.rows.Add(out.NumRows())
		o.st.batches.Add(1)
	}
	return out, err
}

// instrument wraps every node of p in an analyzeNode and returns p's
// wrapper. Nodes it does not know keep their inputs unwrapped.
func instrument(p planNode, nodes *[]*analyzeNode) planNode {
	switch n := p.(type) {
	case *logicalExplainNode: // EXPLAIN ANALYZE FORMAT = 'logical': not an operator
		n.planNode = instrument(n.planNode, nodes)
		return n
	case *scanNode:
		n.analyzed = true // its runtime filters report what they skipped
		a := &analyzeNode{in: p}
		n.onDone = func(m cache.ScanMetrics) { a.scan = &m } // each scan its own (a join has several)
		*nodes = append(*nodes, a)
		return a
	case *filterNode:
		n.in = instrument(n.in, nodes)
	case *convertNode:
		n.in = instrument(n.in, nodes)
	case *projectNode:
		n.in = instrument(n.in, nodes)
	case *aggregateNode:
		n.in = instrument(n.in, nodes)
	case *sortNode:
		n.in = instrument(n.in, nodes)
	case *windowNode:
		n.in = instrument(n.in, nodes)
	case *limitNode:
		n.in = instrument(n.in, nodes)
	case *hashJoinNode:
		n.probe = instrument(n.probe, nodes)
		n.build = instrument(n.build, nodes)
	case *unionNode:
		for i := range n.inputs {
			n.inputs[i] = instrument(n.inputs[i], nodes)
		}
	}
	a := &analyzeNode{in: p}
	*nodes = append(*nodes, a)
	return a
}

// analyze runs an EXPLAIN ANALYZE to the end and renders its plan.
func (e *Engine) analyze(ctx context.Context, root *analyzeRoot) (string, error) {
	var nodes []*analyzeNode
	p := instrument(root.in, &nodes)
	start := time.Now()
	r, err := e.run(ctx, p)
	if err != nil {
		return "", err
	}
	defer r.Release()
	for r.Next() {
	}
	if err := r.Err(); err != nil {
		return "", err
	}
	elapsed := time.Since(start)
	r.close() // operators report their metrics as they close
	st := r.Stats()
	for _, n := range nodes {
		if _, ok := n.in.(*scanNode); ok && n.scan == nil {
			n.scan = &st.Scan
		}
	}
	var b strings.Builder
	p.explain(&b, 0)
	fmt.Fprintf(&b, "Execution: %d rows in %v; peak memory %d of %d bytes", st.Rows, elapsed.Round(time.Microsecond), st.PeakMemory, e.opts.MemoryLimit)
	if st.Spill.Files > 0 || st.Spill.Held > 0 {
		fmt.Fprintf(&b, "; spilled %v", st.Spill)
	}
	b.WriteString("\n")
	return b.String(), nil
}
