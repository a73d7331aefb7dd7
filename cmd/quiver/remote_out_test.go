package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/server"
)

// wantRows are the rows of writeCSV's file with id in [from, to), as
// rowLines prints them.
func wantRows(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		val := strconv.FormatFloat(float64(i)/4, 'f', -1, 64)
		if i%7 == 3 {
			val = "NULL"
		}
		out = append(out, fmt.Sprintf("%d|name %d|%s", i, i%10, val))
	}
	return out
}

// rowLines reads every row of rr as "a|b|c", cells as query prints them.
func rowLines(t *testing.T, rr array.RecordReader) []string {
	t.Helper()
	var out []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := range int(rec.NumRows()) {
			cells := make([]string, rec.NumCols())
			for j, col := range rec.Columns() {
				cells[j] = formatCell(col, i)
			}
			out = append(out, strings.Join(cells, "|"))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: row %d is %q, want %q", what, i, got[i], want[i])
		}
	}
}

// readArrowFile returns the rows of an .arrow file and the codec of its
// batches.
func readArrowFile(t *testing.T, path string) ([]string, []codec.Kind) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := batch.OpenRecords(f, st.Size(), batch.ReadOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	rows := rowLines(t, rr)
	rr.Release()
	var kinds []codec.Kind
	_, isFile, err := batch.Inspect(f, st.Size(), batch.ReadOptions{}, true, func(m *batch.MessageInfo) error {
		kinds = append(kinds, m.Codec)
		return nil
	})
	if err != nil || !isFile {
		t.Fatalf("inspect: file=%v, %v", isFile, err)
	}
	return rows, kinds
}

func readParquetFile(t *testing.T, path string) []string {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1000}, mem)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	return rowLines(t, rr)
}

func TestRemoteQueryOut(t *testing.T) {
	ts := startTestServer(t, server.Config{MaxBatchRows: 1000})
	mustRun(t, "load", "--server", ts.uri, "--quiet", "t", writeCSV(t, 5000))
	dir := t.TempDir()
	const sql = "SELECT id, name, val FROM t WHERE id >= 100 ORDER BY id"
	want := wantRows(100, 5000)

	// .arrow keeps the result's codec, or takes --out-codec.
	for _, tc := range []struct {
		args []string
		want codec.Kind
	}{
		{[]string{"--codec", "zstd:1"}, codec.Zstd},
		{[]string{"--codec", "lz4"}, codec.LZ4},
		{[]string{"--codec", "none"}, codec.None},
		{[]string{"--codec", "zstd:1", "--out-codec", "lz4"}, codec.LZ4},
	} {
		out := filepath.Join(dir, "r.arrow")
		stdout, errs := mustRun(t, append(append([]string{"query", "--server", ts.uri, "--out", out}, tc.args...), sql)...)
		if stdout != "" {
			t.Errorf("%v: printed %q", tc.args, stdout)
		}
		if rows, batches, _, _ := summary(t, errs); rows != len(want) || batches != 5 {
			t.Errorf("%v: summary %q", tc.args, errs)
		}
		got, kinds := readArrowFile(t, out)
		sameRows(t, fmt.Sprint(tc.args), got, want)
		for _, k := range kinds {
			if k != tc.want {
				t.Errorf("%v: batch codec %v, want %v; %s", tc.args, k, tc.want, errs)
			}
		}
	}

	out := filepath.Join(dir, "r.csv")
	mustRun(t, "query", "--server", ts.uri, "--out", out, sql)
	text, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	if lines[0] != "id,name,val" {
		t.Errorf("CSV header %q", lines[0])
	}
	csvWant := make([]string, len(want))
	for i, w := range want {
		csvWant[i] = strings.ReplaceAll(strings.TrimSuffix(w, "|NULL")+strings.Repeat("|", strings.Count(w, "|NULL")), "|", ",")
	}
	sameRows(t, "csv", lines[1:], csvWant)

	out = filepath.Join(dir, "r.parquet")
	mustRun(t, "query", "--server", ts.uri, "--out", out, sql)
	sameRows(t, "parquet", readParquetFile(t, out), want)

	// An empty result still makes a file with the schema.
	out = filepath.Join(dir, "empty.csv")
	mustRun(t, "query", "--server", ts.uri, "--out", out, "SELECT id, name FROM t WHERE id < 0")
	if text, _ := os.ReadFile(out); string(text) != "id,name\n" {
		t.Errorf("empty CSV: %q", text)
	}
	out = filepath.Join(dir, "empty.arrow")
	mustRun(t, "query", "--server", ts.uri, "--out", out, "SELECT id, name FROM t WHERE id < 0")
	if rows, _ := readArrowFile(t, out); len(rows) != 0 {
		t.Errorf("empty arrow: %v", rows)
	}

	// A failed query leaves no file, partial or temporary.
	out = filepath.Join(dir, "failed.parquet")
	if code, _, _ := runCLI("query", "--server", ts.uri, "--out", out, "SELECT nope FROM t"); code != 1 {
		t.Errorf("bad SQL: exit %d", code)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 5 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files left: %v", names)
	}
}

// TestLocalQueryOut: --out works without a server too.
func TestLocalQueryOut(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.arrow")
	mustRun(t, "query", "--rows", "1000", "--out", out, "SELECT id FROM comet WHERE id < 10 AND id IS NOT NULL ORDER BY id")
	got, kinds := readArrowFile(t, out)
	// ids 1..9 but 8 (NULL one row in 8): see TestQueryCommand.
	sameRows(t, "local", got, []string{"1", "2", "3", "4", "5", "6", "7", "9"})
	if len(kinds) == 0 || kinds[0] != codec.Zstd {
		t.Errorf("local .arrow codec %v, want zstd", kinds)
	}
}
