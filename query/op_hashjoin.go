package query

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/take"
	"github.com/quiverdb/quiver/query/expr"
)

// hashJoinOp runs a hashJoinNode (plan_join.go says what each kind
// returns). On its first Next it drains the build side into memory
// (op_hashjoin_build.go: one batch of its rows, a table of its key tuples
// from package agg, the rows of each tuple); then rt.workers goroutines
// pull probe batches, each through the filters and projections below it
// and its own joinWorker (op_hashjoin_probe.go), and hand the batches
// they make to Next through a channel, in no particular order. A right or
// full join then returns the build rows no probe row matched. Without
// keys it is a nested-loop join: every probe row meets every build row,
// bounded by Options.MaxJoinPairs (countPairs).
//
// The build side counts in the query's memory tracker and fails the query
// with ErrMemory naming the join past the limit: the join does not spill
// (a grace hash join is still to come).
type hashJoinOp struct {
	rt           *runtime
	n            *hashJoinNode
	schema       *arrow.Schema
	probe, build operator

	// The residual's batch: the probe's fields then the build's, those it
	// does not read typed NULL (resReads false).
	resSchema *arrow.Schema
	resReads  []bool

	b       *joinBuild
	matched []uint64 // right and full joins: the build rows matched, a bit each
	st      joinStats

	started bool
	err     error // sticky
	out     chan arrow.RecordBatch
	cancel  context.CancelFunc
	probed  error // the workers' error, read once out is closed
	tail    int   // right and full joins: the next build row to check
	closed  bool
}

// joinStats are what EXPLAIN ANALYZE reports of a join.
type joinStats struct {
	buildRows, buildBytes, buildNanos atomic.Int64
	probeRows, probeNanos, rowsOut    atomic.Int64
	pairs                             atomic.Int64 // examined by a nested-loop join
}

// String is the join's part of an EXPLAIN ANALYZE line.
func (s *joinStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "; build %d rows, %d bytes in %v; probe %d rows in %v summed over workers",
		s.buildRows.Load(), s.buildBytes.Load(), time.Duration(s.buildNanos.Load()).Round(time.Microsecond),
		s.probeRows.Load(), time.Duration(s.probeNanos.Load()).Round(time.Microsecond))
	if p := s.pairs.Load(); p > 0 {
		fmt.Fprintf(&b, ", %d pairs examined", p)
	}
	fmt.Fprintf(&b, "; %d rows out", s.rowsOut.Load())
	return b.String()
}

func openHashJoin(ctx context.Context, rt *runtime, c *cache.Cache, n *hashJoinNode) (operator, error) {
	if err := n.check(); err != nil {
		return nil, err
	}
	probe, err := n.probe.open(ctx, rt, c)
	if err != nil {
		return nil, err
	}
	build, err := n.build.open(ctx, rt, c)
	if err != nil {
		probe.Close()
		return nil, err
	}
	o := &hashJoinOp{rt: rt, n: n, schema: n.schema(), probe: probe, build: build}
	if n.residual != nil {
		o.residualBatch()
	}
	return o, nil
}

// check refuses a node the planner should not have made: keys that do
// not pair up, or are not of one engine type, a residual that is not
// boolean.
func (n *hashJoinNode) check() error {
	bad := func(format string, args ...any) error {
		return &Error{Kind: ErrInvalid, Msg: n.title() + ": " + fmt.Sprintf(format, args...)}
	}
	if n.kind < joinInner || n.kind > joinSingle {
		return bad("join kind %d", int(n.kind))
	}
	ps, bs := n.probe.schema(), n.build.schema()
	if len(n.probeKeys) != len(n.buildKeys) {
		return bad("%d probe keys, %d build keys", len(n.probeKeys), len(n.buildKeys))
	}
	for i, pk := range n.probeKeys {
		bk := n.buildKeys[i]
		if pk < 0 || pk >= ps.NumFields() || bk < 0 || bk >= bs.NumFields() {
			return bad("key %d: columns %d and %d of %d and %d", i, pk, bk, ps.NumFields(), bs.NumFields())
		}
		pt, bt := ps.Field(pk).Type, bs.Field(bk).Type
		et, ok := expr.EngineType(pt)
		if !ok || !arrow.TypeEqual(et, pt) || !arrow.TypeEqual(pt, bt) {
			return bad("key %d: %s = %s, not one engine type", i, pt, bt)
		}
	}
	if r := n.residual; r != nil && r.Type().ID() != arrow.BOOL && r.Type().ID() != arrow.NULL {
		return bad("residual %s is %s, not boolean", r, r.Type())
	}
	return nil
}

