package tpch

import (
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Lineitem returns lineitem at scale factor sf as a stream of BatchRows-row
// batches, generated as they are read: memory holds one batch (and the
// text pool, see the package doc). The caller must Release it.
func Lineitem(mem memory.Allocator, sf float64) (array.RecordReader, error) {
	return NewReader(mem, LineitemTable, sf)
}

// Orders returns orders at scale factor sf, as Lineitem does lineitem.
func Orders(mem memory.Allocator, sf float64) (array.RecordReader, error) {
	return NewReader(mem, OrdersTable, sf)
}

// NewReader returns table at scale factor sf as a stream of batches.
func NewReader(mem memory.Allocator, table string, sf float64) (array.RecordReader, error) {
	schema, err := Schema(table)
	if err != nil {
		return nil, err
	}
	sc, err := newScale(sf)
	if err != nil {
		return nil, err
	}
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	r := &reader{mem: mem, schema: schema, gen: newGenerator(sc), lines: table == LineitemTable}
	r.refs.Store(1)
	return r, nil
}

// reader is a RecordReader over generated orders or their lines. A
// lineitem batch may end inside an order: next says which line comes next.
type reader struct {
	refs   atomic.Int64
	mem    memory.Allocator
	schema *arrow.Schema
	gen    *generator
	lines  bool

	o    order
	next int // next line of o to emit; o.n when o is used up
	cur  arrow.RecordBatch
}

var _ array.RecordReader = (*reader)(nil)

func (r *reader) Schema() *arrow.Schema          { return r.schema }
func (r *reader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *reader) Err() error                     { return nil }
func (r *reader) Retain()                        { r.refs.Add(1) }

// Record returns the current batch.
//
// Deprecated: use RecordBatch.
func (r *reader) Record() arrow.RecordBatch { return r.cur }

func (r *reader) Release() {
	switch n := r.refs.Add(-1); {
	case n == 0 && r.cur != nil:
		r.cur.Release()
		r.cur = nil
	case n < 0:
		panic(fmt.Sprintf("tpch: reader released %d times too many", -n))
	}
}

func (r *reader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.gen.done() && (!r.lines || r.next >= r.o.n) {
		return false
	}
	if r.lines {
		r.cur = r.lineBatch()
	} else {
		r.cur = r.orderBatch()
	}
	return true
}

func (r *reader) lineBatch() arrow.RecordBatch {
	b := newLineBuilder(r.mem)
	defer b.release()
	for b.rows < BatchRows {
		if r.next >= r.o.n {
			if r.gen.done() {
				break
			}
			r.gen.nextOrder(&r.o)
			r.next = 0
		}
		b.add(&r.o, r.next)
		r.next++
	}
	return b.finish(r.schema)
}

func (r *reader) orderBatch() arrow.RecordBatch {
	b := newOrderBuilder(r.mem)
	defer b.release()
	for b.rows < BatchRows && !r.gen.done() {
		r.gen.nextOrder(&r.o)
		b.add(&r.o)
	}
	return b.finish(r.schema)
}
