package store

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/quiverdb/quiver/cache"
)

// TestReadsDuringAppends: scans of a restored table (whose batches load
// lazily, concurrently) run while appends write through; each scan sees
// a whole number of appends (every append adds 100 rows to a table of
// 1000), and a reopen sees every append. Run with -race.
func TestReadsDuringAppends(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, _ := open(t, dir, mem, nil)
	put(t, s, "t", batches(mem, 1, 4, 250))
	s.Close()
	s2, c2 := open(t, dir, mem, nil) // lazily loaded batches

	const appends = 20
	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 4 {
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
					t.Errorf("scan saw %d rows: part of an append", rows)
					return
				}
			}
		}()
	}
	// Another table is put and dropped meanwhile: changes of different
	// tables run concurrently.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !done.Load(); i++ {
			r := batches(mem, uint64(100+i), 1, 50)
			_, err := s2.Put(t.Context(), "u", r, cache.TableOptions{})
			r.Release()
			if err != nil {
				errs <- err
				return
			}
			if _, err := s2.Drop("u"); err != nil {
				errs <- err
				return
			}
		}
	}()
	for i := range appends {
		appendTo(t, s2, "t", batches(mem, uint64(10+i), 1, 100))
		if err := s2.Verify("t"); err != nil {
			t.Fatal(err)
		}
	}
	done.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	want := contentOf(t, c2, "t")
	if want.rows != 1000+appends*100 {
		t.Fatalf("rows %d", want.rows)
	}
	s2.Close()
	_, c3 := open(t, dir, mem, nil)
	if got := contentOf(t, c3, "t"); got != want {
		t.Fatalf("after reopen %v, want %v", got, want)
	}
}

// TestScanOutlivesReplace: a scan of a restored table keeps reading the
// snapshot it started with after a Put replaces the table and a Drop
// removes it, their chunk files gone from the directory (the cache's
// snapshot rule, kept for batches not yet read from disk).
func TestScanOutlivesReplace(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, c := open(t, dir, mem, nil)
	put(t, s, "t", batches(mem, 1, 3, 100))
	appendTo(t, s, "t", batches(mem, 2, 1, 100))
	want := contentOf(t, c, "t")
	s.Close()
	s2, c2 := open(t, dir, mem, nil)
	sc, err := c2.Scan(t.Context(), "t", cache.ScanOptions{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Release()
	if !sc.Next() {
		t.Fatal(sc.Err())
	}
	rows := sc.RecordBatch().NumRows()
	put(t, s2, "t", batches(mem, 3, 1, 7))
	if _, err := s2.Drop("t"); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); len(got) != 1 {
		t.Fatalf("files left %v, want LOCK only", got)
	}
	for sc.Next() {
		rows += sc.RecordBatch().NumRows()
	}
	if err := sc.Err(); err != nil || rows != want.rows {
		t.Fatalf("the scan read %d rows of %d: %v", rows, want.rows, err)
	}
}