// title names the join in errors: its EXPLAIN line, short.
func (n *hashJoinNode) title() string {
	if len(n.probeKeys) == 0 {
		return "NestedLoopJoin " + n.kind.String()
	}
	ps, bs := n.probe.schema(), n.build.schema()
	keys := make([]string, len(n.probeKeys))
	for i := range n.probeKeys {
		p, b := "?", "?"
		if k := n.probeKeys[i]; k >= 0 && k < ps.NumFields() {
			p = ps.Field(k).Name
		}
		if i < len(n.buildKeys) && n.buildKeys[i] >= 0 && n.buildKeys[i] < bs.NumFields() {
			b = bs.Field(n.buildKeys[i]).Name
		}
		keys[i] = p + " = " + b
	}
	return clip("HashJoin " + n.kind.String() + " on " + strings.Join(keys, " AND "))
}

// residualBatch sets the schema of the batches the residual reads.
func (o *hashJoinOp) residualBatch() {
	fields := slices.Concat(o.n.probe.schema().Fields(), o.n.build.schema().Fields())
	o.resReads = make([]bool, len(fields))
	for _, c := range expr.Columns(o.n.residual) {
		if c >= 0 && c < len(fields) {
			o.resReads[c] = true
		}
	}
	for i := range fields {
		if !o.resReads[i] {
			fields[i] = arrow.Field{Name: fields[i].Name, Type: arrow.Null, Nullable: true}
		}
	}
	o.resSchema = arrow.NewSchema(fields, nil)
}

func (o *hashJoinOp) Schema() *arrow.Schema { return o.schema }

// returnsPairs: the kind returns the build's columns with the probe's.
func (o *hashJoinOp) returnsPairs() bool {
	switch o.n.kind {
	case joinInner, joinLeft, joinRight, joinFull, joinSingle:
		return true
	}
	return false
}

// firstMatchDecides: one passing pair settles a probe row.
func (o *hashJoinOp) firstMatchDecides() bool { return !o.returnsPairs() }

// needPairs: the pairs must be walked, not only counted (a semi join
// without residual only needs to know how many build rows match).
func (o *hashJoinOp) needPairs() bool { return o.returnsPairs() || o.n.residual != nil }

// countPairs counts the pairs a nested-loop join is about to examine for
// n probe rows, failing past Options.MaxJoinPairs.
func (o *hashJoinOp) countPairs(n int) error {
	add := int64(n) * int64(o.b.rows)
	total := o.st.pairs.Add(add)
	if lim := o.rt.maxJoinPairs; lim > 0 && total > lim {
		return &Error{Kind: ErrInvalid, Msg: fmt.Sprintf("%s would examine more than %d pairs of rows, the limit (Options.MaxJoinPairs; %d build rows, %d probe rows so far): raise it, or join on an equality",
			o.n.title(), lim, o.b.rows, o.st.probeRows.Load())}
	}
	return nil
}

func (o *hashJoinOp) title() string { return o.n.title() }

