package query

import (
	"context"
	"fmt"
	"io"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/shuffle"
	"github.com/quiverdb/quiver/sortkey"
)

// ORDER BY by ranges (Options.SortByRanges, with several SortWorkers):
// instead of each worker sorting what it pulled and one merge gathering
// them (op_sort_gather.go), the rows are range-partitioned by their sort
// key, as Spark's RangePartitioner does, and each worker's sorter sorts
// one range; the output is the ranges one after the other, with no merge.
//
//	sample: the first batches ─► KeySampler ─► RangeBounds: W-1 bounds
//	worker 1: pull ─ filter ─ project ─ partition ─┬─► sorter of range 1 ─► sorted range 1 ─┐
//	worker 2: pull ─ filter ─ project ─ partition ─┴─► sorter of range 2 ─► sorted range 2 ─┴─► 1, then 2
//
// The bounds come from the input's first rangeSampleRows rows, sampled
// (shuffle.KeySampler) and handed out again to the workers with the rest
// (sharedInput.unread): the input is read once, where Spark samples in a
// pass of its own. Each worker partitions by the bounds
// (shuffle.RangePartitioner over sortkey's normalized keys) and gathers
// each range's rows into full batches (shuffle.Repartitioner), which it
// adds to that range's sorter under the sorter's lock. At the end of the
// input every sorter is finished on a goroutine of its own. Equal keys
// share a range, so the concatenation is sorted; a key that is most of
// the input makes its range big (RangeBounds gives a heavy key a range of
// its own, so the others stay balanced), never the order wrong. The
// first batches stand for the whole input only when the input is not
// ordered by the key already: an input clustered by it would put most
// rows in one range, so when more than rangeOrderedLimit of the sample's
// consecutive rows go one way (KeySampler.Ordered) the sort is merged
// instead (its merge copies runs in order in stretches). Under LIMIT k every
// sorter keeps its top k and the concatenation stops after k rows.
const (
	rangeSampleRows   = 64 << 10 // the input's first rows, the bounds are drawn from
	rangeSampleKeys   = 4 << 10  // keys sampled from them
	rangeOrderedLimit = 0.9      // past it, the input is taken for clustered by the key
)

// sortByRanges runs the workers to the end of the input and returns the
// sorted ranges, one after the other.
func (o *extSortOp) sortByRanges(ctx context.Context) (array.RecordReader, error) {
	in := newSharedInput(o.in)
	defer in.release()
	fields := make([]sortkey.SortField, len(o.keys))
	cols := make([]int, len(o.keys))
	for i, k := range o.keys {
		fields[i] = sortkey.SortField{Type: o.schema.Field(k.col).Type, Desc: k.desc, NullsFirst: k.nullsFirst}
		cols[i] = k.col
	}
	bounds, ordered, err := sampleBounds(ctx, in, fields, cols, len(o.sorters))
	if err != nil {
		return nil, err
	}
	if ordered > rangeOrderedLimit {
		o.ranges.Store(ptr(fmt.Sprintf("input in key order (%.2f of the sample): merged, not by ranges", ordered)))
		return o.sortParallel(ctx, in) // op_sort_gather.go
	}
	locks := make([]sync.Mutex, len(o.sorters))
	g, gctx := errgroup.WithContext(ctx)
	for range o.sorters {
		g.Go(func() error {
			rp, err := shuffle.NewRangePartitioner(fields, bounds)
			if err != nil {
				return err
			}
			defer rp.Release()
			re, err := shuffle.NewRepartitioner(o.rt.mem, o.schema, shuffle.RepartitionConfig{Fanout: len(o.sorters)})
			if err != nil {
				return err
			}
			defer re.Release()
			add := func(p int, b arrow.RecordBatch) error {
				locks[p].Lock()
				defer locks[p].Unlock()
				return o.sorters[p].Add(gctx, b)
			}
			for {
				rec, err := in.next(gctx)
				if err == io.EOF {
					return re.Flush(add)
				}
				if err != nil {
					return err
				}
				if o.limit != 0 { // LIMIT 0: the input still runs, for its errors
					err = re.AddBy(gctx, rec, rp, keyColumns(rec, cols), add)
				}
				rec.Release()
				if err != nil {
					return err
				}
			}
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	rows := make([]int64, len(o.sorters))
	for p, s := range o.sorters {
		rows[p] = s.Metrics().InputRows
	}
	o.ranges.Store(ptr(fmt.Sprintf("sorted by ranges of %v rows", rows)))
	ranges := make([]array.RecordReader, len(o.sorters))
	g = &errgroup.Group{} // not gctx's: the readers keep ctx
	for p, s := range o.sorters {
		g.Go(func() (err error) {
			ranges[p], err = s.Finish(ctx)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		for _, r := range ranges {
			if r != nil {
				r.Release()
			}
		}
		return nil, err
	}
	return newConcatReader(o.schema, ranges, o.limit), nil
}

// sampleBounds pulls the input's first rangeSampleRows rows, samples
// their keys, hands the batches back to in, and returns parts-1 bounds
// (fewer when the sample has few distinct keys; none for no rows) and
// how ordered by the key the rows came (KeySampler.Ordered).
func sampleBounds(ctx context.Context, in *sharedInput, fields []sortkey.SortField, cols []int, parts int) ([][]byte, float64, error) {
	s, err := shuffle.NewKeySampler(fields, rangeSampleKeys, 0x5eed)
	if err != nil {
		return nil, 0, err
	}
	var held []arrow.RecordBatch
	defer func() { in.unread(held) }()
	for s.Seen() < rangeSampleRows {
		rec, err := in.next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		held = append(held, rec)
		if err := s.Add(keyColumns(rec, cols)); err != nil {
			return nil, 0, err
		}
	}
	return shuffle.RangeBounds(s.Sample(), parts), s.Ordered(), nil
}

// concatReader reads readers one after the other, the first limit rows
// of them (limit < 0: all), releasing each at its end.
type concatReader struct {
	schema *arrow.Schema
	parts  []array.RecordReader
	left   int64
	cur    arrow.RecordBatch
	err    error
	refs   int64
}

func newConcatReader(schema *arrow.Schema, parts []array.RecordReader, limit int64) *concatReader {
	return &concatReader{schema: schema, parts: parts, left: limit, refs: 1}
}

var _ array.RecordReader = (*concatReader)(nil)

func (r *concatReader) Schema() *arrow.Schema          { return r.schema }
func (r *concatReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns RecordBatch().
//
// Deprecated: use RecordBatch.
func (r *concatReader) Record() arrow.RecordBatch { return r.cur }
func (r *concatReader) Err() error                { return r.err }
func (r *concatReader) Retain()                   { r.refs++ }

func (r *concatReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for r.err == nil && r.left != 0 && len(r.parts) > 0 {
		p := r.parts[0]
		if p.Next() {
			rec := p.RecordBatch()
			rec.Retain()
			if r.left > 0 && rec.NumRows() > r.left {
				cut := rec.NewSlice(0, r.left)
				rec.Release()
				rec = cut
			}
			if r.left > 0 {
				r.left -= rec.NumRows()
			}
			r.cur = rec
			return true
		}
		r.err = p.Err()
		p.Release()
		r.parts = r.parts[1:]
	}
	return false
}

func (r *concatReader) Release() {
	if r.refs--; r.refs > 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for _, p := range r.parts {
		p.Release()
	}
	r.parts = nil
}
