package extsort

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/sortkey"
)

// Sorter sorts the batches given to Add; Finish returns them sorted. It is
// not safe for concurrent use. Close releases everything it holds and
// removes its spill files, whatever state it is in.
type Sorter struct {
	schema  *arrow.Schema
	cfg     Config
	enc     *sortkey.Encoder
	keyCols []int
	sorter  sortkey.Sorter
	acct    account

	buf       buffer
	runs      []*run                      // spilled, in input order
	mems      []*memRun                   // sorted in memory by FinishRuns, for Gather
	parts     int                         // sorters one merge reads (FinishRuns); 0: 1
	threshold []byte                      // top-k: the key of the k-th row so far
	first     firstKey                    // and its first sort key, for prefilter
	bound     atomic.Pointer[arrow.Array] // the threshold row's first key, for FirstKeyBound
	reserve   int64                       // accounted headroom for the batches being written
	free      []*sortkey.Rows
	metrics   *Metrics

	// keyBytes of keyRows keys encoded so far: the share estimate.
	keyBytes, keyRows int64

	finished, closed bool
	handedOff        bool // a reader owns the buffer, the runs and the account
}

// New returns a Sorter of batches of schema under cfg.
func New(schema *arrow.Schema, cfg Config) (*Sorter, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	fields := make([]sortkey.SortField, len(cfg.Keys))
	cols := make([]int, len(cfg.Keys))
	for i, k := range cfg.Keys {
		if k.Col < 0 || k.Col >= schema.NumFields() {
			return nil, fmt.Errorf("%w: key %d names column %d of %d", ErrInput, i, k.Col, schema.NumFields())
		}
		fields[i] = sortkey.SortField{Type: schema.Field(k.Col).Type, Desc: k.Desc, NullsFirst: k.NullsFirst}
		cols[i] = k.Col
	}
	enc, err := sortkey.NewEncoder(fields)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return &Sorter{
		schema: schema, cfg: cfg, enc: enc, keyCols: cols,
		acct:    account{b: cfg.Budget},
		metrics: &Metrics{},
	}, nil
}

// Metrics returns what the sort has done so far.
func (s *Sorter) Metrics() Metrics {
	m := *s.metrics
	m.PeakMemory = s.acct.peak
	return m
}

func (s *Sorter) topK() bool { return s.cfg.Limit > 0 }

// Add takes rec into the sort; the sorter retains it (the caller keeps its
// own reference). When the rows held would pass the memory limit, the
// oldest third of them is sorted and spilled as a run first (a top-k first
// cuts them back to its k rows). It checks ctx once per batch.
func (s *Sorter) Add(ctx context.Context, rec arrow.RecordBatch) error {
	if s.finished || s.closed {
		return errors.New("extsort: Add after Finish or Close")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.check(rec); err != nil {
		return err
	}
	s.metrics.InputRows += rec.NumRows()
	if rec.NumRows() == 0 {
		return nil
	}
	if s.keyRows == 0 {
		// The first batch's keys measure what keys cost (share).
		k := s.newRows()
		err := s.enc.Encode(k, s.keyColumns(rec))
		s.keyBytes, s.keyRows = int64(k.DataBytes()), rec.NumRows()
		s.recycle(k)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrInput, err)
		}
	}
	rec.Retain()
	if s.threshold != nil {
		var err error
		if rec, err = s.beatThreshold(rec); err != nil || rec == nil {
			return err
		}
	}
	return s.hold(ctx, rec)
}

// share is what a held row is accounted besides its bytes: a part
// (1/spillParts) of the scratch (key, offset, item) a sort of it takes.
// Only a part of the buffer is sorted at a time, so the shares of all rows,
// pooled, cover the rows being sorted.
func (s *Sorter) share(rows int64) int64 {
	perRow := s.keyBytes/max(s.keyRows, 1) + 4 + itemBytes
	return rows * perRow / spillParts
}

