package shuffle

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.PrimitiveTypes.Int64},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64},
}, nil)

// row is one row of testSchema as Go values ("" with null for a null s).
type row struct {
	k    int64
	s    string
	null bool
	f    float64
}

func makeRecord(mem memory.Allocator, rows []row) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, testSchema)
	defer b.Release()
	for _, r := range rows {
		b.Field(0).(*array.Int64Builder).Append(r.k)
		if r.null {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(r.s)
		}
		b.Field(2).(*array.Float64Builder).Append(r.f)
	}
	return b.NewRecordBatch()
}

func randomRows(rng *rand.Rand, n int) []row {
	out := make([]row, n)
	for i := range out {
		out[i] = row{k: rng.Int64N(1000), s: fmt.Sprintf("value-%d", rng.IntN(50)), null: rng.IntN(7) == 0, f: rng.Float64()}
		if out[i].null {
			out[i].s = ""
		}
	}
	return out
}

// rowsOf reads a reader's records back as rows; cols is the projection
// (nil: all).
func rowsOf(t *testing.T, r *BlockReader, cols []int) []row {
	t.Helper()
	if cols == nil {
		cols = []int{0, 1, 2}
	}
	var out []row
	for r.Next() {
		rec := r.RecordBatch()
		for i := range int(rec.NumRows()) {
			var x row
			for j, c := range cols {
				switch col := rec.Column(j).(type) {
				case *array.Int64:
					x.k = col.Value(i)
				case *array.String:
					x.null = col.IsNull(i)
					if !x.null {
						x.s = col.Value(i)
					}
				case *array.Float64:
					x.f = col.Value(i)
				default:
					t.Fatalf("column %d (%d): %T", j, c, col)
				}
			}
			out = append(out, x)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func project(rows []row, cols []int) []row {
	keep := map[int]bool{}
	for _, c := range cols {
		keep[c] = true
	}
	out := make([]row, len(rows))
	for i, r := range rows {
		if keep[0] {
			out[i].k = r.k
		}
		if keep[1] {
			out[i].s, out[i].null = r.s, r.null
		}
		if keep[2] {
			out[i].f = r.f
		}
	}
	return out
}

func newManager(t *testing.T, quota int64) *spill.Manager {
	t.Helper()
	m, err := spill.NewManager(spill.Config{Dir: t.TempDir(), Quota: quota})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m
}

func filesIn(t *testing.T, m *spill.Manager) int {
	t.Helper()
	es, err := os.ReadDir(m.Dir())
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// Every partition reads back exactly the rows written to it, in order,
// for random partitionings, over several runs (a small buffer), with and
// without read-ahead and projection; no Arrow memory is left.
func TestBlocksRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, parts := range []int{1, 7, 64} {
		for _, c := range []codec.Setting{{}, {Kind: codec.LZ4}, {Kind: codec.Zstd, Level: 1}} {
			t.Run(fmt.Sprintf("partitions=%d/codec=%s", parts, c), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				m := newManager(t, 0)
				w, err := NewMapWriter(m, "q1-map0", testSchema, parts, WriterOptions{Codec: c, Alloc: mem, BufferBytes: 4 << 10})
				if err != nil {
					t.Fatal(err)
				}
				want := make([][]row, parts)
				batches := 12
				if testing.Short() { // CI's race pass
					batches = 5
				}
				for range batches {
					rows := randomRows(rng, rng.IntN(700))
					ids := make([]int32, len(rows))
					skew := rng.IntN(3) == 0 // sometimes all rows to one partition
					for i := range ids {
						if !skew {
							ids[i] = int32(rng.IntN(max(parts/2, 1))) // half the partitions stay empty
						}
						want[ids[i]] = append(want[ids[i]], rows[i])
					}
					rec := makeRecord(mem, rows)
					err := w.WriteRows(context.Background(), rec, ids)
					rec.Release()
					if err != nil {
						t.Fatal(err)
					}
				}
				out, err := w.Finish()
				if err != nil {
					t.Fatal(err)
				}
				for p := range parts {
					if (out.Sizes()[p] == 0) != (len(want[p]) == 0) {
						t.Fatalf("partition %d: %d bytes for %d rows", p, out.Sizes()[p], len(want[p]))
					}
				}
				for _, ahead := range []int{-1, 0, 3} {
					for _, cols := range [][]int{nil, {2, 0}} {
						for p := range parts {
							r, err := ReadBlocks(context.Background(), []Block{{out, p}}, ReadOptions{Columns: cols, ReadAhead: ahead, Alloc: mem})
							if err != nil {
								t.Fatal(err)
							}
							got := rowsOf(t, r, cols)
							r.Release()
							exp := want[p]
							if cols != nil {
								exp = project(exp, cols)
								got = project(got, []int{0, 2}) // rowsOf fills by type
							}
							if fmt.Sprint(got) != fmt.Sprint(exp) {
								t.Fatalf("partition %d ahead %d cols %v: %d rows, want %d", p, ahead, cols, len(got), len(exp))
							}
						}
					}
				}
				// All partitions in one reader: the concatenation.
				var blocks []Block
				var all []row
				for p := range parts {
					blocks = append(blocks, Block{out, p})
					all = append(all, want[p]...)
				}
				r, err := ReadBlocks(context.Background(), blocks, ReadOptions{Alloc: mem})
				if err != nil {
					t.Fatal(err)
				}
				if got := rowsOf(t, r, nil); fmt.Sprint(got) != fmt.Sprint(all) {
					t.Fatalf("all partitions: %d rows, want %d", len(got), len(all))
				}
				r.Release()
				if err := out.Remove(); err != nil {
					t.Fatal(err)
				}
				if n := filesIn(t, m); n != 0 {
					t.Fatalf("%d files left", n)
				}
			})
		}
	}
}

// A map output file up to its end-of-stream marker is one Arrow IPC
// stream: arrow-go-compatible readers (here quiver's own stream reader)
// read every partition's rows in partition order.
func TestMapOutputIsAStream(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newManager(t, 0)
	w, err := NewMapWriter(m, "s", testSchema, 3, WriterOptions{Codec: codec.Setting{Kind: codec.Zstd, Level: 1}})
	if err != nil {
		t.Fatal(err)
	}
	rows := randomRows(rand.New(rand.NewPCG(1, 1)), 30)
	rec := makeRecord(mem, rows)
	defer rec.Release()
	if err := w.WriteRows(context.Background(), rec, make([]int32, 30)); err != nil {
		t.Fatal(err)
	}
	out, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := streamRows(t, f, mem)
	if n != 30 {
		t.Fatalf("stream holds %d rows, want 30", n)
	}
}

// Dictionary columns: each block decodes alone (its batches carry their
// dictionaries), whichever partition is read and whatever dictionary
// each written batch had, and the file is still one Arrow IPC stream.
func TestDictionaryBlocks(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newManager(t, 0)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}, {Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	const parts = 4
	w, err := NewMapWriter(m, "d", schema, parts, WriterOptions{Codec: codec.SettingLZ4, Alloc: mem, BufferBytes: 256})
	if err != nil {
		t.Fatal(err)
	}
	want := make([][]string, parts)
	rng := rand.New(rand.NewPCG(3, 4))
	for b := range 5 { // a dictionary of its own per batch
		db := array.NewDictionaryBuilder(mem, dt).(*array.BinaryDictionaryBuilder)
		kb := array.NewInt64Builder(mem)
		ids := make([]int32, 40)
		for i := range ids {
			ids[i] = int32(rng.IntN(parts))
			v := fmt.Sprintf("b%d-v%d", b, rng.IntN(6))
			if i%9 == 0 {
				db.AppendNull()
				v = "null"
			} else if err := db.AppendString(v); err != nil {
				t.Fatal(err)
			}
			kb.Append(int64(i))
			want[ids[i]] = append(want[ids[i]], v)
		}
		d, k := db.NewArray(), kb.NewArray()
		rec := array.NewRecordBatch(schema, []arrow.Array{d, k}, 40)
		err := w.WriteRows(context.Background(), rec, ids)
		rec.Release()
		d.Release()
		k.Release()
		db.Release()
		kb.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	out, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	defer out.Remove()
	for p := range parts {
		r, err := ReadBlocks(context.Background(), []Block{{Output: out, Partition: p}}, ReadOptions{Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for r.Next() {
			col := r.RecordBatch().Column(0).(*array.Dictionary)
			vals := col.Dictionary().(*array.String)
			for i := range col.Len() {
				if col.IsNull(i) {
					got = append(got, "null")
				} else {
					got = append(got, vals.Value(col.GetValueIndex(i)))
				}
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Release()
		if fmt.Sprint(got) != fmt.Sprint(want[p]) {
			t.Errorf("partition %d: %v, want %v", p, got, want[p])
		}
	}
	f, err := os.Open(out.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n := streamRows(t, f, mem); n != 200 {
		t.Fatalf("stream holds %d rows, want 200", n)
	}
}

// A write past the spill quota fails with spill's ErrQuota and removes
// the file.
func TestWriteFailureRemovesFile(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newManager(t, 2000)
	w, err := NewMapWriter(m, "q", testSchema, 4, WriterOptions{BufferBytes: 1, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	rec := makeRecord(mem, randomRows(rand.New(rand.NewPCG(2, 2)), 500))
	defer rec.Release()
	err = w.WriteRows(context.Background(), rec, make([]int32, 500))
	if !errors.Is(err, spill.ErrQuota) {
		t.Fatalf("got %v, want ErrQuota", err)
	}
	if n := filesIn(t, m); n != 0 || m.Stats().DiskBytes != 0 {
		t.Fatalf("%d files, %d bytes left", n, m.Stats().DiskBytes)
	}
	if _, err := w.Finish(); !errors.Is(err, spill.ErrQuota) {
		t.Fatalf("Finish after failure: %v", err)
	}
}

// writeShuffle runs maps map tasks of random rows into a Shuffle.
func writeShuffle(t *testing.T, s *Shuffle, mem memory.Allocator, maps, parts int, finish bool) [][]row {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(maps), uint64(parts)))
	want := make([][]row, parts)
	for mi := range maps {
		w, err := s.NewMapWriter(mi)
		if err != nil {
			t.Fatal(err)
		}
		rows := randomRows(rng, 300)
		ids := make([]int32, len(rows))
		for i := range ids {
			ids[i] = int32(rng.IntN(parts))
			want[ids[i]] = append(want[ids[i]], rows[i])
		}
		rec := makeRecord(mem, rows)
		err = w.WriteRows(context.Background(), rec, ids)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		if finish {
			if _, err := s.FinishMap(mi, w); err != nil {
				t.Fatal(err)
			}
		}
	}
	return want
}

// A Shuffle's files go when it is closed, including writers still open,
// and when its context is cancelled.
func TestShuffleCleanup(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newManager(t, 0)
	cfg := Config{Maps: 3, Partitions: 5, Writer: WriterOptions{Alloc: mem}}

	s, err := New(context.Background(), m, "q1", testSchema, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := writeShuffle(t, s, mem, 3, 5, true)
	r, err := s.Read(context.Background(), PartitionRange{Start: 1, End: 3}, MapRange{Start: 0, End: 3}, ReadOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, r, nil); len(got) != len(want[1])+len(want[2]) {
		t.Fatalf("read %d rows, want %d", len(got), len(want[1])+len(want[2]))
	}
	r.Release()
	if filesIn(t, m) != 3 {
		t.Fatalf("%d files, want 3", filesIn(t, m))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := filesIn(t, m); n != 0 || m.Stats().DiskBytes != 0 {
		t.Fatalf("after Close: %d files, %d bytes", n, m.Stats().DiskBytes)
	}
	if _, err := s.NewMapWriter(0); !errors.Is(err, ErrClosed) {
		t.Fatalf("NewMapWriter after Close: %v", err)
	}

	// Open writers (unfinished map tasks) are aborted by Close.
	s, err = New(context.Background(), m, "q2", testSchema, cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeShuffle(t, s, mem, 3, 5, false)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := filesIn(t, m); n != 0 {
		t.Fatalf("open writers: %d files left", n)
	}

	// Cancelling the query's context closes the shuffle.
	ctx, cancel := context.WithCancel(context.Background())
	s, err = New(ctx, m, "q3", testSchema, cfg)
	if err != nil {
		t.Fatal(err)
	}
	writeShuffle(t, s, mem, 2, 5, true)
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for filesIn(t, m) != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := filesIn(t, m); n != 0 {
		t.Fatalf("after cancel: %d files left", n)
	}
}

// A reader whose context is cancelled stops with the context's error.
func TestReadCancelled(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newManager(t, 0)
	s, err := New(context.Background(), m, "q", testSchema, Config{Maps: 2, Partitions: 2, Writer: WriterOptions{Alloc: mem, BufferBytes: 512}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	writeShuffle(t, s, mem, 2, 2, true)
	ctx, cancel := context.WithCancel(context.Background())
	r, err := s.Read(ctx, PartitionRange{Start: 0, End: 2}, MapRange{Start: 0, End: 2}, ReadOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Next() {
		t.Fatal(r.Err())
	}
	cancel()
	for r.Next() {
	}
	if !errors.Is(r.Err(), context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", r.Err())
	}
}
