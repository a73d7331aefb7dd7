package batch_test

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// TestProjection: each column alone, a reordered pair, and none (count
// only), from streams and files, equal the full read's columns.
func TestProjection(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := datagen.Record(mem, 200, 5)
	defer rec.Release()
	for _, file := range []bool{false, true} {
		data := writeQuiver(t, []arrow.RecordBatch{rec}, batch.WriteOptions{Codec: codec.SettingZstd, Alloc: mem}, file)
		selections := [][]int{{}, {5, 2}}
		for c := range int(rec.NumCols()) {
			selections = append(selections, []int{c})
		}
		for _, cols := range selections {
			opts := batch.ReadOptions{Columns: cols, Alloc: mem}
			var got arrow.RecordBatch
			if file {
				fr, err := batch.NewFileReader(bytes.NewReader(data), int64(len(data)), opts)
				if err != nil {
					t.Fatal(err)
				}
				if got, err = fr.Record(0); err != nil {
					t.Fatalf("file cols %v: %v", cols, err)
				}
				fr.Release()
			} else {
				recs := readQuiverStream(t, data, opts)
				got = recs[0]
			}
			if got.NumRows() != rec.NumRows() || int(got.NumCols()) != len(cols) {
				t.Fatalf("cols %v: got %d rows %d cols", cols, got.NumRows(), got.NumCols())
			}
			for i, c := range cols {
				if !array.Equal(got.Column(i), rec.Column(c)) {
					t.Fatalf("file=%v column %d (%s) differs", file, c, rec.ColumnName(c))
				}
				if got.Schema().Field(i).Name != rec.ColumnName(c) {
					t.Fatalf("column %d named %q", c, got.Schema().Field(i).Name)
				}
			}
			got.Release()
		}
	}
}

// TestCountOnlyTouchesNoBody: selecting no columns returns the row count
// even when every body byte is garbage.
func TestCountOnlyTouchesNoBody(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := datagen.Record(mem, 50, 6)
	defer rec.Release()
	enc, err := batch.NewEncoder(rec.Schema(), batch.WriteOptions{Codec: codec.SettingLZ4, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	msgs, err := enc.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	m := msgs[len(msgs)-1]
	for i := range m.Body {
		m.Body[i] = 0xAB
	}
	dec, err := batch.NewDecoder(rec.Schema(), batch.ReadOptions{Columns: []int{}, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Release()
	got, err := dec.Decode(m)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if got.NumRows() != 50 || got.NumCols() != 0 {
		t.Fatalf("got %d rows, %d cols", got.NumRows(), got.NumCols())
	}
}

// TestZeroRowsAndColumns: zero-row batches and zero-column schemas
// round-trip through quiver and arrow-go.
func TestZeroRowsAndColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	empty := datagen.Record(mem, 0, 7)
	defer empty.Release()
	noCols := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 42)
	defer noCols.Release()
	for _, rec := range []arrow.RecordBatch{empty, noCols} {
		for _, s := range []codec.Setting{codec.SettingNone, codec.SettingLZ4, codec.SettingZstd} {
			data := writeQuiver(t, []arrow.RecordBatch{rec}, batch.WriteOptions{Codec: s, Alloc: mem}, false)
			got := readQuiverStream(t, data, batch.ReadOptions{Alloc: mem})
			assertEqualRecords(t, []arrow.RecordBatch{rec}, got)
			releaseAll(got)
		}
	}
}