// spillParts is how many parts of the buffer spillOldest cuts it in: it
// spills the oldest, and each row holds that part of its sort scratch.
// Fewer, larger parts make fewer runs (each a read buffer in the merge);
// more keep more rows in memory at Finish (between 1-1/spillParts and all
// of a memory's worth). Measured on sort_tpch at SF 1 in 200 MiB
// (BenchmarkSortTPCH), 2, 3 and 4 parts spill 40.6, 32.3 and 26.9 MiB for
// Q3, and 154, 156 and 159 MiB for Q7, whose wide rows make read buffers
// costly.
const spillParts = 3

// hold buffers rec (whose reference it takes), making room first.
func (s *Sorter) hold(ctx context.Context, rec arrow.RecordBatch) error {
	share := s.share(rec.NumRows())
	need := arrowsize.Record(rec) + share
	s.growReserve(rec)
	spillNow := false
	if !s.acct.tryGrow(need) {
		if err := s.makeRoom(ctx, need); err != nil {
			rec.Release()
			return err
		}
		ok := s.acct.tryGrow(need)
		if !ok && s.topK() && rec.NumRows() > s.cfg.Limit {
			// A top-k keeps only its k best rows of the batch.
			var err error
			if rec, err = s.batchTopK(rec); err != nil {
				return err
			}
			share = s.share(rec.NumRows())
			need = arrowsize.Record(rec) + share
			ok = s.acct.tryGrow(need)
		}
		if !ok {
			if s.cfg.Spill == nil {
				rec.Release()
				return s.memoryError(need)
			}
			// One batch larger than all that is left: hold it anyway and
			// spill it at once, alone.
			s.acct.grow(need)
			spillNow = true
		}
	}
	s.buf.add(rec, need, share)
	if spillNow {
		return s.spillBuffer(ctx)
	}
	if s.topK() && s.buf.rows >= s.cfg.Limit+max(s.cfg.Limit, min(compactRows, int64(s.cfg.BatchRows))) {
		return s.compact(ctx)
	}
	return nil
}

// compactRows is how many rows past its Limit (at most BatchRows, and at
// least Limit) a top-k gathers before it sorts and cuts back to Limit:
// each cut tightens the threshold that prefilter, beatThreshold and
// FirstKeyBound's scans test against, and costs a sort of that many rows.
const compactRows = 128

// makeRoom frees memory: a top-k cuts its rows back to k, and if that is
// not enough (or not a top-k) the oldest third of the buffer is spilled.
func (s *Sorter) makeRoom(ctx context.Context, need int64) error {
	if s.buf.rows == 0 {
		return nil
	}
	// Compacting copies the k rows it keeps before dropping the rest:
	// only when the copy fits, else the top-k spills runs of k rows.
	if s.topK() && s.buf.rows > s.cfg.Limit && s.buf.bytes/s.buf.rows*s.cfg.Limit <= s.acct.b.Available() {
		if err := s.compact(ctx); err != nil {
			return err
		}
		if s.acct.b.Available() >= need {
			return nil
		}
	}
	if s.cfg.Spill == nil {
		return nil // hold fails with ErrMemory if there is still no room
	}
	return s.spillOldest(ctx)
}

// spillOldest spills the oldest batches that hold a part (1/spillParts) of
// the buffer as one run. Spilling a part rather than all keeps the
// buffer full of rows that may never go to disk: whatever is buffered at
// Finish is merged from memory, so the sort spills about all but a
// memory's worth of its input, however the input size falls against the
// limit (spilling whole buffers, an input of 2.1 memories spills 2 of
// them; this way about 1.1 to 1.4).
func (s *Sorter) spillOldest(ctx context.Context) error {
	// A part by shares: its sort's scratch is then what the shares pool.
	k, part := 0, int64(0)
	for k < len(s.buf.batches) && (k == 0 || part+s.buf.shares[k] <= s.buf.shared/spillParts) {
		part += s.buf.shares[k]
		k++
	}
	return s.spillBatches(ctx, k)
}

func (s *Sorter) memoryError(need int64) error {
	return &MemoryError{Rows: int64(s.buf.rows), Held: s.acct.used, Need: need, Available: s.acct.b.Available()}
}

