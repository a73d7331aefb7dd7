package agg

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/extsort"
	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/sortkey"
)

// sortTable emits h's groups sorted by key: the partial states of every
// state but count(DISTINCT) as kind 0, then for each count(DISTINCT)
// state d its (keys, value) pairs sorted by key and value as kind 1+d.
// Everything it builds is charged to the budget while it lives.
//
// The groups are exported in first-seen order (Partial's batches), their
// keys normalized (package sortkey) and sorted, and the batches interleaved
// in sorted order BatchRows rows at a time (extsort.Interleave). Pairs are sorted by the rank
// of their group in that order, then by value: within one run that is
// the order of (keys, value).
func (s *Spiller) sortTable(ctx context.Context, h *HashAggregator, emit emitFunc) error {
	sh := s.shape
	var held int64
	charge := func(n int64) { s.grow(n); held += n }
	defer func() { s.shrink(held) }()
	parts, err := s.exportParts(h, charge)
	if err != nil {
		return err
	}
	defer releaseRecords(parts)
	items, starts, err := s.sortParts(parts, charge)
	if err != nil {
		return err
	}
	var il extsort.Interleave
	for lo := 0; lo < len(items); lo += s.cfg.BatchRows {
		il.Reset()
		for _, it := range items[lo:min(lo+s.cfg.BatchRows, len(items))] {
			il.Add(int(it.Batch), int(it.Row))
		}
		if err := s.emitInterleaved(ctx, emit, 0, sh.mainSchema, parts, &il); err != nil {
			return err
		}
	}
	if len(sh.distinct) == 0 {
		return nil
	}

	// The groups' ranks in key order, and where each group's keys are.
	groups := starts[len(parts)]
	rank := make([]uint32, groups)
	at := make([]groupAt, groups)
	charge(int64(groups) * 12)
	for i, it := range items {
		rank[starts[it.Batch]+int(it.Row)] = uint32(i)
	}
	for b := range parts {
		for g := starts[b]; g < starts[b+1]; g++ {
			at[g] = groupAt{uint32(b), uint32(g - starts[b])}
		}
	}
	keyCols := make([][]arrow.Array, len(parts))
	for b, p := range parts {
		keyCols[b] = p.Columns()[:len(sh.keyTypes)]
	}
	for d, st := range sh.distinct {
		if err := s.sortPairs(ctx, emit, 1+d, h.states[st].(*distinctState), rank, at, keyCols, charge); err != nil {
			return err
		}
	}
	return nil
}

// exportParts exports h's groups in first-seen order as batches of the
// run's main schema: Partial's columns without count(DISTINCT)'s.
func (s *Spiller) exportParts(h *HashAggregator, charge func(int64)) ([]arrow.RecordBatch, error) {
	parts, err := h.export(s.cfg.BatchRows, s.shape.mainSchema, func(from, to int) ([]arrow.Array, error) {
		var cols []arrow.Array
		for _, i := range s.shape.main {
			a, err := h.states[i].partial(h.mem, from, to)
			if err != nil {
				releaseAll(cols)
				return nil, err
			}
			cols = append(cols, a...)
		}
		return cols, nil
	})
	for _, p := range parts {
		charge(recordBytes(p))
	}
	return parts, err
}

// sortParts normalizes the keys of parts and sorts their rows by them. It
// returns the rows in key order and the group id of each part's first
// row (and the number of groups after them).
func (s *Spiller) sortParts(parts []arrow.RecordBatch, charge func(int64)) ([]sortkey.Item, []int, error) {
	enc, err := sortkey.NewEncoder(s.shape.keyEnc)
	if err != nil {
		return nil, nil, err
	}
	keys := make([]sortkey.Rows, len(parts))
	ptrs := make([]*sortkey.Rows, len(parts))
	starts := make([]int, len(parts)+1)
	var items []sortkey.Item
	for b, p := range parts {
		if err := encodeKeys(enc, &keys[b], p.Columns()[:len(s.shape.keyTypes)], int(p.NumRows())); err != nil {
			return nil, nil, err
		}
		ptrs[b] = &keys[b]
		starts[b+1] = starts[b] + int(p.NumRows())
		items = sortkey.AppendItems(items, &keys[b], uint32(b))
		charge(keys[b].Size())
	}
	charge(int64(cap(items)) * sortkey.ItemBytes)
	var sorter sortkey.Sorter
	sorter.Sort(items, ptrs)
	return items, starts, nil
}

// groupAt is where a group's keys are: row row of exported part batch.
// 8 bytes: sortPairs looks one up per pair, at random.
type groupAt struct{ batch, row uint32 }

