package query

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/shuffle"
)

// A partitioned (shuffle) hash join: the hash join's other strategy
// (plan_joinx.go says which runs when). The broadcast join builds one
// table of the whole build side, on one goroutine, and every worker
// probes it. The partitioned join hash-partitions both sides by the join
// key into one partition per worker (shuffle.HashPartitioner, the rows
// gathered by shuffle.Repartitioner): each partition's goroutine builds a
// table of its build rows only, the partitions' tables built in
// parallel, and probes it with its probe rows, which the workers reading
// the probe side send it. No table is shared: each is a 1/W-th of the
// build side, so its probes miss the caches less, and the build is not
// serial. What it costs is a copy of every probe row (the build side is
// copied by the broadcast join too, into one batch).
//
//	probe workers ─┐ rows by hash(key) ┌─▶ partition 0: its build's table ─┐
//	     …         ┘                   └─▶ partition 1: its build's table ─┴─▶ out
//
// Every kind answers as the broadcast join does: equal keys are in one
// partition, so a probe row meets all its build rows there. A row with a
// NULL key lands in some partition (NULL hashes as a value) and matches
// nothing there. What a kind reads of the whole build side (its rows, a
// NULL key: NOT IN, IN's mark) is o.side, the partitions' sum. After its
// probe rows each partition returns its build rows the kind returns
// (right, full, right semi and anti joins), through the broadcast join's
// output code (op_hashjoin_output.go).
//
// The build side is drained as the broadcast join drains it; the choice
// is made once its size is known, and the batches held are then
// partitioned, each released as it is, so that the build side is held
// about once, not twice.

// joinPartition is one partition of a partitioned join.
type joinPartition struct {
	b       *joinBuild
	matched []uint64
	in      chan arrow.RecordBatch // its probe rows
	// buildRows, buildBytes: its build side, for EXPLAIN ANALYZE.
	buildRows, buildBytes int64
	// probeRows, probeBytes: what the exchange sent it, for EXPLAIN ANALYZE.
	probeRows, probeBytes atomic.Int64
}

// partitionedJoin is the state of a hashJoinOp that partitions.
type partitionedJoin struct {
	parts []*joinPartition
	types []arrow.DataType // the build keys', which hash both sides
}

// partitionSeedX seeds the partitioning of both sides: not a hash
// table's (those are random) nor a grace join level's.
const partitionSeedX = 0x2545f4914f6cdd1d

// joinFanout is the partitions of a partitioned join on workers
// goroutines: a power of two (shuffle.HashPartitioner's rule) ≥ workers.
func joinFanout(workers int) int { return 1 << bits.Len(uint(max(workers, 2)-1)) }

// partitionBuild partitions the build rows c holds into a partitionedJoin
// (o.px) and builds each partition's table, in parallel. c is released
// on every path.
func (o *hashJoinOp) partitionBuild(ctx context.Context, c *buildCollector) error {
	defer func() {
		c.release()
		o.releaseBuild(c.b)
	}()
	bs := o.n.build.schema()
	px := &partitionedJoin{}
	for _, k := range o.n.buildKeys {
		px.types = append(px.types, bs.Field(k).Type)
	}
	fanout := joinFanout(o.rt.workers)
	cs := make([]*buildCollector, fanout)
	locks := make([]sync.Mutex, fanout)
	for p := range cs {
		cs[p] = o.newCollector()
		if err := cs[p].newKeyTable(); err != nil {
			releaseCollectors(o, cs)
			return err
		}
	}
	// The workers take the batches held by number, each partitioning its
	// batches into its own Repartitioner; what they emit goes to the
	// partition's collector.
	var next, dropped atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for range max(o.rt.workers, 1) {
		g.Go(func() error {
			hp, err := shuffle.NewHashPartitioner(px.types, partitionSeedX, fanout)
			if err != nil {
				return &Error{Kind: ErrExec, Msg: o.title() + ": partitioning", Err: err}
			}
			defer hp.Release()
			rp, err := shuffle.NewRepartitioner(o.rt.mem, bs, shuffle.RepartitionConfig{Fanout: fanout})
			if err != nil {
				return &Error{Kind: ErrExec, Msg: o.title() + ": partitioning", Err: err}
			}
			defer rp.Release()
			emit := func(p int, b arrow.RecordBatch) error {
				locks[p].Lock()
				defer locks[p].Unlock()
				return cs[p].add(b)
			}
			for {
				j := int(next.Add(1) - 1)
				if j >= len(c.batchRows) {
					return o.partitionError(rp.Flush(emit))
				}
				rec := c.heldBatch(j)
				err := rp.AddBy(gctx, rec, hp, keyColumns(rec, o.n.buildKeys), emit)
				rec.Release()
				dropped.Add(c.dropBatch(j))
				if err != nil {
					return o.partitionError(err)
				}
			}
		})
	}
	err := g.Wait()
	c.b.held -= dropped.Load() // dropBatch shrank the tracker already
	if err != nil {
		releaseCollectors(o, cs)
		return err
	}
	// Each partition's table, in parallel.
	g, gctx = errgroup.WithContext(ctx)
	g.SetLimit(max(o.rt.workers, 1))
	for p := range cs {
		g.Go(func() error { return cs[p].finish(gctx) })
	}
	err = g.Wait()
	for _, pc := range cs {
		pc.release()
		px.parts = append(px.parts, &joinPartition{b: pc.b, buildRows: int64(pc.b.rows), buildBytes: pc.b.held})
	}
	o.px = px
	if err != nil {
		return err
	}
	for _, part := range px.parts {
		if part.matched, err = o.matchedBits(part.b); err != nil {
			return err
		}
	}
	return nil
}

