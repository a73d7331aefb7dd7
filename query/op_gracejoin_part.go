package query

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/shuffle"
)

// dropRow is the partition of a row a partitioned side leaves out.
const dropRow = 1<<16 - 1

// partSet is one side's partitions at one level of a grace hash join: a
// shuffle (package shuffle) whose map tasks are the goroutines writing
// it. Each writer takes a map task of its own (take), so workers
// partition concurrently without sharing a file; a map task's output is
// finished, and its status registered, once it has written mapBytes of
// rows, so that the statuses describe the side in slices a skewed
// partition can be split by (op_gracejoin_plan.go).
type partSet struct {
	env    *partEnv
	owner  string
	schema *arrow.Schema
	fanout int
	sh     *shuffle.Shuffle
	// flushBytes is what one map task's pending pieces of one partition
	// may hold: the pieces of every partition of every writer together
	// stay within a sixteenth of the memory limit.
	flushBytes int64
	// mapBytes and mapRows: past either, a map task's output is finished
	// and the writer starts another.
	mapBytes, mapRows int64
	// memory: map outputs stay in memory while they fit (heldBudget).
	memory bool

	mu        sync.Mutex
	free      []*mapTask
	open      map[*mapTask]struct{} // taken or free, not finished
	rows, mem []int64               // per partition, over the finished map tasks
	maps      int                   // map outputs finished
	// empty, once finished: per partition, every block's status is empty.
	empty []bool
}

// mapTask is one writer's map output being written.
type mapTask struct {
	id int
	w  *shuffle.MapWriter
	// rp gathers each partition's rows into batches of up to
	// joinBatchRows rows (or the set's flushBytes each) before they are
	// written, so that a partition is read back, and probed, in batches
	// as large as the side's: a row's values are appended to its
	// partition's batch being gathered (shuffle.Repartitioner). A schema
	// the Repartitioner does not gather (nested or dictionary columns),
	// or a flushBytes below 64 rows of it (a limit of a few hundred KiB),
	// is cut by shuffle.Split instead, into pending pieces concatenated
	// when a batch's worth is held.
	rp           *shuffle.Repartitioner
	pending      [][]arrow.RecordBatch
	pendingRows  []int64
	pendingBytes []int64
	held         int64   // what rp, pending and w's buffer count in the memory tracker
	rows, mem    []int64 // per partition: rows written and the bytes they held in memory (arrowsize)
	written      int64   // bytes of rows written, every partition
	wroteRows    int64
	// tookRows: rows given to the task, written or still gathered; a map
	// output ends by these (put), not by wroteRows, so that how many
	// outputs a side has does not depend on how its batches fell to the
	// workers: one worker taking them all still ends an output every
	// mapRows rows, though the Repartitioner held most of them.
	tookRows int64
}

func (g *graceJoin) newPartSet(side string, schema *arrow.Schema, fanout int) (*partSet, error) {
	return g.partEnv.newPartSet("join-"+side, schema, fanout, g.o.rt.joinSpill.maxRows)
}

// newPartSet starts a side's partitions, its files named for owner;
// maxRows (0: none) is the rows a partition may hold in memory, as
// joinSpillTuning's.
func (e *partEnv) newPartSet(owner string, schema *arrow.Schema, fanout int, maxRows int64) (*partSet, error) {
	rt := e.rt
	s := &partSet{env: e, owner: owner, schema: schema, fanout: fanout, flushBytes: 8 << 20,
		mapBytes: 1 << 62, mapRows: 1 << 62, open: make(map[*mapTask]struct{}),
		rows: make([]int64, fanout), mem: make([]int64, fanout)}
	workers := int64(max(rt.workers, 1))
	buffer := int64(8 << 20)
	if lim := rt.mt.limit; lim > 0 {
		s.flushBytes = max(lim/16/int64(fanout)/workers, 1)
		buffer = max(lim/16/workers, 4<<10)
		// A map task's block of a partition is at most what fits in
		// memory: a partition too big for it splits by map ranges.
		s.mapBytes = max(lim/4, 64<<10)
	}
	if maxRows > 0 {
		s.mapRows = 4 * maxRows
	}
	opts := shuffle.WriterOptions{Codec: rt.spill.Config().Codec, Alloc: rt.mem, BufferBytes: buffer}
	if rt.mt.limit > 0 && !rt.joinSpill.force {
		opts.Memory = heldBudget{rt.mt} // outputs stay in memory while they fit (shuffle_held.go)
		s.memory = true
	}
	sh, err := shuffle.New(context.Background(), rt.spill, s.owner, schema, shuffle.Config{Partitions: fanout, Writer: opts})
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: e.title + ": partitioning", Err: err}
	}
	s.sh = sh
	return s, nil
}

