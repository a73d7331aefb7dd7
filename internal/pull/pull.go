// Package pull adapts quiver's pull-style readers, whose Next returns
// (record, error) with io.EOF at the end (batch.StreamReader,
// convert.Reader), to arrow-go's array.RecordReader, which the cache, the
// query engine and arrow-go's Flight clients take.
package pull

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Reader is an array.RecordReader over a Next function. Each record
// Next returns is released when the next one is asked for, or when the
// last reference is released. Rows counts the rows read so far.
type Reader struct {
	refs   atomic.Int64
	schema *arrow.Schema
	next   func() (arrow.RecordBatch, error)
	cur    arrow.RecordBatch
	err    error
	rows   atomic.Int64
}

// Records returns a reader of what next yields until io.EOF; any other
// error ends it and is its Err.
func Records(schema *arrow.Schema, next func() (arrow.RecordBatch, error)) *Reader {
	r := &Reader{schema: schema, next: next}
	r.refs.Store(1)
	return r
}

func (r *Reader) Schema() *arrow.Schema { return r.schema }

func (r *Reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.next == nil {
		return false
	}
	rec, err := r.next()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			r.err = err
		}
		r.next = nil
		return false
	}
	r.cur = rec
	r.rows.Add(rec.NumRows())
	return true
}

func (r *Reader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch, for arrow-go's older interface method.
func (r *Reader) Record() arrow.RecordBatch { return r.cur }

func (r *Reader) Err() error { return r.err }

// Rows is the rows read so far.
func (r *Reader) Rows() int64 { return r.rows.Load() }

func (r *Reader) Retain() { r.refs.Add(1) }

// Release drops a reference; the last one releases the current record.
func (r *Reader) Release() {
	switch n := r.refs.Add(-1); {
	case n == 0 && r.cur != nil:
		r.cur.Release()
		r.cur = nil
	case n < 0:
		panic(fmt.Sprintf("pull: reader released %d times too many", -n))
	}
}

var _ array.RecordReader = (*Reader)(nil)
