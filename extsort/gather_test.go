package extsort_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/sync/errgroup"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/extsort"
)

// parallelSort is a parallel sort of in over workers sorters sharing one
// budget of limit bytes: each batch goes to a random worker (seeded), each
// worker adds its batches and ends with FinishRuns on a goroutine of its
// own, and Gather merges them. The keys end with the id column, so the
// order is total and equals the stable order of in's keys (ids are input
// positions). cancelAt, when ≥ 0, cancels the context once that many
// batches were added; it returns the output ids and the summed metrics.
func parallelSort(t *testing.T, in *input, cfg extsort.Config, workers, cancelAt int, seed uint64) ([]int64, extsort.Metrics, error) {
	t.Helper()
	cfg.Keys = append(append([]extsort.Key(nil), in.keys...), extsort.Key{Col: in.idCol()})
	cfg.Budget = extsort.NewBudget(cfg.MemoryLimit)
	sorters := make([]*extsort.Sorter, workers)
	for i := range sorters {
		var err error
		if sorters[i], err = extsort.New(in.schema, cfg); err != nil {
			t.Fatal(err)
		}
		defer sorters[i].Close()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := rand.New(rand.NewPCG(seed, 7))
	mine := make([][]int, workers)
	for b := range in.batches {
		w := r.IntN(workers)
		mine[w] = append(mine[w], b)
	}
	var g errgroup.Group
	for w, s := range sorters {
		g.Go(func() error {
			for _, b := range mine[w] {
				if b == cancelAt {
					cancel()
				}
				if err := s.Add(ctx, in.batches[b]); err != nil {
					return err
				}
			}
			return s.FinishRuns(ctx, workers)
		})
	}
	if err := g.Wait(); err != nil {
		return nil, extsort.SumMetrics(sorters), err
	}
	rd, err := extsort.Gather(ctx, sorters, 2)
	if err != nil {
		return nil, extsort.SumMetrics(sorters), err
	}
	defer rd.Release()
	var ids []int64
	for rd.Next() {
		rec := rd.RecordBatch()
		if rec.NumRows() > int64(cfg.BatchRows) {
			t.Errorf("output batch of %d rows, BatchRows %d", rec.NumRows(), cfg.BatchRows)
		}
		ids = append(ids, rec.Column(in.idCol()).(*array.Int64).Int64Values()...)
	}
	return ids, extsort.SumMetrics(sorters), rd.Err()
}

// TestGatherMatchesSort: a parallel sort of 2 and 3 workers, in memory
// and spilling about 10 and 40 runs, with and without a Limit, gives the
// rows of a stable in-memory sort in its order (the id key makes the
// order total), leaves no file, frees every buffer and gives the budget
// back.
func TestGatherMatchesSort(t *testing.T) {
	for _, ks := range []int{0, 1, 2, 5} {
		for _, runs := range []int{1, 10, 40} {
			for _, workers := range []int{2, 3} {
				for _, limit := range []int64{0, 150} {
					if testing.Short() && (ks != 2 || runs == 40 || workers == 3) {
						continue
					}
					name := fmt.Sprintf("%s/runs=%d/workers=%d/limit=%d", keySets[ks].name, runs, workers, limit)
					t.Run(name, func(t *testing.T) {
						mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
						defer mem.AssertSize(t, 0)
						in := makeInput(mem, keySets[ks].types, keySets[ks].dirs, shortOr(120, 40), 100, 40, uint64(runs+ks))
						defer in.release()
						m := newManager(t, codec.Setting{Kind: codec.Zstd, Level: 1}, 0, mem)
						cfg := extsort.Config{Spill: m, Mem: mem, BatchRows: 64, MaxOpenFiles: 16, Limit: limit, Workers: 1}
						cfg.MemoryLimit = limitFor(in, runs)
						ids, met, err := parallelSort(t, in, cfg, workers, -1, uint64(workers))
						if err != nil {
							t.Fatal(err)
						}
						want := in.expected(t, mem)
						if limit > 0 {
							want = want[:min(int(limit), len(want))]
						}
						checkIDs(t, ids, want)
						if runs > 1 && limit == 0 && met.SpillFiles == 0 {
							t.Errorf("nothing spilled at %d bytes", cfg.MemoryLimit)
						}
						if runs == 1 && met.SpillFiles != 0 {
							t.Errorf("spilled in memory: %v", met)
						}
						assertNoFiles(t, m)
						t.Log(met)
					})
				}
			}
		}
	}
}

// TestGatherCancel: cancelling while the workers add (after runs were
// spilled) fails with the context's error and leaves no file and no
// buffer, and a Gather of a sorter not ended by FinishRuns fails and
// closes them all.
func TestGatherCancel(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	nb := shortOr(80, 30)
	in := makeInput(mem, keySets[2].types, keySets[2].dirs, nb, 100, 40, 3)
	defer in.release()
	m := newManager(t, codec.Setting{Kind: codec.LZ4}, 0, mem)
	cfg := extsort.Config{Spill: m, Mem: mem, BatchRows: 64, Workers: 1, MemoryLimit: limitFor(in, 10)}
	_, met, err := parallelSort(t, in, cfg, 2, nb*3/4, 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%v, want context.Canceled", err)
	}
	if met.SpillFiles == 0 {
		t.Error("nothing spilled before the cancellation")
	}
	assertNoFiles(t, m)

	cfg.Keys = in.keys
	a, err := extsort.New(in.schema, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := extsort.New(in.schema, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range in.batches[:nb/2] {
		if err := a.Add(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.FinishRuns(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if _, err := extsort.Gather(context.Background(), []*extsort.Sorter{a, b}, 1); err == nil {
		t.Fatal("Gather of a sorter not ended by FinishRuns did not fail")
	}
	if err := a.Add(context.Background(), in.batches[0]); err == nil {
		t.Error("the sorter Gather closed took a batch")
	}
	assertNoFiles(t, m)
}

// shortOr is full, or short with -short.
func shortOr(full, short int) int {
	if testing.Short() {
		return short
	}
	return full
}
