package tpcds

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// builder writes one batch straight into Arrow buffers: rows are written
// by index into typed views of the value buffers, so a batch costs no
// per-value builder calls.
type builder struct {
	schema *arrow.Schema
	cols   []int // catalog_sales columns, in output order
	n      int
	valid  []*memory.Buffer
	vals   []*memory.Buffer
	i32    [][]int32
	i64    [][]int64
	dec    [][]decimal128.Num
	bitmap [][]byte
	nulls  []int
}

func newBuilder(mem memory.Allocator, schema *arrow.Schema, cols []int, n int) *builder {
	b := &builder{
		schema: schema, cols: cols, n: n,
		valid: make([]*memory.Buffer, len(cols)), vals: make([]*memory.Buffer, len(cols)),
		i32: make([][]int32, len(cols)), i64: make([][]int64, len(cols)), dec: make([][]decimal128.Num, len(cols)),
		bitmap: make([][]byte, len(cols)), nulls: make([]int, len(cols)),
	}
	for j, c := range cols {
		t := columnType(c).(arrow.FixedWidthDataType)
		b.vals[j] = memory.NewResizableBuffer(mem)
		b.vals[j].Resize(n * t.BitWidth() / 8)
		switch t.ID() {
		case arrow.INT32:
			b.i32[j] = arrow.Int32Traits.CastFromBytes(b.vals[j].Bytes())
		case arrow.INT64:
			b.i64[j] = arrow.Int64Traits.CastFromBytes(b.vals[j].Bytes())
		default:
			b.dec[j] = arrow.Decimal128Traits.CastFromBytes(b.vals[j].Bytes())
		}
		if notNull(c) {
			continue
		}
		b.valid[j] = memory.NewResizableBuffer(mem)
		b.valid[j].Resize((n + 7) / 8)
		bm := b.valid[j].Bytes()
		for i := range bm {
			bm[i] = 0xFF
		}
		if n%8 != 0 {
			bm[len(bm)-1] = byte(1)<<(n%8) - 1 // no stray bits past the last row
		}
		b.bitmap[j] = bm
	}
	return b
}

// set writes line l, of order o, as row i.
func (b *builder) set(i int, o *order, l *line) {
	for j, c := range b.cols {
		var v int64
		switch {
		case l.nulls&(1<<c) != 0:
			// NULL: clear the bit and write 0 beneath it, as Arrow
			// writers that zero their buffers leave it.
			b.bitmap[j][i>>3] &^= 1 << (i & 7)
			b.nulls[j]++
		case c >= firstMoney:
			v = l.p.get(c)
		default:
			v = o.value(c, l)
		}
		switch {
		case b.i32[j] != nil:
			b.i32[j][i] = int32(v)
		case b.i64[j] != nil:
			b.i64[j][i] = v
		default:
			b.dec[j][i] = decimal128.FromI64(v)
		}
	}
}

// value returns integer column c (not money) of line l of order o.
func (o *order) value(c int, l *line) int64 {
	switch c {
	case ColSoldDateSK:
		return o.soldDate
	case ColSoldTimeSK:
		return o.soldTime
	case ColShipDateSK:
		return l.shipDate
	case ColBillCustomerSK, ColBillCdemoSK, ColBillHdemoSK, ColBillAddrSK:
		return o.bill[c-ColBillCustomerSK]
	case ColShipCustomerSK, ColShipCdemoSK, ColShipHdemoSK, ColShipAddrSK:
		return o.ship[c-ColShipCustomerSK]
	case ColCallCenterSK:
		return o.callCenter
	case ColCatalogPageSK:
		return l.catalogPage
	case ColShipModeSK:
		return l.shipMode
	case ColWarehouseSK:
		return l.warehouse
	case ColItemSK:
		return l.item
	case ColPromoSK:
		return l.promo
	case ColOrderNumber:
		return o.number
	case ColQuantity:
		return l.p.quantity
	}
	panic("tpcds: not an integer column")
}

// finish returns the batch and releases the builder's references to its
// buffers.
func (b *builder) finish() arrow.RecordBatch {
	rows := b.n
	arrs := make([]arrow.Array, len(b.cols))
	for j, c := range b.cols {
		valid := b.valid[j]
		if valid != nil && b.nulls[j] == 0 {
			valid.Release() // no NULLs: Arrow lets the bitmap be absent
			valid = nil
		}
		data := array.NewData(columnType(c), rows, []*memory.Buffer{valid, b.vals[j]}, nil, b.nulls[j], 0)
		arrs[j] = array.MakeFromData(data)
		data.Release()
		if valid != nil {
			valid.Release()
		}
		b.vals[j].Release()
	}
	rec := array.NewRecordBatch(b.schema, arrs, int64(rows))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}
