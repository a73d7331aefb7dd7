package query

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/shuffle"
)

// The nested-loop fallback of a grace hash join. A partition whose build
// rows do not fit in memory and cannot be split (they share one key, or
// the join has no keys, or the last level is reached) is joined a chunk
// of its build rows at a time: each chunk, as many rows as fit, becomes a
// joinBuild probed by every probe row of the partition, read again from
// its file for each chunk. Each build row is in one chunk and meets every
// probe row, so the pairs of inner, left, right, full and single joins
// and the build rows right, right semi and right anti joins return come
// out of the chunks as they are. What a probe row returns under the other
// kinds depends on all chunks: the chunk passes only set a bit per probe
// row of the partition when a pair passed (a single join fails when a row
// passes in two chunks), and a last pass over the probe rows applies the
// kind's rule to the bits (loopPass).

// loopPass is the state of the chunk passes over one partition.
type loopPass struct {
	bits  []uint64 // per probe row of the partition: a pair passed in some chunk
	final bool     // the last pass: apply the kind's rule
}

// probeDecides: what the kind returns for a probe row depends on whether
// it matched in any chunk.
func (o *hashJoinOp) probeDecides() bool {
	switch o.n.kind {
	case joinLeft, joinFull, joinSingle, joinSemi, joinAnti, joinNullAwareAnti, joinMark:
		return true
	}
	return false
}

// nestedLoop joins a partition chunk by chunk: the chunks of each of its
// build side's map ranges in turn (all maps, or a skewed partition's
// split).
func (g *graceJoin) nestedLoop(ctx context.Context, p *gracePart, ranges []shuffle.MapRange) error {
	o := g.o
	var pass *loopPass
	if o.probeDecides() && p.probeRows > 0 {
		words := (p.probeRows + 63) / 64
		sortBudget{o.rt.mt}.Grow(words * 8)
		defer o.rt.mt.shrink(words * 8)
		pass = &loopPass{bits: make([]uint64, words)}
	}
	for _, maps := range ranges {
		if err := g.loopRange(ctx, p, maps, pass); err != nil {
			return err
		}
	}
	if pass == nil {
		return nil
	}
	// The last pass: each probe row once, by the kind's rule.
	pass.final = true
	o.pass = pass
	defer func() { o.pass = nil }()
	o.b = &joinBuild{} // no build rows: probe rows meet nothing
	defer func() { o.b = nil }()
	in, err := g.open(ctx, p.r.probe, p.p, p.r.probe.allMaps(), o.n.probe.schema())
	if err != nil {
		return err
	}
	defer in.close()
	return o.probeAll(ctx, in)
}

// loopRange joins the build rows of p in map outputs maps, chunk by
// chunk, with every probe row of p.
func (g *graceJoin) loopRange(ctx context.Context, p *gracePart, maps shuffle.MapRange, pass *loopPass) error {
	o := g.o
	src, err := g.open(ctx, p.r.build, p.p, maps, o.n.build.schema())
	if err != nil {
		return err
	}
	defer src.close()
	ch := &chunker{g: g, src: src}
	defer ch.release()
	for {
		chunk, err := ch.next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		g.st.chunks.Add(1)
		rows := countRows(chunk)
		b, err := o.loadBuild(ctx, &listSource{recs: chunk}, true)
		releaseRecs(chunk)
		if err != nil {
			if errors.Is(err, ErrMemory) {
				return &Error{Kind: ErrMemory, Msg: fmt.Sprintf("%s: a chunk of %d build rows does not fit the memory limit while the join spills", o.title(), rows), Err: err}
			}
			return err
		}
		o.pass = pass
		err = g.probePart(ctx, b, p)
		o.pass = nil
		if err != nil {
			return err
		}
	}
}

func countRows(recs []arrow.RecordBatch) int64 {
	var n int64
	for _, r := range recs {
		n += r.NumRows()
	}
	return n
}