// MemoryError is the ErrMemory of a sort with no Config.Spill: what it
// held, what the next batch needed and what its Budget had left, for a
// caller to say in its own terms.
type MemoryError struct {
	Rows, Held, Need, Available int64
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("%v: the sort holds %d rows in %d bytes and needs %d more; %d bytes available, and it has no Config.Spill to spill to",
		ErrMemory, e.Rows, e.Held, e.Need, e.Available)
}

func (e *MemoryError) Is(target error) bool { return target == ErrMemory }

// growReserve keeps headroom for the output batches of BatchRows rows of
// the widest rows seen that a spill or a merge holds at once: the one being
// gathered and the one being written.
func (s *Sorter) growReserve(rec arrow.RecordBatch) {
	rows := int64(s.cfg.BatchRows)
	if s.topK() {
		rows = min(rows, s.cfg.Limit) // a top-k's batches hold at most k rows
	}
	want := 2 * arrowsize.LogicalRecord(rec) * rows / rec.NumRows() // a slice is its rows, not the buffers it shares
	if want > s.reserve {
		s.acct.grow(want - s.reserve)
		s.reserve = want
	}
}

func (s *Sorter) check(rec arrow.RecordBatch) error {
	if int(rec.NumCols()) != s.schema.NumFields() {
		return fmt.Errorf("%w: batch of %d columns, schema of %d", ErrInput, rec.NumCols(), s.schema.NumFields())
	}
	for i, f := range s.schema.Fields() {
		if !arrow.TypeEqual(f.Type, rec.Column(i).DataType()) {
			return fmt.Errorf("%w: column %d (%s) is %s, schema says %s", ErrInput, i, f.Name, rec.Column(i).DataType(), f.Type)
		}
	}
	return nil
}

func (s *Sorter) keyColumns(rec arrow.RecordBatch) []arrow.Array {
	cols := make([]arrow.Array, len(s.keyCols))
	for i, c := range s.keyCols {
		cols[i] = rec.Column(c)
	}
	return cols
}

func (s *Sorter) newRows() *sortkey.Rows {
	if n := len(s.free); n > 0 {
		r := s.free[n-1]
		s.free = s.free[:n-1]
		return r
	}
	return new(sortkey.Rows)
}

// recycle keeps r for the next encode, up to maxFree of them: keys are
// scratch, and many idle Rows would be memory the account does not see.
func (s *Sorter) recycle(r *sortkey.Rows) {
	if len(s.free) < maxFree {
		r.Reset()
		s.free = append(s.free, r)
	}
}

const maxFree = 4

// beatThreshold keeps the rows of rec (whose reference it takes) whose
// keys sort before the top-k's k-th row (a tie loses: the held row came
// first). It returns nil when none does.
func (s *Sorter) beatThreshold(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	rec, err := s.prefilter(rec)
	if err != nil || rec == nil {
		return nil, err
	}
	keys := s.newRows()
	defer s.recycle(keys)
	if err := s.enc.Encode(keys, s.keyColumns(rec)); err != nil {
		rec.Release()
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	var g Interleave
	for i := range keys.Len() {
		if bytes.Compare(keys.Row(i), s.threshold) < 0 {
			g.Add(0, i)
		}
	}
	return s.keepRows(rec, &g)
}

// batchTopK returns the first Limit rows of rec (whose reference it
// takes) in sorted order.
func (s *Sorter) batchTopK(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	batches := []arrow.RecordBatch{rec}
	defer rec.Release()
	sc, err := s.sortBatches(batches, s.cfg.Limit, 0)
	if err != nil {
		return nil, err
	}
	defer s.drop(sc)
	var g Interleave
	for _, it := range sc.items {
		g.Add(0, int(it.Row))
	}
	return g.Record(s.cfg.Mem, s.schema, batches, 1)
}

// compact sorts the buffer and keeps its first Limit rows, whose last
// becomes the threshold later rows must beat.
func (s *Sorter) compact(ctx context.Context) error {
	old := s.buf.take()
	defer func() {
		s.acct.shrink(old.bytes)
		old.release()
	}()
	sc, err := s.sortBatches(old.batches, s.cfg.Limit, old.shared)
	if err != nil {
		return err
	}
	defer s.drop(sc)
	last := sc.items[len(sc.items)-1]
	s.threshold = append(s.threshold[:0], sc.keys[last.Batch].Row(int(last.Row))...)
	s.setFirstKey(old.batches[last.Batch].Column(s.keyCols[0]), int(last.Row))
	c := chunks{items: sc.items, n: s.cfg.BatchRows}
	for c.next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := c.g.Record(s.cfg.Mem, s.schema, old.batches, s.cfg.Workers)
		if err != nil {
			return err
		}
		// The kept rows replace more rows than they are: account them
		// whether or not the budget has room right now.
		share := s.share(rec.NumRows())
		need := arrowsize.Record(rec) + share
		s.acct.grow(need)
		s.buf.add(rec, need, share)
	}
	s.metrics.Compactions++
	return nil
}

