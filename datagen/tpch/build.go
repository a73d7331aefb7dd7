package tpch

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Column builders for one batch of each table.

type lineBuilder struct {
	rows                    int
	order, part, supp       *array.Int64Builder
	number                  *array.Int32Builder
	qty, price, disc, tax   *array.Decimal128Builder
	rflag, status           *array.StringBuilder
	ship, commit, receipt   *array.Date32Builder
	instruct, mode, comment *array.StringBuilder
	all                     []array.Builder
}

func newLineBuilder(mem memory.Allocator) *lineBuilder {
	b := &lineBuilder{
		order: array.NewInt64Builder(mem), part: array.NewInt64Builder(mem), supp: array.NewInt64Builder(mem),
		number: array.NewInt32Builder(mem),
		qty:    array.NewDecimal128Builder(mem, money), price: array.NewDecimal128Builder(mem, money),
		disc: array.NewDecimal128Builder(mem, money), tax: array.NewDecimal128Builder(mem, money),
		rflag: array.NewStringBuilder(mem), status: array.NewStringBuilder(mem),
		ship: array.NewDate32Builder(mem), commit: array.NewDate32Builder(mem), receipt: array.NewDate32Builder(mem),
		instruct: array.NewStringBuilder(mem), mode: array.NewStringBuilder(mem), comment: array.NewStringBuilder(mem),
	}
	b.all = []array.Builder{b.order, b.part, b.supp, b.number, b.qty, b.price, b.disc, b.tax,
		b.rflag, b.status, b.ship, b.commit, b.receipt, b.instruct, b.mode, b.comment}
	for _, c := range b.all {
		c.Reserve(BatchRows)
	}
	b.comment.ReserveData(BatchRows * 27)
	return b
}

func (b *lineBuilder) add(o *order, i int) {
	l := &o.lines[i]
	b.order.UnsafeAppend(o.key)
	b.part.UnsafeAppend(l.part)
	b.supp.UnsafeAppend(l.supp)
	b.number.UnsafeAppend(int32(i + 1))
	b.qty.UnsafeAppend(decimal128.FromI64(l.qty * 100))
	b.price.UnsafeAppend(decimal128.FromI64(l.price))
	b.disc.UnsafeAppend(decimal128.FromI64(l.disc))
	b.tax.UnsafeAppend(decimal128.FromI64(l.tax))
	b.rflag.BinaryBuilder.Append([]byte{l.rflag})
	b.status.BinaryBuilder.Append([]byte{l.status})
	b.ship.UnsafeAppend(arrow.Date32(epochStart + l.ship))
	b.commit.UnsafeAppend(arrow.Date32(epochStart + l.commit))
	b.receipt.UnsafeAppend(arrow.Date32(epochStart + l.receipt))
	b.instruct.BinaryBuilder.Append(l.instruct)
	b.mode.BinaryBuilder.Append(l.mode)
	b.comment.BinaryBuilder.Append(l.comment)
	b.rows++
}

func (b *lineBuilder) finish(schema *arrow.Schema) arrow.RecordBatch {
	return finish(schema, b.all, b.rows)
}

func (b *lineBuilder) release() { releaseAll(b.all) }

type orderBuilder struct {
	rows                             int
	key, cust                        *array.Int64Builder
	status, priority, clerk, comment *array.StringBuilder
	total                            *array.Decimal128Builder
	date                             *array.Date32Builder
	shipPriority                     *array.Int32Builder
	all                              []array.Builder
	clerkBuf                         []byte
}

func newOrderBuilder(mem memory.Allocator) *orderBuilder {
	b := &orderBuilder{
		key: array.NewInt64Builder(mem), cust: array.NewInt64Builder(mem),
		status: array.NewStringBuilder(mem), total: array.NewDecimal128Builder(mem, money),
		date: array.NewDate32Builder(mem), priority: array.NewStringBuilder(mem), clerk: array.NewStringBuilder(mem),
		shipPriority: array.NewInt32Builder(mem), comment: array.NewStringBuilder(mem),
	}
	b.all = []array.Builder{b.key, b.cust, b.status, b.total, b.date, b.priority, b.clerk, b.shipPriority, b.comment}
	for _, c := range b.all {
		c.Reserve(BatchRows)
	}
	return b
}

func (b *orderBuilder) add(o *order) {
	b.key.UnsafeAppend(o.key)
	b.cust.UnsafeAppend(o.cust)
	b.status.BinaryBuilder.Append([]byte{o.status})
	b.total.UnsafeAppend(decimal128.FromI64(o.total))
	b.date.UnsafeAppend(arrow.Date32(epochStart + o.date))
	b.priority.BinaryBuilder.Append(o.priority)
	b.clerkBuf = fmt.Appendf(b.clerkBuf[:0], "Clerk#%09d", o.clerk)
	b.clerk.BinaryBuilder.Append(b.clerkBuf)
	b.shipPriority.UnsafeAppend(0)
	b.comment.BinaryBuilder.Append(o.comment)
	b.rows++
}

func (b *orderBuilder) finish(schema *arrow.Schema) arrow.RecordBatch {
	return finish(schema, b.all, b.rows)
}

func (b *orderBuilder) release() { releaseAll(b.all) }

func finish(schema *arrow.Schema, bs []array.Builder, rows int) arrow.RecordBatch {
	cols := make([]arrow.Array, len(bs))
	for i, c := range bs {
		cols[i] = c.NewArray()
	}
	rec := array.NewRecordBatch(schema, cols, int64(rows))
	releaseAll(cols)
	return rec
}

type releaser interface{ Release() }

func releaseAll[T releaser](xs []T) {
	for _, x := range xs {
		x.Release()
	}
}
