package query

import (
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/shuffle"
)

// The partitions a GROUP BY spilling through the shuffle keeps in its
// tables (op_aggshuffle.go): all of them while the tables reduce their
// rows, fewer each time a table spills having taken fewer than two rows
// per group, chosen by the map statuses; the rows of the others are
// written as they come.

// counted records that h took rows more rows.
func (s *aggShuffle) counted(h *agg.HashAggregator, rows int) {
	s.mu.Lock()
	s.added[h] += int64(rows)
	s.mu.Unlock()
}

// cutKept keeps the smallest 1/div of the kept partitions, by the bytes
// their map statuses report (of partial states and rows).
func (s *aggShuffle) cutKept(div int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.kept.Load()
	var kept []int
	for p := range s.fanout {
		if cur == nil || (*cur)[p] {
			kept = append(kept, p)
		}
	}
	if len(kept) == 0 {
		return
	}
	totals := s.level0.partials.totals()
	if s.level0.raw.finished() > 0 {
		for p, n := range s.level0.raw.totals() {
			totals[p] += n
		}
	}
	slices.SortStableFunc(kept, func(a, b int) int { return int(min(max(totals[a]-totals[b], -1), 1)) })
	next := make([]bool, s.fanout)
	for _, p := range kept[:len(kept)/div] {
		next[p] = true
	}
	s.kept.Store(&next)
}

// route adds the rows of kept partitions to h and writes the others' keys
// and arguments to level 0.
func (s *aggShuffle) route(ctx context.Context, h *agg.HashAggregator, kept []bool, rows int, keys, args []arrow.Array) error {
	o := s.o
	b := array.NewRecordBatch(s.rawSchema, append(cloned(keys), args...), int64(rows))
	defer b.Release()
	p, err := s.partitioner()
	if err != nil {
		return err
	}
	defer s.put(p)
	if p.sc.ids, err = p.p.Partition(p.sc.ids[:0], keys, rows); err != nil {
		return &Error{Kind: ErrExec, Msg: "GROUP BY: partitioning", Err: err}
	}
	ids := p.sc.ids
	sel := p.sc.kept[:0]
	any := false
	for r, id := range ids {
		if kept[id] {
			ids[r] = dropRow
			sel = append(sel, 0)
			any = true
		} else {
			sel = append(sel, dropRow)
		}
	}
	p.sc.kept = sel
	if any {
		err = shuffle.Split(ctx, o.rt.mem, b, sel, 1, &p.sc.split, func(_ int, in arrow.RecordBatch) error {
			n := int(in.NumRows())
			cols := in.Columns()
			s.counted(h, n)
			return o.addSpilling(ctx, h, n, cols[:s.nkeys], cols[s.nkeys:])
		})
		if err != nil {
			return err
		}
	}
	return s.level0.raw.write(ctx, b, ids, &p.sc)
}