// partScratch is one worker's scratch for splitting a batch by partition.
type partScratch struct {
	ids   []uint16
	kept  []uint16 // probeKept's: 0 for a row of a kept partition
	split shuffle.SplitScratch
}

// write appends the rows of rec to the partitions ids names (dropRow, past
// every partition: none), through a map task of the caller's own. What
// is gathered counts in the query's memory tracker until it is written.
func (s *partSet) write(ctx context.Context, rec arrow.RecordBatch, ids []uint16, sc *partScratch) error {
	if !rec.Schema().Equal(s.schema) {
		// The plan's schema: a map output takes batches of one schema,
		// and a side's batches come from its operator or from spill files.
		rec = array.NewRecordBatch(s.schema, rec.Columns(), rec.NumRows())
		defer rec.Release()
	}
	t, err := s.take()
	if err != nil {
		return err
	}
	if err = s.writeTask(ctx, t, rec, ids, sc); err == nil {
		return s.put(t)
	}
	s.putBack(t)
	return err
}

// writeTask appends the rows of rec (of the set's schema) to the
// partitions ids names through map task t.
func (s *partSet) writeTask(ctx context.Context, t *mapTask, rec arrow.RecordBatch, ids []uint16, sc *partScratch) error {
	for _, id := range ids {
		if int(id) < s.fanout { // not dropRow
			t.tookRows++
		}
	}
	var appendErr error
	var err error
	if t.rp.Gathers() && t.rp.Bounded() {
		err = t.rp.Add(ctx, rec, ids, func(p int, b arrow.RecordBatch) error {
			appendErr = s.writePart(t, p, b)
			return appendErr
		})
		s.hold(t, t.w.Buffered()+t.rp.Buffered()-t.held)
	} else {
		err = shuffle.Split(ctx, s.env.rt.mem, rec, ids, s.fanout, &sc.split, func(p int, piece arrow.RecordBatch) error {
			appendErr = s.append(ctx, t, p, piece)
			return appendErr
		})
	}
	if err != nil && err != appendErr && ctx.Err() == nil {
		return &Error{Kind: ErrExec, Msg: fmt.Sprintf("%s: partitioning", s.env.title), Err: err}
	}
	return err
}

// take returns a map task for one writer: a free one, or a new one.
func (s *partSet) take() (*mapTask, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.free); n > 0 {
		t := s.free[n-1]
		s.free = s.free[:n-1]
		return t, nil
	}
	id, err := s.sh.AddMap()
	if err != nil {
		return nil, s.env.spillError(err)
	}
	rp, err := shuffle.NewRepartitioner(s.env.rt.mem, s.schema, shuffle.RepartitionConfig{
		Fanout: s.fanout, BatchRows: joinBatchRows, MaxBytes: s.flushBytes * int64(s.fanout)})
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: s.env.title + ": partitioning", Err: err}
	}
	w, err := s.sh.NewMapWriter(id)
	if err != nil {
		return nil, s.env.spillError(err)
	}
	if s.memory {
		s.env.rt.mt.held.addWriter(w, s)
	}
	t := &mapTask{id: id, w: w, rp: rp, pending: make([][]arrow.RecordBatch, s.fanout),
		pendingRows: make([]int64, s.fanout), pendingBytes: make([]int64, s.fanout),
		rows: make([]int64, s.fanout), mem: make([]int64, s.fanout)}
	s.open[t] = struct{}{}
	return t, nil
}

