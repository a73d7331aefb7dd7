package extsort_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/extsort"
	"github.com/quiverdb/quiver/sortkey"
	"github.com/quiverdb/quiver/spill"
)

// pairSchema is the runs of the merge tests: a group key k, a value v the
// runs are sorted by within a group (NULL last), and the run and row each
// row came from.
var pairSchema = arrow.NewSchema([]arrow.Field{
	{Name: "k", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "run", Type: arrow.PrimitiveTypes.Int64},
	{Name: "row", Type: arrow.PrimitiveTypes.Int64},
}, nil)

var pairKeys = []extsort.Key{{Col: 0}, {Col: 1}}

// row is one row of a merge test.
type row struct {
	k        string
	null     bool
	v        int64
	run, pos int64
}

// cmp is the order of the runs: k (NULL last), then v, then run, row.
func (a row) cmp(b row) int {
	switch {
	case a.null != b.null:
		if a.null {
			return 1
		}
		return -1
	case a.k != b.k:
		if a.k < b.k {
			return -1
		}
		return 1
	case a.v != b.v:
		if a.v < b.v {
			return -1
		}
		return 1
	case a.run != b.run:
		return int(a.run - b.run)
	}
	return int(a.pos - b.pos)
}

func (a row) group() string {
	if a.null {
		return "NULL"
	}
	return a.k
}

// makeRuns returns nruns sorted runs of random rows with keys of few
// values (so equal keys fall in several runs and within runs), cut into
// batches of up to per rows, some empty, and the rows of all runs.
func makeRuns(rng *rand.Rand, nruns, rows, per int) ([][]row, []row) {
	var runs [][]row
	var all []row
	for r := range nruns {
		n := rng.IntN(rows + 1)
		if r%4 == 1 {
			n = 0 // an empty run
		}
		run := make([]row, n)
		for i := range run {
			run[i] = row{k: fmt.Sprintf("key%02d", rng.IntN(20)), null: rng.IntN(10) == 0, v: int64(rng.IntN(4))}
			if run[i].null {
				run[i].k = ""
			}
		}
		slices.SortFunc(run, row.cmp)
		for i := range run {
			run[i].run, run[i].pos = int64(r), int64(i)
		}
		runs = append(runs, run)
		all = append(all, run...)
	}
	slices.SortFunc(all, row.cmp)
	return runs, all
}

// batchSource hands out batches it owns, then releases what is left.
type batchSource struct {
	recs []arrow.RecordBatch
	i    int
}

func (s *batchSource) Next() bool {
	if s.i >= len(s.recs) {
		return false
	}
	s.i++
	return true
}
func (s *batchSource) RecordBatch() arrow.RecordBatch { return s.recs[s.i-1] }
func (s *batchSource) Err() error                     { return nil }
func (s *batchSource) Release() {
	for _, r := range s.recs {
		r.Release()
	}
	s.recs = nil
}

// sources makes a Source of each run, in batches of up to per rows (an
// empty batch between some).
func sources(mem memory.Allocator, rng *rand.Rand, runs [][]row, per int) ([]extsort.Source, []string) {
	var srcs []extsort.Source
	var names []string
	for r, run := range runs {
		s := &batchSource{}
		for lo := 0; lo < len(run); {
			hi := min(len(run), lo+1+rng.IntN(per))
			if rng.IntN(5) == 0 {
				s.recs = append(s.recs, pairBatch(mem, nil))
			}
			s.recs = append(s.recs, pairBatch(mem, run[lo:hi]))
			lo = hi
		}
		srcs = append(srcs, s)
		names = append(names, fmt.Sprintf("run %d", r))
	}
	return srcs, names
}

func pairBatch(mem memory.Allocator, rows []row) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, pairSchema)
	defer b.Release()
	for _, r := range rows {
		if r.null {
			b.Field(0).AppendNull()
		} else {
			b.Field(0).(*array.StringBuilder).Append(r.k)
		}
		b.Field(1).(*array.Int64Builder).Append(r.v)
		b.Field(2).(*array.Int64Builder).Append(r.run)
		b.Field(3).(*array.Int64Builder).Append(r.pos)
	}
	return b.NewRecordBatch()
}

func readRows(rec arrow.RecordBatch) []row {
	k := rec.Column(0).(*array.String)
	out := make([]row, rec.NumRows())
	for i := range out {
		out[i] = row{k: k.Value(i), null: k.IsNull(i), v: rec.Column(1).(*array.Int64).Value(i),
			run: rec.Column(2).(*array.Int64).Value(i), pos: rec.Column(3).(*array.Int64).Value(i)}
	}
	return out
}

