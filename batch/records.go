package batch

import (
	"bytes"
	"errors"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// OpenRecords reads the Arrow IPC file or stream in r (size bytes; the
// format is told by the file magic) as an array.RecordReader, the
// interface arrow-go's consumers and quiver's cache take. The reader owns
// nothing of r: the caller closes r after releasing the reader.
func OpenRecords(r io.ReaderAt, size int64, opts ReadOptions) (array.RecordReader, error) {
	head := make([]byte, len(fileMagic))
	if n, _ := r.ReadAt(head, 0); n == len(head) && bytes.Equal(head, fileMagic) {
		f, err := NewFileReader(r, size, opts)
		if err != nil {
			return nil, err
		}
		return newRecords(f.Schema(), f.Release, func(i int) (arrow.RecordBatch, error) {
			if i >= f.NumRecords() {
				return nil, io.EOF
			}
			return f.Record(i)
		}), nil
	}
	s, err := NewStreamReader(io.NewSectionReader(r, 0, size), opts)
	if err != nil {
		return nil, err
	}
	return newRecords(s.Schema(), s.Release, func(int) (arrow.RecordBatch, error) { return s.Next() }), nil
}

// records adapts a next-by-index function to array.RecordReader.
type records struct {
	refs    atomic.Int64
	schema  *arrow.Schema
	release func()
	next    func(i int) (arrow.RecordBatch, error)
	index   int
	cur     arrow.RecordBatch
	err     error
}

var _ array.RecordReader = (*records)(nil)

func newRecords(schema *arrow.Schema, release func(), next func(int) (arrow.RecordBatch, error)) *records {
	r := &records{schema: schema, release: release, next: next}
	r.refs.Store(1)
	return r
}

func (r *records) Retain()                        { r.refs.Add(1) }
func (r *records) Schema() *arrow.Schema          { return r.schema }
func (r *records) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns the current batch.
//
// Deprecated: use RecordBatch.
func (r *records) Record() arrow.RecordBatch { return r.cur }
func (r *records) Err() error                { return r.err }

func (r *records) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	rec, err := r.next(r.index)
	if err != nil {
		if !errors.Is(err, io.EOF) {
			r.err = err
		}
		return false
	}
	r.index++
	r.cur = rec
	return true
}

func (r *records) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.release()
}
