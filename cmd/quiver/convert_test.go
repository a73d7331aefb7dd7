package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/convert/csv"
	"github.com/quiverdb/quiver/datagen/lineitem"
)

// readBack reads an Arrow IPC file or stream twice, with quiver's batch
// layer and with arrow-go's ipc reader, and returns both tables' batches.
func readBack(t *testing.T, path string, file bool) (ours, theirs []arrow.RecordBatch) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := batch.OpenRecords(bytes.NewReader(b), int64(len(b)), batch.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		rec.Retain()
		ours = append(ours, rec)
	}
	if rr.Err() != nil {
		t.Fatal(rr.Err())
	}
	rr.Release()
	if file {
		fr, err := ipc.NewFileReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		for i := range fr.NumRecords() {
			rec, err := fr.RecordBatchAt(i)
			if err != nil {
				t.Fatal(err)
			}
			theirs = append(theirs, rec)
		}
		fr.Close()
	} else {
		sr, err := ipc.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		for sr.Next() {
			rec := sr.RecordBatch()
			rec.Retain()
			theirs = append(theirs, rec)
		}
		if sr.Err() != nil {
			t.Fatal(sr.Err())
		}
		sr.Release()
	}
	return ours, theirs
}

// direct converts path in memory, without the command, for comparison.
func direct(t *testing.T, src convert.Source) []arrow.RecordBatch {
	t.Helper()
	r, err := convert.NewReader(src, convert.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var recs []arrow.RecordBatch
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return recs
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
}

func sameTables(t *testing.T, what string, a, b []arrow.RecordBatch) {
	t.Helper()
	ta := array.NewTableFromRecords(a[0].Schema(), a)
	tb := array.NewTableFromRecords(b[0].Schema(), b)
	defer ta.Release()
	defer tb.Release()
	// Field metadata (Parquet's field ids) may differ; the data may not.
	if ta.NumRows() != tb.NumRows() || ta.NumCols() != tb.NumCols() {
		t.Fatalf("%s: %d×%d vs %d×%d", what, ta.NumRows(), ta.NumCols(), tb.NumRows(), tb.NumCols())
	}
	for i := range int(ta.NumCols()) {
		if !array.ChunkedEqual(ta.Column(i).Data(), tb.Column(i).Data()) {
			t.Errorf("%s: column %s differs", what, ta.Schema().Field(i).Name)
		}
	}
	for i, rec := range a[:len(a)-1] {
		if rec.NumRows() != convert.DefaultBatchRows {
			t.Errorf("%s: batch %d has %d rows", what, i, rec.NumRows())
		}
	}
}

func release(recs ...[]arrow.RecordBatch) {
	for _, rs := range recs {
		for _, r := range rs {
			r.Release()
		}
	}
}

func TestConvertCSVAndParquet(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "lineitem.csv")
	f, _ := os.Create(csvPath)
	if _, err := lineitem.Write(f, 0, 30_000, 5); err != nil {
		t.Fatal(err)
	}
	f.Close()
	csvBytes, _ := os.ReadFile(csvPath)

	// CSV to an IPC file (zstd) and stream (lz4).
	for _, tc := range []struct {
		format, codec string
	}{{"file", "zstd:1"}, {"stream", "lz4"}, {"file", "none"}} {
		out := filepath.Join(dir, "out-"+tc.format+"-"+tc.codec+".arrow")
		code, stdout, stderr := runCLI("convert", csvPath, out, "--codec", tc.codec, "--format", tc.format, "--infer-decimal")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if stdout != "" || !strings.Contains(stderr, "30000 rows in 4 batches") {
			t.Errorf("stdout %q stderr %q", stdout, stderr)
		}
		ours, theirs := readBack(t, out, tc.format == "file")
		src, err := csv.NewSource(bytes.NewReader(csvBytes), csv.Options{InferDecimal: true})
		if err != nil {
			t.Fatal(err)
		}
		want := direct(t, src)
		sameTables(t, tc.format+" "+tc.codec+" (batch.OpenRecords)", ours, want)
		sameTables(t, tc.format+" "+tc.codec+" (arrow-go ipc)", theirs, want)
		release(ours, theirs, want)
	}

	// Parquet (written from the CSV's records, in row groups of 5000) to
	// an IPC stream.
	src, err := csv.NewSource(bytes.NewReader(csvBytes), csv.Options{Schema: lineitem.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	want := direct(t, src)
	defer release(want)
	tbl := array.NewTableFromRecords(want[0].Schema(), want)
	pqPath := filepath.Join(dir, "lineitem.parquet")
	pf, _ := os.Create(pqPath)
	if err := pqarrow.WriteTable(tbl, pf, 5000, nil, pqarrow.DefaultWriterProps()); err != nil {
		t.Fatal(err)
	}
	pf.Close()
	tbl.Release()
	out := filepath.Join(dir, "from-parquet.arrows")
	if code, _, stderr := runCLI("convert", pqPath, out, "--format", "stream", "--quiet"); code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ours, theirs := readBack(t, out, false)
	sameTables(t, "parquet (batch.OpenRecords)", ours, want)
	sameTables(t, "parquet (arrow-go ipc)", theirs, want)
	release(ours, theirs)

	// IPC to IPC, and a TSV on standard input is not needed here.
	out2 := filepath.Join(dir, "again.arrow")
	if code, _, stderr := runCLI("convert", out, out2, "--codec", "none", "--quiet"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ours, theirs = readBack(t, out2, true)
	sameTables(t, "ipc", ours, want)
	release(ours, theirs)
}

func TestConvertErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("a,b\n1,2\n3,x\"y\n"), 0o644)
	out := filepath.Join(dir, "out.arrow")
	code, _, stderr := runCLI("convert", bad, out)
	if code != 1 || !strings.Contains(stderr, "line 3, column 2 (b)") {
		t.Errorf("malformed: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output left behind: %v", err)
	}
	code, _, stderr = runCLI("convert", bad, out, "--skip-malformed", "--schema-free")
	if code != 2 {
		t.Errorf("unknown flag: exit %d %q", code, stderr)
	}
	os.WriteFile(bad, []byte("a,b\n1,2\n3,4,5\n6,7\n"), 0o644)
	code, _, stderr = runCLI("convert", bad, out, "--skip-malformed")
	if code != 0 || !strings.Contains(stderr, "1 malformed records skipped") || !strings.Contains(stderr, "line 3") {
		t.Errorf("skip: exit %d %q", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"convert", bad}, 2, "want IN and OUT"},
		{[]string{"convert", bad, out, "--codec", "brotli"}, 2, "--codec"},
		{[]string{"convert", bad, out, "--format", "feather"}, 2, "--format"},
		{[]string{"convert", filepath.Join(dir, "none.csv"), out}, 1, "no such file"},
		{[]string{"convert", dir, out}, 1, "is a directory"},
	} {
		code, _, stderr := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
