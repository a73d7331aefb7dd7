package store

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/store/vfs"
)

// segmentsManifest is a manifest whose chunk files hold batches of the
// given rows, one file per inner slice.
func segmentsManifest(files ...[]int64) *manifest {
	m := &manifest{}
	for f, rows := range files {
		m.files = append(m.files, fileRef{seq: uint64(f + 1)})
		for _, r := range rows {
			m.img.Batches = append(m.img.Batches, cache.BatchImage{Rows: r})
			m.locs = append(m.locs, batchLoc{file: f})
		}
	}
	return m
}

// TestCompactionPick: the policy merges the longest run of files under a
// full batch, or one file of many small batches, and leaves full files
// alone.
func TestCompactionPick(t *testing.T) {
	p := Compaction{Files: 2, Rows: 100}
	for _, tc := range []struct {
		name     string
		files    [][]int64
		from, to int // batches; from == to: nothing
		due      bool
	}{
		{"one full file", [][]int64{{100, 100}}, 0, 0, false},
		{"one small batch", [][]int64{{10}}, 0, 0, false},
		{"two small files", [][]int64{{10}, {10}}, 0, 2, false},
		{"three small files", [][]int64{{10}, {10}, {10}}, 0, 3, true},
		{"full, then small appends", [][]int64{{100, 100}, {1}, {1}, {1}}, 2, 5, true},
		{"longest run wins", [][]int64{{1}, {1}, {100}, {1}, {1}, {1}}, 3, 6, true},
		{"a file of small batches", [][]int64{{100}, {10, 10, 10, 10}}, 1, 5, true},
		{"batches a quarter full", [][]int64{{100}, {25, 25, 25, 25}}, 0, 0, false},
		{"the rewritten file is full", [][]int64{{100, 50}, {100}, {100}}, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := segmentsManifest(tc.files...)
			from, to, ok := p.pick(m)
			if !ok {
				from, to = 0, 0
			}
			if from != tc.from || to != tc.to {
				t.Errorf("pick [%d, %d), want [%d, %d)", from, to, tc.from, tc.to)
			}
			if got := p.due(m); got != tc.due {
				t.Errorf("due %v, want %v", got, tc.due)
			}
		})
	}
	if (Compaction{Files: -1}).due(segmentsManifest([]int64{1}, []int64{1}, []int64{1})) {
		t.Error("Files -1 is due")
	}
	for _, rows := range []int{-1, MaxCompactRows + 1} {
		if err := (Compaction{Rows: rows}).Validate(); err == nil || !strings.Contains(err.Error(), "rows") {
			t.Errorf("Rows %d: %v", rows, err)
		}
	}
}

