package query

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/shuffle"
)

// A grace hash join: a hash join whose build side does not fit the
// query's memory limit. With Options.Spill set, once the build side
// passes the limit while it is drained (or at once, with
// Options.ForceJoinSpill), its rows, those held so far and the rest, are
// hash-partitioned by key (shuffle.HashPartitioner; fanout graceFanout)
// into a shuffle's map outputs (op_gracejoin_part.go), and so are the
// probe side's after it, but for the rows of the smallest build
// partitions, which are kept in memory and joined as the probe side is
// partitioned (op_gracejoin_keep.go). Then the partitions are joined one
// at a time (or a few small ones together),
// in the order the map statuses plan (op_gracejoin_plan.go), by the
// in-memory join's machinery: a joinBuild of the partition's build rows,
// probed by the workers with the partition's probe rows, then (right,
// full, right semi and anti joins) the partition's build rows the kind
// returns. A partition whose build rows do not fit either is split by
// map ranges when the statuses say it is skewed, or else partitioned
// again with the next level's seed, at most graceMaxLevel levels deep;
// one that cannot be split (every build row has one key: partitioning it
// again left them together) or is still too big at the last level is
// joined by a nested loop over chunks of its build rows that fit
// (op_gracejoin_loop.go), as are a split partition's map ranges.
//
// What decides a kind's answer over the whole build side is counted
// while it is partitioned and used by every partition: its rows (NOT IN
// and IN return differently over an empty build side) and whether a key
// is NULL (NOT IN returns nothing then; IN's mark is NULL). A build row
// with a NULL key matches nothing: it is dropped, or, when the kind
// returns unmatched build rows (right, full, right anti), kept in a file
// of its own and returned at the end. A probe row with a NULL key goes to
// the partition its hash names when the kind may return it (left, full,
// single, anti, mark; NOT IN over an empty build side) and is dropped
// otherwise, as are, for the kinds that return nothing for a probe row
// without a match, the probe rows of partitions with no build rows.
// Runtime filters get the key range of the whole build side, computed
// while it is partitioned.
//
// Map outputs count against the spill Manager's quota; the batches being
// written, and the encoded blocks a map writer holds, count in the
// query's memory tracker. A round's files (the first partitioning, or
// one partition's partitioning again) are removed as soon as its last
// partition is joined, and the rest when the operator closes (the query
// ends, fails or is cancelled).

const (
	graceFanout   = 32 // partitions per level
	graceMaxLevel = 3  // repartitioning levels below the first
	// graceRowOverhead is about what a build row costs in memory past
	// its columns: the hash table's slots, ids and row order.
	graceRowOverhead = 40
)

// joinSpillTuning says when a hash join spills; the engine's
// (Options.ForceJoinSpill), or a test's.
type joinSpillTuning struct {
	force bool // every hash join partitions, whatever its size
	// fanout of each level; 0: graceFanout.
	fanout int
	// maxRows: a partition of more build rows counts as too big for
	// memory, so that small tests repartition and fall back; 0: none.
	maxRows int64
	// noSkewSplit: a skewed partition is partitioned again as the others
	// are, not split by map ranges (to measure what the split saves).
	noSkewSplit bool
	// groupRows: partitions are coalesced into groups of up to this many
	// build rows, past maxRows, so that a group does not fit when joined
	// (as when what the query holds grows after the plan); 0: by maxRows.
	groupRows int64
}

// forcedMaxRows is the build rows a partition may hold in memory under
// Options.ForceJoinSpill: small enough that the joins of tests and
// difference tests repartition and fall back to the nested loop too.
const forcedMaxRows = 1024

// graceJoin is the state of a hashJoinOp that spills.
type graceJoin struct {
	*partEnv // the spill files' owner: o's runtime, title and st
	o        *hashJoinOp
	fanout   int
	types    []arrow.DataType // the build keys'

	build     *partSet // level 0, being written
	probe     *partSet
	nullBuild *partSet // build rows with a NULL key a kind returns

	mu      sync.Mutex // guards what follows while the build side is partitioned
	rows    int64      // build rows, every one
	hasNull bool       // a build row has a NULL key
	ranges  []keyRange // per runtime filter of the join
	free    []*shuffle.HashPartitioner

	rounds []*graceRound // every partitioning, for close
	work   []*gracePart  // partitions left to join, the next last
	st     graceStats
}

