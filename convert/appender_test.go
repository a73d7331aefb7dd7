package convert

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var appendSchema = arrow.NewSchema([]arrow.Field{
	{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	{Name: "i64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
	{Name: "f64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "d", Type: &arrow.Decimal128Type{Precision: 5, Scale: 2}, Nullable: true},
	{Name: "d64", Type: &arrow.Decimal64Type{Precision: 18, Scale: 2}, Nullable: true},
	{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
	{Name: "fsb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}, Nullable: true},
}, nil)

var t0 = time.Date(2024, 3, 1, 12, 0, 0, 500_000, time.UTC)

// expectRow appends the row AppendRow is given, through arrow-go's
// builders.
func expectRow(b *array.RecordBuilder, i int) {
	if i%5 == 4 {
		for j := range b.Fields() {
			b.Field(j).AppendNull()
		}
		return
	}
	b.Field(0).(*array.Int8Builder).Append(int8(i - 50))
	b.Field(1).(*array.Int64Builder).Append(int64(i) << 40)
	b.Field(2).(*array.Uint16Builder).Append(uint16(i * 100))
	b.Field(3).(*array.Float64Builder).Append(float64(i) / 4)
	b.Field(4).(*array.BooleanBuilder).Append(i%2 == 0)
	b.Field(5).(*array.StringBuilder).Append(strings.Repeat("x", i%7))
	b.Field(6).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i*101 - 5000)))
	b.Field(7).(*array.Decimal64Builder).Append(1234)
	b.Field(8).(*array.Date32Builder).Append(arrow.Date32FromTime(t0))
	ts, _ := arrow.TimestampFromTime(t0, arrow.Microsecond)
	b.Field(9).(*array.TimestampBuilder).Append(ts)
	b.Field(10).(*array.BinaryBuilder).Append([]byte{byte(i)})
	b.Field(11).(*array.LargeStringBuilder).Append("large")
	b.Field(12).(*array.FixedSizeBinaryBuilder).Append([]byte("abc"))
}

func row(i int) []any {
	if i%5 == 4 {
		return make([]any, 13)
	}
	var d any = decimal128.FromI64(int64(i*101 - 5000))
	switch i % 3 {
	case 1:
		d = int64(i*101 - 5000)
	case 2:
		d = decimal128.FromI64(int64(i*101 - 5000)).ToString(2)
	}
	return []any{i - 50, int64(i) << 40, uint16(i * 100), float64(i) / 4, i%2 == 0, strings.Repeat("x", i%7),
		d, "12.34", t0, t0, []byte{byte(i)}, "large", []byte("abc")}
}

func TestAppendRow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, err := NewCoalescer(appendSchema, Config{BatchRows: 64, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	want := array.NewRecordBuilder(mem, appendSchema)
	defer want.Release()
	for i := range 100 {
		if err := c.AppendRow(row(i)...); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		expectRow(want, i)
		// A bad row in between leaves no trace.
		bad := row(i)
		bad[6] = int64(100000) // past decimal(5,2)
		err := c.AppendRow(bad...)
		var re *RowError
		if i%5 != 4 && (!errors.Is(err, ErrRange) || !errors.As(err, &re) || re.Column != 6 || re.Row != int64(i+1)) {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	got, n := drain(t, mem, c, 64, true)
	defer releaseAll(got)
	wrec := want.NewRecordBatch()
	defer wrec.Release()
	for i, col := range got {
		if !array.Equal(col, wrec.Column(i)) {
			t.Errorf("column %s:\ngot  %v\nwant %v", appendSchema.Field(i).Name, col, wrec.Column(i))
		}
	}
	if n != 2 {
		t.Errorf("%d batches", n)
	}
	for _, tc := range []struct {
		col  int
		v    any
		want error
	}{
		{0, 128, ErrRange}, {0, "x", ErrSchema}, {2, -1, ErrRange}, {6, "1000.00", ErrRange},
		{6, "12.345", ErrRange}, {6, "abc", ErrMalformed}, {6, []byte{0x7f, 0xff, 0xff}, ErrRange},
		{8, "2024-02-30", ErrMalformed}, {12, []byte("ab"), ErrRange}, {5, 3, ErrSchema},
	} {
		r := row(0)
		r[tc.col] = tc.v
		if err := c.AppendRow(r...); !errors.Is(err, tc.want) {
			t.Errorf("column %d value %v: %v, want %v", tc.col, tc.v, err, tc.want)
		}
	}
	if err := c.AppendRow(1, 2); !errors.Is(err, ErrSchema) {
		t.Errorf("short row: %v", err)
	}
	if c.Buffered() != 0 {
		t.Errorf("%d rows left by failed appends", c.Buffered())
	}
}

func TestAppendColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 18, Scale: 2}, Nullable: true},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	}, nil)
	c, err := NewCoalescer(schema, Config{BatchRows: 1000, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	const n = 2500
	ids := make([]int64, n)
	names := make([]string, n)
	prices := make([]int64, n)
	oks := make([]bool, n)
	valid := make([]bool, n)
	xs := make([]any, n)
	want := array.NewRecordBuilder(mem, schema)
	defer want.Release()
	for i := range n {
		ids[i], names[i], prices[i], oks[i], valid[i] = int64(i), "n"+strings.Repeat("a", i%5), int64(i)*199, i%3 == 0, i%7 != 0
		want.Field(0).(*array.Int64Builder).Append(int64(i))
		if valid[i] {
			want.Field(1).(*array.StringBuilder).Append(names[i])
		} else {
			want.Field(1).AppendNull()
		}
		want.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(prices[i]))
		want.Field(3).(*array.BooleanBuilder).Append(oks[i])
		if i%4 == 0 {
			want.Field(4).AppendNull()
		} else {
			xs[i] = float32(i)
			want.Field(4).(*array.Float32Builder).Append(float32(i))
		}
	}
	if err := c.AppendColumns(ids, Column{Values: names, Valid: valid}, prices, oks, xs); err != nil {
		t.Fatal(err)
	}
	got, nb := drain(t, mem, c, 1000, true)
	defer releaseAll(got)
	wrec := want.NewRecordBatch()
	defer wrec.Release()
	for i, col := range got {
		if !array.Equal(col, wrec.Column(i)) {
			t.Errorf("column %s differs", schema.Field(i).Name)
		}
	}
	if nb != 3 {
		t.Errorf("%d batches", nb)
	}
	prices[5] = 1e18 // past decimal(18,2)
	err = c.AppendColumns(ids[:10], names[:10], prices[:10], oks[:10], xs[:10])
	var re *RowError
	if !errors.Is(err, ErrRange) || !errors.As(err, &re) || re.Row != n+5 || re.Column != 2 {
		t.Errorf("overflow: %v", err)
	}
	if c.Buffered() != 0 {
		t.Errorf("%d rows left", c.Buffered())
	}
	if err := c.AppendColumns(ids[:3], names[:2], prices[:3], oks[:3], xs[:3]); !errors.Is(err, ErrSchema) {
		t.Errorf("ragged: %v", err)
	}
	if err := c.AppendColumns(ids, names, prices, oks, "nope"); !errors.Is(err, ErrSchema) {
		t.Errorf("bad column: %v", err)
	}
}
