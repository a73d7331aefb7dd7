package main

import (
	"errors"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/internal/arrowsize"
)

// uploadReader hands a convert.Reader's batches to arrow-go's ingest as an
// array.RecordReader, counting them as they go.
type uploadReader struct {
	refs atomic.Int64
	r    *convert.Reader
	cur  arrow.RecordBatch
	err  error
	done bool

	rows, batches, arrowBytes int64
	onBatch                   func() // after every batch (progress)
}

func newUploadReader(r *convert.Reader) *uploadReader {
	u := &uploadReader{r: r}
	u.refs.Store(1)
	return u
}

func (u *uploadReader) Schema() *arrow.Schema { return u.r.Schema() }

func (u *uploadReader) Next() bool {
	if u.cur != nil {
		u.cur.Release()
		u.cur = nil
	}
	if u.done {
		return false
	}
	rec, err := u.r.Next()
	if err != nil {
		u.done = true
		if !errors.Is(err, io.EOF) {
			u.err = err
		}
		return false
	}
	u.cur = rec
	u.rows += rec.NumRows()
	u.batches++
	u.arrowBytes += arrowsize.Record(rec)
	if u.onBatch != nil {
		u.onBatch()
	}
	return true
}

func (u *uploadReader) RecordBatch() arrow.RecordBatch { return u.cur }

// Deprecated: use RecordBatch (array.RecordReader still requires it).
func (u *uploadReader) Record() arrow.RecordBatch { return u.cur }

func (u *uploadReader) Err() error { return u.err }

func (u *uploadReader) Retain() { u.refs.Add(1) }

// Release drops the current batch; the convert.Reader is its owner's to
// release.
func (u *uploadReader) Release() {
	if u.refs.Add(-1) == 0 && u.cur != nil {
		u.cur.Release()
		u.cur = nil
	}
}
