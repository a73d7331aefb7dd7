package query

import (
	"context"
	"fmt"
	"io"
	"math/bits"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/query/expr"
	"github.com/quiverdb/quiver/shuffle"
)

// GROUP BY through a hash exchange (Options.Exchange): instead of every
// worker aggregating the batches it pulls into a table of its own, and
// the tables merged on one goroutine at the end, the workers evaluate
// each batch's keys and arguments, partition its rows by the keys
// (shuffle.HashPartitioner) and send each partition's rows, gathered
// into full batches (shuffle.Repartitioner), to the goroutine that owns
// that partition, which aggregates them. Each group lives in one table, so there is no merge:
// the result is the tables' results one after the other. What it costs
// is a copy of every row's keys and arguments; what it saves is the
// merge, which with many groups (TPC-H Q18's 1.5 million) is most of a
// worker's work done again on one core, and the memory of a group held
// in every worker's table. With few groups the merge is nothing and the
// copy is not: the planner's default, without Options.Exchange, stays
// the per-worker tables.
//
//	worker 1 ─┐ keys+args, split by hash(keys) ┌─▶ partition 0: table ─┐
//	worker 2 ─┼───────────────────────────────┼─▶ partition 1: table ─┼─▶ results
//	   …      ┘                               └─▶ …                    ┘
//
// It does not spill: with Options.Spill set the per-worker path runs, as
// it does for string_agg and the quantiles (agg.Serial: one aggregator
// in input order). first and last read each row's position in the input
// (rowPositions), so they answer the same through the exchange.

// exchangeQueue is how many pieces wait for a partition's goroutine.
const exchangeQueue = 8

