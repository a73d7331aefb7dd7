package tpchparquet

import (
	"bytes"
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/quiverdb/quiver/datagen/tpch"
)

// TestWriteTable reads the file back: the rows, the exact types and the
// row groups.
func TestWriteTable(t *testing.T) {
	for _, table := range tpch.Tables {
		var buf bytes.Buffer
		if err := WriteTable(&buf, table, 0.05); err != nil {
			t.Fatal(err)
		}
		pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fr.ReadTable(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		want, _ := tpch.Schema(table)
		for i, f := range want.Fields() {
			if g := got.Schema().Field(i); g.Name != f.Name || !arrow.TypeEqual(g.Type, f.Type) {
				t.Errorf("%s: column %d is %s %s, want %s %s", table, i, g.Name, g.Type, f.Name, f.Type)
			}
		}
		rows := countRows(t, table, 0.05)
		if got.NumRows() != rows {
			t.Errorf("%s: %d rows, want %d", table, got.NumRows(), rows)
		}
		if want := 1 + int((rows-1)/GroupRows); pf.NumRowGroups() != want {
			t.Errorf("%s: %d row groups, want %d", table, pf.NumRowGroups(), want)
		}
		got.Release()
		pf.Close()
	}
}

func countRows(t *testing.T, table string, sf float64) int64 {
	r, err := tpch.NewReader(memory.DefaultAllocator, table, sf)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	n := int64(0)
	for r.Next() {
		n += r.RecordBatch().NumRows()
	}
	return n
}