// sortPairs emits the (keys, value) pairs of distinct state ds in order
// of (rank of the group, value), as kind.
func (s *Spiller) sortPairs(ctx context.Context, emit emitFunc, kind int, ds *distinctState, rank []uint32,
	at []groupAt, keyCols [][]arrow.Array, charge func(int64)) error {
	vals, comp, firsts, err := s.pairKeys(ds, rank, charge)
	defer releaseAll(vals)
	if err != nil {
		return err
	}
	var items []sortkey.Item
	for c := range comp {
		items = sortkey.AppendItems(items, comp[c], uint32(c))
	}
	charge(int64(cap(items)) * sortkey.ItemBytes)
	var sorter sortkey.Sorter
	sorter.Sort(items, comp)

	schema := s.shape.distSchemas[kind-1]
	nk := len(s.shape.keyTypes)
	var keyRows, valRows extsort.Interleave
	srcs := make([]arrow.Array, len(keyCols))
	for lo := 0; lo < len(items); lo += s.cfg.BatchRows {
		keyRows.Reset()
		valRows.Reset()
		for _, it := range items[lo:min(lo+s.cfg.BatchRows, len(items))] {
			g := at[ds.gidCol.vals[firsts[it.Batch]+int(it.Row)]]
			keyRows.Add(int(g.batch), int(g.row))
			valRows.Add(int(it.Batch), int(it.Row))
		}
		cols := make([]arrow.Array, 0, nk+1)
		for k := range nk {
			for b := range keyCols {
				srcs[b] = keyCols[b][k]
			}
			a, err := keyRows.Array(s.mem, schema.Field(k).Type, srcs)
			if err != nil {
				releaseAll(cols)
				return tooLarge(err)
			}
			cols = append(cols, a)
		}
		v, err := valRows.Array(s.mem, ds.dt, vals)
		if err != nil {
			releaseAll(cols)
			return tooLarge(err)
		}
		rec := newRecord(schema, append(cols, v), keyRows.Len())
		err = emit(kind, rec)
		rec.Release()
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	return nil
}

// pairKeys exports ds's values in pair order, in chunks (of BatchRows, or
// fewer where strings would pass 32-bit offsets), with each pair's sort
// key: the rank of its group, 4 bytes big-endian, then the value's
// normalized key. firsts is the pair id of each chunk's first value. The
// caller releases vals, also on error.
func (s *Spiller) pairKeys(ds *distinctState, rank []uint32, charge func(int64)) (vals []arrow.Array, comp []*sortkey.Rows, firsts []int, err error) {
	venc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: ds.dt}})
	if err != nil {
		return nil, nil, nil, err
	}
	var vrows sortkey.Rows
	var buf []byte
	npairs := ds.pairs.groups()
	for from := 0; from < npairs; {
		to := min(npairs, from+s.cfg.BatchRows)
		if v, ok := ds.valCol.(varSized); ok {
			for to > from+1 && v.varBytes(from, to) > math.MaxInt32 {
				to = from + (to-from)/2
			}
		}
		a := ds.valCol.export(s.mem, from, to)
		vals = append(vals, a)
		vrows.Reset()
		if err := venc.Encode(&vrows, []arrow.Array{a}); err != nil {
			return vals, nil, nil, err
		}
		c := &sortkey.Rows{}
		for i := range to - from {
			buf = binary.BigEndian.AppendUint32(buf[:0], rank[ds.gidCol.vals[from+i]])
			c.Append(append(buf, vrows.Row(i)...))
		}
		comp = append(comp, c)
		firsts = append(firsts, from)
		charge(recordBytesOf(a) + c.Size())
		from = to
	}
	return vals, comp, firsts, nil
}

// emitInterleaved copies the rows il names out of srcs and emits the
// batch as kind.
func (s *Spiller) emitInterleaved(ctx context.Context, emit emitFunc, kind int, schema *arrow.Schema,
	srcs []arrow.RecordBatch, il *extsort.Interleave) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	rec, err := il.Record(s.mem, schema, srcs, 1)
	if err != nil {
		return tooLarge(err)
	}
	defer rec.Release()
	return emit(kind, rec)
}

// tooLarge makes extsort's error for a batch whose strings pass 32-bit
// offsets an ErrMemoryLimit, as the aggregator's own.
func tooLarge(err error) error {
	if errors.Is(err, extsort.ErrTooLarge) {
		return fmt.Errorf("%w: %w; use fewer rows per batch", ErrMemoryLimit, err)
	}
	return err
}

// encodeKeys appends the normalized keys of n rows of cols to dst; with
// no key columns every row's key is empty (one global group).
func encodeKeys(enc *sortkey.Encoder, dst *sortkey.Rows, cols []arrow.Array, n int) error {
	if len(cols) == 0 {
		for range n {
			dst.Append(nil)
		}
		return nil
	}
	return enc.Encode(dst, cols)
}

func recordBytes(rec arrow.RecordBatch) int64 { return arrowsize.Record(rec) }
func recordBytesOf(a arrow.Array) int64       { return arrowsize.Data(a.Data()) }

func releaseRecords(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}