// mergeCase opens a merge of random runs under a checked allocator, with
// a charge that must come back to zero.
type mergeCase struct {
	mem     *memory.CheckedAllocator
	m       *extsort.Merge
	all     []row
	charged int64
}

func openCase(t *testing.T, seed uint64, nruns, rows, per, groupKeys int) *mergeCase {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	mc := &mergeCase{mem: memory.NewCheckedAllocator(memory.NewGoAllocator())}
	runs, all := makeRuns(rng, nruns, rows, per)
	mc.all = all
	srcs, names := sources(mc.mem, rng, runs, per)
	var err error
	mc.m, err = extsort.NewMerge(extsort.MergeConfig{
		Schema: pairSchema, Keys: pairKeys, GroupKeys: groupKeys, Mem: mc.mem, Workers: 2,
		Charge: func(n int64) { mc.charged += n },
	}, srcs, names)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		mc.m.Close()
		if mc.charged != 0 {
			t.Errorf("%d bytes still charged after Close", mc.charged)
		}
		mc.mem.AssertSize(t, 0)
	})
	return mc
}

// drain reads the merge to its end in batches of rows rows.
func (mc *mergeCase) drain(t *testing.T, rows int, ties extsort.Ties, keys *sortkey.Rows) [][]row {
	t.Helper()
	var out [][]row
	for {
		rec, err := mc.m.Next(context.Background(), rows, ties, keys)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			return out
		}
		out = append(out, readRows(rec))
		rec.Release()
	}
}

// TestMergeTies merges runs whose equal keys fall within and across runs,
// with every Ties, and checks the rows against a stable sort of them all:
// TiesSplit hands out every row in order in batches of the size asked;
// TiesTogether never splits a group and names each group once;
// TiesFirst hands out the first row of each key.
func TestMergeTies(t *testing.T) {
	for seed := range uint64(20) {
		nruns := 1 + int(seed%6) // one run too
		t.Run(fmt.Sprintf("seed=%d/runs=%d", seed, nruns), func(t *testing.T) {
			t.Run("split", func(t *testing.T) {
				mc := openCase(t, seed, nruns, 200, 30, 2)
				batches := mc.drain(t, 17, extsort.TiesSplit, nil)
				var got []row
				for i, b := range batches {
					if i < len(batches)-1 && len(b) != 17 {
						t.Fatalf("batch %d of %d rows, want 17", i, len(b))
					}
					got = append(got, b...)
				}
				if !slices.Equal(got, mc.all) {
					t.Fatalf("merged %d rows, want %d in order", len(got), len(mc.all))
				}
			})
			t.Run("together", func(t *testing.T) {
				mc := openCase(t, seed, nruns, 200, 30, 1) // groups by k alone
				var keys sortkey.Rows
				batches := mc.drain(t, 5, extsort.TiesTogether, &keys)
				var got []row
				seen := map[string]bool{}
				for i, b := range batches {
					if i < len(batches)-1 && len(b) < 5 {
						t.Fatalf("batch %d of %d rows, want at least 5", i, len(b))
					}
					for j, r := range b {
						if j == 0 || r.group() != b[j-1].group() {
							if seen[r.group()] {
								t.Fatalf("group %s split between batches", r.group())
							}
							seen[r.group()] = true
						}
					}
					got = append(got, b...)
				}
				if !slices.Equal(got, mc.all) {
					t.Fatalf("merged %d rows, want %d in order", len(got), len(mc.all))
				}
				if keys.Len() != len(seen) {
					t.Fatalf("%d group keys for %d groups", keys.Len(), len(seen))
				}
			})
			t.Run("first", func(t *testing.T) {
				mc := openCase(t, seed, nruns, 200, 30, 1)
				var want []row
				for i, r := range mc.all {
					if i == 0 || r.group() != mc.all[i-1].group() || r.v != mc.all[i-1].v {
						want = append(want, r)
					}
				}
				var got []row
				for _, b := range mc.drain(t, 7, extsort.TiesFirst, nil) {
					got = append(got, b...)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("got %d distinct rows, want %d", len(got), len(want))
				}
			})
		})
	}
}

