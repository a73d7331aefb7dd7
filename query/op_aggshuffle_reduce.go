package query

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/shuffle"
)

// The second half of a GROUP BY spilled through the shuffle
// (op_aggshuffle.go): each partition (or a few small ones together)
// aggregated alone, on the workers, its groups streamed out as it ends.

// aggReduce runs the partitions' aggregation on a goroutine of its own,
// handing result batches to Next.
type aggReduce struct {
	out    chan arrow.RecordBatch
	cancel context.CancelFunc
	done   chan struct{}
	err    error // set before done closes
}

// aggTask is partitions [parts.Start, parts.End) of a round.
type aggTask struct {
	r     *aggRound
	parts shuffle.PartitionRange
}

func (s *aggShuffle) startReduce(ctx context.Context) *aggReduce {
	ctx, cancel := context.WithCancel(ctx)
	red := &aggReduce{out: make(chan arrow.RecordBatch, max(s.o.rt.workers, 1)), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(red.done)
		red.err = s.reduce(ctx, red.out)
		close(red.out)
	}()
	return red
}

// next returns the next result batch, or io.EOF.
func (red *aggReduce) next(ctx context.Context) (arrow.RecordBatch, error) {
	select {
	case b, ok := <-red.out:
		if ok {
			return b, nil
		}
		<-red.done
		if red.err != nil {
			return nil, red.err
		}
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// stop cancels the aggregation and waits for it.
func (red *aggReduce) stop() {
	red.cancel()
	for b := range red.out {
		b.Release()
	}
	<-red.done
}

// reduce aggregates level 0's partitions, then those of the rounds that
// partitioned a partition again, level after level.
func (s *aggShuffle) reduce(ctx context.Context, out chan<- arrow.RecordBatch) error {
	rounds := []*aggRound{s.level0}
	for len(rounds) > 0 {
		var tasks []aggTask
		for _, r := range rounds {
			tasks = append(tasks, s.plan(r)...)
		}
		rounds = nil
		var mu sync.Mutex
		next := 0
		g, gctx := errgroup.WithContext(ctx)
		for range max(s.o.rt.workers, 1) {
			g.Go(func() error {
				for {
					mu.Lock()
					if next == len(tasks) {
						mu.Unlock()
						return nil
					}
					t := tasks[next]
					next++
					mu.Unlock()
					nr, err := s.runTask(gctx, t, out)
					if err != nil {
						return err
					}
					if nr != nil {
						mu.Lock()
						rounds = append(rounds, nr)
						mu.Unlock()
					}
					if t.r.left.Add(-1) == 0 {
						t.r.remove(s.o.rt.mt) // its files are read: gone now
					}
				}
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
	}
	return nil
}

// share is what one partition's table may hold: the tables of the
// workers at once, with room for what they read and return.
func (s *aggShuffle) share() int64 { return s.o.aggOptions().MemoryLimit }

// plan cuts round r into tasks: empty partitions dropped, small ones
// coalesced to about a sixth of a table's share of the bytes their rows
// held in memory (a table's group, with its hash slots and the doubling
// of its arrays, costs about three times its partial state's bytes:
// 4,000 groups of a key and a count took 256 KiB), those with partial states kept in memory first.
func (s *aggShuffle) plan(r *aggRound) []aggTask {
	fanout := r.partials.fanout
	sizes := make([]int64, fanout)
	for p := range sizes {
		sizes[p] = r.partials.mem[p] + r.raw.mem[p]
		if r.held != nil {
			sizes[p] += r.held[p]
		}
	}
	ranges := shuffle.Coalesce([][]int64{sizes}, shuffle.CoalesceConfig{
		AdvisorySize: max(s.share()/6, 1), MinPartitionSize: 1, MinPartitions: max(s.o.rt.workers, 1)})
	var tasks []aggTask
	for _, pr := range ranges {
		if pr.Bytes == 0 {
			continue
		}
		if n := pr.End - pr.Start; n > 1 {
			s.st.coalesced.Add(int64(n))
			s.st.groups.Add(1)
		}
		tasks = append(tasks, aggTask{r: r, parts: pr})
	}
	inMemory := func(t aggTask) bool {
		for p := t.parts.Start; p < t.parts.End && r.pieces != nil; p++ {
			if len(r.pieces[p]) > 0 {
				return true
			}
		}
		return false
	}
	slices.SortStableFunc(tasks, func(a, b aggTask) int {
		ma, mb := inMemory(a), inMemory(b)
		switch {
		case ma && !mb:
			return -1
		case mb && !ma:
			return 1
		}
		return 0
	})
	r.left.Store(int64(len(tasks)))
	if len(tasks) == 0 {
		r.remove(s.o.rt.mt)
	}
	return tasks
}

// taskRun is one task's table and, once it passes its share, the round
// the rest of its rows go to.
type taskRun struct {
	s     *aggShuffle
	level int
	share int64 // h's MemoryLimit
	h     *agg.HashAggregator
	held  int64 // h's memory, counted in the tracker
	nr    *aggRound
	np    *aggPartitioner
}

// runTask aggregates task t's partitions and sends their groups to out;
// when its table passes its share, it partitions the rest again and
// returns the new round.
func (s *aggShuffle) runTask(ctx context.Context, t aggTask, out chan<- arrow.RecordBatch) (*aggRound, error) {
	o := s.o
	opts := o.aggOptions()
	// A partition's keys are a hash's share of the range: an array over
	// all of it (plan_densegroup.go) would be mostly empty.
	opts.Dense = nil
	if t.r.level >= graceMaxLevel {
		opts.MemoryLimit = 0 // deep enough: the query's limit alone bounds it
	}
	h, err := agg.NewHashAggregator(o.n.keyTypes(), o.n.argTypes(), o.n.specs(), opts)
	if err != nil {
		return nil, wrapExec(err, "aggregating")
	}
	tr := &taskRun{s: s, level: t.r.level, share: opts.MemoryLimit, h: h}
	defer tr.release()
	// The partial states kept in memory, then those written, then rows.
	for p := t.parts.Start; p < t.parts.End && t.r.pieces != nil; p++ {
		for len(t.r.pieces[p]) > 0 {
			b := t.r.pieces[p][0]
			t.r.pieces[p] = t.r.pieces[p][1:]
			err := tr.feed(ctx, b, true)
			b.Release()
			if err != nil {
				return nil, err
			}
		}
		o.rt.mt.shrink(t.r.held[p])
		t.r.held[p] = 0
	}
	for _, side := range []struct {
		set     *partSet
		partial bool
	}{{t.r.partials, true}, {t.r.raw, false}} {
		src, err := s.env.openRange(ctx, side.set, t.parts, side.set.allMaps(), side.set.schema)
		if err != nil {
			return nil, err
		}
		for {
			b, err := src.next(ctx)
			if err == io.EOF {
				break
			}
			if err == nil {
				err = tr.feed(ctx, b, side.partial)
				b.Release()
			}
			if err != nil {
				src.close()
				return nil, err
			}
		}
		src.close()
	}
	if tr.nr != nil {
		if err := tr.nr.partials.finish(); err != nil {
			return nil, err
		}
		if err := tr.nr.raw.finish(); err != nil {
			return nil, err
		}
		return tr.nr, nil
	}
	return nil, tr.emit(ctx, out)
}

// feed adds b (partial states, or keys and arguments) to the task's
// table, in chunks as addSpilling does; once the table passes its share,
// what it holds and the rest are partitioned again.
func (tr *taskRun) feed(ctx context.Context, b arrow.RecordBatch, partial bool) error {
	rows := int(b.NumRows())
	if tr.nr == nil {
		chunk := rows
		if share := tr.share; share > 0 {
			chunk = int(max(share/4/scratchPerRow, minSplitRows))
		}
		for lo := 0; lo < rows; lo += chunk {
			hi := min(rows, lo+chunk)
			piece := b
			if lo > 0 || hi < rows {
				piece = b.NewSlice(int64(lo), int64(hi))
			}
			err := tr.add(piece, partial)
			if piece != b {
				piece.Release()
			}
			if err == nil {
				err = tr.track()
			}
			if err == nil {
				continue
			}
			if !errors.Is(err, agg.ErrMemoryLimit) {
				return wrapExec(err, "aggregating")
			}
			if err := tr.repartition(ctx); err != nil {
				return err
			}
			rest := b.NewSlice(int64(lo), int64(rows))
			defer rest.Release()
			return tr.write(ctx, rest, partial)
		}
		return nil
	}
	return tr.write(ctx, b, partial)
}

func (tr *taskRun) add(b arrow.RecordBatch, partial bool) error {
	if partial {
		return tr.h.Merge(b)
	}
	cols := b.Columns()
	return tr.h.Add(cols[:tr.s.nkeys], cols[tr.s.nkeys:])
}

// track counts the table's growth in the memory tracker: within its share
// it cannot fail; past the last level it is what bounds the table.
func (tr *taskRun) track() error {
	now := tr.h.MemoryUsage()
	if now <= tr.held {
		return nil
	}
	mt := tr.s.o.rt.mt
	if tr.share > 0 {
		sortBudget{mt}.Grow(now - tr.held)
	} else if err := mt.grow(now-tr.held, tr.s.o.memWhat()); err != nil {
		return err
	}
	tr.held = now
	return nil
}

// repartition starts the next level's round with the table's groups.
func (tr *taskRun) repartition(ctx context.Context) error {
	s := tr.s
	nr, err := s.newRound(tr.level+1, aggShuffleFanout)
	if err != nil {
		return err
	}
	tr.nr = nr
	if tr.np, err = s.newPartitioner(tr.level+1, aggShuffleFanout); err != nil {
		return err
	}
	if err := s.writeTable(ctx, tr.h, nr, tr.np); err != nil {
		return err
	}
	tr.h.Release()
	tr.h = nil
	tr.s.o.rt.mt.shrink(tr.held)
	tr.held = 0
	return nil
}

// write partitions b into the next level's round.
func (tr *taskRun) write(ctx context.Context, b arrow.RecordBatch, partial bool) error {
	set := tr.nr.raw
	if partial {
		set = tr.nr.partials
	}
	t, err := set.take()
	if err != nil {
		return err
	}
	if err := tr.s.writeBatch(ctx, set, t, tr.np, b); err != nil {
		set.putBack(t)
		return err
	}
	return set.put(t)
}

// emit sends the table's groups to out, with the plan's field names.
func (tr *taskRun) emit(ctx context.Context, out chan<- arrow.RecordBatch) error {
	recs, err := tr.h.Result(outputBatchRows)
	if err != nil {
		return wrapExec(err, "aggregating")
	}
	schema := tr.s.o.schema
	for i, r := range recs {
		if err == nil && r.NumRows() > 0 {
			b := array.NewRecordBatch(schema, r.Columns(), r.NumRows())
			select {
			case out <- b:
			case <-ctx.Done():
				b.Release()
				err = ctx.Err()
			}
		}
		r.Release()
		recs[i] = nil
	}
	return err
}

func (tr *taskRun) release() {
	if tr.h != nil {
		tr.h.Release()
	}
	tr.s.o.rt.mt.shrink(tr.held)
	tr.held = 0
	if tr.np != nil {
		tr.np.p.Release()
	}
}