// graceRound is one partitioning of both sides: the join's first level,
// or one partition partitioned again. Its map outputs are removed once
// all its partitions are joined.
type graceRound struct {
	build, probe *partSet
	level        int
	left         int // partitions not joined yet
}

// gracePart is one partition of both sides, spilled: partition p of a
// round's map outputs.
type gracePart struct {
	r                   *graceRound
	p                   int
	buildRows, buildMem int64
	probeRows           int64
	whole               bool // partitioning it again cannot split its build rows
	// split: the build side's map ranges of a skewed partition, each
	// joined with the whole probe partition (op_gracejoin_plan.go).
	split []shuffle.MapRange
	// group: small partitions joined together (p the first of them),
	// coalesced by the plan; nil: p alone. The rows are the group's.
	group []int
}

// parts returns the partitions p joins.
func (p *gracePart) parts() []int {
	if p.group != nil {
		return p.group
	}
	return []int{p.p}
}

// sideSource reads a side's rows of the partitions p joins: one
// partition's numbered (fileSource), a group's one after the other.
type sideSource interface {
	batchSource
	close()
}

func (g *graceJoin) openSide(ctx context.Context, p *gracePart, s *partSet, schema *arrow.Schema) (sideSource, error) {
	if p.group == nil {
		return g.open(ctx, s, p.p, s.allMaps(), schema)
	}
	return &partsSource{g: g, s: s, parts: p.group, schema: schema}, nil
}

// canSpill: the join may turn into a grace hash join.
func (o *hashJoinOp) canSpill() bool { return o.rt.spill != nil }

func (o *hashJoinOp) newGrace() *graceJoin {
	g := &graceJoin{o: o, fanout: graceFanout}
	g.partEnv = &partEnv{rt: o.rt, title: o.title(), st: &g.st}
	if f := o.rt.joinSpill.fanout; f > 0 {
		g.fanout = f
	}
	bs := o.n.build.schema()
	for _, k := range o.n.buildKeys {
		g.types = append(g.types, bs.Field(k).Type)
	}
	if len(g.types) == 0 {
		g.fanout = 1 // nothing to partition by: one partition, joined by the nested loop
	}
	g.ranges = make([]keyRange, len(o.n.filters))
	g.st.partitions.Store(int64(g.fanout))
	o.gst.Store(&g.st)
	o.rt.spills.add(o)
	return g
}

// startBuild starts the build side's partitioning.
func (g *graceJoin) startBuild() error {
	bs := g.o.n.build.schema()
	var err error
	if g.build, err = g.newPartSet("build", bs, g.fanout); err != nil {
		return err
	}
	g.nullBuild, err = g.newPartSet("build-nullkey", bs, 1)
	return err
}

// partEnv is what partitioned spill files (partSet, fileSource) need of
// the operator that writes them: the grace hash join, or a GROUP BY
// spilling through the shuffle (op_aggshuffle.go).
type partEnv struct {
	rt    *runtime
	title string      // names the operator in errors
	st    *graceStats // what was written and read
}

// spillError wraps an error of package spill (ErrQuota, ErrNoSpace,
// ErrCorrupt) as the operator's.
func (e *partEnv) spillError(err error) error {
	var qe *Error
	if errors.As(err, &qe) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &Error{Kind: ErrExec, Msg: e.title + ": spilling", Err: err}
}

// innerLike: a probe row without a match returns nothing (so neither do
// probe rows with NULL keys, nor those of partitions with no build rows).
func (o *hashJoinOp) innerLike() bool {
	switch o.n.kind {
	case joinInner, joinRight, joinSemi, joinRightSemi, joinRightAnti:
		return true
	}
	return false
}

// returnsBuildRows: the kind returns build rows after the probe side.
func (o *hashJoinOp) returnsBuildRows() bool {
	return o.n.kind == joinRight || o.n.kind == joinFull || o.rightOnly()
}

// startGrace starts the driver, which partitions the probe side and joins
// the partitions, handing batches to Next through o.out.
func (o *hashJoinOp) startGrace(ctx context.Context) {
	g := o.grace
	o.side = buildSide{rows: int(g.rows), hasNull: g.hasNull}
	o.st.buildRows.Store(g.rows)
	if o.nothingToProbe() {
		o.probe.Close()
		return
	}
	ctx, o.cancel = context.WithCancel(ctx)
	o.out = make(chan arrow.RecordBatch, max(o.rt.workers, 1))
	go func() {
		o.probed = g.run(ctx)
		close(o.out)
	}()
}