// waitIdle waits for s's background compaction to have nothing to do.
func waitIdle(t *testing.T, s *Store) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !s.bg.idle() {
		if time.Now().After(deadline) {
			t.Fatal("background compaction still busy after 30 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// chunkFiles counts dir's chunk files.
func chunkFiles(t *testing.T, dir string) int {
	n := 0
	for _, name := range files(t, dir) {
		if strings.HasSuffix(name, chunkSuffix) {
			n++
		}
	}
	return n
}

// TestCompactThousandAppends: a table put with one row and appended to
// 1,000 times, one row each, ends in a handful of chunk files (the
// background merges them as the appends go on) holding the same rows,
// statistics and distinct counts as a cache given the same changes, and
// so does a reopen.
func TestCompactThousandAppends(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, c := openWith(t, dir, mem, Options{Compaction: Compaction{Files: 4}})
	ref := newCache(t, mem)
	put(t, s, "t", batches(mem, 0, 1, 1))
	r := batches(mem, 0, 1, 1)
	if _, err := ref.Put(t.Context(), "t", r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	r.Release()
	n := 1000
	if testing.Short() {
		n = 200 // three fsyncs each
	}
	for i := range n {
		appendTo(t, s, "t", batches(mem, uint64(i+1), 1, 1))
		r := batches(mem, uint64(i+1), 1, 1)
		if _, err := ref.Append(t.Context(), "t", r, cache.TableOptions{}); err != nil {
			t.Fatal(err)
		}
		r.Release()
	}
	waitIdle(t, s)
	want := contentOf(t, ref, "t")
	got := contentOf(t, c, "t")
	if !got.sameRows(want) {
		t.Fatalf("after compaction %v, want the rows of %v", got, want)
	}
	if files := chunkFiles(t, dir); files > 5 || got.batches > 5 {
		t.Fatalf("%d chunk files, %d batches after %d single-row changes, want at most 5 (Files 4)", files, got.batches, n+1)
	}
	checkSameStats(t, c, ref)
	s.Close()
	s2, c2 := open(t, dir, mem, nil)
	if got2 := contentOf(t, c2, "t"); got2 != got {
		t.Fatalf("after reopen %v, want %v", got2, got)
	}
	checkSameStats(t, c2, ref)
	s2.Close()
}

// checkSameStats checks that table "t" has the statistics and distinct
// counts in c that it has in ref, however batched.
func checkSameStats(t *testing.T, c, ref *cache.Cache) {
	t.Helper()
	got, err := c.Stats("t")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ref.Stats("t")
	got.Batches = want.Batches
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("statistics\n%+v\nwant\n%+v", got, want)
	}
}

// TestCompactKeepsStatsAcrossReopen: the statistics and distinct-count
// sketches of a compacted table are those of the table before, in the
// cache and after a reopen (the manifest's per-batch statistics and
// sketches).
func TestCompactKeepsStatsAcrossReopen(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, c := open(t, dir, mem, nil)
	put(t, s, "t", batches(mem, 1, 3, 200))
	for i := range 5 {
		appendTo(t, s, "t", batches(mem, uint64(10+i), 2, 50))
	}
	ref := newCache(t, mem)
	before := contentOf(t, c, "t")
	s.Close()
	// ref: the uncompacted table, restored.
	s0, err := Open(dir, ref, Options{Compaction: Compaction{Files: -1}, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	s0.Close()
	s, c = open(t, dir, mem, nil)
	if did, err := s.Compact(t.Context(), "t"); err != nil || !did {
		t.Fatalf("compact: %v %v", did, err)
	}
	after := contentOf(t, c, "t")
	if !after.sameRows(before) || after.batches != 1 || chunkFiles(t, dir) != 1 {
		t.Fatalf("after compaction %v in %d files, want the rows of %v in 1 batch", after, chunkFiles(t, dir), before)
	}
	checkSameStats(t, c, ref)
	if did, err := s.Compact(t.Context(), "t"); err != nil || did {
		t.Fatalf("a second compaction: %v %v, want nothing to do", did, err)
	}
	s.Close()
	_, c2 := open(t, dir, mem, nil)
	if got := contentOf(t, c2, "t"); got != after {
		t.Fatalf("after reopen %v, want %v", got, after)
	}
	checkSameStats(t, c2, ref)
	info, _ := c2.Info("t")
	for _, col := range info.Columns {
		if col.Distinct < 0 {
			t.Errorf("column %q lost its distinct count", col.Name)
		}
	}
}

// TestCompactRacesAChange: an Append that commits while a compaction
// reads is kept after the merged batches; a Put while a compaction reads
// makes it give up, leaving no file behind. The change runs from inside
// the compaction's first read of a chunk file.
func TestCompactRacesAChange(t *testing.T) {
	for _, change := range []string{"append", "put"} {
		t.Run(change, func(t *testing.T) {
			mem := checked(t)
			dir := t.TempDir()
			ffs := vfs.NewFaultFS(vfs.OS)
			s, c := open(t, dir, mem, ffs)
			put(t, s, "t", batches(mem, 1, 2, 100))
			appendTo(t, s, "t", batches(mem, 2, 1, 100))
			s.Close()
			s, c = open(t, dir, mem, ffs) // batches read from disk
			var once sync.Once
			ffs.ReadErr = func(string) error {
				once.Do(func() {
					if change == "append" {
						appendTo(t, s, "t", batches(mem, 3, 1, 100))
					} else {
						put(t, s, "t", batches(mem, 4, 1, 100))
					}
				})
				return nil
			}
			did, err := s.Compact(t.Context(), "t")
			ffs.ReadErr = nil
			if err != nil {
				t.Fatal(err)
			}
			got := contentOf(t, c, "t")
			ref := newCache(t, mem)
			var want content
			if change == "append" {
				for i, seed := range []uint64{1, 2, 3} {
					r := batches(mem, seed, max(1, 2-i), 100)
					if i == 0 {
						_, err = ref.Put(t.Context(), "t", r, cache.TableOptions{})
					} else {
						_, err = ref.Append(t.Context(), "t", r, cache.TableOptions{})
					}
					r.Release()
					if err != nil {
						t.Fatal(err)
					}
				}
				want = contentOf(t, ref, "t")
				if !did || !got.sameRows(want) || got.batches != 2 {
					t.Fatalf("compaction %v: %v, want the rows of %v in 2 batches", did, got, want)
				}
			} else {
				r := batches(mem, 4, 1, 100)
				_, err = ref.Put(t.Context(), "t", r, cache.TableOptions{})
				r.Release()
				if err != nil {
					t.Fatal(err)
				}
				want = contentOf(t, ref, "t")
				if did || got != want || chunkFiles(t, dir) != 1 {
					t.Fatalf("compaction %v: %v in %d chunk files, want %v in 1", did, got, chunkFiles(t, dir), want)
				}
			}
			s.Close()
			_, c2 := open(t, dir, mem, nil)
			if got2 := contentOf(t, c2, "t"); got2 != got {
				t.Fatalf("after reopen %v, want %v", got2, got)
			}
		})
	}
}

// TestCompactReadFailure: a compaction that cannot read a batch fails
// naming the table, and leaves the table and the directory as they were.
func TestCompactReadFailure(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	ffs := vfs.NewFaultFS(vfs.OS)
	s, _ := open(t, dir, mem, ffs)
	put(t, s, "t", batches(mem, 1, 2, 100))
	appendTo(t, s, "t", batches(mem, 2, 1, 100))
	s.Close()
	before := files(t, dir)
	s, c := open(t, dir, mem, ffs)
	want := contentOf(t, c, "t")
	s.Close()
	s, c = open(t, dir, mem, ffs)
	ffs.ReadErr = func(string) error { return syscall.EIO }
	did, err := s.Compact(t.Context(), "t")
	ffs.ReadErr = nil
	if did || !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), `compacting table "t"`) {
		t.Fatalf("compaction over a failing disk: %v %v", did, err)
	}
	if got := contentOf(t, c, "t"); got != want {
		t.Fatalf("after the failure %v, want %v", got, want)
	}
	if got := files(t, dir); !slices.Equal(got, before) {
		t.Fatalf("files %v, want %v", got, before)
	}
}

// TestReadsAndAppendsDuringCompaction: scans of a restored table run
// while appends write through and the background compacts them; each
// scan sees the first rows and a whole number of appends, and at the end
// the table and a reopen hold every append, in order. Run with -race.
func TestReadsAndAppendsDuringCompaction(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, _ := open(t, dir, mem, nil)
	put(t, s, "t", batches(mem, 1, 4, 250))
	s.Close()
	s2, c2 := openWith(t, dir, mem, Options{Compaction: Compaction{Files: 2, Rows: 300}})

	const appends = 30
	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				sc, err := c2.Scan(t.Context(), "t", cache.ScanOptions{Concurrency: 1 + w%2})
				if err != nil {
					errs <- err
					return
				}
				var rows int64
				for sc.Next() {
					rows += sc.RecordBatch().NumRows()
				}
				err = sc.Err()
				sc.Release()
				if err != nil {
					errs <- err
					return
				}
				if rows < 1000 || (rows-1000)%100 != 0 {
					errs <- errors.New("a scan saw part of an append")
					return
				}
			}
		}()
	}
	// A compaction called directly competes with the background's.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !done.Load() {
			if _, err := s2.Compact(t.Context(), "t"); err != nil {
				errs <- err
				return
			}
		}
	}()
	ref := newCache(t, mem)
	r := batches(mem, 1, 4, 250)
	if _, err := ref.Put(t.Context(), "t", r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	r.Release()
	for i := range appends {
		appendTo(t, s2, "t", batches(mem, uint64(10+i), 1, 100))
		r := batches(mem, uint64(10+i), 1, 100)
		if _, err := ref.Append(t.Context(), "t", r, cache.TableOptions{}); err != nil {
			t.Fatal(err)
		}
		r.Release()
	}
	waitIdle(t, s2)
	done.Store(true)
	wg.Wait()
	waitIdle(t, s2) // what the last direct compaction queued
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := s2.Verify("t"); err != nil {
		t.Fatal(err)
	}
	want := contentOf(t, ref, "t")
	got := contentOf(t, c2, "t")
	if !got.sameRows(want) {
		t.Fatalf("after the appends %v, want the rows of %v", got, want)
	}
	checkSameStats(t, c2, ref)
	// Merged files hold 300 rows or more; at most Files+1 appends wait.
	small := 0
	for _, seg := range segments(s2.tables["t"].m) {
		if seg.rows < 300 {
			small++
		}
	}
	if small > 3 {
		t.Fatalf("%d chunk files of under 300 rows after the appends, want at most 3 (Files 2)", small)
	}
	s2.Close()
	_, c3 := open(t, dir, mem, nil)
	if got3 := contentOf(t, c3, "t"); got3 != got {
		t.Fatalf("after reopen %v, want %v", got3, got)
	}
}

