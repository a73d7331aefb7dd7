package cache

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/zeebo/xxh3"

	"github.com/quiverdb/quiver/codec"
)

// valuesHash hashes every value of a table in order, whatever its
// batches: what a compaction must keep.
func valuesHash(t *testing.T, c *Cache, name string) (rows int64, hash uint64) {
	t.Helper()
	recs, _ := scanAll(t, c, name, ScanOptions{})
	defer release(recs)
	h := xxh3.New()
	for _, rec := range recs {
		rows += rec.NumRows()
		for i := range int(rec.NumRows()) { // row by row: batch bounds do not count
			for _, col := range rec.Columns() {
				h.WriteString(col.ValueStr(i))
				h.Write([]byte{0})
			}
		}
	}
	return rows, h.Sum64()
}

// compactableInput is allTypesInput without its union columns, which
// arrow-go cannot concatenate.
func compactableInput(t *testing.T, mem memory.Allocator) []arrow.RecordBatch {
	in := allTypesInput(mem)
	defer release(in)
	var keep []int
	var fields []arrow.Field
	for i, f := range in[0].Schema().Fields() {
		if _, union := f.Type.(arrow.UnionType); !union {
			keep, fields = append(keep, i), append(fields, f)
		}
	}
	if len(keep) == len(fields) && len(keep) == int(in[0].NumCols()) {
		t.Fatal("allTypesInput has no union column: the test of Compactable needs one")
	}
	schema := arrow.NewSchema(fields, nil)
	out := make([]arrow.RecordBatch, len(in))
	for i, rec := range in {
		cols := make([]arrow.Array, len(keep))
		for j, k := range keep {
			cols[j] = rec.Column(k)
		}
		out[i] = array.NewRecordBatch(schema, cols, rec.NumRows())
	}
	return out
}

// TestCompactRefusesUnions: a table with a union column is not
// compactable, and says why.
func TestCompactRefusesUnions(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	in := allTypesInput(mem)
	defer release(in)
	put(t, c, "t", in[0].Schema(), in, TableOptions{})
	if Compactable(in[0].Schema()) {
		t.Fatal("Compactable says yes to a union column")
	}
	_, err := c.PrepareCompact(t.Context(), "t", c.mustGen(t, "t"), 0, 2, 100)
	if err == nil || !strings.Contains(err.Error(), "union") {
		t.Fatalf("compaction of a table with unions: %v", err)
	}
}

