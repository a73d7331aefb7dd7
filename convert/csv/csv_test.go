package csv

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/convert"
)

// readAll reads every batch; it returns each row's fields as strings
// (null as "∅", binary as its bytes), the error that ended the read, and the reader's stats.
func readAll(t testing.TB, in string, opts Options) ([][]string, error, convert.Stats) {
	t.Helper()
	r, err := NewReader(strings.NewReader(in), opts)
	if err != nil {
		return nil, err, convert.Stats{}
	}
	defer r.Release()
	var rows [][]string
	for {
		rec, err := r.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return rows, err, r.Stats()
		}
		for i := range int(rec.NumRows()) {
			var row []string
			for _, c := range rec.Columns() {
				switch {
				case c.IsNull(i) || c.DataType().ID() == arrow.NULL:
					row = append(row, "∅")
				case c.DataType().ID() == arrow.BINARY || c.DataType().ID() == arrow.LARGE_BINARY:
					row = append(row, string(c.(interface{ Value(int) []byte }).Value(i)))
				default:
					row = append(row, c.ValueStr(i))
				}
			}
			rows = append(rows, row)
		}
		for _, c := range rec.Columns() {
			if err := array.ValidateFull(c); err != nil {
				t.Fatalf("invalid column: %v", err)
			}
		}
		rec.Release()
	}
}

func strSchema(n int) *arrow.Schema {
	fs := make([]arrow.Field, n)
	for i := range fs {
		fs[i] = arrow.Field{Name: fmt.Sprintf("c%d", i+1), Type: arrow.BinaryTypes.String, Nullable: true}
	}
	return arrow.NewSchema(fs, nil)
}

func TestRFC4180(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // rows joined by "|", fields by ","; or the error's text
		err      error
	}{
		{"plain", "a,b\n1,2\n3,4\n", "1,2|3,4", nil},
		{"no final newline", "a,b\n1,2\n3,4", "1,2|3,4", nil},
		{"crlf", "a,b\r\n1,2\r\n3,4\r\n", "1,2|3,4", nil},
		{"quoted", "a,b\n\"x,y\",\"he said \"\"hi\"\"\"\n", "x;y,he said \"hi\"", nil},
		{"embedded newline", "a,b\n\"line1\nline2\",z\n1,2\n", "line1/line2,z|1,2", nil},
		{"embedded crlf kept", "a,b\n\"l1\r\nl2\",z\n", "l1\r/l2,z", nil},
		{"empty fields", "a,b,c\n,,\n", ",,", nil},
		{"trailing delimiter", "a,b\n1,\n", "1,", nil},
		{"quoted empty", "a,b\n\"\",x\n", ",x", nil},
		{"blank lines skipped", "a,b\n\n1,2\n\r\n\n3,4\n\n", "1,2|3,4", nil},
		{"bom", "\xef\xbb\xbfa,b\n1,2\n", "1,2", nil},
		{"header only", "a,b\n", "", nil},
		{"cr inside raw field", "a,b\nx\ry,2\n", "x\ry,2", nil},
		{"empty input", "", "csv: line 1: malformed input: empty input, no header line", convert.ErrMalformed},
		{"only blank lines", "\n\n", "csv: line 3: malformed input: empty input, no header line", convert.ErrMalformed},
		{"ragged short", "a,b\n1,2\n3\n5,6\n", "csv: line 3: malformed input: 1 fields, want 2", convert.ErrMalformed},
		{"ragged long", "a,b\n1,2\n3,4,5\n", "csv: line 3: malformed input: more than 2 fields, want 2", convert.ErrMalformed},
		{"bare quote", "a,b\n1,2\n3,x\"y\n", "csv: line 3, column 2 (b): malformed input: bare quote in an unquoted field, and the quotes never balance before the end of the input", convert.ErrMalformed},
		{"text after quote", "a,b\n1,2\n\"3\"x,4\n", "csv: line 3, column 1 (a): malformed input: 'x' after a closing quote", convert.ErrMalformed},
		{"unterminated quote", "a,b\n1,2\n\"3,4\n5,6\n", "csv: line 3, column 1 (a): malformed input: quoted field not closed before the end of the input", convert.ErrMalformed},
		{"error line after multiline field", "a,b\n\"x\ny\nz\",1\n1,2,3\n", "csv: line 5: malformed input: more than 2 fields, want 2", convert.ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, conc := range []int{1, 3} {
				for _, chunk := range []int{1 << 20, 3} {
					rows, err, _ := readAll(t, tc.in, Options{Schema: nil, Concurrency: conc, ChunkBytes: chunk,
						NullTokens: []string{}, InferRows: 1})
					if tc.err != nil {
						if !errors.Is(err, tc.err) || err.Error() != tc.want {
							t.Fatalf("conc %d chunk %d: err %v, want %q", conc, chunk, err, tc.want)
						}
						continue
					}
					if err != nil {
						t.Fatalf("conc %d chunk %d: %v", conc, chunk, err)
					}
					var parts []string
					for _, r := range rows {
						s := strings.Join(r, ",")
						parts = append(parts, strings.NewReplacer(",", ",", "\n", "/").Replace(s))
					}
					got := strings.Join(parts, "|")
					want := strings.ReplaceAll(tc.want, ";", ",")
					if got != want && !(tc.name == "quoted" && got == "x,y,he said \"hi\"") {
						t.Fatalf("conc %d chunk %d: got %q, want %q", conc, chunk, got, want)
					}
				}
			}
		})
	}
}

