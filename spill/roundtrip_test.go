package spill

import (
	"errors"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// settings are the codecs every round trip runs under.
var settings = []codec.Setting{codec.SettingNone, codec.SettingLZ4, {Kind: codec.Zstd, Level: 1}}

// newTestManager returns a Manager in a temporary folder whose writes
// allocate from mem; the test fails if it leaves a file behind.
func newTestManager(t testing.TB, cfg Config, mem memory.Allocator) *Manager {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	cfg.Alloc = mem
	m, err := NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	})
	return m
}

// spillAll writes recs to a new file of m and returns it.
func spillAll(t testing.TB, m *Manager, recs ...arrow.RecordBatch) *File {
	t.Helper()
	w, err := m.NewFile("test")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	f, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// readAll reads f back and checks it against want.
func checkFile(t testing.TB, f *File, mem memory.Allocator, want ...arrow.RecordBatch) {
	t.Helper()
	r, err := f.Open(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	i := 0
	for r.Next() {
		if i >= len(want) {
			t.Fatalf("more than %d batches", len(want))
		}
		got := r.RecordBatch()
		if !got.Schema().Equal(want[i].Schema()) {
			t.Fatalf("batch %d: schema\n%s\nwant\n%s", i, got.Schema(), want[i].Schema())
		}
		if !array.RecordEqual(got, want[i]) {
			for c := range int(got.NumCols()) {
				if !array.Equal(got.Column(c), want[i].Column(c)) {
					t.Errorf("batch %d column %d (%s) differs:\n got %v\nwant %v", i, c, got.Schema().Field(c).Name, got.Column(c), want[i].Column(c))
				}
			}
			t.FailNow()
		}
		i++
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(want) {
		t.Fatalf("read %d batches, want %d", i, len(want))
	}
}

func TestRoundTripAllTypes(t *testing.T) {
	for _, s := range settings {
		t.Run(fmt.Sprint("codec=", s), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			m := newTestManager(t, Config{Codec: s}, mem)
			whole := datagen.Record(mem, 300, 1)
			defer whole.Release()
			sliced := whole.NewSlice(17, 250)
			defer sliced.Release()
			empty := whole.NewSlice(5, 5)
			defer empty.Release()
			f := spillAll(t, m, whole, sliced, empty, whole)
			defer f.Remove()
			checkFile(t, f, mem, whole, sliced, empty, whole)
			if f.Batches() != 4 || f.Rows() != 300+233+300 {
				t.Fatalf("%d batches, %d rows", f.Batches(), f.Rows())
			}
		})
	}
}

func TestRoundTripStrings(t *testing.T) {
	for _, s := range settings {
		t.Run(fmt.Sprint("codec=", s), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			m := newTestManager(t, Config{Codec: s}, mem)
			var recs []arrow.RecordBatch
			defer func() { releaseRecords(recs) }()
			add := func(r arrow.RecordBatch) { recs = append(recs, r) }
			add(stringRecord(mem, 1000, 1, 3)) // nulls with junk under them
			add(stringRecord(mem, 500, 2, 0))  // no nulls
			add(stringRecord(mem, 64, 3, 1))   // all null
			add(recs[0].NewSlice(3, 901))      // unaligned slice
			add(recs[0].NewSlice(8, 16))       // aligned slice
			add(recs[1].NewSlice(100, 100))    // empty
			add(stringRecord(mem, 0, 4, 0))    // empty, never sliced
			f := spillAll(t, m, recs...)
			defer f.Remove()
			checkFile(t, f, mem, recs...)
		})
	}
}

func releaseRecords(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// TestSpillSchema checks which columns are written as lengths: top-level
// strings and binaries when the codec compresses, nothing otherwise.
func TestSpillSchema(t *testing.T) {
	schema := datagen.AllTypes()
	asIs := newPlan(schema, false)
	if !asIs.spill.Equal(schema) {
		t.Fatalf("uncompressed spill schema differs:\n%s", asIs.spill)
	}
	p := newPlan(schema, true)
	encoded := map[string]string{"str": "utf8", "bin": "binary", "lstr": "large_utf8", "lbin": "large_binary", "strview": "string_view", "binview": "binary_view"}
	for i, f := range p.spill.Fields() {
		orig, want := encoded[f.Name]
		got := f.Metadata.FindKey(encodingKey) >= 0
		if got != want {
			t.Errorf("field %q: encoded %v, want %v", f.Name, got, want)
			continue
		}
		if !want {
			if !arrow.TypeEqual(f.Type, schema.Field(i).Type) {
				t.Errorf("field %q changed type to %s", f.Name, f.Type)
			}
			continue
		}
		if v, _ := f.Metadata.GetValue(origTypeKey); v != orig {
			t.Errorf("field %q: %s = %q, want %q", f.Name, origTypeKey, v, orig)
		}
		if f.Type.ID() != arrow.STRUCT || f.Nullable != schema.Field(i).Nullable {
			t.Errorf("field %q: %s nullable=%v", f.Name, f.Type, f.Nullable)
		}
	}
	// The schema's metadata gains the format version and keeps the rest.
	for _, sp := range []*arrow.Schema{asIs.spill, p.spill} {
		md := sp.Metadata()
		if v, _ := md.GetValue(versionKey); v != formatVersion {
			t.Errorf("%s = %q", versionKey, v)
		}
		if v, _ := md.GetValue("origin"); v != "quiver datagen" {
			t.Errorf("schema metadata lost: %v", md)
		}
	}
	if schema.Metadata().FindKey(versionKey) >= 0 {
		t.Errorf("caller's schema metadata changed")
	}
	// The caller's field metadata is kept, and not changed in place.
	rec := stringRecord(memory.NewGoAllocator(), 1, 1, 0)
	defer rec.Release()
	sp := newPlan(rec.Schema(), true).spill
	if v, _ := sp.Field(0).Metadata.GetValue("mine"); v != "kept" {
		t.Fatalf("field metadata lost: %v", sp.Field(0).Metadata)
	}
	if rec.Schema().Field(0).Metadata.Len() != 1 {
		t.Fatalf("caller's field metadata changed: %v", rec.Schema().Field(0).Metadata)
	}
}

// TestWorkedExample pins the example of doc.go.
func TestWorkedExample(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues([]string{"arrow", "", "arrow", "lz4"}, []bool{true, false, true, true})
	a := b.NewArray()
	defer a.Release()
	d := encodeLengths(a.Data(), colLengths, mem)
	defer d.Release()
	s := array.MakeFromData(d).(*array.Struct)
	defer s.Release()
	if got := fmt.Sprint(s.Field(0)); got != "[5 0 5 3]" {
		t.Errorf("lengths %s", got)
	}
	ree := s.Field(1).(*array.RunEndEncoded)
	if got := fmt.Sprint(ree.RunEndsArr(), ree.Values()); got != `[4] ["arrowarrowlz4"]` {
		t.Errorf("run %s", got)
	}
	if s.NullN() != 1 || s.IsValid(1) {
		t.Errorf("validity: %d nulls", s.NullN())
	}
	back, err := decodeLengths(d, colLengths, arrow.BinaryTypes.String, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer back.Release()
	got := array.MakeFromData(back)
	defer got.Release()
	if !array.Equal(got, a) {
		t.Fatalf("decoded %v, want %v", got, a)
	}
}

// TestDictionaries spills dictionary columns whose dictionary stays,
// grows (a delta message) and changes (a replacement).
func TestDictionaries(t *testing.T) {
	for _, s := range settings {
		t.Run(fmt.Sprint("codec=", s), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			m := newTestManager(t, Config{Codec: s}, mem)
			dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
			schema := arrow.NewSchema([]arrow.Field{
				{Name: "d", Type: dt, Nullable: true},
				{Name: "s", Type: arrow.BinaryTypes.String},
			}, nil)
			mk := func(dict []string, idx []int8, valid []bool) arrow.RecordBatch {
				db := array.NewStringBuilder(mem)
				defer db.Release()
				db.AppendValues(dict, nil)
				da := db.NewArray()
				defer da.Release()
				ib := array.NewInt8Builder(mem)
				defer ib.Release()
				ib.AppendValues(idx, valid)
				ia := ib.NewArray()
				defer ia.Release()
				col := array.NewDictionaryArray(dt, ia, da)
				defer col.Release()
				sb := array.NewStringBuilder(mem)
				defer sb.Release()
				for range idx {
					sb.Append("same")
				}
				sa := sb.NewArray()
				defer sa.Release()
				return array.NewRecordBatch(schema, []arrow.Array{col, sa}, int64(len(idx)))
			}
			recs := []arrow.RecordBatch{
				mk([]string{"a", "b"}, []int8{0, 1, 1, 0}, []bool{true, true, false, true}),
				mk([]string{"a", "b"}, []int8{1, 1}, nil),         // same dictionary: no message
				mk([]string{"a", "b", "c"}, []int8{2, 0, 1}, nil), // delta
				mk([]string{"zz", "y"}, []int8{0, 1, 0}, nil),     // replacement
			}
			recs = append(recs, recs[2].NewSlice(1, 3))
			defer releaseRecords(recs)
			f := spillAll(t, m, recs...)
			defer f.Remove()
			checkFile(t, f, mem, recs...)
		})
	}
}

// TestFileWithoutBatches: Finish right after NewFile leaves a valid file
// whose schema has no fields.
func TestFileWithoutBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newTestManager(t, Config{Codec: codec.SettingLZ4}, mem)
	f := spillAll(t, m)
	defer f.Remove()
	if f.Batches() != 0 || f.Rows() != 0 || f.Schema().NumFields() != 0 {
		t.Fatalf("%d batches, %d rows, schema %s", f.Batches(), f.Rows(), f.Schema())
	}
	checkFile(t, f, mem)
}

// TestSchemaMismatch: a record of another schema is refused and the
// writer goes on.
func TestSchemaMismatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newTestManager(t, Config{}, mem)
	a := stringRecord(mem, 10, 1, 0)
	defer a.Release()
	b := datagen.Record(mem, 10, 1)
	defer b.Release()
	w, err := m.NewFile("mismatch")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(a); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(b); !errors.Is(err, batch.ErrSchema) {
		t.Fatalf("other schema: %v, want batch.ErrSchema", err)
	}
	if err := w.Write(a); err != nil {
		t.Fatal(err)
	}
	f, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Remove()
	checkFile(t, f, mem, a, a)
}