// aggregateExchange is aggregate through a hash exchange.
func (o *aggregateOp) aggregateExchange(ctx context.Context) ([]arrow.RecordBatch, error) {
	n := o.n
	workers := max(o.rt.workers, 1)
	fanout := 1 << bits.Len(uint(workers-1)) // a power of two ≥ workers
	keyTypes, argTypes := n.keyTypes(), n.argTypes()
	aggs := make([]*agg.HashAggregator, fanout)
	defer func() {
		for _, h := range aggs {
			if h != nil {
				h.Release()
			}
		}
	}()
	for i := range aggs {
		var err error
		if aggs[i], err = agg.NewHashAggregator(keyTypes, argTypes, n.specs(), o.aggOptions()); err != nil {
			return nil, wrapExec(err, "aggregating")
		}
	}
	// A piece is a batch of the keys then the arguments of some rows.
	fields := make([]arrow.Field, 0, len(keyTypes)+len(argTypes))
	for _, t := range append(cloned(keyTypes), argTypes...) {
		fields = append(fields, arrow.Field{Name: "c", Type: t, Nullable: true})
	}
	pieceSchema := arrow.NewSchema(fields, nil)
	queues := make([]chan arrow.RecordBatch, fanout)
	for i := range queues {
		queues[i] = make(chan arrow.RecordBatch, exchangeQueue)
	}
	st := newExchangeStats(fanout)
	o.exchange = st
	src, steps := pipeline(o.in)
	g, gctx := errgroup.WithContext(ctx)
	var mu sync.Mutex // src is pulled by one worker at a time
	var batches int64 // pulled from src, under mu: a batch's place for rowPositions
	var producers sync.WaitGroup
	for range workers {
		producers.Add(1)
		g.Go(func() error {
			defer producers.Done()
			p, err := shuffle.NewHashPartitioner(keyTypes, 0x51ed27, fanout)
			if err != nil {
				return err
			}
			defer p.Release()
			// The Repartitioner gathers each partition's rows into full
			// batches (Split of a schema it cannot gather), so a
			// partition's goroutine takes 8,192 rows at a time, not a
			// piece of every batch.
			rp, err := shuffle.NewRepartitioner(o.rt.mem, pieceSchema, shuffle.RepartitionConfig{Fanout: fanout})
			if err != nil {
				return wrapExec(err, "aggregating")
			}
			defer rp.Release()
			send := func(part int, b arrow.RecordBatch) error {
				st.add(part, b)
				b.Retain()
				select {
				case queues[part] <- b:
					return nil
				case <-gctx.Done():
					b.Release()
					return gctx.Err()
				}
			}
			for {
				mu.Lock()
				rec, err := src.Next(gctx)
				seq := batches
				batches++
				mu.Unlock()
				if err == io.EOF {
					return rp.Flush(send)
				}
				if err != nil {
					return err
				}
				if rec, err = applySteps(gctx, steps, rec); err != nil {
					return err
				}
				piece, err := o.keysAndArgs(gctx, pieceSchema, rec, seq)
				rec.Release()
				if err != nil {
					return err
				}
				st.batches.Add(1)
				err = rp.AddBy(gctx, piece, p, piece.Columns()[:len(keyTypes)], send)
				piece.Release()
				if err != nil {
					return err
				}
			}
		})
	}
	go func() { // the partitions' goroutines end when every producer has
		producers.Wait()
		for _, q := range queues {
			close(q)
		}
	}()
	for part := range fanout {
		h, q := aggs[part], queues[part]
		g.Go(func() error {
			var held int64
			defer func() { o.rt.mt.shrink(held) }()
			var err error
			for b := range q { // drained to the end even after an error
				if err == nil {
					err = gctx.Err()
				}
				if err == nil {
					cols := b.Columns()
					err = h.Add(cols[:len(keyTypes)], cols[len(keyTypes):])
					if err != nil {
						err = wrapExec(err, "aggregating")
					}
				}
				b.Release()
				if now := h.MemoryUsage(); err == nil && now > held {
					err = o.trackTable(now - held)
					held = now
				}
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var total int64
	for _, h := range aggs {
		total += h.MemoryUsage()
	}
	if err := o.account(total); err != nil {
		return nil, err
	}
	var out []arrow.RecordBatch
	for _, h := range aggs {
		recs, err := h.Result(outputBatchRows)
		if err != nil {
			for _, r := range out {
				r.Release()
			}
			return nil, &Error{Kind: ErrExec, Msg: "aggregating", Err: err}
		}
		for _, r := range recs {
			if r.NumRows() > 0 || len(n.keys) == 0 {
				out = append(out, array.NewRecordBatch(o.schema, r.Columns(), r.NumRows()))
			}
			r.Release()
		}
	}
	return out, nil
}

// keysAndArgs evaluates a batch's GROUP BY keys and aggregate arguments
// (and its rows' positions, for first and last) into one batch of schema;
// seq is the batch's place in the input.
func (o *aggregateOp) keysAndArgs(ctx context.Context, schema *arrow.Schema, rec arrow.RecordBatch, seq int64) (arrow.RecordBatch, error) {
	keys, err := evalAll(ctx, o.rt, o.n.keys, rec)
	if err != nil {
		return nil, err
	}
	defer releaseAll(keys)
	if err := decodeDictKeys(ctx, o.rt.mem, keys); err != nil { // routed as values
		return nil, err
	}
	mctx, forget := expr.WithMemo(ctx)
	args, err := evalAll(mctx, o.rt, o.n.args, rec)
	forget()
	if err != nil {
		return nil, err
	}
	if o.n.positions {
		args = append(args, rowPositions(o.rt, seq, int(rec.NumRows())))
	}
	defer releaseAll(args)
	return array.NewRecordBatch(schema, append(cloned(keys), args...), rec.NumRows()), nil
}

// exchangeStats are what a GROUP BY's hash exchange moved, for EXPLAIN
// ANALYZE: per partition, its rows and bytes (arrowsize of the keys and
// arguments sent), the batches sent (pieces: each partition's rows
// gathered), and the input batches they were gathered from.
type exchangeStats struct {
	rows, bytes []atomic.Int64
	pieces      atomic.Int64
	batches     atomic.Int64 // partitioned
}

func newExchangeStats(fanout int) *exchangeStats {
	return &exchangeStats{rows: make([]atomic.Int64, fanout), bytes: make([]atomic.Int64, fanout)}
}

func (s *exchangeStats) add(part int, b arrow.RecordBatch) {
	s.rows[part].Add(b.NumRows())
	s.bytes[part].Add(arrowsize.Record(b))
	s.pieces.Add(1)
}

// String is the exchange's part of an EXPLAIN ANALYZE line.
func (s *exchangeStats) String() string {
	var rows, bytes, most int64
	for i := range s.rows {
		rows += s.rows[i].Load()
		bytes += s.bytes[i].Load()
		most = max(most, s.bytes[i].Load())
	}
	return fmt.Sprintf("; exchanged to %d partitions: %d rows, %d bytes in %d batches gathered from %d; largest partition %d bytes",
		len(s.rows), rows, bytes, s.pieces.Load(), s.batches.Load(), most)
}

// cloned copies a slice, so that appending to it leaves the original.
func cloned[T any](s []T) []T { return append([]T(nil), s...) }