// TestMergeCombine is GROUP BY's use: TiesTogether batches, each group's
// rows combined by the caller (here: a sum of v per k) and the group keys
// walked beside them, against a sum over all rows.
func TestMergeCombine(t *testing.T) {
	mc := openCase(t, 42, 8, 300, 25, 1)
	want := map[string]int64{}
	for _, r := range mc.all {
		want[r.group()] += r.v
	}
	got := map[string]int64{}
	var keys sortkey.Rows
	groups := 0
	for {
		keys.Reset()
		rec, err := mc.m.Next(context.Background(), 10, extsort.TiesTogether, &keys)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		rows := readRows(rec)
		rec.Release()
		n := 0
		for i, r := range rows {
			if _, ok := got[r.group()]; ok && (i == 0 || rows[i-1].group() != r.group()) {
				t.Fatalf("group %s in two batches", r.group())
			}
			if i == 0 || rows[i-1].group() != r.group() {
				n++
			}
			got[r.group()] += r.v
		}
		if n != keys.Len() {
			t.Fatalf("batch of %d groups, %d group keys", n, keys.Len())
		}
		groups += n
	}
	if groups != len(want) || len(got) != len(want) {
		t.Fatalf("%d groups, want %d", groups, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("group %s: sum %d, want %d", k, got[k], v)
		}
	}
}

// TestMergeWalk consumes a merge row by row as count(DISTINCT) does:
// Head, GroupKey and Key, Skip.
func TestMergeWalk(t *testing.T) {
	mc := openCase(t, 3, 5, 100, 9, 1)
	n := 0
	var prevGroup, prevKey []byte
	for mc.m.Head() {
		g, k := mc.m.GroupKey(), mc.m.Key()
		if n > 0 && (string(g) < string(prevGroup) || string(k) < string(prevKey)) {
			t.Fatalf("row %d out of order", n)
		}
		if len(g) > len(k) || string(k[:len(g)]) != string(g) {
			t.Fatalf("row %d: group key %x is not a prefix of key %x", n, g, k)
		}
		prevGroup, prevKey = append(prevGroup[:0], g...), append(prevKey[:0], k...)
		if err := mc.m.Skip(); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != len(mc.all) {
		t.Fatalf("walked %d rows, want %d", n, len(mc.all))
	}
	if mc.m.CursorBytes() <= 0 {
		t.Fatalf("CursorBytes %d after a merge", mc.m.CursorBytes())
	}
}

// TestMergeEmpty merges no runs, and runs of no rows.
func TestMergeEmpty(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, srcs := range [][]extsort.Source{
		nil,
		{&batchSource{}, &batchSource{recs: []arrow.RecordBatch{pairBatch(mem, nil), pairBatch(mem, nil)}}},
	} {
		names := make([]string, len(srcs))
		m, err := extsort.NewMerge(extsort.MergeConfig{Schema: pairSchema, Keys: pairKeys, Mem: mem}, srcs, names)
		if err != nil {
			t.Fatal(err)
		}
		for _, ties := range []extsort.Ties{extsort.TiesSplit, extsort.TiesTogether, extsort.TiesFirst} {
			rec, err := m.Next(context.Background(), 10, ties, nil)
			if rec != nil || err != nil || m.Head() {
				t.Fatalf("merge of %d empty runs: %v, %v", len(srcs), rec, err)
			}
		}
		m.Close()
	}
}

// TestMergeCancel: a cancelled context fails Next, and Close frees
// everything after.
func TestMergeCancel(t *testing.T) {
	mc := openCase(t, 9, 4, 100, 10, 2)
	ctx, cancel := context.WithCancel(context.Background())
	rec, err := mc.m.Next(ctx, 10, extsort.TiesSplit, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec.Release()
	cancel()
	if rec, err = mc.m.Next(ctx, 10, extsort.TiesSplit, nil); !errors.Is(err, context.Canceled) || rec != nil {
		t.Fatalf("Next after cancel: %v, %v", rec, err)
	}
}

// TestMergeForeignBatch: a run whose batch has other column types fails
// the merge with spill.ErrCorrupt, naming the run.
func TestMergeForeignBatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	other := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewRecordBuilder(mem, other)
	b.Field(0).(*array.Int64Builder).Append(1)
	rec := b.NewRecordBatch()
	b.Release()
	_, err := extsort.NewMerge(extsort.MergeConfig{Schema: pairSchema, Keys: pairKeys, Mem: mem},
		[]extsort.Source{&batchSource{recs: []arrow.RecordBatch{rec}}}, []string{"the odd run"})
	if !errors.Is(err, spill.ErrCorrupt) || !strings.Contains(err.Error(), "the odd run") {
		t.Fatalf("merge of a foreign batch: %v, want spill.ErrCorrupt naming the run", err)
	}
}
