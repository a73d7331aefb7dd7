package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

func TestBudgetRefusesAPutAndKeepsTheOldTable(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	opts := TableOptions{Codec: Fixed(codec.SettingNone)}

	probe := newCache(t, mem, 0)
	size := put(t, probe, "t", in[0].Schema(), in, opts).Compressed

	// Room for one copy and a half: the first put fits, a second table
	// does not, and neither does replacing the first (the new copy is
	// built next to the old one).
	c := newCache(t, mem, size+size/2)
	put(t, c, "t", in[0].Schema(), in, opts)
	for _, name := range []string{"u", "t"} {
		r, _ := array.NewRecordReader(in[0].Schema(), in)
		_, err := c.Put(context.Background(), name, r, opts)
		r.Release()
		var be *BudgetError
		if !errors.Is(err, ErrBudget) || !errors.As(err, &be) || be.Table != name || be.Budget != size+size/2 {
			t.Fatalf("put %s: %v, want a BudgetError", name, err)
		}
		if !containsStr(err.Error(), "does not fit") {
			t.Errorf("message: %v", err)
		}
	}
	if got := c.Used(); got != size {
		t.Errorf("after refused puts Used = %d, want %d", got, size)
	}
	if names := c.Tables(); len(names) != 1 || names[0] != "t" {
		t.Errorf("tables %v", names)
	}
	out, _ := scanAll(t, c, "t", ScanOptions{})
	if len(out) != len(in) || !array.Equal(out[0].Column(5), in[0].Column(5)) {
		t.Error("the old table changed")
	}
	release(out)

	// Dropping frees the budget.
	if !c.Drop("t") || c.Used() != 0 || c.Drop("t") {
		t.Errorf("drop: used %d", c.Used())
	}
	put(t, c, "u", in[0].Schema(), in, opts)
}

func TestFailedReaderLeavesNothing(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	c := newCache(t, mem, 0)
	put(t, c, "t", in[0].Schema(), in[:1], TableOptions{})
	used := c.Used()
	r := &failingReader{RecordReader: mustReader(t, in), after: 2}
	defer r.Release()
	_, err := c.Put(context.Background(), "t", r, TableOptions{})
	if err == nil || !containsStr(err.Error(), "disk on fire") {
		t.Fatalf("err %v", err)
	}
	if c.Used() != used {
		t.Errorf("used %d, want %d", c.Used(), used)
	}
	info, _ := c.Info("t")
	if info.Batches != 1 {
		t.Errorf("old table has %d batches", info.Batches)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r2 := mustReader(t, in)
	defer r2.Release()
	if _, err := c.Put(ctx, "t", r2, TableOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled put: %v", err)
	}
	if c.Used() != used {
		t.Errorf("used %d after a cancelled put, want %d", c.Used(), used)
	}
}

func mustReader(t *testing.T, recs []arrow.RecordBatch) array.RecordReader {
	r, err := array.NewRecordReader(recs[0].Schema(), recs)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// failingReader yields after batches, then an error.
type failingReader struct {
	array.RecordReader
	after int
	n     int
	err   error
}

func (r *failingReader) Next() bool {
	if r.n == r.after {
		r.err = errors.New("disk on fire")
		return false
	}
	r.n++
	return r.RecordReader.Next()
}

func (r *failingReader) Err() error { return r.err }

// TestConcurrentPutsAndScans runs scans while the table they read is
// replaced and dropped (run it with -race). Each version of the table
// holds batches whose rows all carry the version number, so a scan that
// saw two versions would show it.
func TestConcurrentPutsAndScans(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "version", Type: arrow.PrimitiveTypes.Int64}}, nil)
	version := func(v int64) []arrow.RecordBatch {
		var recs []arrow.RecordBatch
		for range 6 {
			b := array.NewInt64Builder(mem)
			for range 100 {
				b.Append(v)
			}
			arr := b.NewArray()
			recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{arr}, 100))
			arr.Release()
			b.Release()
		}
		return recs
	}
	first := version(0)
	put(t, c, "t", schema, first, TableOptions{})
	release(first)

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				s, err := c.Scan(context.Background(), "t", ScanOptions{Concurrency: 1 + (w+i)%3})
				if errors.Is(err, ErrNotFound) {
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				seen := int64(-1)
				batches := 0
				for s.Next() {
					batches++
					col := s.RecordBatch().Column(0).(*array.Int64)
					for j := range col.Len() {
						if seen >= 0 && col.Value(j) != seen {
							errs <- fmt.Errorf("scan saw versions %d and %d", seen, col.Value(j))
						}
						seen = col.Value(j)
					}
				}
				if s.Err() != nil || batches != 6 {
					errs <- fmt.Errorf("scan: %d batches, %v", batches, s.Err())
				}
				s.Release()
			}
		}()
	}
	for v := int64(1); v <= 30; v++ {
		recs := version(v)
		put(t, c, "t", schema, recs, TableOptions{Codec: Fixed(codec.SettingLZ4), Concurrency: 2})
		release(recs)
		if v%10 == 0 {
			c.Drop("t")
			recs := version(v)
			put(t, c, "t", schema, recs, TableOptions{})
			release(recs)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got, want := c.Used(), sumCompressed(t, c); got != want {
		t.Errorf("Used %d, tables hold %d", got, want)
	}
}

func TestPutRejectsBadOptionsAndSchemas(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	c := newCache(t, mem, 0)
	for _, tc := range []struct {
		name string
		opts TableOptions
		want string
	}{
		{"", TableOptions{}, "empty table name"},
		{"t", TableOptions{Concurrency: -2}, "negative concurrency"},
		{"t", TableOptions{Codec: Fixed(codec.Setting{Kind: codec.Zstd, Level: 99})}, "zstd"},
	} {
		r := mustReader(t, in)
		_, err := c.Put(context.Background(), tc.name, r, tc.opts)
		r.Release()
		if err == nil || !containsStr(err.Error(), tc.want) {
			t.Errorf("%q %+v: %v, want %q", tc.name, tc.opts, err, tc.want)
		}
	}
	// A reader whose batches do not match its schema.
	other := datagen.Record(mem, 5, 9)
	defer other.Release()
	sch := arrow.NewSchema(other.Schema().Fields()[:3], nil)
	r := &lyingReader{schema: sch, recs: []arrow.RecordBatch{other}}
	if _, err := c.Put(context.Background(), "t", r, TableOptions{}); err == nil || !containsStr(err.Error(), "has schema") {
		t.Errorf("schema mismatch: %v", err)
	}
	if len(c.Tables()) != 0 || c.Used() != 0 {
		t.Errorf("tables %v, used %d", c.Tables(), c.Used())
	}
}

// lyingReader claims a schema its batches do not have.
type lyingReader struct {
	schema *arrow.Schema
	recs   []arrow.RecordBatch
	cur    arrow.RecordBatch
}

func (r *lyingReader) Retain()                        {}
func (r *lyingReader) Release()                       {}
func (r *lyingReader) Schema() *arrow.Schema          { return r.schema }
func (r *lyingReader) Err() error                     { return nil }
func (r *lyingReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *lyingReader) Record() arrow.RecordBatch      { return r.cur }
func (r *lyingReader) Next() bool {
	if len(r.recs) == 0 {
		return false
	}
	r.cur, r.recs = r.recs[0], r.recs[1:]
	return true
}
