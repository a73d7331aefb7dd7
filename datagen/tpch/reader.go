package tpch

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/pull"
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

// NewReader returns table (one of Tables) at scale factor sf as a stream
// of batches.
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
	var next func() arrow.RecordBatch // nil at the end
	switch table {
	case LineitemTable, OrdersTable:
		r := &reader{mem: mem, schema: schema, gen: newGenerator(sc), lines: table == LineitemTable}
		next = r.nextBatch
	default:
		g := newRowGen(table, sc)
		next = func() arrow.RecordBatch { return rowBatch(mem, schema, g) }
	}
	return pull.Records(schema, func() (arrow.RecordBatch, error) {
		if rec := next(); rec != nil {
			return rec, nil
		}
		return nil, io.EOF
	}), nil
}

func newRowGen(table string, sc scale) rowGen {
	switch table {
	case RegionTable:
		return newRegionGen()
	case NationTable:
		return newNationGen()
	case PartTable:
		return newPartGen(sc)
	case SupplierTable:
		return newSupplierGen(sc)
	case PartsuppTable:
		return newPartsuppGen(sc)
	case CustomerTable:
		return newCustomerGen(sc)
	}
	panic("tpch: no generator for " + table)
}

// reader generates the batches of orders or their lines. A lineitem
// batch may end inside an order: next says which line comes next.
type reader struct {
	mem    memory.Allocator
	schema *arrow.Schema
	gen    *generator
	lines  bool

	o    order
	next int // next line of o to emit; o.n when o is used up
}

// nextBatch returns the next batch, or nil when the table is done.
func (r *reader) nextBatch() arrow.RecordBatch {
	if r.gen.done() && (!r.lines || r.next >= r.o.n) {
		return nil
	}
	if r.lines {
		return r.lineBatch()
	}
	return r.orderBatch()
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
