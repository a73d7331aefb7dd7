package query

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/shuffle"
)

// GROUP BY past memory through the shuffle (a hybrid hash aggregation),
// the alternative to sorted runs merged by key (op_aggspill.go). The
// workers aggregate into tables capped at their share of the memory
// limit, as in memory; when one passes it, its groups' partial states
// (agg.Partial) are hash-partitioned by key into a map output of a
// shuffle (partSet, as the grace join's) and the table is emptied. A
// group's partial states are then all in one partition, so at the end
// each partition is aggregated alone (agg.Merge) and its groups are
// final: nothing is sorted, and no merge compares keys across runs.
//
// What is written: partial states or the input's keys and arguments.
// Partial states are what a table reduced — one row per group however
// many rows it took — so while the tables find repeated keys they are
// what is written. When a spilled table had taken fewer than two rows per
// group (most keys seen once before it filled: 10 M groups of two rows
// far apart), a partial state costs more than the row it came from
// (sum(int64) is a decimal(38,0) and a count: 40 bytes per group against
// 16 per row for SELECT k, sum(v), count(*)) and the table's work was
// wasted, so the operator keeps fewer partitions in the tables: the
// kept set (all partitions at first) is halved (quartered when the table
// reduced its rows by less than a fifth), dropping the partitions
// the map statuses show largest, and the rows of partitions no longer
// kept are partitioned as they arrive and written as rows (keys and
// arguments), never entering a table; once no partition is kept every
// row goes straight to disk. At the end of the input, the tables' groups
// are split by partition and, smallest partition first by the statuses,
// as many as fit in half of what the memory limit leaves stay in memory
// and are merged with their partition's files; the others are written.
//
// Then the partitions (small ones coalesced to about half a table's
// share, by what their rows held in memory) are aggregated on the
// workers, one task each at a time: partial states merged, rows added.
// A partition whose table passes its share is partitioned again, its
// groups so far and its rows not yet read, with the next level's seed,
// and its partitions aggregated after; past graceMaxLevel levels (one
// key of very many distinct values, say) its table is only bounded by
// the query's memory limit. Results stream as partitions finish. Files
// go with their round once its partitions are done, and every file when
// the operator closes (the query ends, fails or is cancelled).

// aggShuffle is the state of a GROUP BY spilling through the shuffle.
type aggShuffle struct {
	o      *aggregateOp
	env    *partEnv
	st     graceStats
	fanout int
	nkeys  int
	keys   []arrow.DataType
	// partialSchema is agg.PartialSchema's; rawSchema is the keys then
	// the arguments.
	partialSchema, rawSchema *arrow.Schema
	level0                   *aggRound

	mu     sync.Mutex
	kept   atomic.Pointer[[]bool]        // nil: every partition's rows go to the tables
	added  map[*agg.HashAggregator]int64 // rows a table took since it was last emptied, under mu
	free   []*aggPartitioner             // level-0 partitioners, under mu
	rounds []*aggRound                   // every round, for close, under mu

	red *aggReduce // the partitions' aggregation, once the input is done
}

// aggRound is one partitioning: the input's (level 0), or one
// partition's again.
type aggRound struct {
	level         int
	partials, raw *partSet
	// pieces are the partial states kept in memory, per partition (level
	// 0 only), and what they count in the memory tracker.
	pieces [][]arrow.RecordBatch
	held   []int64
	left   atomic.Int64 // tasks not finished
}

// aggPartitioner is a worker's partitioner and scratch at one level.
type aggPartitioner struct {
	p  *shuffle.HashPartitioner
	sc partScratch
}

// aggShuffleFanout is the fewest partitions of the first level, and
// the partitions of the levels below; maxAggShuffleFanout the most of
// the first. More partitions, fewer repartitioned (a second write and
// read of their rows), but smaller blocks: what a map task holds of each
// partition before writing it is a share of a sixteenth of the memory
// limit.
const (
	aggShuffleFanout    = 32
	maxAggShuffleFanout = 256
)

