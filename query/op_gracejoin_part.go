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
	"github.com/quiverdb/quiver/spill"
)

// dropRow is the partition of a row a partitioned side leaves out.
const dropRow = 1<<16 - 1

// spillPart is one partition of one side of a grace hash join: a spill
// file being written, then written.
type spillPart struct {
	mu   sync.Mutex
	w    *spill.Writer
	f    *spill.File
	rows int64
	mem  int64 // bytes its rows held in memory (arrowsize), to judge whether they fit again
	// pending are pieces not written yet: a batch of a side splits into
	// fanout pieces, which are gathered into batches of up to
	// joinBatchRows rows (or the set's flushBytes) before they are
	// written, so that files hold few large batches and a partition is
	// read back, and probed, in batches as large as the side's.
	pending      []arrow.RecordBatch
	pendingRows  int64
	pendingBytes int64
}

// partSet is one side's partitions at one level of a grace hash join.
// Workers write to it concurrently: each partition is written under its
// own lock, one spill file each, created at its first row.
type partSet struct {
	g      *graceJoin
	owner  string
	schema *arrow.Schema
	parts  []*spillPart
	// flushBytes is what a partition's pending pieces may hold: the
	// pieces of every partition together stay within a sixteenth of the
	// memory limit.
	flushBytes int64
}

func (g *graceJoin) newPartSet(side string, schema *arrow.Schema, fanout int) *partSet {
	s := &partSet{g: g, owner: "join-" + side, schema: schema, parts: make([]*spillPart, fanout), flushBytes: 8 << 20}
	if lim := g.o.rt.mt.limit; lim > 0 {
		s.flushBytes = lim / 16 / int64(fanout)
	}
	for i := range s.parts {
		s.parts[i] = &spillPart{}
	}
	return s
}

// partScratch is one worker's scratch for splitting a batch by partition.
type partScratch struct {
	ids   []uint16
	split shuffle.SplitScratch
}

// write appends the rows of rec to the partitions ids names (dropRow, past
// every partition: none), a take of each partition's rows at a time
// (shuffle.Split). What is taken counts in the query's memory tracker
// until it is written.
func (s *partSet) write(ctx context.Context, rec arrow.RecordBatch, ids []uint16, sc *partScratch) error {
	if !rec.Schema().Equal(s.schema) {
		// The plan's schema: a file takes batches of one schema, and a
		// side's batches come from its operator or from spill files.
		rec = array.NewRecordBatch(s.schema, rec.Columns(), rec.NumRows())
		defer rec.Release()
	}
	var appendErr error
	err := shuffle.Split(ctx, s.g.o.rt.mem, rec, ids, len(s.parts), &sc.split, func(p int, piece arrow.RecordBatch) error {
		appendErr = s.append(ctx, p, piece)
		return appendErr
	})
	if err != nil && err != appendErr && ctx.Err() == nil {
		return &Error{Kind: ErrExec, Msg: fmt.Sprintf("%s: partitioning", s.g.o.title()), Err: err}
	}
	return err
}

// append adds rec to partition p's pending pieces, writing them once
// they are a batch's worth. What is pending counts in the query's memory
// tracker.
func (s *partSet) append(ctx context.Context, p int, rec arrow.RecordBatch) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	part := s.parts[p]
	part.mu.Lock()
	defer part.mu.Unlock()
	size := arrowsize.Record(rec)
	n := rec.NumRows()
	if part.pendingRows+n > joinBatchRows || part.pendingBytes+size > s.flushBytes {
		if err := s.flush(part); err != nil {
			return err
		}
	}
	if n >= joinBatchRows || size >= s.flushBytes {
		return s.writePart(part, rec)
	}
	rec.Retain()
	part.pending = append(part.pending, rec)
	part.pendingRows += n
	part.pendingBytes += size
	sortBudget{s.g.o.rt.mt}.Grow(size)
	return nil
}

