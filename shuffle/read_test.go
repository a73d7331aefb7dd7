package shuffle

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// streamRows reads a file as an Arrow IPC stream and counts its rows.
func streamRows(t *testing.T, r io.Reader, mem memory.Allocator) int64 {
	t.Helper()
	sr, err := batch.NewStreamReader(r, batch.ReadOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Release() // its dictionaries
	var n int64
	for {
		rec, err := sr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n += rec.NumRows()
		rec.Release()
	}
	return n
}

// writtenOutput writes one map output of 4 partitions (2 empty) over two
// runs and returns it.
func writtenOutput(t *testing.T, mem memory.Allocator) *MapOutput {
	t.Helper()
	m := newManager(t, 0)
	w, err := NewMapWriter(m, "c", testSchema, 4, WriterOptions{Codec: codec.Setting{Kind: codec.LZ4}, BufferBytes: 1 << 10, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 3 {
		rec := makeRecord(mem, randomRows(rng, 100))
		ids := make([]int32, 100)
		for i := range ids {
			ids[i] = int32(rng.IntN(2)) * 3 // partitions 0 and 3
		}
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
	return out
}

func readAll(out *MapOutput, mem memory.Allocator) error {
	r, err := ReadBlocks(context.Background(), []Block{{out, 0}, {out, 1}, {out, 3}}, ReadOptions{Alloc: mem})
	if err != nil {
		return err
	}
	defer r.Release()
	for r.Next() {
	}
	return r.Err()
}

// A damaged byte anywhere in a block or the index fails the read with
// ErrCorrupt naming what was damaged; nothing panics or leaks.
func TestCorruptMapOutput(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	out := writtenOutput(t, mem)
	if err := readAll(out, mem); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(out.Path())
	if err != nil {
		t.Fatal(err)
	}
	h, _ := os.Open(out.Path())
	idx, err := readFileIndex(h, int64(len(orig)), IndexLimits{})
	h.Close()
	if err != nil {
		t.Fatal(err)
	}
	e := idx.entry(0, 3)
	if e.n == 0 {
		e = idx.entry(1, 3)
	}
	indexAt := int64(len(orig)) - trailerLen - 20
	for _, c := range []struct {
		name string
		at   int64
		want string
	}{
		{"block", e.off + e.n/2, "partition 3: checksum"},
		{"index", indexAt, "map output index: checksum"},
		{"trailer magic", int64(len(orig)) - 1, "no index trailer"},
		{"trailer length", int64(len(orig)) - trailerLen + 3, "index of"},
	} {
		b := append([]byte(nil), orig...)
		b[c.at] ^= 0x40
		if err := os.WriteFile(out.Path(), b, 0o600); err != nil {
			t.Fatal(err)
		}
		err := readAll(out, mem)
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.name, err, c.want)
		}
	}
	// Truncated: the trailer is where the index was.
	if err := os.WriteFile(out.Path(), orig[:len(orig)-5], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := readAll(out, mem); !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated: %v", err)
	}
	if err := os.WriteFile(out.Path(), orig, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := readAll(out, mem); err != nil {
		t.Fatalf("restored: %v", err)
	}
	_ = out.Remove()
}

// A block whose bytes are consistent with its checksum but not with its
// index entry (rows) is refused too: a writer bug, not a disk fault.
func TestIndexRowsChecked(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	out := writtenOutput(t, mem)
	b, _ := os.ReadFile(out.Path())
	h, _ := os.Open(out.Path())
	idx, err := readFileIndex(h, int64(len(b)), IndexLimits{})
	h.Close()
	if err != nil {
		t.Fatal(err)
	}
	idx.entries[0].rows++
	var tail []byte
	tail = append(tail, endOfStream...)
	at := len(tail)
	tail = appendIndex(tail, idx)
	tail = appendTrailer(tail, len(tail)-at)
	blocksEnd := idx.entries[len(idx.entries)-1].off + idx.entries[len(idx.entries)-1].n
	b = append(b[:blocksEnd:blocksEnd], tail...)
	if err := os.WriteFile(out.Path(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := readAll(out, mem); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "rows in") {
		t.Fatalf("got %v", err)
	}
	_ = out.Remove()
}

// FuzzReadIndex: no index bytes panic or allocate past the limits, and
// an index that decodes lies within its file.
func FuzzReadIndex(f *testing.F) {
	x := &fileIndex{partitions: 3, runs: 2, schemaLen: 100, entries: []blockEntry{
		{n: 16, rows: 2, batches: 1, sum: 7}, {}, {n: 64, rows: 9, batches: 2, sum: 1},
		{}, {}, {n: 8, rows: 1, batches: 1, sum: 3},
	}}
	idx := appendIndex(nil, x)
	f.Add(idx, int64(100+88+8+len(idx)+trailerLen))
	f.Add(appendIndex(nil, &fileIndex{}), int64(1000))
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 0, 0, 0, 0, 0}, int64(1<<40))
	lim := IndexLimits{MaxPartitions: 1 << 12, MaxRuns: 1 << 8, MaxIndexBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, b []byte, size int64) {
		// Fuzzed indexes rarely carry a valid checksum: fix it up half of
		// the time so the fuzzer reaches the fields behind it.
		if len(b) >= 9 && size%2 == 0 {
			b = appendIndexChecksum(b[:len(b)-8])
		}
		x, err := readIndex(b, size, lim)
		if err != nil {
			return
		}
		end := size - trailerLen - int64(len(b)) - int64(len(endOfStream))
		for i, e := range x.entries {
			if e.off < x.schemaLen || e.off+e.n > end || e.n < 0 {
				t.Fatalf("entry %d at %d+%d outside %d..%d", i, e.off, e.n, x.schemaLen, end)
			}
		}
	})
}

func appendIndexChecksum(body []byte) []byte {
	x := append([]byte(nil), body...)
	return appendUint64(x, xxh3Hash(body))
}

// Empty blocks are skipped without touching the file: with the file gone,
// reading only empty blocks still succeeds, and a non-empty one fails.
func TestEmptyBlocksNotRead(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	out := writtenOutput(t, mem) // partitions 1 and 2 are empty
	if out.Sizes()[1] != 0 || out.Sizes()[2] != 0 || out.Sizes()[0] == 0 {
		t.Fatalf("sizes %v", out.Sizes())
	}
	if err := os.Remove(out.Path()); err != nil {
		t.Fatal(err)
	}
	for _, ahead := range []int{-1, 1} {
		r, err := ReadBlocks(context.Background(), []Block{{out, 1}, {out, 2}}, ReadOptions{Alloc: mem, ReadAhead: ahead})
		if err != nil {
			t.Fatal(err)
		}
		if r.Next() || r.Err() != nil {
			t.Fatalf("empty blocks: a record or %v", r.Err())
		}
		r.Release()
	}
	if err := readAll(out, mem); err == nil {
		t.Fatal("read of a removed file's block succeeded")
	}
}

// An index claiming more entries than IndexLimits.MaxEntries is refused
// before they are allocated, though each would take one byte on disk.
func TestIndexEntriesLimit(t *testing.T) {
	x := &fileIndex{partitions: 1000, runs: 3, schemaLen: 0, entries: make([]blockEntry, 3000)}
	b := appendIndex(nil, x)
	size := int64(len(endOfStream) + len(b) + trailerLen)
	if _, err := readIndex(b, size, IndexLimits{}); err != nil {
		t.Fatalf("3,000 empty entries: %v", err)
	}
	_, err := readIndex(b, size, IndexLimits{MaxEntries: 2999})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "MaxEntries") {
		t.Fatalf("got %v", err)
	}
}