// run partitions the probe side, then joins the partitions.
func (g *graceJoin) run(ctx context.Context) error {
	o := g.o
	k, err := g.keep(ctx) // op_gracejoin_keep.go
	if err != nil {
		return err
	}
	t := time.Now()
	err = g.partitionProbe(ctx, k)
	o.st.probeNanos.Add(int64(time.Since(t)))
	o.probe.Close() // done with it: a scan stops, its buffers go
	if k != nil {
		if err == nil {
			err = g.finishKept(ctx)
		} else {
			g.releaseKept()
		}
	}
	if err != nil {
		return err
	}
	r := &graceRound{build: g.build, probe: g.probe}
	g.rounds = append(g.rounds, r)
	g.build, g.probe = nil, nil // the round's now
	var done []bool
	if k != nil {
		done = k.kept
	}
	g.plan(r, done) // op_gracejoin_plan.go
	for len(g.work) > 0 {
		p := g.work[len(g.work)-1]
		g.work = g.work[:len(g.work)-1]
		err := g.joinPart(ctx, p)
		g.joined(p)
		if err != nil {
			return err
		}
	}
	return g.emitNullBuild(ctx)
}

// joined counts a partition as done; a round's files go with its last.
func (g *graceJoin) joined(p *gracePart) {
	if p.r.left--; p.r.left == 0 {
		p.r.build.remove()
		p.r.probe.remove()
	}
}

// joinPart joins one partition: in memory when its build rows fit, else
// partitioned again or, when that cannot help, by the nested loop.
func (g *graceJoin) joinPart(ctx context.Context, p *gracePart) error {
	o := g.o
	if err := ctx.Err(); err != nil {
		return err
	}
	if g.fits(p) {
		src, err := g.openSide(ctx, p, p.r.build, o.n.build.schema())
		if err != nil {
			return err
		}
		t := time.Now()
		b, err := o.loadBuild(ctx, src, false)
		o.st.buildNanos.Add(int64(time.Since(t)))
		src.close()
		if err == nil {
			return g.probePart(ctx, b, p)
		}
		if !errors.Is(err, ErrMemory) {
			return err
		}
	}
	if p.group != nil {
		// A coalesced group that does not fit after all, or no longer
		// (what the query holds above the join grew since the plan): its
		// partitions one by one. Partitioning it again as one partition
		// would read only its first (TPC-H Q10 within 1 MiB lost rows so).
		g.ungroup(p)
		return nil
	}
	if p.split != nil {
		return g.nestedLoop(ctx, p, p.split) // a skewed partition, split by map ranges
	}
	if len(g.types) > 0 && !p.whole && p.r.level < graceMaxLevel {
		return g.repartition(ctx, p)
	}
	g.st.fallbacks.Add(1)
	return g.nestedLoop(ctx, p, []shuffle.MapRange{p.r.build.allMaps()}) // op_gracejoin_loop.go
}

// fits estimates whether a partition's build rows fit in memory now.
func (g *graceJoin) fits(p *gracePart) bool {
	if m := g.o.rt.joinSpill.maxRows; m > 0 && p.buildRows > m {
		return false
	}
	mt := g.o.rt.mt
	if mt.limit <= 0 {
		return true
	}
	return mt.firm()+g.need(p.buildRows, p.buildMem) <= mt.limit
}

// need estimates the memory of a joinBuild of rows build rows that held
// mem bytes: their columns, gathered, and the hash table.
func (g *graceJoin) need(rows, mem int64) int64 {
	return mem + mem/4 + rows*int64(graceRowOverhead+16*len(g.types))
}