// put gives a map task back after a write, finishing its output when it
// has taken its share of rows or bytes (written or still held).
func (s *partSet) put(t *mapTask) error {
	if t.written+t.unwritten() >= s.mapBytes || t.tookRows >= s.mapRows {
		return s.finishMap(t)
	}
	s.putBack(t)
	return nil
}

// unwritten is the bytes t holds that its output does not have yet: the
// rows its Repartitioner gathers and its pending pieces.
func (t *mapTask) unwritten() int64 {
	n := t.rp.Buffered()
	for _, b := range t.pendingBytes {
		n += b
	}
	return n
}

func (s *partSet) putBack(t *mapTask) {
	s.mu.Lock()
	s.free = append(s.free, t)
	s.mu.Unlock()
}

// append adds rec to partition p's pending pieces of t, writing them once
// they are a batch's worth. What is pending counts in the query's memory
// tracker.
func (s *partSet) append(ctx context.Context, t *mapTask, p int, rec arrow.RecordBatch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	size := arrowsize.Record(rec)
	n := rec.NumRows()
	if t.pendingRows[p]+n > joinBatchRows || t.pendingBytes[p]+size > s.flushBytes {
		if err := s.flush(t, p); err != nil {
			return err
		}
	}
	// A piece the limit has no room for is written at once, after what is
	// pending of p (in order), rather than held past the limit.
	if n >= joinBatchRows || size >= s.flushBytes || !s.tryHold(t, size) {
		if err := s.flush(t, p); err != nil {
			return err
		}
		return s.writePart(t, p, rec)
	}
	rec.Retain()
	t.pending[p] = append(t.pending[p], rec)
	t.pendingRows[p] += n
	t.pendingBytes[p] += size
	return nil
}

// tryHold adds n bytes to what t counts in the memory tracker if they
// fit the limit.
func (s *partSet) tryHold(t *mapTask, n int64) bool {
	if _, ok := s.env.rt.mt.tryGrow(n); !ok {
		return false
	}
	t.held += n
	return true
}

// hold adds n bytes to what t counts in the memory tracker.
func (s *partSet) hold(t *mapTask, n int64) {
	if n > 0 {
		sortBudget{s.env.rt.mt}.Grow(n)
	} else {
		s.env.rt.mt.shrink(-n)
	}
	t.held += n
}

// flush writes t's pending pieces of partition p as one batch.
func (s *partSet) flush(t *mapTask, p int) error {
	pending := t.pending[p]
	if len(pending) == 0 {
		return nil
	}
	defer s.dropPending(t, p)
	if len(pending) == 1 {
		return s.writePart(t, p, pending[0])
	}
	cols := make([]arrow.Array, s.schema.NumFields())
	defer releaseAll(cols)
	for i := range cols {
		parts := make([]arrow.Array, len(pending))
		for j, rec := range pending {
			parts[j] = rec.Column(i)
		}
		col, err := array.Concatenate(parts, s.env.rt.mem)
		if err != nil {
			return &Error{Kind: ErrExec, Msg: fmt.Sprintf("%s: partitioning", s.env.title), Err: err}
		}
		cols[i] = col
	}
	rec := array.NewRecordBatch(s.schema, cols, t.pendingRows[p])
	defer rec.Release()
	return s.writePart(t, p, rec)
}

// dropPending releases t's pending pieces of partition p.
func (s *partSet) dropPending(t *mapTask, p int) {
	for _, rec := range t.pending[p] {
		rec.Release()
	}
	s.hold(t, -t.pendingBytes[p])
	t.pending[p], t.pendingRows[p], t.pendingBytes[p] = nil, 0, 0
}

