package shuffle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// testBudget is a Budget of limit bytes that remembers its peak.
type testBudget struct {
	limit      int64
	used, peak atomic.Int64
}

func (b *testBudget) TryGrow(n int64) bool {
	if b.used.Add(n) > b.limit {
		b.used.Add(-n)
		return false
	}
	if u := b.used.Load(); u > b.peak.Load() {
		b.peak.Store(u)
	}
	return true
}

func (b *testBudget) Shrink(n int64) {
	if b.used.Add(-n) < 0 {
		panic("budget below zero")
	}
}

// Map outputs held in memory read back exactly the rows written, like
// files, with projection and read-ahead; the budget counts their bytes
// until they are removed, and no file is made. With a budget that runs
// out mid-way, the outputs that do not fit go on disk (what was held
// moves to the file and its bytes are given back) and read the same.
// Closing the shuffle gives back every byte, writers left open included.
func TestInMemoryMapOutputs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int64
		parts int
		c     codec.Setting
	}{
		{"fits", 1 << 30, 7, codec.Setting{Kind: codec.LZ4}},
		{"fits/zstd", 1 << 30, 16, codec.Setting{Kind: codec.Zstd, Level: 1}},
		{"spills", 40 << 10, 7, codec.Setting{}},
		{"spills/lz4", 20 << 10, 16, codec.Setting{Kind: codec.LZ4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			m := newManager(t, 0)
			b := &testBudget{limit: tc.limit}
			const maps = 4
			s, err := New(context.Background(), m, "q1", testSchema, Config{Maps: maps, Partitions: tc.parts,
				Writer: WriterOptions{Codec: tc.c, Alloc: mem, BufferBytes: 4 << 10, Memory: b}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			want := make([][]row, tc.parts)
			rng := rand.New(rand.NewPCG(uint64(tc.parts), 3))
			for mi := range maps {
				w, err := s.NewMapWriter(mi)
				if err != nil {
					t.Fatal(err)
				}
				for range 3 {
					rows := randomRows(rng, 300)
					ids := make([]int32, len(rows))
					for i := range ids {
						ids[i] = int32(rng.IntN(tc.parts))
						want[ids[i]] = append(want[ids[i]], rows[i])
					}
					rec := makeRecord(mem, rows)
					err = w.WriteRows(context.Background(), rec, ids)
					rec.Release()
					if err != nil {
						t.Fatal(err)
					}
				}
				if _, err := s.FinishMap(mi, w); err != nil {
					t.Fatal(err)
				}
			}
			held, inMem := int64(0), 0
			for mi := range maps {
				if o := s.Output(mi); o.InMemory() {
					held += o.Bytes()
					inMem++
				}
			}
			files := filesIn(t, m)
			switch {
			case inMem+files != maps:
				t.Fatalf("%d outputs in memory and %d files, want %d in all", inMem, files, maps)
			case tc.limit >= 1<<30 && files != 0:
				t.Fatalf("%d files with room for every output", files)
			case tc.limit < 1<<30 && files == 0:
				t.Fatalf("no file with a budget of %d bytes", tc.limit)
			case b.used.Load() != held || b.peak.Load() > tc.limit:
				t.Fatalf("budget holds %d (peak %d of %d), outputs in memory %d bytes", b.used.Load(), b.peak.Load(), tc.limit, held)
			}
			aheads := []int{-1, 2}
			if testing.Short() {
				aheads = aheads[1:] // within 2 s under -race on 2 busy cores
			}
			for _, ahead := range aheads {
				for p := range tc.parts {
					r, err := s.Read(context.Background(), PartitionRange{Start: p, End: p + 1}, MapRange{Start: 0, End: maps}, ReadOptions{ReadAhead: ahead, Alloc: mem})
					if err != nil {
						t.Fatal(err)
					}
					got := rowsOf(t, r, nil)
					r.Release()
					if fmt.Sprint(got) != fmt.Sprint(want[p]) {
						t.Fatalf("partition %d: %d rows, want %d", p, len(got), len(want[p]))
					}
				}
			}
			r, err := s.Read(context.Background(), PartitionRange{Start: 0, End: 1}, MapRange{Start: 0, End: maps}, ReadOptions{Columns: []int{2}, Alloc: mem})
			if err != nil {
				t.Fatal(err)
			}
			if got := rowsOf(t, r, []int{2}); len(got) != len(want[0]) {
				t.Fatalf("projected: %d rows, want %d", len(got), len(want[0]))
			}
			r.Release()

			writeShuffle(t, s, mem, 2, tc.parts, false) // writers left open: Close aborts them
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if n := filesIn(t, m); n != 0 || b.used.Load() != 0 {
				t.Fatalf("after Close: %d files, %d bytes held", n, b.used.Load())
			}
		})
	}
}

// An output held in memory cannot be read once removed; Remove twice
// gives its bytes back once; a failed write gives them back too.
func TestInMemoryRemoved(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newManager(t, 0)
	b := &testBudget{limit: 1 << 20}
	w, err := NewMapWriter(m, "q-map0", testSchema, 3, WriterOptions{Alloc: mem, Memory: b})
	if err != nil {
		t.Fatal(err)
	}
	rec := makeRecord(mem, randomRows(rand.New(rand.NewPCG(1, 1)), 100))
	defer rec.Release()
	if err := w.Write(1, rec); err != nil {
		t.Fatal(err)
	}
	out, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if !out.InMemory() || out.Path() != "memory:q-map0" || b.used.Load() != out.Bytes() || filesIn(t, m) != 0 {
		t.Fatalf("in memory %v, path %q, budget %d for %d bytes, %d files", out.InMemory(), out.Path(), b.used.Load(), out.Bytes(), filesIn(t, m))
	}
	_ = out.Remove()
	_ = out.Remove()
	if b.used.Load() != 0 {
		t.Fatalf("after Remove: %d bytes held", b.used.Load())
	}
	r, err := ReadBlocks(context.Background(), []Block{{out, 1}}, ReadOptions{Alloc: mem, ReadAhead: -1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Next() || !errors.Is(r.Err(), ErrRemoved) {
		t.Errorf("read of a removed output: %v", r.Err())
	}
	r.Release()

	w, err = NewMapWriter(m, "q-map1", testSchema, 3, WriterOptions{Alloc: mem, Memory: b, BufferBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(0, rec); err != nil || b.used.Load() == 0 {
		t.Fatalf("%v; %d bytes held", err, b.used.Load())
	}
	if err := w.Write(7, rec); err == nil {
		t.Fatal("partition 7 of 3: no error")
	}
	w.Abort()
	if b.used.Load() != 0 {
		t.Fatalf("after Abort: %d bytes held", b.used.Load())
	}
}

// ToDisk moves an output held in memory to a file and gives its bytes
// back: a reader open before reads on from memory, one opened after
// reads the file, both the rows written; a second ToDisk does nothing;
// a quota too small for the file leaves the output in memory.
func TestMapOutputToDisk(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rows := randomRows(rand.New(rand.NewPCG(2, 2)), 200)
	rec := makeRecord(mem, rows)
	defer rec.Release()
	write := func(m *spill.Manager, b Budget) *MapOutput {
		w, err := NewMapWriter(m, "q-map0", testSchema, 2, WriterOptions{Alloc: mem, Memory: b})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(1, rec); err != nil {
			t.Fatal(err)
		}
		out, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	read := func(r *BlockReader) {
		t.Helper()
		if got := rowsOf(t, r, nil); fmt.Sprint(got) != fmt.Sprint(rows) {
			t.Fatalf("%d rows read, want %d", len(got), len(rows))
		}
		r.Release()
	}

	m := newManager(t, 0)
	b := &testBudget{limit: 1 << 20}
	out := write(m, b)
	size := out.Bytes()
	before, err := ReadBlocks(context.Background(), []Block{{out, 1}}, ReadOptions{Alloc: mem, ReadAhead: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !before.Next() { // opened in memory
		t.Fatal(before.Err())
	}
	got := int(before.RecordBatch().NumRows())
	n, err := out.ToDisk()
	if err != nil || n != size || out.InMemory() || b.used.Load() != 0 || filesIn(t, m) != 1 || out.Bytes() != size || !strings.HasPrefix(out.Path(), m.Dir()) {
		t.Fatalf("ToDisk = %d, %v: in memory %v, budget %d, %d files, %d bytes of %d, path %q", n, err, out.InMemory(), b.used.Load(), filesIn(t, m), out.Bytes(), size, out.Path())
	}
	if n, err := out.ToDisk(); n != 0 || err != nil {
		t.Fatalf("second ToDisk = %d, %v", n, err)
	}
	for before.Next() {
		got += int(before.RecordBatch().NumRows())
	}
	if err := before.Err(); err != nil || got != len(rows) {
		t.Fatalf("reader opened before ToDisk: %d rows, %v", got, err)
	}
	before.Release()
	after, err := ReadBlocks(context.Background(), []Block{{out, 1}}, ReadOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	read(after)
	if err := out.Remove(); err != nil || filesIn(t, m) != 0 {
		t.Fatalf("Remove: %v, %d files", err, filesIn(t, m))
	}

	small := newManager(t, size/2)
	out = write(small, b)
	if n, err := out.ToDisk(); err == nil || n != 0 || !out.InMemory() || b.used.Load() != size || filesIn(t, small) != 0 {
		t.Fatalf("ToDisk past the quota = %d, %v: in memory %v, budget %d, %d files", n, err, out.InMemory(), b.used.Load(), filesIn(t, small))
	}
	r, err := ReadBlocks(context.Background(), []Block{{out, 1}}, ReadOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	read(r)
	_ = out.Remove()
	if b.used.Load() != 0 {
		t.Fatalf("after Remove: %d bytes held", b.used.Load())
	}
}

// memFile reads as a file of its bytes would, across chunks.
func TestMemFileReadAt(t *testing.T) {
	var f memFile
	for _, c := range []string{"abc", "", "defg", "h"} {
		f.append([]byte(c))
	}
	all := "abcdefgh"
	for off := range len(all) + 1 {
		for n := 0; off+n <= len(all)+1; n++ {
			p := make([]byte, n)
			got, err := f.ReadAt(p, int64(off))
			want := min(n, len(all)-off)
			if got != want || string(p[:got]) != all[off:off+want] || (got < n) != (err == io.EOF) {
				t.Fatalf("ReadAt(%d bytes, %d) = %d %q %v", n, off, got, p[:got], err)
			}
			if off+n <= len(all) {
				s, err := f.slice(int64(off), int64(n))
				if err != nil || string(s) != all[off:off+n] {
					t.Fatalf("slice(%d, %d) = %q %v", off, n, s, err)
				}
			}
		}
	}
	if _, err := f.slice(5, 4); err != io.EOF {
		t.Fatalf("slice past the end: %v", err)
	}
}

// MapWriter.ToDisk moves what a writer holds in memory so far to a file
// and gives its bytes back; the writer writes on to the file, and its
// output (a file) reads every row. A quota too small for the file leaves
// the writer in memory, usable.
func TestMapWriterToDisk(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rows := randomRows(rand.New(rand.NewPCG(3, 3)), 200)
	rec := makeRecord(mem, rows)
	defer rec.Release()
	want := fmt.Sprint(append(slices.Clone(rows), rows...))
	run := func(m *spill.Manager, b *testBudget) (*MapOutput, int64, error) {
		t.Helper()
		// BufferBytes 1: each write is a run, held in memory.
		w, err := NewMapWriter(m, "q-map0", testSchema, 2, WriterOptions{Alloc: mem, Memory: b, BufferBytes: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(1, rec); err != nil {
			t.Fatal(err)
		}
		held := b.used.Load()
		n, moveErr := w.ToDisk()
		if moveErr == nil && (n != held || n == 0 || b.used.Load() != 0 || filesIn(t, m) != 1) {
			t.Fatalf("ToDisk = %d of %d held: budget %d, %d files", n, held, b.used.Load(), filesIn(t, m))
		}
		if err := w.Write(1, rec); err != nil {
			t.Fatal(err)
		}
		out, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		if n, err := w.ToDisk(); n != 0 || err != nil {
			t.Fatalf("ToDisk after Finish = %d, %v", n, err)
		}
		r, err := ReadBlocks(context.Background(), []Block{{out, 1}}, ReadOptions{Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		if got := rowsOf(t, r, nil); fmt.Sprint(got) != want {
			t.Fatalf("%d rows read, want %d", len(got), 2*len(rows))
		}
		r.Release()
		return out, n, moveErr
	}

	m := newManager(t, 0)
	b := &testBudget{limit: 1 << 20}
	out, _, err := run(m, b)
	if err != nil || out.InMemory() || b.used.Load() != 0 {
		t.Fatalf("moved writer: %v, output in memory %v, budget %d", err, out.InMemory(), b.used.Load())
	}
	_ = out.Remove()

	small := newManager(t, 64)
	out, n, err := run(small, b)
	if err == nil || n != 0 || !out.InMemory() || b.used.Load() != out.Bytes() || filesIn(t, small) != 0 {
		t.Fatalf("ToDisk past the quota = %d, %v: output in memory %v, budget %d of %d, %d files", n, err, out.InMemory(), b.used.Load(), out.Bytes(), filesIn(t, small))
	}
	_ = out.Remove()
	if b.used.Load() != 0 {
		t.Fatalf("after Remove: %d bytes held", b.used.Load())
	}
}