// openCounter is the operating system's file system, counting the files
// open for reading and the most at once.
type openCounter struct {
	spill.OSFS
	open, most atomic.Int64
}

func (c *openCounter) Open(path string) (spill.Handle, error) {
	h, err := c.OSFS.Open(path)
	if err != nil {
		return nil, err
	}
	if n := c.open.Add(1); n > c.most.Load() {
		c.most.Store(n)
	}
	return &countedHandle{Handle: h, c: c}, nil
}

type countedHandle struct {
	spill.Handle
	c *openCounter
}

func (h *countedHandle) Close() error {
	h.c.open.Add(-1)
	return h.Handle.Close()
}

// A read of one partition over many map outputs holds one file open at a
// time (each is closed after its last block), and none after Release.
func TestReadClosesFilesAsItGoes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fs := &openCounter{}
	m, err := spill.NewManager(spill.Config{Dir: t.TempDir(), FS: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	const maps = 40
	var blocks []Block
	var want int
	for i := range maps {
		w, err := NewMapWriter(m, "o", testSchema, 3, WriterOptions{Alloc: mem, BufferBytes: 64})
		if err != nil {
			t.Fatal(err)
		}
		rows := randomRows(rand.New(rand.NewPCG(uint64(i), 2)), 20)
		ids := make([]int32, len(rows))
		for r := range ids {
			ids[r] = int32(r % 3)
			if i%4 == 0 {
				ids[r] = 0 // partition 1 empty in this map
			}
		}
		rec := makeRecord(mem, rows)
		err = w.WriteRows(context.Background(), rec, ids)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		out, err := w.Finish()
		if err != nil {
			t.Fatal(err)
		}
		defer out.Remove()
		blocks = append(blocks, Block{Output: out, Partition: 1})
		if i%4 != 0 {
			want += 7 // rows 1, 4, …, 19
		}
	}
	for _, ahead := range []int{-1, 2} {
		r, err := ReadBlocks(context.Background(), blocks, ReadOptions{Alloc: mem, ReadAhead: ahead})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(rowsOf(t, r, nil)); got != want {
			t.Errorf("read ahead %d: %d rows, want %d", ahead, got, want)
		}
		r.Release()
		if n, most := fs.open.Load(), fs.most.Load(); n != 0 || most > 1 {
			t.Errorf("read ahead %d: %d files open after Release, %d at most at once; want 0 and 1", ahead, n, most)
		}
	}
}
