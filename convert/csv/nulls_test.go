package csv

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/convert"
)

// everyType is a column of each type the reader parses, with a value
// of it as CSV and as readAll prints it.
var everyType = []struct {
	dt       arrow.DataType
	csv, str string
}{
	{arrow.PrimitiveTypes.Int8, "-8", "-8"},
	{arrow.PrimitiveTypes.Int16, "16", "16"},
	{arrow.PrimitiveTypes.Int32, "32", "32"},
	{arrow.PrimitiveTypes.Int64, "64", "64"},
	{arrow.PrimitiveTypes.Uint8, "8", "8"},
	{arrow.PrimitiveTypes.Uint16, "16", "16"},
	{arrow.PrimitiveTypes.Uint32, "32", "32"},
	{arrow.PrimitiveTypes.Uint64, "64", "64"},
	{arrow.PrimitiveTypes.Float32, "1.5", "1.5"},
	{arrow.PrimitiveTypes.Float64, "2.5", "2.5"},
	{arrow.FixedWidthTypes.Boolean, "true", "true"},
	{&arrow.Decimal32Type{Precision: 5, Scale: 2}, "1.25", "1.25"},
	{&arrow.Decimal64Type{Precision: 12, Scale: 2}, "2.5", "2.5"},
	{&arrow.Decimal128Type{Precision: 20, Scale: 1}, "3", "3"},
	{arrow.FixedWidthTypes.Date32, "2024-01-02", "2024-01-02"},
	{arrow.FixedWidthTypes.Date64, "2024-01-03", "2024-01-03"},
	{&arrow.TimestampType{Unit: arrow.Microsecond}, "2024-01-04 10:00:00", "2024-01-04T10:00:00"},
	{arrow.BinaryTypes.String, "x", "x"},
	{arrow.BinaryTypes.LargeString, "y", "y"},
	{arrow.BinaryTypes.Binary, "z", "z"},
	{arrow.BinaryTypes.LargeBinary, "w", "w"},
	{arrow.Null, "", "∅"},
}

func isStringy(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		return true
	}
	return false
}

// TestNullsEveryType: with the default null tokens, an unquoted empty
// field, NULL and null are null in every column type, strings included;
// a quoted field is a value in string and binary columns ("" the empty
// string, "NULL" the word) and null in the others; StringsNeverNull
// takes every string field as it is. Every chunking gives the same, so
// that a field at a chunk's first byte is told right too.
func TestNullsEveryType(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fields := make([]arrow.Field, len(everyType))
	var header []string
	for i, c := range everyType {
		fields[i] = arrow.Field{Name: fmt.Sprintf("c%d", i), Type: c.dt, Nullable: true}
		header = append(header, fields[i].Name)
	}
	schema := arrow.NewSchema(fields, nil)
	// Each row writes one kind of field in every column; row reads
	// it as a value (a string column's value) or as null.
	kinds := []struct {
		name    string
		field   func(csv string) string
		strNull bool   // null in a string column by default
		str     string // its value in a string column otherwise
	}{
		{"value", func(v string) string { return v }, false, ""},
		{"empty", func(string) string { return "" }, true, ""},
		{"NULL", func(string) string { return "NULL" }, true, "NULL"},
		{"null", func(string) string { return "null" }, true, "null"},
		{"quoted empty", func(string) string { return `""` }, false, ""},
		{"quoted NULL", func(string) string { return `"NULL"` }, false, "NULL"},
		{"quoted value", func(v string) string { return `"` + v + `"` }, false, ""},
	}
	var in strings.Builder
	in.WriteString(strings.Join(header, ",") + "\n")
	for _, k := range kinds {
		var row []string
		for _, c := range everyType {
			if c.dt.ID() == arrow.NULL && (k.name == "value" || k.name == "quoted value") {
				row = append(row, k.field(""))
				continue
			}
			row = append(row, k.field(c.csv))
		}
		in.WriteString(strings.Join(row, ",") + "\r\n")
	}
	for _, never := range []bool{false, true} {
		var want []string
		for _, k := range kinds {
			var row []string
			for _, c := range everyType {
				switch {
				case k.name == "value" || k.name == "quoted value":
					row = append(row, c.str)
				case !isStringy(c.dt):
					row = append(row, "∅")
				case k.strNull && !never:
					row = append(row, "∅")
				default:
					row = append(row, k.str)
				}
			}
			want = append(want, strings.Join(row, ","))
		}
		for _, conc := range []int{1, 2} {
			for _, chunk := range []int{1, 5, 1 << 20} {
				rows, err, _ := readAll(t, in.String(), Options{Schema: schema, StringsNeverNull: never,
					Concurrency: conc, ChunkBytes: chunk, Convert: convert.Config{Alloc: mem}})
				if err != nil {
					t.Fatalf("never %v conc %d chunk %d: %v", never, conc, chunk, err)
				}
				for i, r := range rows {
					if got := strings.Join(r, ","); got != want[i] {
						t.Errorf("never %v conc %d chunk %d, row %q:\n got %s\nwant %s", never, conc, chunk, kinds[i].name, got, want[i])
					}
				}
			}
		}
	}
}

