package tpch

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rowGen generates the rows of one of the small tables (all but lineitem
// and orders, which have builders of their own in build.go) in dbgen's
// order.
type rowGen interface {
	done() bool
	// add appends the next row to b, a value per column in schema order.
	add(b *rowBuilder)
}

// rowBuilder builds one batch a value at a time: each append goes to the
// next column, and end starts the next row.
type rowBuilder struct {
	cols []array.Builder
	col  int
	rows int
}

func newRowBuilder(mem memory.Allocator, schema *arrow.Schema) *rowBuilder {
	b := &rowBuilder{}
	for _, f := range schema.Fields() {
		c := array.NewBuilder(mem, f.Type)
		c.Reserve(BatchRows)
		b.cols = append(b.cols, c)
	}
	return b
}

func (b *rowBuilder) next() array.Builder {
	c := b.cols[b.col]
	b.col++
	return c
}

func (b *rowBuilder) int64(v int64) { b.next().(*array.Int64Builder).UnsafeAppend(v) }
func (b *rowBuilder) int32(v int64) { b.next().(*array.Int32Builder).UnsafeAppend(int32(v)) }

// money appends cents as decimal128(15,2).
func (b *rowBuilder) money(cents int64) {
	b.next().(*array.Decimal128Builder).UnsafeAppend(decimal128.FromI64(cents))
}

func (b *rowBuilder) str(v []byte) { b.next().(*array.StringBuilder).BinaryBuilder.Append(v) }

func (b *rowBuilder) end() {
	if b.col != len(b.cols) {
		panic("tpch: row has the wrong number of values")
	}
	b.col = 0
	b.rows++
}

// rowBatch returns the next batch of g's rows, or nil when g is done.
func rowBatch(mem memory.Allocator, schema *arrow.Schema, g rowGen) arrow.RecordBatch {
	if g.done() {
		return nil
	}
	b := newRowBuilder(mem, schema)
	defer releaseAll(b.cols)
	for b.rows < BatchRows && !g.done() {
		g.add(b)
		b.end()
	}
	return finish(schema, b.cols, b.rows)
}
