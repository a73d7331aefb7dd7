package query

// A grace hash join's probe side, partitioned as the build side is, and
// the repartitioning of a partition too big for memory (op_gracejoin.go).

import (
	"context"
	"io"

	"golang.org/x/sync/errgroup"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/shuffle"
)

// dropProbeNulls: probe rows with a NULL key return nothing.
func (o *hashJoinOp) dropProbeNulls() bool {
	return o.innerLike() || o.n.kind == joinNullAwareAnti && o.side.rows > 0
}

// partitionProbe partitions the probe side at level 0, on the workers;
// the rows of kept partitions (k, when not nil) are joined instead
// (op_gracejoin_keep.go).
func (g *graceJoin) partitionProbe(ctx context.Context, k *keptParts) error {
	o := g.o
	var err error
	if g.probe, err = g.newPartSet("probe", o.n.probe.schema(), g.fanout); err != nil {
		return err
	}
	in := newSharedInput(o.probe)
	eg, gctx := errgroup.WithContext(ctx)
	for range max(o.rt.workers, 1) {
		eg.Go(func() error {
			p, err := shuffle.NewHashPartitioner(g.types, partitionSeed(0), g.fanout)
			if err != nil {
				return &Error{Kind: ErrExec, Msg: o.title() + ": partitioning", Err: err}
			}
			defer p.Release()
			var sc partScratch
			var kw *keptWorker
			if k != nil {
				kw = &keptWorker{k: k, w: o.newWorker()}
				kw.w.curBase = -1
				defer kw.w.release()
			}
			for {
				rec, err := in.next(gctx)
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
				o.st.probeRows.Add(rec.NumRows())
				err = g.writeProbe(gctx, g.probe, g.build, p, rec, &sc, kw)
				rec.Release()
				if err != nil {
					return err
				}
			}
		})
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	return g.probe.finish()
}

// keptWorker is a probe-partitioning worker's prober of the kept
// partitions.
type keptWorker struct {
	k *keptParts
	w *joinWorker
}

// writeProbe partitions a batch of probe rows into s, dropping those that
// cannot return anything (builds: the build side's partitions of the same
// level); with kw, the rows of kept partitions are joined instead.
func (g *graceJoin) writeProbe(ctx context.Context, s, builds *partSet, p *shuffle.HashPartitioner, rec arrow.RecordBatch, sc *partScratch, kw *keptWorker) error {
	o := g.o
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	keys := make([]arrow.Array, len(o.n.probeKeys))
	for i, k := range o.n.probeKeys {
		keys[i] = rec.Column(k)
	}
	var err error
	if sc.ids, err = p.Partition(sc.ids[:0], keys, n); err != nil {
		return &Error{Kind: ErrExec, Msg: o.title() + ": partitioning", Err: err}
	}
	if o.dropProbeNulls() {
		valid := nonNullRows(nil, keys, n)
		if len(valid) < n {
			keep := make([]bool, n)
			for _, r := range valid {
				keep[r] = true
			}
			for r, k := range keep {
				if !k {
					sc.ids[r] = dropRow
				}
			}
		}
	}
	if o.innerLike() {
		// The build side's statuses say which partitions are empty:
		// their probe rows are not written at all.
		for r, id := range sc.ids {
			if id != dropRow && builds.empty[id] {
				sc.ids[r] = dropRow
			}
		}
	}
	if kw != nil {
		if err := g.probeKept(ctx, kw.k, kw.w, rec, sc.ids, sc); err != nil {
			return err
		}
	}
	return s.write(ctx, rec, sc.ids, sc)
}

// repartition splits a partition into the next level's partitions, with
// the next level's seed, and puts them on the work list.
func (g *graceJoin) repartition(ctx context.Context, p *gracePart) error {
	o := g.o
	level := p.r.level + 1
	g.st.levels.Store(max(g.st.levels.Load(), int64(level)))
	pt, err := shuffle.NewHashPartitioner(g.types, partitionSeed(level), g.fanout)
	if err != nil {
		return &Error{Kind: ErrExec, Msg: o.title() + ": partitioning", Err: err}
	}
	defer pt.Release()
	r := &graceRound{level: level}
	if r.build, err = g.newPartSet("build", o.n.build.schema(), g.fanout); err != nil {
		return err
	}
	g.rounds = append(g.rounds, r) // close removes its files from now on
	if r.probe, err = g.newPartSet("probe", o.n.probe.schema(), g.fanout); err != nil {
		return err
	}
	var sc partScratch
	err = g.copyParts(ctx, p.r.build, p.p, o.n.build.schema(), func(rec arrow.RecordBatch) error {
		keys := make([]arrow.Array, len(o.n.buildKeys))
		for i, k := range o.n.buildKeys {
			keys[i] = rec.Column(k)
		}
		var err error
		if sc.ids, err = pt.Partition(sc.ids[:0], keys, int(rec.NumRows())); err != nil {
			return &Error{Kind: ErrExec, Msg: o.title() + ": partitioning", Err: err}
		}
		return r.build.write(ctx, rec, sc.ids, &sc)
	})
	if err == nil {
		err = r.build.finish()
	}
	if err == nil {
		err = g.copyParts(ctx, p.r.probe, p.p, o.n.probe.schema(), func(rec arrow.RecordBatch) error {
			return g.writeProbe(ctx, r.probe, r.build, pt, rec, &sc, nil)
		})
	}
	if err == nil {
		err = r.probe.finish()
	}
	if err != nil {
		return err
	}
	g.plan(r, nil)
	for _, q := range g.work[len(g.work)-r.left:] {
		q.whole = q.buildRows == p.buildRows
	}
	return nil
}

// copyParts passes every batch of partition p of s to fn.
func (g *graceJoin) copyParts(ctx context.Context, s *partSet, p int, schema *arrow.Schema, fn func(arrow.RecordBatch) error) error {
	src, err := g.open(ctx, s, p, s.allMaps(), schema)
	if err != nil {
		return err
	}
	defer src.close()
	for {
		rec, err := src.next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
}

// partitionSeed is the seed of the partitioning at a level of a grace
// hash join: every level its own, and none a hash table's (those are
// random).
func partitionSeed(level int) uint64 {
	return 0x9e3779b97f4a7c15 * uint64(level+1)
}