func TestRowsBeforeErrorComeFirst(t *testing.T) {
	in := "a,b\n1,2\n3,4\n5\n7,8\n"
	rows, err, _ := readAll(t, in, Options{Schema: arrow.NewSchema([]arrow.Field{
		{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "b", Type: arrow.PrimitiveTypes.Int64}}, nil)})
	if len(rows) != 2 || err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Fatalf("rows %v err %v", rows, err)
	}
}

func TestBadValues(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 5, Scale: 2}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	good := "1,2.5,123.45,2024-01-01,2024-01-01 10:00:00.123,true,x\n"
	for _, tc := range []struct {
		line string
		col  int
		err  error
	}{
		{"x,2.5,1,2024-01-01,2024-01-01,true,x", 1, convert.ErrMalformed},
		{"3000000000,2.5,1,2024-01-01,2024-01-01,true,x", 1, convert.ErrRange},
		{"1,2.5.1,1,2024-01-01,2024-01-01,true,x", 2, convert.ErrMalformed},
		{"1,2.5,1000,2024-01-01,2024-01-01,true,x", 3, convert.ErrRange},
		{"1,2.5,1.001,2024-01-01,2024-01-01,true,x", 3, convert.ErrRange},
		{"1,2.5,1,2024-02-30,2024-01-01,true,x", 4, convert.ErrRange},
		{"1,2.5,1,2024-01-01,2024-01-01T10:00:00Z,true,x", 5, convert.ErrMalformed},
		{"1,2.5,1,2024-01-01,2024-01-01 10:00:00.1234,true,x", 5, convert.ErrRange},
		{"1,2.5,1,2024-01-01,2024-01-01,maybe,x", 6, convert.ErrMalformed},
		{"1,2.5,1,2024-01-01,2024-01-01,true,\xff\xfe", 7, convert.ErrMalformed},
	} {
		in := "i,f,d,day,ts,b,s\n" + good + good + tc.line + "\n" + good
		rows, err, _ := readAll(t, in, Options{Schema: schema, Concurrency: 1})
		var pe *ParseError
		if !errors.Is(err, tc.err) || !errors.As(err, &pe) || pe.Line != 4 || pe.Column != tc.col || len(rows) != 2 {
			t.Errorf("%q: %d rows, err %v; want line 4 column %d, %v", tc.line, len(rows), err, tc.col, tc.err)
		}
		// Skip mode: the bad row goes, the rest stays.
		rows, err, st := readAll(t, in, Options{Schema: schema, SkipMalformed: true, Concurrency: 2, ChunkBytes: 7})
		if err != nil || len(rows) != 3 || st.SkippedRows != 1 {
			t.Errorf("%q skip mode: %d rows, %d skipped, %v", tc.line, len(rows), st.SkippedRows, err)
		}
	}
}

func TestSkipMode(t *testing.T) {
	in := "a,b\n1,2\n3\n\"x\"y,4\n5,z\n6,7\n8,\"9\n"
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "b", Type: arrow.PrimitiveTypes.Int64}}, nil)
	for _, conc := range []int{1, 2} {
		src, err := NewSource(strings.NewReader(in), Options{Schema: schema, SkipMalformed: true, Concurrency: conc, ChunkBytes: 4})
		if err != nil {
			t.Fatal(err)
		}
		r, _ := convert.NewReader(src, convert.Config{})
		var n int64
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			n += rec.NumRows()
			rec.Release()
		}
		if n != 2 || r.Stats().SkippedRows != 4 {
			t.Errorf("conc %d: %d rows, %d skipped", conc, n, r.Stats().SkippedRows)
		}
		var lines []string
		for _, e := range src.Skipped() {
			lines = append(lines, fmt.Sprint(e.Line, ":", e.Column))
		}
		if strings.Join(lines, " ") != "3:0 4:1 5:2 7:2" {
			t.Errorf("conc %d: skipped %v", conc, src.Skipped())
		}
		r.Release()
	}
}