// level0Fanout is the first level's partitions: enough, by the planner's
// estimate of the groups (groupBytes per key and aggregate, as the
// exchange's choice counts them), for each partition's groups to fit half
// a table's share, so that none is partitioned again; but no more than
// leave each worker's map task 4 KiB of each partition's rows to gather
// before it writes them (partSet's flushBytes), since smaller blocks cost
// more to write and read than a second level saves.
func level0Fanout(groups int64, perGroup, share, limit int64, workers int) int {
	f := aggShuffleFanout
	if groups <= 0 || share <= 0 || limit <= 0 {
		return f
	}
	most := min(maxAggShuffleFanout, limit/16/4096/int64(max(workers, 1)))
	for int64(f) < most && float64(groups)*float64(perGroup)/float64(f) > float64(share)/2 {
		f *= 2
	}
	return f
}

func newAggShuffle(o *aggregateOp, h *agg.HashAggregator) (*aggShuffle, error) {
	n := o.n
	share := o.aggOptions().MemoryLimit
	fanout := level0Fanout(n.groups, groupBytes*int64(len(n.keys)+len(n.aggs)), share, o.rt.mt.limit, o.rt.workers)
	if f := o.rt.aggFanout; f > 0 {
		fanout = f
	}
	s := &aggShuffle{o: o, fanout: fanout, nkeys: len(n.keys), keys: n.keyTypes(),
		partialSchema: h.PartialSchema(), added: map[*agg.HashAggregator]int64{}}
	s.env = &partEnv{rt: o.rt, title: "GROUP BY", st: &s.st}
	fields := make([]arrow.Field, 0, len(n.keys)+len(n.argTypes()))
	for _, t := range append(cloned(s.keys), n.argTypes()...) {
		fields = append(fields, arrow.Field{Name: "c", Type: t, Nullable: true})
	}
	s.rawSchema = arrow.NewSchema(fields, nil)
	s.st.partitions.Store(int64(s.fanout))
	r, err := s.newRound(0, s.fanout)
	if err != nil {
		return nil, err
	}
	s.level0 = r
	return s, nil
}

// newRound starts a partitioning of both kinds of rows.
func (s *aggShuffle) newRound(level, fanout int) (*aggRound, error) {
	r := &aggRound{level: level}
	var err error
	if r.partials, err = s.env.newPartSet("groupby-partial", s.partialSchema, fanout, 0); err != nil {
		return nil, err
	}
	// Rows are written by map tasks that stay open across batches; a
	// spilled table's partial states by a map task of their own.
	if r.raw, err = s.env.newPartSet("groupby-rows", s.rawSchema, fanout, 0); err != nil {
		r.partials.remove()
		return nil, err
	}
	s.mu.Lock()
	s.rounds = append(s.rounds, r)
	s.mu.Unlock()
	s.st.levels.Store(max(s.st.levels.Load(), int64(level)))
	return r, nil
}

// remove deletes the round's files and drops its pieces.
func (r *aggRound) remove(mt *memTracker) {
	r.partials.remove()
	r.raw.remove()
	for p, ps := range r.pieces {
		for _, b := range ps {
			b.Release()
		}
		mt.shrink(r.held[p])
	}
	r.pieces, r.held = nil, nil
}

// partitioner returns a level-0 partitioner; give it back with put.
func (s *aggShuffle) partitioner() (*aggPartitioner, error) {
	s.mu.Lock()
	if n := len(s.free); n > 0 {
		p := s.free[n-1]
		s.free = s.free[:n-1]
		s.mu.Unlock()
		return p, nil
	}
	s.mu.Unlock()
	return s.newPartitioner(0, s.fanout)
}

func (s *aggShuffle) newPartitioner(level, fanout int) (*aggPartitioner, error) {
	p, err := shuffle.NewHashPartitioner(s.keys, partitionSeed(level), fanout)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: "GROUP BY: partitioning", Err: err}
	}
	return &aggPartitioner{p: p}, nil
}

func (s *aggShuffle) put(p *aggPartitioner) {
	s.mu.Lock()
	s.free = append(s.free, p)
	s.mu.Unlock()
}

// spilled: a table or a row went to disk.
func (s *aggShuffle) spilled() bool {
	return s.st.rows.Load() > 0 || s.kept.Load() != nil || s.level0.partials.finished() > 0
}

// spillTable writes h's groups' partial states, partitioned, as one map
// output of level 0, and empties h. A table that reduced its rows less
// than twofold cuts the kept partitions.
func (s *aggShuffle) spillTable(ctx context.Context, h *agg.HashAggregator) error {
	if err := s.writeTable(ctx, h, s.level0, nil); err != nil {
		return err
	}
	s.mu.Lock()
	rows := s.added[h]
	s.added[h] = 0
	s.mu.Unlock()
	if g := int64(h.Groups()); rows < 2*g {
		// Keys seen about once each: a quarter of the kept partitions
		// stay, a half when some did repeat.
		s.cutKept(map[bool]int{true: 4, false: 2}[4*rows < 5*g])
	}
	return h.Reset()
}