// TestNullTokensOption: tokens given replace the defaults in string
// columns as in the others, and none at all makes no nulls.
func TestNullTokensOption(t *testing.T) {
	schema := arrow.NewSchema([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	in := "i,s\nNA,NA\n1,\n2,NULL\n3,\"NA\"\n"
	rows, err, _ := readAll(t, in, Options{Schema: schema, NullTokens: []string{"NA"}})
	if got := fmt.Sprint(rows); err != nil || got != "[[∅ ∅] [1 ] [2 NULL] [3 NA]]" {
		t.Errorf("NA: %s, %v", got, err)
	}
	rows, err, _ = readAll(t, "s,t\n,NULL\n\"\",null\n", Options{NullTokens: []string{}})
	if got := fmt.Sprint(rows); err != nil || got != "[[ NULL] [ null]]" {
		t.Errorf("no tokens: %s, %v", got, err)
	}
}

// TestInferWithNulls: inference skips null fields the way the parse
// reads them, and so agrees with DuckDB's read_csv on these: a column
// empty in the whole sample is a string column of nulls; quoted numbers
// are numbers; a date column with empty fields is a date column.
func TestInferWithNulls(t *testing.T) {
	in := "a,e,q,d,s,qe\n" +
		"1,,\"1\",2024-01-01,x,\"\"\n" +
		"2,,\"2\",,,1\n" +
		"NULL,,\"3\",2024-01-03,\"\",\"\"\n"
	r, err := NewReader(strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, f := range r.Schema().Fields() {
		types = append(types, f.Type.String())
	}
	r.Release()
	if got := strings.Join(types, " "); got != "int64 utf8 int64 date32 utf8 int64" {
		t.Errorf("types %s", got)
	}
	rows, err, _ := readAll(t, in, Options{})
	if got := fmt.Sprint(rows); err != nil || got != "[[1 ∅ 1 2024-01-01 x ∅] [2 ∅ 2 ∅ ∅ 1] [∅ ∅ 3 2024-01-03  ∅]]" {
		t.Errorf("rows %s, %v", got, err)
	}
}

// TestNullsRandom: random fields of every kind (raw, quoted, empty,
// quoted empty, tokens, quoted tokens, embedded quotes, delimiters,
// newlines, CRLF) in string columns read as written, whatever the
// chunking: unquoted tokens null, everything else its text.
func TestNullsRandom(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 40 {
		cols := 1 + r.IntN(4)
		var in strings.Builder
		var want [][]string
		in.WriteString(strings.TrimSuffix(strings.Repeat("h,", cols), ",") + "\n")
		for range 1 + r.IntN(100) {
			var row []string
			for c := range cols {
				if c > 0 {
					in.WriteByte(',')
				}
				raw, val := randomField(r, cols)
				in.WriteString(raw)
				row = append(row, val)
			}
			if r.IntN(3) == 0 {
				in.WriteString("\r\n")
			} else {
				in.WriteString("\n")
			}
			want = append(want, row)
		}
		for _, conc := range []int{1, 3} {
			for _, chunk := range []int{1, 2, 7, 1 << 20} {
				rows, err, _ := readAll(t, in.String(), Options{Schema: strSchema(cols), Concurrency: conc, ChunkBytes: chunk,
					Convert: convert.Config{Alloc: mem, BatchRows: 16}})
				if err != nil || fmt.Sprint(rows) != fmt.Sprint(want) {
					t.Fatalf("trial %d conc %d chunk %d: %v\n got %q\nwant %q\n%q", trial, conc, chunk, err, rows, want, in.String())
				}
			}
		}
	}
}

// randomField returns a field as written and as read into a string
// column with the default null tokens (null as "∅"). A record of one
// empty field is a blank line, which is skipped: not in one column.
func randomField(r *rand.Rand, cols int) (raw, val string) {
	switch r.IntN(9) {
	case 0:
		if cols > 1 {
			return "", "∅"
		}
		return "NULL", "∅"
	case 1:
		return `""`, ""
	case 2:
		return "NULL", "∅"
	case 3:
		return `"null"`, "null"
	case 4:
		return `""""`, `"`
	case 5:
		return "\"a,\nb\"", "a,\nb"
	case 6:
		return "NULLS", "NULLS"
	case 7:
		return `"x""y"`, `x"y`
	}
	v := fmt.Sprint(r.IntN(100))
	return v, v
}
