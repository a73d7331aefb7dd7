//go:build flightsqljs

package flightsql

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// row is one row of the test table; a nil pointer is SQL NULL. The table
// and the rows the clients should see are both made from these, so the
// expectation is not a second copy of the generator.
type row struct {
	id       int64
	score    float64
	label    *string
	shipdate *int32 // days since 1970-01-01
	price    *int64 // decimal(15,2), unscaled
	flag     *bool
}

var tableSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64},
	{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "shipdate", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "price", Type: &arrow.Decimal128Type{Precision: 15, Scale: 2}, Nullable: true},
	{Name: "flag", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

// wantTypes is how Arrow JS names tableSchema's types (String(field.type)):
// a client that turned decimal(15,2) into a float or date32 into a
// timestamp fails here even if the values print alike.
var wantTypes = []string{"Int64", "Float64", "Utf8", "Date32<DAY>", "Decimal[15e+2]", "Bool"}

func ptr[T any](v T) *T { return &v }

// makeRows builds n rows with the cases a decoder gets wrong: nulls in
// every nullable column at different periods (so validity bitmaps differ
// per column), empty strings next to nulls, multi-byte UTF-8, -0 and ±Inf,
// dates before 1970, and decimals at ±(10^15-1), the limits of precision 15.
func makeRows(n int) []row {
	rows := make([]row, n)
	for i := range rows {
		r := row{id: int64(i)}
		r.score = float64(i*37%1000-500)*0.125 + 1/float64(i+1)
		switch i {
		case 1:
			r.score = math.Inf(1)
		case 2:
			r.score = math.Copysign(0, -1)
		case 5:
			r.score = math.Inf(-1)
		}
		switch {
		case i%7 == 3:
		case i%11 == 0:
			r.label = ptr("")
		case i%5 == 0:
			r.label = ptr(fmt.Sprintf("é日本🙂 %d", i))
		default:
			r.label = ptr(fmt.Sprintf("row %d %s", i, strings.Repeat("ab", i%13)))
		}
		if i%13 != 4 {
			r.shipdate = ptr(int32(i*7919%40000 - 15000))
		}
		switch {
		case i == 3:
			r.price = ptr(int64(999_999_999_999_999))
		case i == 4:
			r.price = ptr(int64(-999_999_999_999_999))
		case i%17 != 6:
			r.price = ptr(int64(i)*7_919_000_000_003%200_000_000_000_000 - 100_000_000_000_000)
		}
		if i%19 != 8 {
			r.flag = ptr(i%3 == 0)
		}
		rows[i] = r
	}
	return rows
}

// putTable stores rows in c as table name, in batches of batchRows.
func putTable(t *testing.T, c *cache.Cache, mem memory.Allocator, name string, rows []row, batchRows int) {
	t.Helper()
	var recs []arrow.RecordBatch
	for start := 0; start < len(rows); start += batchRows {
		b := array.NewRecordBuilder(mem, tableSchema)
		for _, r := range rows[start:min(len(rows), start+batchRows)] {
			b.Field(0).(*array.Int64Builder).Append(r.id)
			b.Field(1).(*array.Float64Builder).Append(r.score)
			appendOrNull(b.Field(2), r.label, func(v string) { b.Field(2).(*array.StringBuilder).Append(v) })
			appendOrNull(b.Field(3), r.shipdate, func(v int32) { b.Field(3).(*array.Date32Builder).Append(arrow.Date32(v)) })
			appendOrNull(b.Field(4), r.price, func(v int64) { b.Field(4).(*array.Decimal128Builder).Append(decimal128.FromI64(v)) })
			appendOrNull(b.Field(5), r.flag, func(v bool) { b.Field(5).(*array.BooleanBuilder).Append(v) })
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	rr, err := array.NewRecordReader(tableSchema, recs)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	for _, rec := range recs {
		rec.Release()
	}
	if _, err := c.Put(context.Background(), name, rr, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
}

func appendOrNull[T any](b array.Builder, v *T, appendValue func(T)) {
	if v == nil {
		b.AppendNull()
		return
	}
	appendValue(*v)
}

// render gives a row the text fetch.js prints for it (see there).
func render(r row) []*string {
	str := func(s string) *string { return &s }
	cells := []*string{
		str(strconv.FormatInt(r.id, 10)),
		str(fmt.Sprintf("%016x", math.Float64bits(r.score))),
		r.label,
		nil, nil, nil,
	}
	if r.shipdate != nil {
		cells[3] = str(strconv.Itoa(int(*r.shipdate)))
	}
	if r.price != nil {
		cells[4] = str(strconv.FormatInt(*r.price, 10))
	}
	if r.flag != nil {
		cells[5] = str(strconv.FormatBool(*r.flag))
	}
	return cells
}

// byShipdateDescThenID is ORDER BY shipdate DESC NULLS LAST, id.
func byShipdateDescThenID(a, b row) int {
	switch {
	case a.shipdate == nil && b.shipdate == nil:
	case a.shipdate == nil:
		return 1
	case b.shipdate == nil:
		return -1
	case *a.shipdate != *b.shipdate:
		return cmp.Compare(*b.shipdate, *a.shipdate)
	}
	return cmp.Compare(a.id, b.id)
}

// expect renders the first limit rows of rows in the order of cmpRows
// (table order if nil).
func expect(rows []row, cmpRows func(a, b row) int, limit int) [][]*string {
	sorted := slices.Clone(rows)
	if cmpRows != nil {
		slices.SortStableFunc(sorted, cmpRows)
	}
	var out [][]*string
	for _, r := range sorted[:min(limit, len(sorted))] {
		out = append(out, render(r))
	}
	return out
}