func releaseRecs(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// chunker cuts a partition's build rows into chunks that fit: as many as
// an estimate of their memory (columns and hash table) puts under half of
// what the query's limit leaves, but never under a sixteenth of the limit
// (minLoopChunk), or Options.ForceJoinSpill's row cap.
//
// The floor is what keeps the fallback going when other operators of
// the query hold nearly all of the limit — a join building from this
// one's output, which cannot give its memory back until this join ends:
// a chunk is loaded past the limit rather than refused (joinBuild.mayPass),
// by at most the floor. Refusing it failed the query, and did so only
// some of the time, as the other operators' timing went (TPC-H Q21 at SF
// 0.1 within 1 MiB: a chunk of 2 rows refused for 8,520 bytes while a
// semi join above collected its build side).
type chunker struct {
	g    *graceJoin
	src  *fileSource
	left arrow.RecordBatch // read, not yet in a chunk
}

func (c *chunker) budget() (bytes, rows int64) {
	o := c.g.o
	bytes = 256 << 20
	if mt := o.rt.mt; mt.limit > 0 {
		bytes = max((mt.limit-mt.firm())/2, minLoopChunk(mt.limit))
	}
	rows = int64(1) << 62
	if m := o.rt.joinSpill.maxRows; m > 0 {
		rows = m
	}
	return bytes, rows
}

// minLoopChunk is the least a nested-loop chunk's estimate may take of
// a query's limit.
func minLoopChunk(limit int64) int64 { return max(limit/16, 1) }

func (c *chunker) cost(rec arrow.RecordBatch) int64 {
	return arrowsize.Record(rec) + rec.NumRows()*int64(graceRowOverhead+16*len(c.g.types))
}

// next returns the next chunk's batches, or io.EOF.
func (c *chunker) next(ctx context.Context) ([]arrow.RecordBatch, error) {
	maxBytes, maxRows := c.budget()
	var chunk []arrow.RecordBatch
	var bytes, rows int64
	for {
		rec := c.left
		c.left = nil
		if rec == nil {
			var err error
			rec, err = c.src.next(ctx)
			if err == io.EOF {
				if len(chunk) == 0 {
					return nil, io.EOF
				}
				return chunk, nil
			}
			if err != nil {
				releaseRecs(chunk)
				return nil, err
			}
		}
		n := rec.NumRows()
		cost := c.cost(rec)
		if bytes+cost <= maxBytes && rows+n <= maxRows {
			chunk = append(chunk, rec)
			bytes, rows = bytes+cost, rows+n
			continue
		}
		// Take what fits of rec (a row at least, into an empty chunk)
		// and leave the rest for the next chunk.
		k := min(maxRows-rows, n*(maxBytes-bytes)/max(cost, 1))
		if len(chunk) == 0 {
			k = max(k, 1)
		}
		if k <= 0 {
			c.left = rec
			return chunk, nil
		}
		chunk = append(chunk, rec.NewSlice(0, k))
		c.left = rec.NewSlice(k, n)
		rec.Release()
		return chunk, nil
	}
}

func (c *chunker) release() {
	if c.left != nil {
		c.left.Release()
		c.left = nil
	}
}

// listSource hands out a list of batches, each once.
type listSource struct {
	recs []arrow.RecordBatch
	i    atomic.Int64
}

func (s *listSource) next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	i := s.i.Add(1) - 1
	if i >= int64(len(s.recs)) {
		return nil, io.EOF
	}
	rec := s.recs[i]
	rec.Retain()
	return rec, nil
}

// probePass is probe during the chunk passes of the nested loop: pairs
// come out as usual, and each probe row's bit records whether one passed;
// in the last pass, the bits decide as the kind says.
func (w *joinWorker) probePass(ctx context.Context, rec arrow.RecordBatch, emit func(arrow.RecordBatch) error) error {
	o, pass := w.o, w.o.pass
	n := int(rec.NumRows())
	base, ok := w.base(rec)
	if !ok {
		panic("query: a nested-loop pass over a batch without its row number")
	}
	if pass.final {
		w.count, w.lo = sized(w.count, n), sized(w.lo, n)
		for r := range n {
			x := base + int64(r)
			w.count[r] = int32(pass.bits[x>>6] >> (x & 63) & 1)
			w.lo[r] = -1
		}
		if len(o.n.probeKeys) == 0 {
			for r := range n {
				w.lo[r] = 0
			}
		} else {
			w.keys = w.keys[:0]
			for _, k := range o.n.probeKeys {
				w.keys = append(w.keys, rec.Column(k))
			}
			w.rows = nonNullRows(w.rows[:0], w.keys, n)
			for _, r := range w.rows {
				w.lo[r] = 0
			}
		}
		return w.finish(ctx, rec, emit)
	}
	if err := w.countMatches(ctx, rec, emit); err != nil {
		return err
	}
	for r := range n {
		if w.count[r] == 0 {
			continue
		}
		x := base + int64(r)
		bit := uint64(1) << (x & 63)
		if old := atomic.OrUint64(&pass.bits[x>>6], bit); old&bit != 0 && o.n.kind == joinSingle {
			return &Error{Kind: ErrExec, Msg: "more than one row returned by a subquery used as an expression"}
		}
	}
	return nil
}
