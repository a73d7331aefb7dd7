package query

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/shuffle"
)

// The partitions a grace hash join keeps in memory while it partitions
// its probe side (a hybrid hash join). Once the build side is written,
// its map statuses say how big each partition is; the smallest are
// loaded back, as many as fit in half of what the memory limit leaves,
// into one joinBuild (partitions hold disjoint keys, so their union
// joins as each alone would), and the probe rows that hash to them are
// probed there and then, by the workers that partition the probe side,
// instead of being written and read back. What the partitioning writes,
// and the partitions joined after it, are the others'.

// keptParts is the build of the kept partitions.
type keptParts struct {
	kept []bool // per level-0 partition
	n    int
}

// keep chooses and loads the partitions to keep; nil when none fit. The
// build is o.b (with o.matched for the kinds that return build rows)
// until release.
func (g *graceJoin) keep(ctx context.Context) (*keptParts, error) {
	o := g.o
	s := g.build
	totals := s.totals()
	order := make([]int, 0, s.fanout)
	for p, n := range totals {
		if n > 0 {
			order = append(order, p)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(min(max(totals[a]-totals[b], -1), 1)) })
	budget, rowCap := int64(1)<<62, int64(1)<<62
	if mt := o.rt.mt; mt.limit > 0 {
		budget = (mt.limit - mt.firm()) / 2
	}
	if m := o.rt.joinSpill.maxRows; m > 0 {
		rowCap = m
	}
	k := &keptParts{kept: make([]bool, s.fanout)}
	var need, rows int64
	for _, p := range order {
		pn, pr := g.need(s.rows[p], s.mem[p]), s.rows[p]
		if need+pn > budget || rows+pr > rowCap {
			break // the smallest first (by bytes written): the rest are bigger
		}
		need, rows = need+pn, rows+pr
		k.kept[p] = true
		k.n++
	}
	if k.n == 0 {
		return nil, nil
	}
	var parts []int
	for p, kept := range k.kept {
		if kept {
			parts = append(parts, p)
		}
	}
	src := &partsSource{g: g, s: s, parts: parts, schema: o.n.build.schema()}
	defer src.close()
	t := time.Now()
	b, err := o.loadBuild(ctx, src, false)
	o.st.buildNanos.Add(int64(time.Since(t)))
	if errors.Is(err, ErrMemory) {
		return nil, nil // the estimate was wrong: keep none
	}
	if err != nil {
		return nil, err
	}
	o.b = b
	o.st.buildBytes.Store(max(o.st.buildBytes.Load(), b.held))
	if err := o.allocMatched(b); err != nil {
		g.releaseKept()
		if errors.Is(err, ErrMemory) {
			return nil, nil
		}
		return nil, err
	}
	g.st.kept.Store(int64(k.n))
	return k, nil
}

// releaseKept drops the kept partitions' build.
func (g *graceJoin) releaseKept() {
	o := g.o
	o.releaseBuild(o.b)
	o.b, o.matched = nil, nil
}

// finishKept returns the kept partitions' build rows the kind returns
// after the probe side (right, full, right semi and anti joins), then
// drops them.
func (g *graceJoin) finishKept(ctx context.Context) error {
	defer g.releaseKept()
	return g.o.emitBuildRows(ctx)
}

// partsSource reads partitions of a side, one after the other: the kept
// partitions' build rows, or a coalesced group's rows.
type partsSource struct {
	g      *graceJoin
	s      *partSet
	parts  []int
	schema *arrow.Schema
	mu     sync.Mutex
	cur    *fileSource
}

func (s *partsSource) next(ctx context.Context) (arrow.RecordBatch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if s.cur != nil {
			rec, err := s.cur.next(ctx)
			if err != io.EOF {
				return rec, err
			}
			s.cur.close()
			s.cur = nil
		}
		if len(s.parts) == 0 {
			return nil, io.EOF
		}
		cur, err := s.g.open(ctx, s.s, s.parts[0], s.s.allMaps(), s.schema)
		if err != nil {
			return nil, err
		}
		s.cur, s.parts = cur, s.parts[1:]
	}
}

func (s *partsSource) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		s.cur.close()
		s.cur = nil
	}
}

// probeKept takes the rows of rec that ids puts in kept partitions out of
// ids (they become dropRow) and probes them with the kept build on w.
func (g *graceJoin) probeKept(ctx context.Context, k *keptParts, w *joinWorker, rec arrow.RecordBatch, ids []uint16, sc *partScratch) error {
	o := g.o
	sel := sc.kept[:0]
	any := false
	for r, id := range ids {
		in := id != dropRow && k.kept[id]
		if in {
			ids[r] = dropRow
			sel = append(sel, 0)
			any = true
		} else {
			sel = append(sel, dropRow)
		}
	}
	sc.kept = sel
	if !any {
		return nil
	}
	emit := func(out arrow.RecordBatch) error {
		o.st.rowsOut.Add(out.NumRows())
		return o.send(ctx, out)
	}
	return shuffle.Split(ctx, o.rt.mem, rec, sel, 1, &sc.split, func(_ int, part arrow.RecordBatch) error {
		g.st.keptRows.Add(part.NumRows())
		t := time.Now()
		err := w.probe(ctx, part, emit)
		o.st.probeNanos.Add(int64(time.Since(t)))
		return err
	})
}