// partitionError wraps an error of package shuffle as the join's.
func (o *hashJoinOp) partitionError(err error) error {
	if err == nil {
		return nil
	}
	var qe *Error
	if errors.As(err, &qe) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &Error{Kind: ErrExec, Msg: o.title() + ": partitioning", Err: err}
}

// releaseCollectors drops partitions' collectors and what they held.
func releaseCollectors(o *hashJoinOp, cs []*buildCollector) {
	for _, c := range cs {
		c.release()
		o.releaseBuild(c.b)
	}
}

// keyColumns returns the columns keys of rec.
func keyColumns(rec arrow.RecordBatch, keys []int) []arrow.Array {
	cols := make([]arrow.Array, len(keys))
	for i, k := range keys {
		cols[i] = rec.Column(k)
	}
	return cols
}

// startPartitioned publishes the runtime filters and starts the
// exchange: the workers send the probe rows to the partitions, whose
// goroutines probe them and hand batches to Next through o.out.
func (o *hashJoinOp) startPartitioned(ctx context.Context) error {
	px := o.px
	var rows, held int64
	hasNull := false
	for _, p := range px.parts {
		rows += int64(p.b.rows)
		held += p.b.held
		hasNull = hasNull || p.b.hasNull
	}
	o.side = buildSide{rows: int(rows), hasNull: hasNull}
	o.st.buildRows.Store(rows)
	o.st.buildBytes.Store(held)
	if err := o.publishPartitioned(); err != nil {
		return err
	}
	if o.nothingToProbe() {
		o.probe.Close()
		return nil
	}
	ctx, o.cancel = context.WithCancel(ctx)
	workers := max(o.rt.workers, 1)
	o.out = make(chan arrow.RecordBatch, workers)
	for _, p := range px.parts {
		p.in = make(chan arrow.RecordBatch, exchangeQueue)
	}
	in := newSharedInput(o.probe)
	g, gctx := errgroup.WithContext(ctx)
	var producers sync.WaitGroup
	for range workers {
		producers.Add(1)
		g.Go(func() error {
			defer producers.Done()
			return o.sendProbe(gctx, in)
		})
	}
	go func() { // the partitions' goroutines end when every producer has
		producers.Wait()
		for _, p := range px.parts {
			close(p.in)
		}
	}()
	for _, p := range px.parts {
		g.Go(func() error { return o.probePartition(gctx, p) })
	}
	go func() {
		o.probed = g.Wait()
		close(o.out)
	}()
	return nil
}

