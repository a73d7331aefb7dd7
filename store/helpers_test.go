package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/zeebo/xxh3"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/store/vfs"
)

// checked returns an allocator that fails the test if anything allocated
// from it is still held when the test ends.
func checked(t testing.TB) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

func newCache(t testing.TB, mem memory.Allocator) *cache.Cache {
	t.Helper()
	c, err := cache.New(cache.Options{Alloc: mem, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// open opens dir into a new cache, with no background compaction (tests
// of it use openWith); the store is closed when the test ends.
func open(t testing.TB, dir string, mem memory.Allocator, fs vfs.FS) (*Store, *cache.Cache) {
	t.Helper()
	return openWith(t, dir, mem, Options{FS: fs, Compaction: Compaction{Files: -1}})
}

func openWith(t testing.TB, dir string, mem memory.Allocator, opts Options) (*Store, *cache.Cache) {
	t.Helper()
	c := newCache(t, mem)
	s, err := Open(dir, c, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, c
}

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "x", Type: arrow.PrimitiveTypes.Float64},
	{Name: "kind", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}},
}, nil)

// batches returns a reader of n batches of rows rows each, from seed.
func batches(mem memory.Allocator, seed uint64, n, rows int) array.RecordReader {
	r := rand.New(rand.NewPCG(seed, 1))
	recs := make([]arrow.RecordBatch, n)
	dict := array.NewBuilder(mem, arrow.BinaryTypes.String).(*array.StringBuilder)
	dict.AppendValues([]string{"red", "green", "blue"}, nil)
	dictArr := dict.NewArray()
	defer dictArr.Release()
	dict.Release()
	for b := range n {
		ids := array.NewInt64Builder(mem)
		names := array.NewStringBuilder(mem)
		xs := array.NewFloat64Builder(mem)
		kinds := array.NewInt32Builder(mem)
		for i := range rows {
			ids.Append(int64(seed)*1_000_000 + int64(b*rows+i))
			if r.IntN(10) == 0 {
				names.AppendNull()
			} else {
				names.Append(fmt.Sprintf("n%d", r.IntN(1000)))
			}
			xs.Append(r.Float64())
			kinds.Append(int32(r.IntN(3)))
		}
		idx := kinds.NewArray()
		arrs := []arrow.Array{ids.NewArray(), names.NewArray(), xs.NewArray(), array.NewDictionaryArray(testSchema.Field(3).Type, idx, dictArr)}
		idx.Release()
		recs[b] = array.NewRecordBatch(testSchema, arrs, int64(rows))
		for _, a := range arrs {
			a.Release()
		}
		for _, bld := range []array.Builder{ids, names, xs, kinds} {
			bld.Release()
		}
	}
	rd, err := array.NewRecordReader(testSchema, recs)
	if err != nil {
		panic(err)
	}
	for _, rec := range recs {
		rec.Release()
	}
	return rd
}

// content is what a table holds: its rows, a hash of every value, row
// by row, and its batches (which a compaction changes, the rest not);
// rows is -1 when there is no table.
type content struct {
	rows    int64
	hash    uint64
	batches int
}

func (c content) String() string {
	return fmt.Sprintf("%d rows in %d batches, hash %016x", c.rows, c.batches, c.hash)
}

// sameRows reports whether c and o hold the same rows in the same order,
// however batched.
func (c content) sameRows(o content) bool { return c.rows == o.rows && c.hash == o.hash }

var absent = content{rows: -1}

// contentOf scans every column of table name.
func contentOf(t testing.TB, c *cache.Cache, name string) content {
	t.Helper()
	s, err := c.Scan(context.Background(), name, cache.ScanOptions{})
	if errors.Is(err, cache.ErrNotFound) {
		return absent
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	h := xxh3.New()
	var got content
	for s.Next() {
		rec := s.RecordBatch()
		got.rows += rec.NumRows()
		got.batches++
		for i := range int(rec.NumRows()) {
			for _, col := range rec.Columns() {
				h.WriteString(col.ValueStr(i))
				h.Write([]byte{0})
			}
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("scanning %q: %v", name, err)
	}
	got.hash = h.Sum64()
	return got
}

func put(t testing.TB, s *Store, name string, r array.RecordReader) {
	t.Helper()
	defer r.Release()
	if _, err := s.Put(context.Background(), name, r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t testing.TB, s *Store, name string, r array.RecordReader) {
	t.Helper()
	defer r.Release()
	if _, err := s.Append(context.Background(), name, r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the regular files of src into a new directory.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// files lists a directory's names.
func files(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names
}

var testOpts = cache.TableOptions{}

// checkedFor is a checked allocator for one change's input batches.
func checkedFor(t testing.TB) memory.Allocator { return checked(t) }