// writePart writes rec to partition p of t's map output.
func (s *partSet) writePart(t *mapTask, p int, rec arrow.RecordBatch) error {
	start := time.Now()
	err := t.w.Write(p, rec)
	s.env.st.nanos.Add(int64(time.Since(start)))
	if err != nil {
		return s.env.spillError(err)
	}
	size := arrowsize.Record(rec)
	t.rows[p] += rec.NumRows()
	t.mem[p] += size
	t.written += size
	t.wroteRows += rec.NumRows()
	// The writer's buffer of encoded blocks counts as the pieces do.
	s.hold(t, t.w.Buffered()+t.unwritten()-t.held)
	return nil
}

// finishMap writes t's pending pieces and finishes its map output,
// registering its status.
func (s *partSet) finishMap(t *mapTask) error {
	if err := t.rp.Flush(func(p int, b arrow.RecordBatch) error { return s.writePart(t, p, b) }); err != nil {
		return err
	}
	for p := range t.pending {
		if err := s.flush(t, p); err != nil {
			return err
		}
	}
	start := time.Now()
	finish := func() (*shuffle.MapOutput, error) {
		if _, err := s.sh.FinishMap(t.id, t.w); err != nil {
			return nil, err
		}
		return s.sh.Output(t.id), nil
	}
	var out *shuffle.MapOutput
	var held bool
	var err error
	if s.memory {
		out, held, err = s.env.rt.mt.held.finishWriter(t.w, finish)
	} else {
		out, err = finish()
	}
	s.env.st.nanos.Add(int64(time.Since(start)))
	s.hold(t, -t.held)
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.open, t)
	if err != nil {
		return s.env.spillError(err)
	}
	s.maps++
	for p := range t.rows {
		s.rows[p] += t.rows[p]
		s.mem[p] += t.mem[p]
	}
	s.env.st.rows.Add(t.wroteRows)
	if out == nil {
		return nil
	}
	if held { // it may have moved since: moved counted it out
		s.env.st.memMaps.Add(1)
		s.env.st.memBytes.Add(out.Bytes())
	} else {
		s.env.st.maps.Add(1)
		s.env.st.bytes.Add(out.Bytes())
	}
	return nil
}

// moved counts an output of the set, of n bytes, moved from memory to
// disk (heldMaps.evict).
func (s *partSet) moved(n int64) {
	st := s.env.st
	st.memMaps.Add(-1)
	st.memBytes.Add(-n)
	st.maps.Add(1)
	st.bytes.Add(n)
	st.moved.Add(1)
}

// finish ends every map task's output; the writers are done.
func (s *partSet) finish() error {
	s.mu.Lock()
	free := s.free
	s.free = nil
	s.mu.Unlock()
	for _, t := range free {
		if err := s.finishMap(t); err != nil {
			return err
		}
	}
	s.empty = make([]bool, s.fanout)
	for p, n := range s.totals() {
		s.empty[p] = n == 0
	}
	return nil
}

// totals returns each partition's bytes, summed over the map statuses.
func (s *partSet) totals() []int64 { return shuffle.Totals(s.sh.Statuses()) }

// finished is the number of map outputs finished so far; safe while
// other writers finish theirs (a spilling GROUP BY asks mid-stream).
func (s *partSet) finished() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maps
}

// remove deletes every file of the set, written or not.
func (s *partSet) remove() {
	s.mu.Lock()
	open := make([]*mapTask, 0, len(s.open))
	for t := range s.open {
		open = append(open, t)
	}
	s.open, s.free = map[*mapTask]struct{}{}, nil
	s.mu.Unlock()
	for _, t := range open {
		t.rp.Release()
		for p := range t.pending {
			s.dropPending(t, p)
		}
		s.hold(t, -t.held)
	}
	s.env.rt.mt.held.forget(s)
	_ = s.sh.Close() // aborts the writers, removes the outputs
}