func (o *hashJoinOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if o.err != nil {
		return nil, o.err
	}
	if !o.started {
		o.started = true
		if err := o.start(ctx); err != nil {
			o.err = err
			return nil, err
		}
	}
	for o.out != nil {
		select {
		case rec, ok := <-o.out:
			if ok {
				return rec, nil
			}
			o.out = nil
			if o.probed != nil {
				o.err = o.probed
				return nil, o.err
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	rec, err := o.nextUnmatched(ctx)
	if err != nil && err != io.EOF {
		o.err = err
	}
	return rec, err
}

// start builds, then sets the workers probing, unless the build side
// leaves nothing to probe for.
func (o *hashJoinOp) start(ctx context.Context) error {
	t := time.Now()
	b, err := o.drainBuild(ctx)
	o.st.buildNanos.Add(int64(time.Since(t)))
	if err != nil {
		return err
	}
	o.b = b
	o.st.buildRows.Store(int64(b.rows))
	o.build.Close() // done with it: a scan stops, its buffers go
	if o.n.kind == joinRight || o.n.kind == joinFull {
		words := (b.rows + 63) / 64
		if err := o.hold(b, int64(words)*8); err != nil {
			return err
		}
		o.matched = make([]uint64, words)
	}
	if o.nothingToProbe() {
		o.probe.Close()
		return nil
	}
	o.runProbe(ctx)
	return nil
}

// nothingToProbe: the build side is such that no probe row can come out
// (an empty one under an inner, right or semi join; one with a NULL key
// under NOT IN), so the probe side is not read at all.
func (o *hashJoinOp) nothingToProbe() bool {
	switch o.n.kind {
	case joinInner, joinRight, joinSemi:
		return o.b.rows == 0
	case joinNullAwareAnti:
		return o.b.hasNull
	}
	return false
}

// runProbe starts the workers. Each pulls the next batch of the probe
// side's source under a lock, runs the filters and projections above it
// (as a GROUP BY's workers do: pipeline), and probes it.
func (o *hashJoinOp) runProbe(ctx context.Context) {
	ctx, o.cancel = context.WithCancel(ctx)
	workers := max(o.rt.workers, 1)
	o.out = make(chan arrow.RecordBatch, workers)
	src, steps := pipeline(o.probe)
	var mu sync.Mutex
	eof := false
	next := func(ctx context.Context) (arrow.RecordBatch, error) {
		mu.Lock()
		defer mu.Unlock()
		if eof { // an operator need not be pulled past its end
			return nil, io.EOF
		}
		rec, err := src.Next(ctx)
		eof = err == io.EOF
		return rec, err
	}
	g, gctx := errgroup.WithContext(ctx)
	for range workers {
		g.Go(func() error { return o.work(gctx, next, steps) })
	}
	go func() {
		o.probed = g.Wait()
		close(o.out)
	}()
}

// work is one worker's loop.
func (o *hashJoinOp) work(ctx context.Context, next func(context.Context) (arrow.RecordBatch, error), steps []step) error {
	w := o.newWorker()
	defer w.release()
	emit := func(rec arrow.RecordBatch) error {
		o.st.rowsOut.Add(rec.NumRows())
		select {
		case o.out <- rec:
			return nil
		case <-ctx.Done():
			rec.Release()
			return ctx.Err()
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if rec, err = applySteps(ctx, steps, rec); err != nil {
			return err
		}
		t := time.Now()
		err = w.probe(ctx, rec, emit)
		o.st.probeNanos.Add(int64(time.Since(t)))
		rec.Release()
		if err != nil {
			return err
		}
	}
}

// nextUnmatched returns, for a right or full join once the probe side is
// done, the next batch of build rows no probe row matched, with NULL
// probe columns.
func (o *hashJoinOp) nextUnmatched(ctx context.Context) (arrow.RecordBatch, error) {
	if o.matched == nil {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var sel []int32
	for ; o.tail < o.b.rows && len(sel) < joinBatchRows; o.tail++ {
		if o.matched[o.tail>>6]&(1<<(o.tail&63)) == 0 {
			sel = append(sel, int32(o.tail))
		}
	}
	if len(sel) == 0 {
		return nil, io.EOF
	}
	rec, err := o.output(ctx, nil, nil, o.b.rec, sel, len(sel))
	if err == nil {
		o.st.rowsOut.Add(rec.NumRows())
	}
	return rec, err
}

// output is a batch of the join's schema, n rows: the probe's columns at
// rows p of probe (NULLs when p is nil), then, for the joins that return
// the build's columns, the build's at rows b of build (NULLs when b is
// nil). Rows are copied with package take, in any order.
func (o *hashJoinOp) output(ctx context.Context, probe arrow.RecordBatch, p []int32, build arrow.RecordBatch, b []int32, n int) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, o.schema.NumFields())
	add := func(src arrow.RecordBatch, idx []int32, fields []arrow.Field) error {
		for i, f := range fields {
			if idx == nil {
				cols = append(cols, array.MakeArrayOfNull(o.rt.mem, f.Type, n))
				continue
			}
			a, err := take.Array(ctx, o.rt.mem, src.Column(i), idx)
			if err != nil {
				return &Error{Kind: ErrExec, Msg: fmt.Sprintf("%s: gathering %s", o.title(), f.Name), Err: err}
			}
			cols = append(cols, a)
		}
		return nil
	}
	err := add(probe, p, o.n.probe.schema().Fields())
	if err == nil && o.returnsPairs() {
		err = add(build, b, o.n.build.schema().Fields())
	}
	if err != nil {
		releaseAll(cols)
		return nil, err
	}
	rec := array.NewRecordBatch(o.schema, cols, int64(n))
	releaseAll(cols)
	return rec, nil
}

// Close stops the workers, drops what they made and nobody took, and
// releases the build side and both inputs.
func (o *hashJoinOp) Close() {
	if o.closed {
		return
	}
	o.closed = true
	if o.cancel != nil {
		o.cancel()
	}
	if o.out != nil {
		for rec := range o.out { // closed once every worker is done
			rec.Release()
		}
		o.out = nil
	}
	o.releaseBuild(o.b)
	o.b, o.matched = nil, nil
	o.probe.Close()
	o.build.Close()
}