// TestOpenTwice reads one file with two readers at once, as a merge pass
// re-reading a run does.
func TestOpenTwice(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newTestManager(t, Config{Codec: codec.SettingLZ4}, mem)
	a, b := stringRecord(mem, 100, 1, 4), stringRecord(mem, 50, 2, 0)
	defer a.Release()
	defer b.Release()
	f := spillAll(t, m, a, b)
	defer f.Remove()
	r1, err := f.Open(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Release()
	if !r1.Next() {
		t.Fatal(r1.Err())
	}
	checkFile(t, f, mem, a, b) // a second reader, while the first is open
	if !r1.Next() || !array.RecordEqual(r1.RecordBatch(), b) {
		t.Fatalf("first reader's second batch: %v", r1.Err())
	}
	if r1.Next() || r1.Err() != nil {
		t.Fatalf("after the last batch: %v", r1.Err())
	}
}

// TestRoundTripConcurrent compresses and decompresses each batch's
// buffers on several goroutines (Config.Concurrency).
func TestRoundTripConcurrent(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newTestManager(t, Config{Codec: codec.SettingZstd, Concurrency: 3}, mem)
	a, b := datagen.Record(mem, 200, 5), stringRecord(mem, 300, 6, 4)
	defer a.Release()
	defer b.Release()
	f1, f2 := spillAll(t, m, a, a), spillAll(t, m, b)
	defer f1.Remove()
	defer f2.Remove()
	checkFile(t, f1, mem, a, a)
	checkFile(t, f2, mem, b)
}