// probePart probes b, build rows of p in memory, with p's probe rows on
// the workers, then returns the build rows the kind returns; b is
// released.
func (g *graceJoin) probePart(ctx context.Context, b *joinBuild, p *gracePart) error {
	o := g.o
	o.b = b
	defer func() {
		o.releaseBuild(o.b)
		o.b, o.matched = nil, nil
	}()
	o.st.buildBytes.Store(max(o.st.buildBytes.Load(), b.held))
	if err := o.allocMatched(b); err != nil {
		return err
	}
	src, err := g.openSide(ctx, p, p.r.probe, o.n.probe.schema())
	if err != nil {
		return err
	}
	defer src.close()
	if err := o.probeAll(ctx, src); err != nil {
		return err
	}
	return o.emitBuildRows(ctx)
}

// probeAll runs the workers over in until it ends.
func (o *hashJoinOp) probeAll(ctx context.Context, in batchSource) error {
	eg, gctx := errgroup.WithContext(ctx)
	for range max(o.rt.workers, 1) {
		eg.Go(func() error { return o.work(gctx, in) })
	}
	return eg.Wait()
}

// emitBuildRows hands the current build rows the kind returns after the
// probe side (right, full, right semi and anti joins) to Next.
func (o *hashJoinOp) emitBuildRows(ctx context.Context) error {
	o.tail = 0
	for {
		rec, err := o.nextUnmatched(ctx)
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

// send hands a batch to Next (the rows are counted already).
func (o *hashJoinOp) send(ctx context.Context, rec arrow.RecordBatch) error {
	select {
	case o.out <- rec:
		return nil
	case <-ctx.Done():
		rec.Release()
		return ctx.Err()
	}
}

// emitNullBuild returns the build rows with a NULL key, unmatched, for
// the kinds that return them.
func (g *graceJoin) emitNullBuild(ctx context.Context) error {
	o := g.o
	if g.nullBuild.rows[0] == 0 {
		return nil
	}
	return g.copyParts(ctx, g.nullBuild, 0, o.n.build.schema(), func(rec arrow.RecordBatch) error {
		sel := make([]int32, rec.NumRows())
		for i := range sel {
			sel[i] = int32(i)
		}
		out, err := o.output(ctx, nil, nil, rec, sel, len(sel))
		if err != nil {
			return err
		}
		o.st.rowsOut.Add(out.NumRows())
		return o.send(ctx, out)
	})
}

// close removes every file the join still has.
func (g *graceJoin) close() {
	for _, s := range []*partSet{g.build, g.probe, g.nullBuild} {
		if s != nil {
			s.remove()
		}
	}
	for _, r := range g.rounds {
		r.build.remove()
		r.probe.remove()
	}
	g.rounds, g.work = nil, nil
	for _, p := range g.free {
		p.Release()
	}
	g.free = nil
}

// spillStats is what the join spilled (spillReporter).
func (o *hashJoinOp) spillStats() SpillStats {
	g := o.gst.Load()
	if g == nil {
		return SpillStats{}
	}
	return g.spillStats()
}

// spillStats is what the stats say was written.
func (s *graceStats) spillStats() SpillStats {
	return SpillStats{Files: s.maps.Load(), Bytes: s.bytes.Load(), Rows: s.rows.Load(), Time: time.Duration(s.nanos.Load()),
		Held: s.memMaps.Load(), HeldBytes: s.memBytes.Load()}
}

// outputs says where the map outputs are: on disk, held in memory, moved.
func (s *graceStats) outputs() string {
	return fmt.Sprintf("%d map outputs on disk, %d bytes, %d held in memory, %d bytes (%d moved to disk later), %d rows in %v",
		s.maps.Load(), s.bytes.Load(), s.memMaps.Load(), s.memBytes.Load(), s.moved.Load(), s.rows.Load(), time.Duration(s.nanos.Load()).Round(time.Microsecond))
}

// String is a grace join's part of an EXPLAIN ANALYZE line.
func (s *graceStats) String() string {
	return fmt.Sprintf("; shuffled to %d partitions: %s; kept %d partitions in memory (%d probe rows joined unspilled); "+
		"skipped %d empty blocks, %d partitions; coalesced %d partitions into %d; %d skewed partitions split into %d map ranges; %d repartition levels, %d nested-loop fallbacks (%d chunks)",
		s.partitions.Load(), s.outputs(),
		s.kept.Load(), s.keptRows.Load(), s.emptyBlocks.Load(), s.skipped.Load(), s.coalesced.Load(), s.groups.Load(), s.splits.Load(), s.ranges.Load(),
		s.levels.Load(), s.fallbacks.Load(), s.chunks.Load())
}