// fileSource reads spilled partitions back (a range of partitions of a
// range of map outputs), one batch at a time to whichever worker asks,
// numbering their rows in read order (base).
type fileSource struct {
	mu     sync.Mutex
	r      *shuffle.BlockReader
	schema *arrow.Schema
	base   int64
	env    *partEnv
}

// open starts reading partition p of s's map outputs maps (s nil, or no
// rows: nothing). The statuses' empty blocks are not read.
func (e *partEnv) open(ctx context.Context, s *partSet, p int, maps shuffle.MapRange, schema *arrow.Schema) (*fileSource, error) {
	return e.openRange(ctx, s, shuffle.PartitionRange{Start: p, End: p + 1}, maps, schema)
}

// openRange starts reading partitions ps of s's map outputs maps, one
// after the other.
func (e *partEnv) openRange(ctx context.Context, s *partSet, ps shuffle.PartitionRange, maps shuffle.MapRange, schema *arrow.Schema) (*fileSource, error) {
	src := &fileSource{schema: schema, env: e}
	if s == nil || maps.Start >= maps.End {
		return src, nil
	}
	st := s.sh.Statuses()
	empty := 0
	for p := ps.Start; p < ps.End; p++ {
		for m := maps.Start; m < maps.End; m++ {
			if st.Size(m, p) == 0 {
				empty++
			}
		}
	}
	e.st.emptyBlocks.Add(int64(empty))
	if empty == (maps.End-maps.Start)*(ps.End-ps.Start) {
		return src, nil
	}
	r, err := s.sh.Read(ctx, ps, maps, shuffle.ReadOptions{Alloc: e.rt.mem})
	if err != nil {
		return nil, e.spillError(err)
	}
	src.r = r
	return src, nil
}

// allMaps is every map output of s.
func (s *partSet) allMaps() shuffle.MapRange {
	if s == nil {
		return shuffle.MapRange{}
	}
	return shuffle.MapRange{Start: 0, End: s.maps}
}

func (s *fileSource) next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, _, err := s.nextAt(ctx)
	return rec, err
}

// nextAt returns the next batch and the number of its first row in the
// read, or io.EOF.
func (s *fileSource) nextAt(ctx context.Context) (arrow.RecordBatch, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r == nil {
		return nil, 0, io.EOF
	}
	if !s.r.Next() {
		err := s.r.Err()
		s.r.Release()
		s.r = nil
		if err != nil {
			return nil, 0, s.env.spillError(err)
		}
		return nil, 0, io.EOF
	}
	rec := s.r.RecordBatch()
	// The plan's schema (field names and nullability as the plan says);
	// the columns outlive the reader's next batch.
	out := array.NewRecordBatch(s.schema, rec.Columns(), rec.NumRows())
	base := s.base
	s.base += rec.NumRows()
	return out, base, nil
}

func (s *fileSource) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r != nil {
		s.r.Release()
		s.r = nil
	}
}

// graceStats are what a grace hash join spilled, for EXPLAIN ANALYZE
// and Stats.Spill.
type graceStats struct {
	partitions        atomic.Int64 // of the first level
	maps, bytes, rows atomic.Int64 // map outputs written to files (bytes on disk), both sides, every level; rows: all written
	emptyBlocks       atomic.Int64 // (map output, partition) blocks not read: their status says empty
	skipped           atomic.Int64 // partitions not joined: nothing they hold can return a row
	splits, ranges    atomic.Int64 // skewed partitions split by map ranges, and the ranges
	kept, keptRows    atomic.Int64 // partitions kept in memory, and the probe rows they joined
	coalesced, groups atomic.Int64 // partitions joined in groups, and the groups
	levels            atomic.Int64 // deepest repartitioning (0: none)
	fallbacks         atomic.Int64 // partitions joined by the chunked nested loop
	chunks            atomic.Int64 // build chunks those joined
	nanos             atomic.Int64 // writing partitions
	// memMaps, memBytes: map outputs held in memory (shuffle_held.go),
	// not counted in maps; moved: of maps, those held in memory first.
	memMaps, memBytes, moved atomic.Int64
}
