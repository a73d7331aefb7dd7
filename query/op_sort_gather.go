package query

import (
	"context"
	"io"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/extsort"
)

// The gathers: how the streams of several workers become one.
//
// Unordered — a hash join's probe (hashJoinOp.runProbe) and a grace
// join's partitions hand the batches their workers make to Next through
// one channel, in whatever order they come; the workers read their input
// together through a sharedInput (op_shared.go). GROUP BY needs no gather:
// its workers' tables are merged, or owned by partition (op_aggexchange.go).
//
// Ordered — ORDER BY with several workers (Options.SortWorkers): every
// worker pulls batches through the sharedInput, so the filters and
// projections below the sort run on it too, and adds them to a sorter of
// its own (extsort.Sorter), which sorts and spills what it holds past the
// query's memory, shared by all (each spills when the tracker says no),
// exactly as the one sorter of a serial ORDER BY does; at the end of the
// input each worker sorts what it still holds (extsort.FinishRuns). The
// gather is then one merge of every worker's runs, on disk and in memory
// (extsort.Gather: the loser tree a serial sort merges its spilled runs
// with), so a row is merged once whichever worker sorted it. Under LIMIT
// k each worker keeps its own top k and the merge hands out the first k.
//
//	worker 1: pull ─ filter ─ project ─ sort (spill) ─┐
//	worker 2: pull ─ filter ─ project ─ sort (spill) ─┼─► merge ─► sorted batches
//	   …                                              ┘
//
// Ties between workers come out in no fixed order (each worker's in input
// order): SQL does not promise more.

// sortParallel runs the workers to the end of in, o's input, and returns
// the gather of their sorted rows.
func (o *extSortOp) sortParallel(ctx context.Context, in *sharedInput) (array.RecordReader, error) {
	g, gctx := errgroup.WithContext(ctx)
	for _, s := range o.sorters {
		g.Go(func() error {
			for {
				rec, err := in.next(gctx)
				if err == io.EOF {
					break
				}
				if err != nil {
					return err
				}
				if o.limit != 0 { // LIMIT 0: the input still runs, for its errors
					err = s.Add(gctx, rec)
				}
				rec.Release()
				if err != nil {
					return err
				}
			}
			return s.FinishRuns(gctx, len(o.sorters))
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return extsort.Gather(ctx, o.sorters, o.rt.workers)
}

// shareBudget is the budget of one worker's sorter: the query's tracker,
// as sortBudget, and a share of its limit. Past the share TryGrow fails
// and the sorter spills, so that each worker holds its part of the limit,
// not whatever the others left it, and their runs are of about one size
// (sharing the tracker alone, a worker that started late spilled runs of a
// few batches while the other held the rest: 17 files where a serial sort
// wrote 2).
type shareBudget struct {
	sortBudget
	share int64
	used  atomic.Int64 // what this sorter holds
}

func (b *shareBudget) TryGrow(n int64) bool {
	if b.used.Load()+n > b.share || !b.sortBudget.TryGrow(n) {
		return false
	}
	b.used.Add(n)
	return true
}

func (b *shareBudget) Grow(n int64) {
	b.sortBudget.Grow(n)
	b.used.Add(n)
}

func (b *shareBudget) Shrink(n int64) {
	b.sortBudget.Shrink(n)
	b.used.Add(-n)
}

func (b *shareBudget) Available() int64 {
	return min(b.sortBudget.Available(), b.share-b.used.Load())
}