// writeTable writes h's partial states into round r, partitioned by p
// (nil: a level-0 partitioner), one map output of their own. h is not
// changed.
func (s *aggShuffle) writeTable(ctx context.Context, h *agg.HashAggregator, r *aggRound, p *aggPartitioner) error {
	parts, err := h.Partial(outputBatchRows)
	if err != nil {
		return wrapExec(err, "GROUP BY spilling")
	}
	var held int64
	for _, b := range parts {
		held += arrowsize.Record(b)
	}
	mt := s.o.rt.mt
	sortBudget{mt}.Grow(held) // a copy of the table, until written
	defer mt.shrink(held)
	defer func() {
		for _, b := range parts {
			b.Release()
		}
	}()
	if p == nil {
		if p, err = s.partitioner(); err != nil {
			return err
		}
		defer s.put(p)
	}
	t, err := r.partials.take()
	if err != nil {
		return err
	}
	for _, b := range parts {
		if err = s.writeBatch(ctx, r.partials, t, p, b); err != nil {
			break
		}
	}
	if err != nil {
		r.partials.putBack(t)
		return err
	}
	return r.partials.finishMap(t)
}

// writeBatch partitions b by its keys into set through map task t.
func (s *aggShuffle) writeBatch(ctx context.Context, set *partSet, t *mapTask, p *aggPartitioner, b arrow.RecordBatch) error {
	var err error
	rows := int(b.NumRows())
	if p.sc.ids, err = p.p.Partition(p.sc.ids[:0], b.Columns()[:s.nkeys], rows); err != nil {
		return &Error{Kind: ErrExec, Msg: "GROUP BY: partitioning", Err: err}
	}
	if !b.Schema().Equal(set.schema) {
		b = array.NewRecordBatch(set.schema, b.Columns(), b.NumRows())
		defer b.Release()
	}
	return set.writeTask(ctx, t, b, p.sc.ids, &p.sc)
}

// finish spills what the tables hold but what is kept in memory, and
// starts aggregating the partitions (op_aggshuffle_reduce.go).
func (s *aggShuffle) finish(ctx context.Context, aggs []*agg.HashAggregator) error {
	r := s.level0
	p, err := s.partitioner()
	if err != nil {
		return err
	}
	defer s.put(p)
	// The tables' groups, split by partition.
	pieces := make([][]arrow.RecordBatch, s.fanout)
	held := make([]int64, s.fanout)
	mt := s.o.rt.mt
	drop := func() {
		for q, ps := range pieces {
			for _, b := range ps {
				b.Release()
			}
			mt.shrink(held[q])
			pieces[q], held[q] = nil, 0
		}
	}
	for i, h := range aggs {
		if err == nil {
			err = s.splitTable(ctx, h, p, pieces, held)
		}
		h.Release()
		aggs[i] = nil
	}
	if err != nil {
		drop()
		return err
	}
	if err := r.partials.finish(); err != nil {
		drop()
		return err
	}
	if err := r.raw.finish(); err != nil {
		drop()
		return err
	}
	// Keep the smallest partitions' pieces, by their statuses, within
	// half of what the memory limit leaves; write the others'.
	totals := r.partials.totals()
	for q, n := range r.raw.totals() {
		totals[q] += n
	}
	order := make([]int, s.fanout)
	for q := range order {
		order[q] = q
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(min(max(totals[a]-totals[b], -1), 1)) })
	budget := int64(1) << 62
	if mt.limit > 0 {
		budget = (mt.limit - mt.used.Load()) / 2
		for _, n := range held {
			budget += n / 2 // the pieces count in used already
		}
	}
	var keep, kept int64
	var t *mapTask
	for _, q := range order {
		if len(pieces[q]) == 0 {
			continue
		}
		if keep+held[q] <= budget {
			keep += held[q]
			kept++
			continue
		}
		if t == nil {
			if t, err = r.partials.take(); err != nil {
				break
			}
		}
		for _, b := range pieces[q] {
			if err == nil {
				ids := resizedIDs(&p.sc.ids, int(b.NumRows()), uint16(q))
				err = r.partials.writeTask(ctx, t, b, ids, &p.sc)
			}
			b.Release()
		}
		mt.shrink(held[q])
		pieces[q], held[q] = nil, 0
		if err != nil {
			break
		}
	}
	if t != nil {
		if err == nil {
			err = r.partials.finishMap(t)
		} else {
			r.partials.putBack(t)
		}
	}
	if err != nil {
		drop()
		return err
	}
	r.pieces, r.held = pieces, held
	s.st.kept.Store(kept)
	s.red = s.startReduce(ctx)
	return nil
}