func TestInfer(t *testing.T) {
	in := "i,f,d,b,day,ts,tsz,s,e,big\n" +
		"1,1.5,1.25,true,2024-01-01,2024-01-01 10:00:00,2024-01-01T10:00:00Z,x,,99999999999999999999\n" +
		"-2,3,2.5,F,2024-02-29,2024-01-01 10:00:00.5,2024-01-01T10:00:00+02:00,1,,1\n" +
		"NULL,1e3,,t,,,,2,,2\n"
	r, err := NewReader(strings.NewReader(in), Options{InferDecimal: false})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var got []string
	for _, f := range r.Schema().Fields() {
		got = append(got, f.Type.String())
	}
	want := "int64 float64 float64 bool date32 timestamp[us] timestamp[us, tz=UTC] utf8 utf8 float64"
	if strings.Join(got, " ") != want {
		t.Errorf("types %s\nwant  %s", strings.Join(got, " "), want)
	}
	r2, err := NewReader(strings.NewReader(in), Options{InferDecimal: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Release()
	if ty := r2.Schema().Field(2).Type.String(); ty != "decimal(38, 2)" {
		t.Errorf("decimal: %s", ty)
	}
	if ty := r2.Schema().Field(9).Type.String(); ty != "decimal(38, 0)" {
		t.Errorf("big: %s", ty)
	}
	rows, err, _ := readAll(t, "1,2\n3,4\n", Options{NoHeader: true})
	if err != nil || len(rows) != 2 {
		t.Errorf("no header: %v %v", rows, err)
	}
}

func TestLimits(t *testing.T) {
	huge := "a,b\n1," + strings.Repeat("x", 100_000) + "\n2,3\n"
	_, err, _ := readAll(t, huge, Options{MaxRecordBytes: 10_000, ChunkBytes: 1000})
	if !errors.Is(err, convert.ErrLimit) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("huge field: %v", err)
	}
	rows, err, _ := readAll(t, huge, Options{MaxRecordBytes: 1 << 20, ChunkBytes: 1000})
	if err != nil || len(rows) != 2 || len(rows[0][1]) != 100_000 {
		t.Errorf("huge field within the limit: %v", err)
	}
	wide := strings.Repeat("c,", 100) + "c\n"
	if _, err, _ := readAll(t, wide, Options{MaxColumns: 50}); !errors.Is(err, convert.ErrLimit) {
		t.Errorf("wide: %v", err)
	}
	if _, err := NewReader(strings.NewReader("a"), Options{Comma: '"'}); err == nil {
		t.Error("quote as delimiter accepted")
	}
}

// randomCSV writes rows of fields that exercise quoting, embedded
// newlines, CRLF and blank lines, and, when bad, malformed records.
func randomCSV(r *rand.Rand, rows, cols int, bad bool) string {
	var b strings.Builder
	for i := range cols {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "h%d", i)
	}
	b.WriteString("\n")
	for range rows {
		if r.IntN(20) == 0 {
			b.WriteString("\n")
		}
		n := cols
		if bad && r.IntN(15) == 0 {
			n = cols + r.IntN(3) - 1
		}
		for c := range n {
			if c > 0 {
				b.WriteByte(',')
			}
			switch r.IntN(8) {
			case 0:
				b.WriteString(`"a,b"`)
			case 1:
				b.WriteString("\"multi\nline \"\"quoted\"\"\"")
			case 2:
				fmt.Fprint(&b, r.IntN(1000))
			case 3:
				if bad && r.IntN(4) == 0 {
					b.WriteString(`x"y`)
				} else {
					b.WriteString("")
				}
			case 4:
				if bad && r.IntN(4) == 0 {
					b.WriteString(`"q"z`)
				} else {
					b.WriteString(`""`)
				}
			default:
				fmt.Fprintf(&b, "v%d", r.IntN(100))
			}
		}
		if r.IntN(3) == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// TestChunkingEquivalence: whatever the chunk size and concurrency, the
// rows, the error and the skip count are those of one sequential parse.
func TestChunkingEquivalence(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 60 {
		bad := trial%2 == 1
		in := randomCSV(r, 1+r.IntN(200), 1+r.IntN(5), bad)
		for _, skip := range []bool{false, true} {
			base := Options{SkipMalformed: skip, Concurrency: 1, NullTokens: []string{}, InferRows: 1, Convert: convert.Config{Alloc: mem, BatchRows: 50}}
			wantRows, wantErr, wantSt := readAll(t, in, base)
			for _, conc := range []int{1, 2, 4} {
				for _, chunk := range []int{1, 2, 5, 17, 256} {
					o := base
					o.Concurrency, o.ChunkBytes = conc, chunk
					rows, err, st := readAll(t, in, o)
					if fmt.Sprint(err) != fmt.Sprint(wantErr) || fmt.Sprint(rows) != fmt.Sprint(wantRows) || st.SkippedRows != wantSt.SkippedRows {
						t.Fatalf("trial %d skip %v conc %d chunk %d: %d rows, err %v, %d skipped; want %d rows, err %v, %d skipped\n%q",
							trial, skip, conc, chunk, len(rows), err, st.SkippedRows, len(wantRows), wantErr, wantSt.SkippedRows, in)
					}
				}
			}
		}
	}
}

// TestReleaseMidStream: releasing a parallel reader before the end
// stops its goroutines and frees everything.
func TestReleaseMidStream(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	before := runtime.NumGoroutine()
	in := randomCSV(rand.New(rand.NewPCG(1, 1)), 20000, 4, false)
	for range 5 {
		r, err := NewReader(strings.NewReader(in), Options{Concurrency: 4, ChunkBytes: 1000, Convert: convert.Config{Alloc: mem, BatchRows: 100}})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		rec.Release()
		r.Release()
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines, %d before", n, before)
	}
}
