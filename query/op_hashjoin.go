package query

import (
	"context"
	"io"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/cache"
)

// hashJoinOp runs a hashJoinNode (plan_join.go says what each kind
// returns). On its first Next it drains the build side into memory
// (op_hashjoin_build.go: one batch of its rows, a table of its key tuples
// from package agg, the rows of each tuple); then rt.workers goroutines
// pull probe batches, each through the filters and projections below it
// and its own joinWorker (op_hashjoin_probe.go), and hand the batches
// they make to Next through a channel, in no particular order (the
// unordered gather; op_sort_gather.go lists the gathers). A right or
// full join then returns the build rows no probe row matched. Without
// keys it is a nested-loop join: every probe row meets every build row,
// bounded by Options.MaxJoinPairs (op_nestedloop.go).
//
// The build side counts in the query's memory tracker. Past the limit
// it fails the query with ErrMemory naming the join, or, with
// Options.Spill set, the join becomes a grace hash join (op_gracejoin.go)
// that partitions both sides to spill files and joins them a partition at
// a time with the same build and workers.
type hashJoinOp struct {
	rt     *runtime
	n      *hashJoinNode
	schema *arrow.Schema
	// probeFields and buildFields are the sides' fields, made once: a
	// plan's schema() builds its tree's schemas again on each call.
	probeFields, buildFields []arrow.Field
	probe, build             operator

	// The residual's batch: the probe's fields then the build's, those it
	// does not read typed NULL (resReads false).
	resSchema *arrow.Schema
	resReads  []bool

	b       *joinBuild
	matched []uint64 // right and full joins: the build rows matched, a bit each
	// side is what the kinds that look at the whole build side (NOT IN,
	// IN's mark) need of it: with a grace join b is one partition's.
	side buildSide
	st   joinStats

	grace *graceJoin // the build side spilled
	// px: the join runs partitioned (op_joinx.go); strategy says which
	// strategy ran and why, for EXPLAIN ANALYZE (plan_joinx.go).
	px       *partitionedJoin
	strategy string
	gst      atomic.Pointer[graceStats]
	// pass: a nested-loop fallback's chunk pass (op_gracejoin_loop.go).
	pass *loopPass

	started bool
	err     error // sticky
	out     chan arrow.RecordBatch
	cancel  context.CancelFunc
	probed  error // the workers' error, read once out is closed
	tail    int   // right and full joins: the next build row to check
	closed  bool
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
	o := &hashJoinOp{rt: rt, n: n, schema: n.schema(), probe: probe, build: build,
		probeFields: n.probe.schema().Fields(), buildFields: n.build.schema().Fields()}
	if n.residual != nil {
		o.residualBatch()
	}
	return o, nil
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

// rightOnly: the kind returns build rows only, after the probe side.
func (o *hashJoinOp) rightOnly() bool {
	return o.n.kind == joinRightSemi || o.n.kind == joinRightAnti
}

// firstMatchDecides: one passing pair settles a probe row (not when every
// build row it matches must be marked).
func (o *hashJoinOp) firstMatchDecides() bool { return !o.returnsPairs() && !o.rightOnly() }

// needPairs: the pairs must be walked, not only counted (a semi join
// without residual only needs to know how many build rows match).
func (o *hashJoinOp) needPairs() bool {
	return o.returnsPairs() || o.rightOnly() || o.n.residual != nil
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
	o.build.Close() // done with it: a scan stops, its buffers go
	if o.grace != nil {
		o.startGrace(ctx) // op_gracejoin.go
		return nil
	}
	if o.px != nil {
		return o.startPartitioned(ctx) // op_joinx.go
	}
	o.b = b
	o.side = buildSide{rows: b.rows, hasNull: b.hasNull}
	o.n.publishFilters(b.rec, func(n int64) bool { return o.tryHold(b, n) }) // runtime_filter.go
	o.st.buildRows.Store(int64(b.rows))
	o.st.buildBytes.Store(b.held)
	if err := o.allocMatched(b); err != nil {
		return err
	}
	if o.nothingToProbe() {
		o.probe.Close()
		return nil
	}
	o.runProbe(ctx)
	return nil
}

// buildSide is what is known of the whole build side.
type buildSide struct {
	rows    int
	hasNull bool // a build row has a NULL key
}

// allocMatched sets up the bitmap of matched build rows of b, for the
// kinds that return build rows after the probe side.
func (o *hashJoinOp) allocMatched(b *joinBuild) error {
	m, err := o.matchedBits(b)
	o.matched = m
	return err
}

// matchedBits returns a bitmap of b's rows, held in b, for the kinds
// that return build rows after the probe side; nil for the others.
func (o *hashJoinOp) matchedBits(b *joinBuild) ([]uint64, error) {
	if !o.returnsBuildRows() {
		return nil, nil
	}
	words := (b.rows + 63) / 64
	if err := o.hold(b, int64(words)*8); err != nil {
		return nil, err
	}
	return make([]uint64, words), nil
}

// nothingToProbe: the build side is such that no probe row can come out
// (an empty one under an inner, right or semi join; one with a NULL key
// under NOT IN), so the probe side is not read at all.
func (o *hashJoinOp) nothingToProbe() bool {
	switch o.n.kind {
	case joinInner, joinRight, joinSemi, joinRightSemi, joinRightAnti:
		return o.side.rows == 0
	case joinNullAwareAnti:
		return o.side.hasNull
	}
	return false
}

// runProbe starts the workers, which read the probe side together
// (sharedInput) and probe a batch each.
func (o *hashJoinOp) runProbe(ctx context.Context) {
	ctx, o.cancel = context.WithCancel(ctx)
	workers := max(o.rt.workers, 1)
	o.out = make(chan arrow.RecordBatch, workers)
	in := newSharedInput(o.probe)
	g, gctx := errgroup.WithContext(ctx)
	for range workers {
		g.Go(func() error { return o.work(gctx, in) })
	}
	go func() {
		o.probed = g.Wait()
		close(o.out)
	}()
}

// work is one worker's loop.
func (o *hashJoinOp) work(ctx context.Context, in batchSource) error {
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
	numbered, _ := in.(*fileSource) // a grace join's partition: rows numbered
	for {
		var rec arrow.RecordBatch
		var err error
		w.curBase = -1
		if numbered != nil {
			rec, w.curBase, err = numbered.nextAt(ctx)
		} else {
			rec, err = in.next(ctx)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
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
	if o.px != nil {
		o.px.release(o)
	}
	if o.grace != nil {
		o.grace.close() // its files go
	}
	o.probe.Close()
	o.build.Close()
}