func appendRecs(t *testing.T, c *Cache, name string, schema *arrow.Schema, recs []arrow.RecordBatch) {
	t.Helper()
	r, err := array.NewRecordReader(schema, recs)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if _, err := c.Append(context.Background(), name, r, TableOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestCompactKeepsRowsAndStats: batches of every type (sliced, one
// empty), put then appended twice, compacted into batches of 500 rows:
// the same values in the same order, each new batch's statistics those
// of its rows, the table's statistics and distinct counts unchanged, and
// the budget counting the new batches only.
func TestCompactKeepsRowsAndStats(t *testing.T) {
	for _, s := range []struct {
		name string
		opts TableOptions
	}{
		{"auto", TableOptions{Codec: Auto}},
		{"lz4 plain", TableOptions{Codec: Fixed(codec.SettingLZ4), Plain: true}},
	} {
		t.Run(s.name, func(t *testing.T) {
			mem := checked(t)
			c := newCache(t, mem, 0)
			in := compactableInput(t, mem)
			defer release(in)
			schema := in[0].Schema()
			put(t, c, "t", schema, in, s.opts)
			appendRecs(t, c, "t", schema, in)
			appendRecs(t, c, "t", schema, in[1:2])
			before, _ := c.Info("t")
			rows, hash := valuesHash(t, c, "t")
			stats, err := c.Stats("t")
			if err != nil {
				t.Fatal(err)
			}
			ch, err := c.PrepareCompact(t.Context(), "t", before.Generation, 1, before.Batches, 500)
			if err != nil {
				t.Fatal(err)
			}
			after, err := ch.Commit()
			if err != nil {
				t.Fatal(err)
			}
			// 1 kept, then 1,101 rows in batches of 500.
			if want := 1 + 3; after.Batches != want || after.Rows != before.Rows {
				t.Fatalf("after: %d batches of %d rows, want %d of %d", after.Batches, after.Rows, want, before.Rows)
			}
			if r, h := valuesHash(t, c, "t"); r != rows || h != hash {
				t.Fatalf("values changed: %d rows %x, want %d %x", r, h, rows, hash)
			}
			got, _ := c.Stats("t")
			stats.Batches = got.Batches
			if !reflect.DeepEqual(got, stats) {
				t.Fatalf("table statistics changed:\n%+v\nwant\n%+v", got, stats)
			}
			snap, _ := c.snapshot("t")
			recs, _ := scanAll(t, c, "t", ScanOptions{})
			defer release(recs)
			for i, rec := range recs {
				for col := range rec.Columns() {
					if want := ComputeStats(rec.Column(col)); !reflect.DeepEqual(snap.entries[i].stats[col], want) {
						t.Errorf("batch %d column %d stats %+v, its rows have %+v", i, col, snap.entries[i].stats[col], want)
					}
				}
			}
			if c.Used() != after.Compressed {
				t.Fatalf("the budget counts %d bytes, the table holds %d", c.Used(), after.Compressed)
			}
			for i, col := range after.Columns {
				if col.Distinct != before.Columns[i].Distinct || col.Encoding == "" {
					t.Errorf("column %q: distinct %d encoding %q, was %d %q", col.Name, col.Distinct, col.Encoding, before.Columns[i].Distinct, before.Columns[i].Encoding)
				}
			}
		})
	}
}

// TestCompactRebase: an Append that commits while a compaction is
// prepared is kept after the compacted batches; a Put meanwhile makes the
// compaction fail with ErrConflict and hold nothing.
func TestCompactRebase(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	in := compactableInput(t, mem)
	defer release(in)
	schema := in[0].Schema()
	put(t, c, "t", schema, in, TableOptions{})
	appendRecs(t, c, "t", schema, in)
	info, _ := c.Info("t")
	ch, err := c.PrepareCompact(t.Context(), "t", info.Generation, 0, info.Batches, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	appendRecs(t, c, "t", schema, in[:1])
	after, err := ch.Commit()
	if err != nil {
		t.Fatal(err)
	}
	if after.Batches != 2 || after.Rows != info.Rows+in[0].NumRows() {
		t.Fatalf("after the rebase: %d batches, %d rows", after.Batches, after.Rows)
	}
	// The values: the table's twice, then the first batch.
	c2 := newCache(t, mem, 0)
	put(t, c2, "t", schema, append(append(append([]arrow.RecordBatch{}, in...), in...), in[0]), TableOptions{})
	r1, h1 := valuesHash(t, c, "t")
	r2, h2 := valuesHash(t, c2, "t")
	if r1 != r2 || h1 != h2 {
		t.Fatalf("rebased table %d rows %x, want %d %x", r1, h1, r2, h2)
	}

	info, _ = c.Info("t")
	ch, err = c.PrepareCompact(t.Context(), "t", info.Generation, 0, info.Batches, 100)
	if err != nil {
		t.Fatal(err)
	}
	put(t, c, "t", schema, in[:1], TableOptions{})
	if _, err := ch.Commit(); !errors.Is(err, ErrConflict) {
		t.Fatalf("compaction over a replaced table: %v, want ErrConflict", err)
	}
	if now, _ := c.Info("t"); c.Used() != now.Compressed {
		t.Fatalf("the budget counts %d bytes, the table holds %d", c.Used(), now.Compressed)
	}
	if _, err := c.PrepareCompact(t.Context(), "t", info.Generation, 0, 1, 100); !errors.Is(err, ErrConflict) {
		t.Fatalf("compaction of an old generation: %v, want ErrConflict", err)
	}
	if _, err := c.PrepareCompact(t.Context(), "t", c.mustGen(t, "t"), 0, 5, 100); err == nil {
		t.Fatal("compaction past the last batch accepted")
	}
}

func (c *Cache) mustGen(t *testing.T, name string) uint64 {
	info, err := c.Info(name)
	if err != nil {
		t.Fatal(err)
	}
	return info.Generation
}
