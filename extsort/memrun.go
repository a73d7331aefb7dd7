package extsort

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/sortkey"
)

// memRun is a sorted part of the buffer at Finish, read in BatchRows-row
// batches gathered in sorted order: rows that never go to disk. It holds
// the part's batches and its sorted items, not its keys (a merge encodes
// the keys of each batch it reads).
type memRun struct {
	s      *Sorter
	buf    buffer
	items  []sortkey.Item
	bytes  int64 // accounted: the batches and the items
	chunks chunks
	cur    arrow.RecordBatch
	err    error
}

func (r *memRun) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || !r.chunks.next() {
		return false
	}
	r.cur, r.err = r.chunks.g.Record(r.s.cfg.Mem, r.s.schema, r.buf.batches, r.s.cfg.Workers)
	return r.err == nil
}

func (r *memRun) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *memRun) Err() error                     { return r.err }

// Release drops the batches, the items and their accounting.
func (r *memRun) Release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.s.acct.shrink(r.bytes)
	r.bytes = 0
	r.buf.release()
	r.items = nil
	r.chunks = chunks{}
}

// memRuns sorts the buffer into runs held in memory, taking it: in one
// part when the keys and items of all its rows fit (in the shares the
// rows were accounted and what the budget has left), else in parts, each
// sorted with its keys, which are then dropped. Parts are consecutive in
// input order, so the runs keep ties in it.
func (s *Sorter) memRuns(ctx context.Context) ([]*memRun, error) {
	var runs []*memRun
	fail := func(err error) ([]*memRun, error) {
		for _, r := range runs {
			r.Release()
		}
		return nil, err
	}
	perRow := s.keyBytes/max(s.keyRows, 1) + 4 + itemBytes
	for len(s.buf.batches) > 0 {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		room := s.buf.shared + max(s.acct.b.Available(), 0)
		k, scratch := 0, int64(0)
		for k < len(s.buf.batches) {
			n := s.buf.batches[k].NumRows() * perRow
			if k > 0 && scratch+n > room {
				break
			}
			scratch += n
			k++
		}
		pool := s.buf.shared
		part := s.buf.split(k)
		sc, err := s.sortBatches(part.batches, s.cfg.Limit, pool)
		if err != nil {
			s.acct.shrink(part.bytes)
			part.release()
			return fail(err)
		}
		// The part now holds its batches and items, not its shares.
		items := sc.items
		sc.items = nil
		s.drop(sc)
		r := &memRun{s: s, buf: part, items: items, chunks: chunks{items: items, n: s.cfg.BatchRows}}
		r.bytes = part.bytes - part.shared + heldItem*int64(len(items))
		s.acct.resize(part.bytes, r.bytes)
		runs = append(runs, r)
	}
	return runs, nil
}

// keepInMemory decides, at Finish with runs on disk, what of the buffer
// stays in memory as the final merge's last runs. The merge needs a read
// buffer per run; when the memory left does not hold them, the oldest
// buffered batches are spilled as one more run until it does (they come
// before the rest in input order, so runs stay in input order). When the
// runs would need more than one merge pass, everything is spilled: a pass
// rewrites every run anyway. It returns none when nothing stays.
func (s *Sorter) keepInMemory(ctx context.Context) ([]*memRun, error) {
	if s.buf.rows == 0 {
		return nil, nil
	}
	var per int64
	for _, r := range s.runs {
		per = max(per, r.readBytes())
	}
	// The most runs one merge could read if the buffer went to disk.
	fan := s.cfg.MaxOpenFiles / max(s.parts, 1) // this sorter's share of a Gather's merge
	if per > 0 {
		fan = int(min(int64(fan), (s.acct.b.Available()+s.buf.bytes)/per))
	}
	for {
		// The buffer is sorted in one part, or two when its scratch does
		// not fit beside it (two shares make one row's scratch).
		parts := 1
		if s.buf.shared > s.acct.b.Available() {
			parts = 2
		}
		n := len(s.runs) + parts
		if n > max(fan, 2) {
			return nil, s.spillBuffer(ctx)
		}
		deficit := per*int64(n) - s.acct.b.Available()
		if deficit <= 0 {
			break
		}
		// Spill the oldest batches that free the deficit and the read
		// buffer of the run they become.
		k, freed := 0, int64(0)
		for k < len(s.buf.batches) && freed < deficit+per {
			freed += s.buf.sizes[k]
			k++
		}
		if k == len(s.buf.batches) {
			return nil, s.spillBuffer(ctx)
		}
		if err := s.spillBatches(ctx, k); err != nil {
			return nil, err
		}
	}
	s.metrics.RowsKept = s.buf.rows
	return s.memRuns(ctx)
}
