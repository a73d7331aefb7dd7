package cache

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// prepare returns a Change putting recs as name.
func prepare(t *testing.T, c *Cache, name string, recs []arrow.RecordBatch) *Change {
	t.Helper()
	r, err := array.NewRecordReader(recs[0].Schema(), recs)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	ch, err := c.PreparePut(context.Background(), name, r, TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ch
}

// sameScans fails unless tables a (in ca) and b (in cb) scan to the same
// batches.
func sameScans(t *testing.T, ca *Cache, a string, cb *Cache, b string) {
	t.Helper()
	want, _ := scanAll(t, ca, a, ScanOptions{})
	defer release(want)
	got, _ := scanAll(t, cb, b, ScanOptions{})
	defer release(got)
	if len(got) != len(want) {
		t.Fatalf("%d batches, want %d", len(got), len(want))
	}
	for i := range got {
		for c := range got[i].NumCols() {
			if !sameArray(got[i].Column(int(c)), want[i].Column(int(c))) {
				t.Fatalf("batch %d column %d differs", i, c)
			}
		}
	}
}

// TestRestoreIsLazyAndExact: a table restored from a Change's image, its
// batches behind loaders, has the original's info and scans to the same
// batches; count(*) loads nothing, a full scan loads each batch once (and
// only then does the budget count it), a failed load fails the scan
// (naming table and batch) without sticking, and Drop gives the budget
// back.
func TestRestoreIsLazyAndExact(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	src := newCache(t, mem, 0)
	ch := prepare(t, src, "t", in)
	img := ch.Image()
	want, err := ch.Commit()
	if err != nil {
		t.Fatal(err)
	}

	var loads atomic.Int64
	failNext := atomic.Bool{}
	for i := range img.Batches {
		b := &img.Batches[i]
		chunks := b.Chunks
		b.Chunks, b.Sizes = nil, make([]int64, len(chunks))
		for c := range chunks {
			b.Sizes[c] = int64(len(chunks[c]))
		}
		b.Load = func() ([][]byte, error) {
			if failNext.CompareAndSwap(true, false) {
				return nil, fmt.Errorf("disk says no: %w", ErrCorrupt)
			}
			loads.Add(1)
			return chunks, nil
		}
	}
	dst := newCache(t, mem, 0)
	got, err := dst.Restore(img)
	if err != nil {
		t.Fatal(err)
	}
	if got.Compressed != want.Compressed || got.Decoded != want.Decoded || got.Rows != want.Rows || dst.Used() != 0 {
		t.Fatalf("restored %+v (used %d), want %+v", got, dst.Used(), want)
	}
	for i := range got.Columns {
		if g, w := got.Columns[i], want.Columns[i]; g.Encoding != w.Encoding || g.Codec != w.Codec || g.Dictionary != w.Dictionary || g.Nulls != w.Nulls {
			t.Fatalf("column %d restored %+v, want %+v", i, g, w)
		}
	}
	counts, _ := scanAll(t, dst, "t", ScanOptions{Columns: []int{}})
	release(counts)
	if loads.Load() != 0 {
		t.Fatalf("count(*) loaded %d batches", loads.Load())
	}
	failNext.Store(true)
	s, err := dst.Scan(context.Background(), "t", ScanOptions{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	for s.Next() {
	}
	s.Release()
	if err := s.Err(); !errors.Is(err, ErrCorrupt) || !containsStr(err.Error(), `table "t" batch 0`) {
		t.Fatalf("scan over a failing load: %v", err)
	}
	sameScans(t, src, "t", dst, "t")
	sameScans(t, src, "t", dst, "t")
	if n := loads.Load(); n != int64(len(img.Batches)) {
		t.Fatalf("%d loads for %d batches", n, len(img.Batches))
	}
	if dst.Used() != want.Compressed {
		t.Fatalf("read, the restored table holds %d bytes of the budget, want %d", dst.Used(), want.Compressed)
	}
	dst.Drop("t")
	if dst.Used() != 0 {
		t.Fatalf("dropped, the restored table holds %d", dst.Used())
	}
}

// TestRestoreChecksShapeAndBudget: an image without a loader or chunks
// per column is refused; one whose name clashes with a table held fails
// with ErrNameClash, one over the budget with a *BudgetError, and both
// hold nothing.
func TestRestoreChecksShapeAndBudget(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	ch := prepare(t, newCache(t, mem, 0), "t", in)
	defer ch.Abort()
	img := ch.Image()
	bad := img
	bad.Batches = append([]BatchImage(nil), img.Batches...)
	bad.Batches[1].Chunks = bad.Batches[1].Chunks[1:]
	if _, err := newCache(t, mem, 0).Restore(bad); err == nil || !containsStr(err.Error(), "batch 1") {
		t.Fatalf("Restore of a short batch: %v", err)
	}
	held := newCache(t, mem, 0)
	put(t, held, "T", in[0].Schema(), in, TableOptions{})
	used := held.Used()
	if _, err := held.Restore(img); !errors.Is(err, ErrNameClash) || held.Used() != used {
		t.Fatalf("Restore of %q next to %q: %v, used %d → %d", img.Name, "T", err, used, held.Used())
	}
	small := newCache(t, mem, 100)
	var be *BudgetError
	if _, err := small.Restore(img); !errors.As(err, &be) || small.Used() != 0 {
		t.Fatalf("Restore over budget: %v, used %d", err, small.Used())
	}
}

// TestChangeIsInvisibleUntilCommit: a prepared Put holds budget but is not
// seen; Abort gives the budget back; a prepared Append whose table was
// replaced meanwhile fails to commit with ErrConflict.
func TestChangeIsInvisibleUntilCommit(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	c := newCache(t, mem, 0)
	ch := prepare(t, c, "t", in)
	if _, err := c.Info("t"); !errors.Is(err, ErrNotFound) || c.Used() == 0 {
		t.Fatalf("prepared put: Info %v, used %d", err, c.Used())
	}
	ch.Abort()
	ch.Abort()
	if c.Used() != 0 {
		t.Fatalf("after Abort used %d", c.Used())
	}
	put(t, c, "t", in[0].Schema(), in, TableOptions{})
	r, _ := array.NewRecordReader(in[0].Schema(), in[:1])
	defer r.Release()
	app, err := c.PrepareAppend(context.Background(), "t", r, TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := c.Info("t"); app.Base() != info.Generation || info.Generation == 0 {
		t.Fatalf("append's base %d, the table's generation %d", app.Base(), info.Generation)
	}
	if !app.Appending() || len(app.Image().Batches) != 1 {
		t.Fatalf("append image has %d batches", len(app.Image().Batches))
	}
	put(t, c, "t", in[0].Schema(), in, TableOptions{})
	used := c.Used()
	if _, err := app.Commit(); !errors.Is(err, ErrConflict) {
		t.Fatalf("Commit after a replace: %v", err)
	}
	if c.Used() >= used {
		t.Fatalf("the failed commit kept its budget: %d → %d", used, c.Used())
	}
}
