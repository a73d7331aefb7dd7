package spill

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
)

// Reader reads a spill file's records back, in order. It implements
// array.RecordReader. Each batch is read with one ReadAt, its messages'
// checksums verified, then decoded; a failure is an error matching
// ErrCorrupt (or the file system's error) that names the file and the
// batch, and ends the reading.
type Reader struct {
	f    *File
	h    Handle
	mem  memory.Allocator
	dec  *batch.Decoder
	refs atomic.Int64

	buf  []byte // one batch's bytes, reused
	next int    // batch to read next
	seq  uint64 // position of the next message in the file
	cur  arrow.RecordBatch
	err  error
	done bool

	// skipVerify is set only by tests that feed the decoder hostile
	// bytes a checksum would have stopped.
	skipVerify bool
}

// open checks the file's size and its schema message.
func (r *Reader) open() error {
	f := r.f
	st, err := f.m.fs.Stat(f.path)
	if err != nil {
		return fmt.Errorf("spill: file %s: %w", f.path, err)
	}
	if st.Size() != f.size {
		return corruptf(f.path, f.batchAt(min(st.Size(), f.size)), "%d bytes on disk, %d were written", st.Size(), f.size)
	}
	b, err := r.readAt(0, f.schemaN, atSchema)
	if err != nil {
		return err
	}
	m, rest, err := batch.SplitEncapsulated(b, batch.Limits{})
	if err == nil && len(rest) != 0 {
		err = fmt.Errorf("%d bytes after the schema message", len(rest))
	}
	if err == nil {
		err = r.verify(b, m)
	}
	if err != nil {
		return corruptf(f.path, atSchema, "%w", err)
	}
	r.dec, err = batch.NewDecoder(f.plan.spill, f.readOptions(r.mem))
	if err != nil {
		return fmt.Errorf("spill: file %s: %w", f.path, err)
	}
	return nil
}

// batchAt returns the batch whose bytes include file offset off, or
// atSchema, atEnd.
func (f *File) batchAt(off int64) int {
	if off < f.schemaN {
		return atSchema
	}
	for i, e := range f.batches {
		if off < e.off+e.n {
			return i
		}
	}
	return atEnd
}

func (r *Reader) verify(msg []byte, m batch.Message) error {
	defer func() { r.seq++ }()
	if r.skipVerify {
		return nil
	}
	return verify(msg, m, r.seq)
}

// readAt reads n bytes at off into the reused buffer.
func (r *Reader) readAt(off, n int64, batchIndex int) ([]byte, error) {
	if int64(cap(r.buf)) < n {
		r.buf = make([]byte, n)
	}
	b := r.buf[:n]
	got, err := r.h.ReadAt(b, off)
	r.f.m.read.Add(int64(got))
	if int64(got) == n {
		return b, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return nil, corruptf(r.f.path, batchIndex, "file ends %d bytes into the %d at offset %d", got, n, off)
	}
	return nil, fmt.Errorf("spill: reading file %s %s (%d bytes at offset %d): %w", r.f.path, where(batchIndex), n, off, err)
}

// Schema returns the schema of the records, the one they were written
// with.
func (r *Reader) Schema() *arrow.Schema { return r.f.plan.schema }

// Next reads the next record, which RecordBatch then returns until the
// following call. It returns false at the end of the file or on an error
// (see Err).
func (r *Reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.done {
		return false
	}
	start := time.Now()
	defer func() { r.f.m.readNanos.Add(int64(time.Since(start))) }()
	if r.next == len(r.f.batches) {
		r.done = true
		r.err = r.checkEnd()
		return false
	}
	rec, err := r.readBatch(r.next)
	if err != nil {
		r.err = err
		return false
	}
	r.cur = rec
	r.next++
	r.f.m.batchesR.Add(1)
	r.f.m.rowsR.Add(rec.NumRows())
	return true
}

// readBatch reads, verifies and decodes batch i.
func (r *Reader) readBatch(i int) (arrow.RecordBatch, error) {
	e := r.f.batches[i]
	b, err := r.readAt(e.off, e.n, i)
	if err != nil {
		return nil, err
	}
	rec, err := r.decodeBatch(b, e.rows)
	if err != nil {
		return nil, corruptf(r.f.path, i, "%w", err)
	}
	return rec, nil
}

// decodeBatch decodes the messages of one batch: dictionaries, then
// exactly one record batch of rows rows, which must end b.
func (r *Reader) decodeBatch(b []byte, rows int64) (arrow.RecordBatch, error) {
	for len(b) > 0 {
		m, rest, err := batch.SplitEncapsulated(b, batch.Limits{MaxBody: int64(len(b))})
		if err == io.EOF {
			return nil, fmt.Errorf("end-of-stream marker before the record batch")
		}
		if err != nil {
			return nil, err
		}
		if err := r.verify(b[:len(b)-len(rest)], m); err != nil {
			return nil, err
		}
		rec, err := r.dec.Decode(m)
		if err != nil {
			return nil, err
		}
		b = rest
		if rec == nil {
			continue // a dictionary batch
		}
		if len(rest) != 0 {
			rec.Release()
			return nil, fmt.Errorf("%d bytes after the record batch", len(rest))
		}
		if rec.NumRows() != rows {
			rec.Release()
			return nil, fmt.Errorf("%d rows, %d were written", rec.NumRows(), rows)
		}
		out, err := r.f.plan.fromSpill(rec, r.mem)
		rec.Release()
		return out, err
	}
	return nil, fmt.Errorf("no record batch")
}

// checkEnd reads the end-of-stream marker after the last batch.
func (r *Reader) checkEnd() error {
	n := int64(len(endOfStream))
	b, err := r.readAt(r.f.size-n, n, atEnd)
	if err != nil {
		return err
	}
	if !bytes.Equal(b, endOfStream) {
		return corruptf(r.f.path, atEnd, "reads % x", b)
	}
	return nil
}

// RecordBatch returns the record Next read; it is valid until the next
// call to Next or Release. Retain it to keep it longer.
func (r *Reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns RecordBatch().
//
// Deprecated: use RecordBatch (kept for array.RecordReader).
func (r *Reader) Record() arrow.RecordBatch { return r.cur }

// Err returns the error that stopped Next, or nil at the end of the file.
func (r *Reader) Err() error { return r.err }

// Retain adds a reference.
func (r *Reader) Retain() { r.refs.Add(1) }

// Release drops a reference; the last one releases the current record and
// closes the file handle.
func (r *Reader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.dec != nil {
		r.dec.Release()
	}
	if r.h != nil {
		_ = r.h.Close() // read-only: nothing to lose
	}
	r.buf = nil
}
