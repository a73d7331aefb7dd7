package cache

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// lazyImage returns the image of table name in src with every batch
// behind a loader that counts its calls.
func lazyImage(t *testing.T, src *Cache, name string, loads *atomic.Int64) Image {
	t.Helper()
	snap, err := src.snapshot(name)
	if err != nil {
		t.Fatal(err)
	}
	names := make([][]string, len(snap.entries))
	for i := range names {
		names[i] = make([]string, len(snap.columns))
		for c := range names[i] {
			names[i][c] = "plain"
		}
	}
	img := snap.image(names, snap.entries)
	for i := range img.Batches {
		b := &img.Batches[i]
		chunks := b.Chunks
		b.Chunks, b.Sizes = nil, make([]int64, len(chunks))
		for c := range chunks {
			b.Sizes[c] = int64(len(chunks[c]))
		}
		b.Load = func() ([][]byte, error) {
			loads.Add(1)
			return chunks, nil
		}
	}
	return img
}

// TestBudgetIsACacheOverRestoredBatches: a restored table three times
// the budget is served: scans read every batch, the budget is never
// passed, batches read longest ago are dropped and read again; a put
// that needs room makes the restored batches give way, and one that
// would need the room of batches put in this process still fails.
func TestBudgetIsACacheOverRestoredBatches(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	src := newCache(t, mem, 0)
	info := put(t, src, "t", in[0].Schema(), in, TableOptions{})
	var loads atomic.Int64
	img := lazyImage(t, src, "t", &loads)
	var largest int64
	for _, b := range img.Batches {
		var n int64
		for _, s := range b.Sizes {
			n += s
		}
		largest = max(largest, n)
	}
	budget := max(info.Compressed/3, largest)
	dst := newCache(t, mem, budget)
	if _, err := dst.Restore(img); err != nil {
		t.Fatalf("Restore of %d bytes under a %d-byte budget: %v", info.Compressed, budget, err)
	}
	for range 2 {
		sameScans(t, src, "t", dst, "t")
		if dst.Used() > budget {
			t.Fatalf("used %d of a %d-byte budget", dst.Used(), budget)
		}
	}
	if n := loads.Load(); n <= int64(len(img.Batches)) {
		t.Fatalf("%d loads for %d batches scanned twice under a third of their size: nothing was dropped", n, len(img.Batches))
	}
	// A put of the largest batch fits only when restored batches give way.
	put(t, dst, "new", in[0].Schema(), in[:1], TableOptions{})
	if dst.Used() > budget {
		t.Fatalf("used %d of a %d-byte budget", dst.Used(), budget)
	}
	r, err := array.NewRecordReader(in[0].Schema(), in)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if _, err := dst.Put(context.Background(), "too big", r, TableOptions{}); !errors.Is(err, ErrBudget) {
		t.Fatalf("a put bigger than the budget: %v", err)
	}
	// Room for memory held outside the cache: restored batches give way,
	// batches put in this process do not.
	newInfo, _ := dst.Info("new")
	if !dst.MakeRoom(budget-newInfo.Compressed) || dst.Used() != newInfo.Compressed {
		t.Fatalf("MakeRoom for all but the put table: used %d, want %d", dst.Used(), newInfo.Compressed)
	}
	if dst.MakeRoom(budget - newInfo.Compressed + 1) {
		t.Fatal("MakeRoom made room taken by a table put in this process")
	}
	dst.Drop("new")
	dst.Drop("t")
	if dst.Used() != 0 {
		t.Fatalf("all dropped, %d bytes held", dst.Used())
	}
}

// TestEvictionUnderConcurrentScans: scans of a restored table under a
// budget of one batch, from several goroutines, each read every batch
// right (run with -race).
func TestEvictionUnderConcurrentScans(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	src := newCache(t, mem, 0)
	put(t, src, "t", in[0].Schema(), in, TableOptions{})
	var loads atomic.Int64
	img := lazyImage(t, src, "t", &loads)
	var largest int64
	for _, b := range img.Batches {
		var n int64
		for _, s := range b.Sizes {
			n += s
		}
		largest = max(largest, n)
	}
	dst := newCache(t, mem, largest)
	if _, err := dst.Restore(img); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5 {
				s, err := dst.Scan(context.Background(), "t", ScanOptions{Concurrency: 2})
				if err != nil {
					t.Error(err)
					return
				}
				for s.Next() {
				}
				s.Release()
				if err := s.Err(); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	sameScans(t, src, "t", dst, "t")
	if dst.Used() > largest {
		t.Fatalf("used %d of a %d-byte budget", dst.Used(), largest)
	}
}

// TestSourcesMakeAPutEvictable: batches committed with Sources give way
// to a later put as restored ones do, and are read back from their
// sources when scanned; without them the later put would not fit.
func TestSourcesMakeAPutEvictable(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	src := newCache(t, mem, 0)
	info := put(t, src, "t", in[0].Schema(), in, TableOptions{})
	c := newCache(t, mem, info.Compressed*3/2)
	ch := prepare(t, c, "t", in)
	img := ch.Image()
	var loads atomic.Int64
	sources := make([]func() ([][]byte, error), len(img.Batches))
	for i, b := range img.Batches {
		kept := make([][]byte, len(b.Chunks))
		for c, chunk := range b.Chunks {
			kept[c] = append([]byte(nil), chunk...)
		}
		sources[i] = func() ([][]byte, error) { loads.Add(1); return kept, nil }
	}
	if err := ch.Sources(sources[:1]); err == nil {
		t.Fatal("Sources with too few loaders accepted")
	}
	if err := ch.Sources(sources); err != nil {
		t.Fatal(err)
	}
	if _, err := ch.Commit(); err != nil {
		t.Fatal(err)
	}
	put(t, c, "u", in[0].Schema(), in, TableOptions{}) // needs t's room
	if c.Used() > c.Budget() {
		t.Fatalf("used %d of %d", c.Used(), c.Budget())
	}
	sameScans(t, src, "t", c, "t")
	if loads.Load() == 0 {
		t.Fatal("t was scanned in full without a load: nothing gave way")
	}
	c.Drop("t")
	c.Drop("u")
	if c.Used() != 0 {
		t.Fatalf("all dropped, %d held", c.Used())
	}
}