// flush writes part's pending pieces as one batch.
func (s *partSet) flush(part *spillPart) error {
	if len(part.pending) == 0 {
		return nil
	}
	defer s.dropPending(part)
	if len(part.pending) == 1 {
		return s.writePart(part, part.pending[0])
	}
	cols := make([]arrow.Array, s.schema.NumFields())
	defer releaseAll(cols)
	for i := range cols {
		parts := make([]arrow.Array, len(part.pending))
		for j, rec := range part.pending {
			parts[j] = rec.Column(i)
		}
		col, err := array.Concatenate(parts, s.g.o.rt.mem)
		if err != nil {
			return &Error{Kind: ErrExec, Msg: fmt.Sprintf("%s: partitioning", s.g.o.title()), Err: err}
		}
		cols[i] = col
	}
	rec := array.NewRecordBatch(s.schema, cols, part.pendingRows)
	defer rec.Release()
	return s.writePart(part, rec)
}

// dropPending releases part's pending pieces.
func (s *partSet) dropPending(part *spillPart) {
	for _, rec := range part.pending {
		rec.Release()
	}
	s.g.o.rt.mt.shrink(part.pendingBytes)
	part.pending, part.pendingRows, part.pendingBytes = nil, 0, 0
}

// writePart writes rec to part's file, creating it at the first batch.
func (s *partSet) writePart(part *spillPart, rec arrow.RecordBatch) error {
	if part.w == nil {
		w, err := s.g.o.rt.spill.NewFile(s.owner)
		if err != nil {
			return s.g.spillError(err)
		}
		part.w = w
	}
	start := time.Now()
	err := part.w.Write(rec)
	s.g.st.nanos.Add(int64(time.Since(start)))
	if err != nil {
		part.w.Abort() // removed already, unless the error was the schema's
		part.w = nil
		return s.g.spillError(err)
	}
	part.rows += rec.NumRows()
	part.mem += arrowsize.Record(rec)
	return nil
}

// finish ends every partition's file.
func (s *partSet) finish() error {
	for _, p := range s.parts {
		if err := s.flush(p); err != nil {
			return err
		}
		if p.w == nil {
			continue
		}
		f, err := p.w.Finish()
		p.w = nil
		if err != nil {
			return s.g.spillError(err)
		}
		p.f = f
		s.g.st.files.Add(1)
		s.g.st.bytes.Add(f.Bytes())
		s.g.st.rows.Add(f.Rows())
	}
	return nil
}

// remove deletes every file of the set, written or not.
func (s *partSet) remove() {
	for _, p := range s.parts {
		s.dropPending(p)
		if p.w != nil {
			p.w.Abort()
			p.w = nil
		}
		if p.f != nil {
			_ = p.f.Remove()
			p.f = nil
		}
	}
}

// fileSource reads a spilled partition back, one batch at a time to
// whichever worker asks, numbering its rows in file order (base).
type fileSource struct {
	mu     sync.Mutex
	r      *spill.Reader
	schema *arrow.Schema
	base   int64
	g      *graceJoin
}

// open starts reading f (nil: no rows).
func (g *graceJoin) open(f *spill.File, schema *arrow.Schema) (*fileSource, error) {
	s := &fileSource{schema: schema, g: g}
	if f == nil {
		return s, nil
	}
	r, err := f.Open(g.o.rt.mem)
	if err != nil {
		return nil, g.spillError(err)
	}
	s.r = r
	return s, nil
}

func (s *fileSource) next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, _, err := s.nextAt(ctx)
	return rec, err
}

// nextAt returns the next batch and the number of its first row in the
// file, or io.EOF.
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
			return nil, 0, s.g.spillError(err)
		}
		return nil, 0, io.EOF
	}
	rec := s.r.RecordBatch()
	// The plan's schema (field names and nullability as the plan says).
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
	files, bytes, rows atomic.Int64 // partition files written, both sides, every level
	levels             atomic.Int64 // deepest repartitioning (0: none)
	fallbacks          atomic.Int64 // partitions joined by the chunked nested loop
	chunks             atomic.Int64 // build chunks those joined
	nanos              atomic.Int64 // writing partitions
}