// publishPartitioned hands the runtime filters the build side's keys:
// each filter's key column of every partition, gathered into one.
func (o *hashJoinOp) publishPartitioned() error {
	if len(o.n.filters) == 0 {
		return nil
	}
	var recs []arrow.RecordBatch
	for _, p := range o.px.parts {
		if p.b.rec != nil {
			recs = append(recs, p.b.rec)
		}
	}
	if len(recs) == 0 {
		o.n.publishFilters(nil, nil)
		return nil
	}
	hold := func(n int64) bool { return o.hold(o.px.parts[0].b, n) == nil }
	for _, f := range o.n.filters {
		parts := make([]arrow.Array, len(recs))
		for i, r := range recs {
			parts[i] = r.Column(o.n.buildKeys[f.key])
		}
		col, err := array.Concatenate(parts, o.rt.mem)
		if err != nil {
			return &Error{Kind: ErrExec, Msg: o.title() + ": runtime filter", Err: err}
		}
		f.publish(col, hold)
		col.Release()
	}
	return nil
}

// sendProbe is a worker of the exchange: it partitions the probe batches
// it pulls and sends each partition's full batches to its goroutine.
func (o *hashJoinOp) sendProbe(ctx context.Context, in batchSource) error {
	px := o.px
	hp, err := shuffle.NewHashPartitioner(px.types, partitionSeedX, len(px.parts))
	if err != nil {
		return &Error{Kind: ErrExec, Msg: o.title() + ": partitioning", Err: err}
	}
	defer hp.Release()
	rp, err := shuffle.NewRepartitioner(o.rt.mem, o.n.probe.schema(), shuffle.RepartitionConfig{Fanout: len(px.parts)})
	if err != nil {
		return &Error{Kind: ErrExec, Msg: o.title() + ": partitioning", Err: err}
	}
	defer rp.Release()
	emit := func(p int, b arrow.RecordBatch) error {
		part := px.parts[p]
		part.probeRows.Add(b.NumRows())
		part.probeBytes.Add(arrowsize.Record(b))
		b.Retain()
		select {
		case part.in <- b:
			return nil
		case <-ctx.Done():
			b.Release()
			return ctx.Err()
		}
	}
	for {
		rec, err := in.next(ctx)
		if err == io.EOF {
			return o.partitionError(rp.Flush(emit))
		}
		if err != nil {
			return err
		}
		if rec.NumRows() > 0 {
			err = rp.AddBy(ctx, rec, hp, keyColumns(rec, o.n.probeKeys), emit)
		}
		rec.Release()
		if err != nil {
			return o.partitionError(err)
		}
	}
}

// probePartition is a partition's goroutine: it probes its build side
// with the probe rows sent to it, then returns its build rows the kind
// returns. It drains its queue to the end even after an error, so that
// no batch sent is left unreleased.
func (o *hashJoinOp) probePartition(ctx context.Context, p *joinPartition) error {
	w := o.newWorkerOf(p.b, p.matched)
	defer w.release()
	w.curBase = -1
	emit := func(rec arrow.RecordBatch) error {
		o.st.rowsOut.Add(rec.NumRows())
		return o.send(ctx, rec)
	}
	var err error
	for rec := range p.in {
		if err == nil {
			err = ctx.Err()
		}
		if err == nil {
			t := time.Now()
			err = w.probe(ctx, rec, emit)
			o.st.probeNanos.Add(int64(time.Since(t)))
		}
		rec.Release()
	}
	if err != nil {
		return err
	}
	tail := 0
	for {
		rec, err := o.unmatched(ctx, p.b, p.matched, &tail)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := o.send(ctx, rec); err != nil {
			return err
		}
	}
}

// release frees every partition's build side.
func (px *partitionedJoin) release(o *hashJoinOp) {
	for _, p := range px.parts {
		o.releaseBuild(p.b)
		p.b, p.matched = nil, nil
	}
}

// String is a partitioned join's part of an EXPLAIN ANALYZE line: per
// partition, its build rows and bytes, and the probe rows and bytes the
// exchange sent it.
func (px *partitionedJoin) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "; partitioned to %d workers (build rows/bytes, probe rows/bytes):", len(px.parts))
	for i, p := range px.parts {
		fmt.Fprintf(&b, " [%d] %d/%d, %d/%d", i, p.buildRows, p.buildBytes, p.probeRows.Load(), p.probeBytes.Load())
	}
	return b.String()
}