// Finish ends the input and returns the sorted rows (the first Limit of
// them with a Limit). Without spilled runs they come straight from memory;
// otherwise the buffer is spilled as the last run and the runs are merged,
// in several passes when there are more than one merge may read at once.
// The reader owns everything the sort held: releasing it frees the memory
// and removes the spill files. On error, Finish cleans up as Close does.
func (s *Sorter) Finish(ctx context.Context) (array.RecordReader, error) {
	if s.finished || s.closed {
		return nil, errors.New("extsort: Finish twice or after Close")
	}
	s.finished = true
	r, err := s.finish(ctx)
	if err != nil {
		s.Close()
		return nil, err
	}
	return r, nil
}

func (s *Sorter) finish(ctx context.Context) (array.RecordReader, error) {
	mems, err := s.prepare(ctx)
	if err != nil {
		return nil, err
	}
	return s.read(ctx, nil, s.runs, mems, s.cfg.Workers)
}

// prepare sorts what is buffered into the final merge's runs: the runs on
// disk (s.runs, merged in passes first when one merge could not read them
// all) and the returned parts sorted in memory, which come after them in
// input order.
func (s *Sorter) prepare(ctx context.Context) ([]*memRun, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(s.runs) == 0 {
		return s.memRuns(ctx)
	}
	mems, err := s.keepInMemory(ctx)
	if err == nil && len(mems) == 0 {
		err = s.mergePasses(ctx)
	}
	return mems, err
}

// read hands runs and mems (of s and of others, which share its schema
// and keys) to a reader: the one part sorted in memory when that is all,
// else a merge of them all. The reader then owns the runs, the parts and
// the accounts of s and others.
func (s *Sorter) read(ctx context.Context, others []*Sorter, runs []*run, mems []*memRun, workers int) (array.RecordReader, error) {
	r := &mergeReader{s: s, others: others, ctx: ctx}
	if len(runs) == 0 && len(mems) == 1 {
		r.mem = mems[0]
	} else {
		m, err := s.openMerge(ctx, runs, mems, workers)
		if err != nil {
			return nil, err
		}
		r.m, r.runs = m, runs
	}
	for _, x := range append([]*Sorter{s}, others...) {
		x.runs, x.mems = nil, nil
		x.handedOff = true
	}
	r.refs.Store(1)
	return r, nil
}

// Close releases what the sorter holds and removes its spill files. It is
// safe to call more than once, and after Finish (the reader Finish
// returned then owns what it holds and must be released too).
func (s *Sorter) Close() {
	if s.closed {
		return
	}
	s.closed = true
	if s.handedOff {
		return
	}
	s.buf.release()
	for _, m := range s.mems {
		m.Release()
	}
	s.mems = nil
	s.removeRuns(s.runs)
	s.runs = nil
	s.threshold, s.first = nil, firstKey{}
	s.bound.Store(nil)
	s.acct.close()
}
