package spill

import (
	"fmt"
	"io/fs"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/arrowsize"
)

// Writer writes one spill file. Each Write costs one write call on the
// file system: the batch's messages (dictionaries that changed, then the
// record batch; the schema too, for the first) are gathered into one
// reused buffer first. A Writer is not safe for concurrent use; use one
// per goroutine (the Manager is shared).
type Writer struct {
	fileOut

	plan *plan
	enc  *batch.Encoder
	buf  []byte // the gather buffer, reused

	seq      uint64 // messages written so far (the schema is 0)
	schemaN  int64  // bytes of the schema message
	batches  []extent
	rows     int64
	maxBatch int64 // largest in-memory size of a written spill record
}

// extent is where one batch's messages (its changed dictionaries and the
// record batch) lie in the file.
type extent struct {
	off, n int64
	rows   int64
}

// Path returns the path of the file being written.
func (w *Writer) Path() string { return w.path }

// Bytes returns the bytes written to the file so far.
func (w *Writer) Bytes() int64 { return w.size }

// Rows returns the rows written so far.
func (w *Writer) Rows() int64 { return w.rows }

// Write appends rec to the file. Every record of a file must have the
// schema of the first. The caller keeps ownership of rec.
//
// A write that would pass the Manager's quota, or that the disk refuses
// for lack of space, fails with a *SpaceError (ErrQuota or ErrNoSpace,
// both ErrResourceExhausted) and any other write failure with the file
// system's error; in both cases the file is removed and the Writer is
// done. A record whose schema does not match fails with batch.ErrSchema
// and leaves the Writer usable; any other error (a type the batch layer
// cannot write) removes the file too.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	if err := w.usable("write to"); err != nil {
		return err
	}
	if w.m.closed.Load() {
		return w.fail(ErrClosed)
	}
	start := time.Now()
	w.buf = w.buf[:0]
	if w.enc == nil {
		if err := w.begin(rec.Schema()); err != nil {
			return w.fail(err)
		}
	} else if !rec.Schema().Equal(w.plan.schema) {
		return fmt.Errorf("spill: file %s batch %d: %w: got %s, want %s", w.path, len(w.batches), batch.ErrSchema, rec.Schema(), w.plan.schema)
	}
	from := len(w.buf)
	sp := w.plan.toSpill(rec, w.m.cfg.alloc())
	msgs, err := w.enc.Encode(sp)
	w.maxBatch = max(w.maxBatch, arrowsize.Record(sp))
	sp.Release()
	if err != nil {
		// The encoder may count a dictionary as sent that never will be.
		return w.fail(fmt.Errorf("spill: file %s batch %d: %w", w.path, len(w.batches), err))
	}
	for _, msg := range msgs {
		w.appendSealed(msg)
	}
	e := extent{off: w.size + int64(from), n: int64(len(w.buf) - from), rows: rec.NumRows()}
	if err := w.flush(len(w.batches)); err != nil {
		return err
	}
	w.batches = append(w.batches, e)
	w.rows += rec.NumRows()
	w.m.batchesW.Add(1)
	w.m.rowsW.Add(rec.NumRows())
	w.m.writeNanos.Add(int64(time.Since(start)))
	return nil
}

// begin sets the file's schema and puts its schema message in w.buf.
func (w *Writer) begin(schema *arrow.Schema) error {
	w.plan = newPlan(schema, w.m.cfg.Codec.Kind != codec.None)
	enc, err := batch.NewEncoder(w.plan.spill, batch.WriteOptions{
		Codec:       w.m.cfg.Codec,
		Concurrency: w.m.cfg.Concurrency,
		Alloc:       w.m.cfg.alloc(),
	})
	if err != nil {
		w.plan = nil
		return fmt.Errorf("spill: file %s: %w", w.path, err)
	}
	enc.SetCustomMetadata(checksumMetadata)
	w.enc = enc
	w.appendSealed(enc.SchemaMessage())
	w.schemaN = int64(len(w.buf))
	return nil
}

// appendSealed appends msg, encapsulated and checksummed, to w.buf.
func (w *Writer) appendSealed(msg batch.Message) {
	at := len(w.buf)
	w.buf = msg.AppendEncapsulated(w.buf)
	meta := w.buf[at+8 : at+8+len(msg.Meta)]
	seal(w.buf[at:], meta, w.seq)
	w.seq++
}

// flush reserves quota for w.buf and writes it in one call. On failure
// the file is removed.
func (w *Writer) flush(batchIndex int) error {
	if err := w.write(w.buf, batchIndex); err != nil {
		return w.fail(err)
	}
	return nil
}

// fail removes the file and makes err the Writer's answer from now on.
func (w *Writer) fail(err error) error {
	w.Abort()
	w.err = err
	return err
}

// Finish ends the stream and closes the file, which can then be opened
// any number of times. A file with no batch holds a schema with no
// fields. After an error from Write, Finish returns that error.
func (w *Writer) Finish() (*File, error) {
	if err := w.usable("Finish of"); err != nil {
		return nil, err
	}
	start := time.Now()
	w.buf = w.buf[:0]
	if w.enc == nil {
		if err := w.begin(arrow.NewSchema(nil, nil)); err != nil {
			return nil, w.fail(err)
		}
	}
	w.buf = append(w.buf, endOfStream...)
	if err := w.flush(len(w.batches)); err != nil {
		return nil, err
	}
	w.enc.Release()
	w.enc = nil
	if err := w.close(); err != nil {
		return nil, w.fail(err)
	}
	w.m.writeNanos.Add(int64(time.Since(start)))
	f := &File{
		m: w.m, owner: w.owner, path: w.path, plan: w.plan,
		size: w.size, schemaN: w.schemaN, batches: w.batches, rows: w.rows, maxBatch: w.maxBatch,
	}
	w.buf, w.batches = nil, nil
	return f, nil
}

// Abort removes the file being written and gives its bytes back to the
// quota. It does nothing after Finish (the File owns the file then) or a
// second time.
func (w *Writer) Abort() {
	if w.done {
		return
	}
	if w.enc != nil {
		w.enc.Release()
		w.enc = nil
	}
	w.remove()
	w.buf = nil
}

// endOfStream ends every Arrow IPC stream.
var endOfStream = []byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}

var errNotExist = fs.ErrNotExist