// resizedIDs fills *ids with n copies of id.
func resizedIDs(ids *[]uint16, n int, id uint16) []uint16 {
	s := slices.Grow((*ids)[:0], n)[:n]
	for i := range s {
		s[i] = id
	}
	*ids = s
	return s
}

// splitTable splits h's partial states by partition into pieces, which
// count in the memory tracker (held, per partition).
func (s *aggShuffle) splitTable(ctx context.Context, h *agg.HashAggregator, p *aggPartitioner, pieces [][]arrow.RecordBatch, held []int64) error {
	parts, err := h.Partial(outputBatchRows)
	if err != nil {
		return wrapExec(err, "GROUP BY spilling")
	}
	defer func() {
		for _, b := range parts {
			b.Release()
		}
	}()
	for _, b := range parts {
		rows := int(b.NumRows())
		if p.sc.ids, err = p.p.Partition(p.sc.ids[:0], b.Columns()[:s.nkeys], rows); err != nil {
			return &Error{Kind: ErrExec, Msg: "GROUP BY: partitioning", Err: err}
		}
		err = shuffle.Split(ctx, s.o.rt.mem, b, p.sc.ids, s.fanout, &p.sc.split, func(q int, piece arrow.RecordBatch) error {
			piece.Retain()
			pieces[q] = append(pieces[q], piece)
			n := arrowsize.Record(piece)
			held[q] += n
			sortBudget{s.o.rt.mt}.Grow(n)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// close removes every file and drops what is held.
func (s *aggShuffle) close() {
	if s.red != nil {
		s.red.stop()
	}
	s.mu.Lock()
	rounds := s.rounds
	s.rounds = nil
	free := s.free
	s.free = nil
	s.mu.Unlock()
	for _, r := range rounds {
		r.remove(s.o.rt.mt)
	}
	for _, p := range free {
		p.p.Release()
	}
}

// spillStats is what the GROUP BY wrote.
func (s *aggShuffle) spillStats() SpillStats {
	st := s.st.spillStats()
	st.Time = st.Time.Round(time.Microsecond)
	return st
}

// String is the GROUP BY's shuffle for EXPLAIN ANALYZE.
func (s *aggShuffle) String() string {
	st := &s.st
	kept := 0
	if k := s.kept.Load(); k != nil {
		for _, in := range *k {
			if in {
				kept++
			}
		}
	} else {
		kept = s.fanout
	}
	return fmt.Sprintf("; spilled through the shuffle to %d partitions: %s; %d partitions aggregated in tables to the end, "+
		"%d kept in memory after; skipped %d empty blocks; coalesced %d partitions into %d; %d repartition levels",
		st.partitions.Load(), st.outputs(), kept, st.kept.Load(), st.emptyBlocks.Load(), st.coalesced.Load(), st.groups.Load(), st.levels.Load())
}

// errAggShuffleStopped ends a reduce the operator's Close stopped.
var errAggShuffleStopped = errors.New("GROUP BY stopped")

// hashSpills: a GROUP BY that passes memory spills through the shuffle
// rather than as sorted runs: when it has keys (a global aggregate is one
// group, which partitioning cannot split), no count(DISTINCT) (whose
// partial state is a list of a group's distinct values, exported with
// scratch past the table's share and never split across partitions;
// the sorted runs write (key, value) pairs instead), and the engine does
// not ask for sorted runs (Options.GroupBySortSpill).
func (o *aggregateOp) hashSpills() bool {
	if len(o.n.keys) == 0 || o.rt.sortSpill {
		return false
	}
	for _, a := range o.n.aggs {
		if a.fn == agg.CountDistinct {
			return false
		}
	}
	return true
}

// hashSpill is the operator's shuffle spill, or nil.
func (o *aggregateOp) hashSpill() *aggShuffle {
	if o.spill == nil {
		return nil
	}
	return o.spill.hs
}
