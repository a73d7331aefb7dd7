package input

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/convert"
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// testRecord is rows id 0..n-1, s "v<id>".
func testRecord(mem memory.Allocator, n int) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, testSchema)
	defer b.Release()
	for i := range n {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append("v" + string(rune('0'+i%10)))
	}
	return b.NewRecordBatch()
}

// writeEvery writes the same 25 rows as CSV, TSV, Parquet, an Arrow IPC
// file and stream, each under a name that lies about its format where
// the content can tell (so the test shows content wins).
func writeEvery(t *testing.T) map[Format][]string {
	t.Helper()
	dir := t.TempDir()
	mem := memory.NewGoAllocator()
	rec := testRecord(mem, 25)
	defer rec.Release()
	var csvText, tsvText strings.Builder
	csvText.WriteString("id,s\n")
	tsvText.WriteString("id\ts\n")
	for i := range 25 {
		v := "v" + string(rune('0'+i%10))
		csvText.WriteString(strings.Join([]string{strconv.Itoa(i), v}, ",") + "\n")
		tsvText.WriteString(strconv.Itoa(i) + "\t" + v + "\n")
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	out := map[Format][]string{
		CSV: {write("plain.csv", []byte(csvText.String())), write("noext", []byte(csvText.String()))},
		TSV: {write("tabs.tsv", []byte(tsvText.String()))},
	}
	pq := filepath.Join(dir, "parquet.csv")
	f, err := os.Create(pq)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := pqarrow.NewFileWriter(testSchema, f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	out[Parquet] = []string{pq}
	for _, kind := range []string{"file", "stream"} {
		p := filepath.Join(dir, kind+".tsv")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		opts := batch.WriteOptions{Codec: codec.SettingZstd}
		var w interface {
			Write(arrow.RecordBatch) error
			Close() error
		}
		if kind == "file" {
			w, err = batch.NewFileWriter(f, testSchema, opts)
		} else {
			w, err = batch.NewStreamWriter(f, testSchema, opts)
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		out[Arrow] = append(out[Arrow], p)
	}
	return out
}

// TestOpenTellsEveryFormat: each format is told by content (a Parquet
// file named .csv, Arrow IPC named .tsv) or, for text, by extension,
// and reads back the same 25 rows in batches of Convert.BatchRows.
func TestOpenTellsEveryFormat(t *testing.T) {
	ctx := context.Background()
	for want, paths := range writeEvery(t) {
		for _, path := range paths {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			cfg := convert.Config{BatchRows: 10, Alloc: mem}
			in, err := Open(ctx, path, Options{Convert: cfg, IPC: batch.ReadOptions{Alloc: mem}})
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if in.Format != want {
				t.Errorf("%s: format %s, want %s", path, in.Format, want)
			}
			r, err := convert.NewReader(in.Source, cfg)
			if err != nil {
				t.Fatal(err)
			}
			rows, batches := 0, 0
			for {
				rec, err := r.Next()
				if err != nil {
					break
				}
				rows += int(rec.NumRows())
				batches++
				if got := rec.Column(1).ValueStr(int(rec.NumRows()) - 1); !strings.HasPrefix(got, "v") {
					t.Errorf("%s: s = %q", path, got)
				}
				rec.Release()
			}
			r.Release()
			in.Close()
			if rows != 25 || batches != 3 {
				t.Errorf("%s: %d rows in %d batches, want 25 in 3", path, rows, batches)
			}
			mem.AssertSize(t, 0)
		}
	}
}

// TestRecordsKeepIPC: with KeepIPC an Arrow IPC input's batches come as
// they were written (one of 25 rows); without, re-batched.
func TestRecordsKeepIPC(t *testing.T) {
	files := writeEvery(t)
	for _, keep := range []bool{true, false} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		r, err := Records(context.Background(), files[Arrow][0], Options{KeepIPC: keep,
			Convert: convert.Config{BatchRows: 10, Alloc: mem}, IPC: batch.ReadOptions{Alloc: mem}})
		if err != nil {
			t.Fatal(err)
		}
		var sizes []int64
		for r.Next() {
			sizes = append(sizes, r.RecordBatch().NumRows())
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		r.Release()
		if want := map[bool]int{true: 1, false: 3}[keep]; len(sizes) != want {
			t.Errorf("KeepIPC %v: batches %v, want %d", keep, sizes, want)
		}
		mem.AssertSize(t, 0)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	files := writeEvery(t)
	if _, err := Open(ctx, t.TempDir(), Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: %v", err)
	}
	if _, err := Open(ctx, files[CSV][0], Options{Format: "xlsx"}); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "xlsx") {
		t.Errorf("unknown format: %v", err)
	}
	if _, err := Open(ctx, "-", Options{Format: Parquet}); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "standard input") {
		t.Errorf("parquet on stdin: %v", err)
	}
	// A CSV file forced to Parquet fails naming the file.
	if _, err := Open(ctx, files[CSV][0], Options{Format: Parquet}); err == nil || !strings.Contains(err.Error(), files[CSV][0]) {
		t.Errorf("CSV as Parquet: %v", err)
	}
	if _, err := Open(ctx, filepath.Join(t.TempDir(), "missing.csv"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		head, path string
		want       Format
	}{
		{"PAR1xxxx", "a.csv", Parquet},
		{"ARROW1\x00\x00", "a.csv", Arrow},
		{"\xff\xff\xff\xff\x10\x00", "a", Arrow},
		{"a\tb\n", "a.TSV", TSV},
		{"a,b\n", "a.txt", CSV},
		{"", "empty", CSV},
	} {
		if got := Sniff([]byte(tc.head), tc.path); got != tc.want {
			t.Errorf("%q %s: %s, want %s", tc.head, tc.path, got, tc.want)
		}
	}
	for _, s := range []string{"", "csv", "TSV", "parquet", "arrow"} {
		if _, err := ParseFormat(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
}

// TestOpenStdin: "-" is CSV on standard input, or TSV when asked.
func TestOpenStdin(t *testing.T) {
	for _, tc := range []struct {
		format Format
		text   string
	}{{Detect, "a,b\n1,x\n2,y\n"}, {TSV, "a\tb\n1\tx\n2\ty\n"}} {
		f, err := os.CreateTemp(t.TempDir(), "stdin")
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(tc.text)
		f.Seek(0, 0)
		old := os.Stdin
		os.Stdin = f
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		r, err := Records(context.Background(), "-", Options{Format: tc.format, Convert: convert.Config{Alloc: mem}})
		os.Stdin = old
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for r.Next() {
			rec := r.RecordBatch()
			rows += int(rec.NumRows())
			if rec.NumCols() != 2 || rec.Column(1).ValueStr(1) != "y" {
				t.Errorf("%q: %v", tc.format, rec)
			}
		}
		r.Release()
		f.Close()
		if r.Err() != nil || rows != 2 {
			t.Errorf("%q: %d rows, %v", tc.format, rows, r.Err())
		}
		mem.AssertSize(t, 0)
	}
}
