//go:build polars

// Package polars checks quiver's Arrow IPC against a reader and writer no
// one here wrote: polars (Rust) through nodejs-polars, and quiver's CSV
// reader against polars' on the same file (csv_test.go). It needs Node and
// `npm install` in this folder (see .ci/run), hence the build tag:
//
//	npm install --prefix interop/polars
//	go test -tags polars ./interop/polars
package polars

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// columnFacts is what read.js reports per column.
type columnFacts struct {
	Nulls    int64  `json:"nulls"`
	Distinct int64  `json:"distinct"`
	Sum      string `json:"sum,omitempty"`
}

type fileFacts struct {
	Path string                 `json:"path"`
	Rows int64                  `json:"rows"`
	Cols map[string]columnFacts `json:"cols"`
}

// factsOf computes in Go what read.js computes in polars.
func factsOf(recs []arrow.RecordBatch) fileFacts {
	f := fileFacts{Cols: map[string]columnFacts{}}
	schema := recs[0].Schema()
	for c, field := range schema.Fields() {
		var nulls, sum int64
		seen := map[string]bool{}
		isInt := field.Type.ID() == arrow.INT64
		for _, r := range recs {
			col := r.Column(c)
			for i := range col.Len() {
				if col.IsNull(i) {
					nulls++
					seen["\x00null"] = true
					continue
				}
				seen[col.ValueStr(i)] = true
				if isInt {
					sum += col.(*array.Int64).Value(i)
				}
			}
		}
		cf := columnFacts{Nulls: nulls, Distinct: int64(len(seen))}
		if isInt {
			cf.Sum = strconv.FormatInt(sum, 10)
		}
		f.Cols[field.Name] = cf
	}
	for _, r := range recs {
		f.Rows += r.NumRows()
	}
	return f
}

func node(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command("node", append([]string{script}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	return out
}

// TestPolarsReadsQuiver: polars reads quiver's files and streams with
// every codec, raw (-1) buffers included, and sees the same data.
func TestPolarsReadsQuiver(t *testing.T) {
	mem := memory.NewGoAllocator()
	recs := datagen.CometRecords(mem, 50_000, 8192)
	want := factsOf(recs)
	dir := t.TempDir()
	cases := map[string]batch.WriteOptions{
		"none":         {Codec: codec.SettingNone},
		"lz4":          {Codec: codec.SettingLZ4},
		"zstd1":        {Codec: codec.Setting{Kind: codec.Zstd, Level: 1}},
		"zstd19":       {Codec: codec.Setting{Kind: codec.Zstd, Level: 19}},
		"lz4-raw":      {Codec: codec.SettingLZ4, MinSaving: 0.9}, // most buffers stored raw
		"zstd-threads": {Codec: codec.SettingZstd, Concurrency: 2},
	}
	var paths []string
	for name, opts := range cases {
		for _, file := range []bool{true, false} {
			p := filepath.Join(dir, name+map[bool]string{true: ".arrow", false: ".arrows"}[file])
			writeFile(t, p, recs, opts, file)
			paths = append(paths, p)
		}
	}
	out := node(t, "read.js", paths...)
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var got fileFacts
		if err := json.Unmarshal(sc.Bytes(), &got); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		if got.Rows != want.Rows || fmt.Sprint(got.Cols) != fmt.Sprint(want.Cols) {
			t.Errorf("%s: polars sees %+v\nwant %+v", filepath.Base(got.Path), got, want)
		}
		n++
	}
	if n != len(paths) {
		t.Fatalf("polars reported %d files of %d", n, len(paths))
	}
}

func writeFile(t *testing.T, path string, recs []arrow.RecordBatch, opts batch.WriteOptions, file bool) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if file {
		w, err = batch.NewFileWriter(f, recs[0].Schema(), opts)
	} else {
		w, err = batch.NewStreamWriter(f, recs[0].Schema(), opts)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestQuiverReadsPolars: quiver reads what polars writes, uncompressed,
// LZ4 and zstd, and sees what polars itself sees.
func TestQuiverReadsPolars(t *testing.T) {
	dir := t.TempDir()
	node(t, "write.js", dir)
	for _, name := range []string{"uncompressed", "lz4", "zstd"} {
		p := filepath.Join(dir, "polars_"+name+".arrow")
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		r, err := batch.NewFileReader(bytes.NewReader(data), int64(len(data)), batch.ReadOptions{Alloc: mem})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var recs []arrow.RecordBatch
		for i := range r.NumRecords() {
			rec, err := r.Record(i)
			if err != nil {
				t.Fatalf("%s record %d: %v", name, i, err)
			}
			recs = append(recs, rec)
		}
		got := factsOf(recs)
		var polars fileFacts
		if err := json.Unmarshal(node(t, "read.js", p), &polars); err != nil {
			t.Fatal(err)
		}
		if got.Rows != polars.Rows || fmt.Sprint(got.Cols) != fmt.Sprint(polars.Cols) {
			t.Errorf("%s: quiver sees %+v\npolars sees %+v", name, got, polars)
		}
		for _, rec := range recs {
			rec.Release()
		}
		r.Release()
		mem.AssertSize(t, 0)
	}
}
