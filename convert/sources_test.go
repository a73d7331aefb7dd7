package convert

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// readAllBatches drains r, checking every batch but the last has rows
// rows, and returns the batches.
func readAllBatches(t *testing.T, r *Reader, rows int) []arrow.RecordBatch {
	t.Helper()
	var recs []arrow.RecordBatch
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	for i, rec := range recs[:max(len(recs)-1, 0)] {
		if int(rec.NumRows()) != rows {
			t.Errorf("batch %d: %d rows, want %d", i, rec.NumRows(), rows)
		}
	}
	return recs
}

func concatColumn(t *testing.T, mem memory.Allocator, recs []arrow.RecordBatch, col int) arrow.Array {
	t.Helper()
	var parts []arrow.Array
	for _, r := range recs {
		parts = append(parts, r.Column(col))
	}
	a, err := array.Concatenate(parts, mem)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func releaseRecs(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// TestIPCSource: IPC files and streams written by the batch layer, with
// dictionaries and every matrix type, re-batch to 1000 rows equal to
// the rows rebuilt value by value.
func TestIPCSource(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(3, 3))
	for _, file := range []bool{true, false} {
		// The file format cannot replace dictionaries: files get none.
		var ins []arrow.RecordBatch
		for _, n := range []int{700, 1, 2500, 300} {
			ins = append(ins, matrixInputDict(mem, n, 0.2, r, !file))
		}
		defer releaseRecs(ins)
		var buf bytes.Buffer
		var w interface {
			Write(arrow.RecordBatch) error
			Close() error
		}
		var err error
		opts := batch.WriteOptions{Codec: codec.SettingZstd}
		if file {
			w, err = batch.NewFileWriter(&buf, ins[0].Schema(), opts)
		} else {
			w, err = batch.NewStreamWriter(&buf, ins[0].Schema(), opts)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range ins {
			if err := w.Write(in); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		src, err := OpenIPC(bytes.NewReader(buf.Bytes()), int64(buf.Len()), batch.ReadOptions{Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		rd, err := NewReader(src, Config{BatchRows: 1000, Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		recs := readAllBatches(t, rd, 1000)
		want := rebuilt(t, mem, rd.Schema(), ins)
		for i := range rd.Schema().NumFields() {
			got := concatColumn(t, mem, recs, i)
			if !array.Equal(got, want[i]) {
				t.Errorf("file=%v: column %s differs", file, rd.Schema().Field(i).Name)
			}
			got.Release()
		}
		if st := rd.Stats(); st.Rows != 3501 || st.InputBytes != int64(buf.Len()) {
			t.Errorf("stats %+v", st)
		}
		releaseAll(want)
		releaseRecs(recs)
		rd.Release()
	}
}

// TestParquetSource: a Parquet file of several row groups re-batches
// across them to exactly 1000 rows a batch, equal to what was written.
func TestParquetSource(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(4, 4))
	types := []arrow.DataType{
		arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64,
		arrow.BinaryTypes.String, arrow.FixedWidthTypes.Boolean, arrow.FixedWidthTypes.Date32,
		&arrow.Decimal128Type{Precision: 18, Scale: 2}, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
		arrow.ListOf(arrow.PrimitiveTypes.Int32),
		arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}),
	}
	const rows = 5555
	var fields []arrow.Field
	var cols []arrow.Array
	for i, dt := range types {
		b := array.NewBuilder(mem, dt)
		g := datagen.Gen(mem, dt, rows, 0.2, r)
		for j := range rows {
			datagen.Append(b, g, j) // builder layout, as Parquet will give back
		}
		g.Release()
		cols = append(cols, b.NewArray())
		b.Release()
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", i), Type: dt, Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	rec := array.NewRecordBatch(schema, cols, rows)
	releaseAll(cols)
	defer rec.Release()
	var buf bytes.Buffer
	tbl := array.NewTableFromRecords(schema, []arrow.RecordBatch{rec})
	if err := pqarrow.WriteTable(tbl, &buf, 1200, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	tbl.Release()
	for _, pr := range []int{0, 777} {
		src, err := OpenParquet(context.Background(), bytes.NewReader(buf.Bytes()), ParquetOptions{BatchRows: pr, Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		rd, err := NewReader(src, Config{BatchRows: 1000, Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		recs := readAllBatches(t, rd, 1000)
		if len(recs) != 6 {
			t.Errorf("%d batches", len(recs))
		}
		for i := range schema.NumFields() {
			got := concatColumn(t, mem, recs, i)
			if !array.Equal(got, rec.Column(i)) {
				t.Errorf("pqarrow batch %d: column %s (%s) differs", pr, schema.Field(i).Name, schema.Field(i).Type)
			}
			got.Release()
		}
		releaseRecs(recs)
		rd.Release()
	}
}

// A fake database/sql driver serving generated rows.
type fakeDriver struct{}

type fakeConn struct{}

type fakeRows struct {
	cols  []fakeCol
	rows  [][]driver.Value
	i     int
	valid bool
}

type fakeCol struct {
	name, dbType string
	scan         reflect.Type
	prec, scale  int64
}

var fakeData *fakeRows

func (fakeDriver) Open(string) (driver.Conn, error)  { return fakeConn{}, nil }
func (fakeConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("no") }
func (fakeConn) Close() error                        { return nil }
func (fakeConn) Begin() (driver.Tx, error)           { return nil, errors.New("no") }
func (fakeConn) QueryContext(context.Context, string, []driver.NamedValue) (driver.Rows, error) {
	r := *fakeData
	return &r, nil
}
func (r *fakeRows) Columns() []string {
	var n []string
	for _, c := range r.cols {
		n = append(n, c.name)
	}
	return n
}
func (r *fakeRows) Close() error { return nil }
func (r *fakeRows) Next(dest []driver.Value) error {
	if r.i >= len(r.rows) {
		return io.EOF
	}
	copy(dest, r.rows[r.i])
	r.i++
	return nil
}
func (r *fakeRows) ColumnTypeScanType(i int) reflect.Type   { return r.cols[i].scan }
func (r *fakeRows) ColumnTypeDatabaseTypeName(i int) string { return r.cols[i].dbType }
func (r *fakeRows) ColumnTypeNullable(int) (bool, bool)     { return true, true }
func (r *fakeRows) ColumnTypePrecisionScale(i int) (int64, int64, bool) {
	return r.cols[i].prec, r.cols[i].scale, r.cols[i].prec > 0
}

func init() { sql.Register("quiverfake", fakeDriver{}) }

func TestSQLRows(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fakeData = &fakeRows{cols: []fakeCol{
		{"id", "BIGINT", reflect.TypeFor[sql.NullInt64](), 0, 0},
		{"price", "DECIMAL", reflect.TypeFor[sql.RawBytes](), 12, 2},
		{"name", "VARCHAR", reflect.TypeFor[sql.RawBytes](), 0, 0},
		{"blob", "BLOB", reflect.TypeFor[[]byte](), 0, 0},
		{"x", "DOUBLE", reflect.TypeFor[float64](), 0, 0},
		{"ok", "BOOL", reflect.TypeFor[bool](), 0, 0},
		{"day", "DATE", reflect.TypeFor[time.Time](), 0, 0},
		{"at", "TIMESTAMP", reflect.TypeFor[time.Time](), 0, 0},
	}}
	t0 := time.Date(2024, 5, 6, 7, 8, 9, 123456000, time.UTC)
	want := array.NewRecordBuilder(mem, arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "price", Type: &arrow.Decimal128Type{Precision: 12, Scale: 2}, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "blob", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	}, nil))
	defer want.Release()
	const n = 2345
	for i := range n {
		if i%10 == 3 {
			fakeData.rows = append(fakeData.rows, make([]driver.Value, 8))
			for j := range 8 {
				want.Field(j).AppendNull()
			}
			continue
		}
		price := fmt.Sprintf("%d.%02d", i*7, i%100)
		fakeData.rows = append(fakeData.rows, []driver.Value{int64(i), []byte(price), []byte(fmt.Sprint("n", i)), []byte{byte(i)},
			float64(i) / 3, i%2 == 0, t0, t0.Add(time.Duration(i) * time.Second)})
		want.Field(0).(*array.Int64Builder).Append(int64(i))
		d, _ := decimal128.FromString(price, 12, 2)
		want.Field(1).(*array.Decimal128Builder).Append(d)
		want.Field(2).(*array.StringBuilder).Append(fmt.Sprint("n", i))
		want.Field(3).(*array.BinaryBuilder).Append([]byte{byte(i)})
		want.Field(4).(*array.Float64Builder).Append(float64(i) / 3)
		want.Field(5).(*array.BooleanBuilder).Append(i%2 == 0)
		want.Field(6).(*array.Date32Builder).Append(arrow.Date32FromTime(t0))
		ts, _ := arrow.TimestampFromTime(t0.Add(time.Duration(i)*time.Second), arrow.Microsecond)
		want.Field(7).(*array.TimestampBuilder).Append(ts)
	}
	wrec := want.NewRecordBatch()
	defer wrec.Release()
	db, err := sql.Open("quiverfake", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("select")
	if err != nil {
		t.Fatal(err)
	}
	src, err := FromRows(rows, nil)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := NewReader(src, Config{BatchRows: 1000, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Release()
	if !rd.Schema().Equal(wrec.Schema()) {
		t.Fatalf("schema\n%v\nwant\n%v", rd.Schema(), wrec.Schema())
	}
	recs := readAllBatches(t, rd, 1000)
	defer releaseRecs(recs)
	for i := range wrec.Schema().NumFields() {
		got := concatColumn(t, mem, recs, i)
		if !array.Equal(got, wrec.Column(i)) {
			t.Errorf("column %s differs", wrec.Schema().Field(i).Name)
		}
		got.Release()
	}
	// A value past the column's precision names its row and column.
	fakeData.rows[1500][1] = []byte("99999999999.99")
	rows, _ = db.Query("select")
	src, _ = FromRows(rows, nil)
	rd2, _ := NewReader(src, Config{BatchRows: 1000, Alloc: mem})
	defer rd2.Release()
	var re *RowError
	for {
		rec, err := rd2.Next()
		if err != nil {
			if !errors.Is(err, ErrRange) || !errors.As(err, &re) || re.Row != 1500 || re.Name != "price" {
				t.Errorf("overflow: %v", err)
			}
			break
		}
		rec.Release()
	}
}