// TestCompactWithinBudget: with little budget free a compaction merges
// part of a file's batches (the file stays, named by the rest), and the
// next compactions merge the rest: the same rows throughout, and after a
// reopen.
func TestCompactWithinBudget(t *testing.T) {
	mem := checked(t)
	probe, pc := open(t, t.TempDir(), mem, nil)
	put(t, probe, "t", batches(mem, 1, 8, 100))
	size := func() int64 { i, _ := pc.Info("t"); return i.Compressed }()
	probe.Close()

	dir := t.TempDir()
	c, err := cache.New(cache.Options{Alloc: mem, Budget: size * 2})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, c, Options{Compaction: Compaction{Files: -1}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	put(t, s, "t", batches(mem, 1, 8, 100))
	want := contentOf(t, c, "t")
	rounds := 0
	for {
		did, err := s.Compact(t.Context(), "t")
		if err != nil {
			t.Fatal(err)
		}
		if !did {
			break
		}
		rounds++
		if got := contentOf(t, c, "t"); !got.sameRows(want) {
			t.Fatalf("after round %d: %v, want the rows of %v", rounds, got, want)
		}
	}
	got := contentOf(t, c, "t")
	if rounds < 2 || got.batches >= want.batches {
		t.Fatalf("%d compactions, %v from %v: want a partial one first", rounds, got, want)
	}
	s.Close()
	_, c2 := open(t, dir, mem, nil)
	if got2 := contentOf(t, c2, "t"); got2 != got {
		t.Fatalf("after reopen %v, want %v", got2, got)
	}
}
