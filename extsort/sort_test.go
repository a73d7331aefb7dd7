package extsort_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/extsort"
	"github.com/quiverdb/quiver/internal/datagen"
	"github.com/quiverdb/quiver/sortkey"
	"github.com/quiverdb/quiver/sortkey/sortkeytest"
	"github.com/quiverdb/quiver/spill"
)

var (
	asc       = extsort.Key{}
	desc      = extsort.Key{Desc: true}
	ascFirst  = extsort.Key{NullsFirst: true}
	descFirst = extsort.Key{Desc: true, NullsFirst: true}
)

// keySets are multi-column ORDER BYs over several types and directions.
var keySets = []struct {
	name  string
	types []arrow.DataType
	dirs  []extsort.Key
}{
	{"int64", []arrow.DataType{arrow.PrimitiveTypes.Int64}, []extsort.Key{asc}},
	{"utf8_desc_nullsfirst", []arrow.DataType{arrow.BinaryTypes.String}, []extsort.Key{descFirst}},
	{"int32,utf8,float64", []arrow.DataType{arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String, arrow.PrimitiveTypes.Float64},
		[]extsort.Key{asc, desc, ascFirst}},
	{"date32,decimal128,bool", []arrow.DataType{arrow.FixedWidthTypes.Date32, &arrow.Decimal128Type{Precision: 15, Scale: 2}, arrow.FixedWidthTypes.Boolean},
		[]extsort.Key{descFirst, asc, desc}},
	{"dict,view,ts", []arrow.DataType{
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String},
		arrow.BinaryTypes.StringView, &arrow.TimestampType{Unit: arrow.Microsecond}},
		[]extsort.Key{asc, descFirst, desc}},
	// A string first key with many ties, so the top-k's prefilter on the
	// first key must leave ties to the second.
	{"utf8,int64", []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64}, []extsort.Key{ascFirst, desc}},
}

// TestAgainstInMemorySort sorts random data with duplicates and NULLs at
// memory limits that force one run (no spill), about 10 and over 100
// runs, and checks the output row for row against a stable in-memory
// sort: the same rows in the same order, ties in input order.
func TestAgainstInMemorySort(t *testing.T) {
	for _, ks := range keySets {
		for _, runs := range []int{1, 10, 100} {
			if runs == 100 && testing.Short() && ks.name != "int32,utf8,float64" {
				continue
			}
			t.Run(fmt.Sprintf("%s/runs=%d", ks.name, runs), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				in := makeInput(mem, ks.types, ks.dirs, 120, 100, 40, uint64(runs))
				defer in.release()
				m := newManager(t, codec.Setting{Kind: codec.Zstd, Level: 1}, 0, mem)
				cfg := extsort.Config{Keys: in.keys, Spill: m, Mem: mem, BatchRows: 64, MaxOpenFiles: 64}
				cfg.MemoryLimit = limitFor(in, runs)
				ids, met, err := sortAll(t, context.Background(), in, cfg)
				if err != nil {
					t.Fatal(err)
				}
				checkIDs(t, ids, in.expected(t, mem))
				checkRuns(t, met, runs)
				if runs <= 10 {
					checkPeak(t, met, cfg.MemoryLimit)
				}
				assertNoFiles(t, m)
				t.Log(met)
			})
		}
	}
}

// limitFor is a memory limit under which the input makes about runs
// sorted runs: its batches, keys and items come to about twice its
// batches' bytes.
func limitFor(in *input, runs int) int64 {
	if runs == 1 {
		return 1 << 30
	}
	return 2 * in.bytes / int64(runs)
}

func checkRuns(t *testing.T, m extsort.Metrics, runs int) {
	t.Helper()
	switch {
	case runs == 1 && m.SpillFiles != 0:
		t.Errorf("%d spill files, want none", m.SpillFiles)
	case runs > 1 && (m.Runs < runs*2/3 || m.Runs > runs*4): // spilling thirds: up to 3 runs a memory
		t.Errorf("%d runs, want about %d", m.Runs, runs)
	}
}

// TestMultiLevelMerge: with more runs than MaxOpenFiles, runs are merged
// in passes before the final merge, and the order is still exact.
func TestMultiLevelMerge(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ks := keySets[2]
	in := makeInput(mem, ks.types, ks.dirs, 100, 100, 20, 5)
	defer in.release()
	m := newManager(t, codec.Setting{Kind: codec.LZ4}, 0, mem)
	cfg := extsort.Config{Keys: in.keys, Spill: m, Mem: mem, BatchRows: 50, MaxOpenFiles: 3, MemoryLimit: limitFor(in, 20)}
	ids, met, err := sortAll(t, context.Background(), in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkIDs(t, ids, in.expected(t, mem))
	if met.MergePasses == 0 || met.SpillFiles <= met.Runs {
		t.Errorf("no merge pass with %d runs and MaxOpenFiles 3: %v", met.Runs, met)
	}
	assertNoFiles(t, m)
	t.Log(met)
}

// TestMemoryBoundsFanIn: a memory limit too small for MaxOpenFiles read
// buffers makes the merge read fewer runs at once (more passes).
func TestMemoryBoundsFanIn(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := makeInput(mem, []arrow.DataType{arrow.PrimitiveTypes.Int64}, []extsort.Key{asc}, 60, 200, 1000, 6)
	defer in.release()
	m := newManager(t, codec.Setting{}, 0, mem)
	cfg := extsort.Config{Keys: in.keys, Spill: m, Mem: mem, BatchRows: 100, MaxOpenFiles: 1000, MemoryLimit: limitFor(in, 40)}
	ids, met, err := sortAll(t, context.Background(), in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkIDs(t, ids, in.expected(t, mem))
	if met.MergePasses == 0 {
		t.Errorf("%d runs merged in one pass within %d bytes: %v", met.Runs, cfg.MemoryLimit, met)
	}
	assertNoFiles(t, m)
	t.Log(met)
}

// TestStableAcrossRuns: every key equal, so the output is the input order
// exactly, across many runs.
func TestStableAcrossRuns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := makeInput(mem, []arrow.DataType{arrow.PrimitiveTypes.Int8, arrow.BinaryTypes.String}, []extsort.Key{asc, desc}, 80, 100, 1, 7)
	defer in.release()
	m := newManager(t, codec.Setting{}, 0, mem)
	cfg := extsort.Config{Keys: in.keys, Spill: m, Mem: mem, BatchRows: 64, MaxOpenFiles: 4, MemoryLimit: limitFor(in, 30)}
	ids, met, err := sortAll(t, context.Background(), in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := in.expected(t, mem)
	checkIDs(t, ids, want)
	if met.Runs < 10 {
		t.Errorf("only %d runs", met.Runs)
	}
	assertNoFiles(t, m)
}

// TestLimitNeverSpills: ORDER BY … LIMIT k holds O(k) rows: with a memory
// limit that forces dozens of runs without LIMIT, a top-10 writes no
// spill file.
func TestLimitNeverSpills(t *testing.T) {
	for _, ksi := range []int{2, 1, len(keySets) - 1} {
		for _, k := range []int64{1, 10, 100} {
			t.Run(fmt.Sprint(keySets[ksi].name, "/", k), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				ks := keySets[ksi]
				in := makeInput(mem, ks.types, ks.dirs, 100, 100, 30, 8)
				defer in.release()
				m := newManager(t, codec.Setting{}, 0, mem)
				cfg := extsort.Config{Keys: in.keys, Spill: m, Mem: mem, BatchRows: 64, Limit: k, MemoryLimit: limitFor(in, 10)}
				ids, met, err := sortAll(t, context.Background(), in, cfg)
				if err != nil {
					t.Fatal(err)
				}
				checkIDs(t, ids, in.expected(t, mem)[:k])
				checkPeak(t, met, cfg.MemoryLimit)
				if met.SpillFiles != 0 {
					t.Errorf("top-%d spilled: %v", k, met)
				}
				if met.Compactions == 0 {
					t.Errorf("top-%d never compacted", k)
				}
				assertNoFiles(t, m)
			})
		}
	}
}

// TestLimitLargerThanMemory: when k rows do not fit, the top-k spills
// runs of at most k rows and merges only k rows out.
func TestLimitLargerThanMemory(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ks := keySets[1]
	in := makeInput(mem, ks.types, ks.dirs, 100, 100, 50, 9)
	defer in.release()
	m := newManager(t, codec.Setting{}, 0, mem)
	k := int64(in.rows / 2)
	cfg := extsort.Config{Keys: in.keys, Spill: m, Mem: mem, BatchRows: 64, Limit: k, MemoryLimit: limitFor(in, 10)}
	ids, met, err := sortAll(t, context.Background(), in, cfg)
	if err != nil {
		t.Fatal(err)
	}
	checkIDs(t, ids, in.expected(t, mem)[:k])
	checkPeak(t, met, cfg.MemoryLimit)
	if met.Runs == 0 {
		t.Errorf("a top-%d of %d rows in %d bytes did not spill", k, in.rows, cfg.MemoryLimit)
	}
	if met.SpilledRows > int64(met.Runs)*k {
		t.Errorf("%d rows spilled in %d runs: a run holds at most k = %d", met.SpilledRows, met.Runs, k)
	}
	assertNoFiles(t, m)
}

// TestNoSpillManager: without a Manager, passing the limit is ErrMemory.
func TestNoSpillManager(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := makeInput(mem, []arrow.DataType{arrow.PrimitiveTypes.Int64}, []extsort.Key{asc}, 20, 100, 50, 10)
	defer in.release()
	_, _, err := sortAll(t, context.Background(), in, extsort.Config{Keys: in.keys, Mem: mem, BatchRows: 64, MemoryLimit: limitFor(in, 5)})
	if !errors.Is(err, extsort.ErrMemory) {
		t.Fatalf("%v, want ErrMemory", err)
	}
	// The sizes, for a caller to say in its own terms (query does).
	var me *extsort.MemoryError
	if !errors.As(err, &me) || me.Need <= 0 || me.Rows <= 0 || me.Held <= 0 || me.Held+me.Need <= me.Held+me.Available {
		t.Errorf("%v: MemoryError %+v", err, me)
	}
}

// TestQuota: a spill that passes the Manager's quota fails with
// spill.ErrQuota, and nothing is left on disk.
func TestQuota(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := makeInput(mem, []arrow.DataType{arrow.BinaryTypes.String}, []extsort.Key{asc}, 60, 100, 50, 11)
	defer in.release()
	m := newManager(t, codec.Setting{}, in.bytes/4, mem)
	_, _, err := sortAll(t, context.Background(), in, extsort.Config{Keys: in.keys, Spill: m, Mem: mem, BatchRows: 64, MemoryLimit: limitFor(in, 10)})
	if !errors.Is(err, spill.ErrQuota) {
		t.Fatalf("%v, want spill.ErrQuota", err)
	}
	assertNoFiles(t, m)
}

// TestCancel cancels while batches are added (after runs were spilled)
// and while the merge is read: the error is the context's, and no file is
// left.
func TestCancel(t *testing.T) {
	for _, when := range []string{"add", "read"} {
		t.Run(when, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			in := makeInput(mem, []arrow.DataType{arrow.PrimitiveTypes.Int32}, []extsort.Key{desc}, 60, 100, 50, 12)
			defer in.release()
			m := newManager(t, codec.Setting{Kind: codec.Zstd, Level: 1}, 0, mem)
			s, err := extsort.New(in.schema, extsort.Config{Keys: in.keys, Spill: m, Mem: mem, BatchRows: 64, MemoryLimit: limitFor(in, 10)})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			for i, rec := range in.batches {
				if when == "add" && i == len(in.batches)/2 {
					if s.Metrics().Runs == 0 {
						t.Fatal("no run spilled before the cancellation")
					}
					cancel()
				}
				if err := s.Add(ctx, rec); err != nil {
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("Add: %v, want context.Canceled", err)
					}
					s.Close()
					assertNoFiles(t, m)
					return
				}
			}
			if when == "add" {
				t.Fatal("Add went on after the cancellation")
			}
			r, err := s.Finish(ctx)
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
				t.Fatalf("reader: %v, want context.Canceled", r.Err())
			}
			r.Release()
			r.Retain() // the deferred Release balances
			assertNoFiles(t, m)
		})
	}
}

// TestCloseBeforeFinish: a sorter abandoned with runs on disk removes them
// on Close.
func TestCloseBeforeFinish(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := makeInput(mem, []arrow.DataType{arrow.PrimitiveTypes.Int64}, []extsort.Key{asc}, 40, 100, 50, 13)
	defer in.release()
	m := newManager(t, codec.Setting{}, 0, mem)
	s, err := extsort.New(in.schema, extsort.Config{Keys: in.keys, Spill: m, Mem: mem, BatchRows: 64, MemoryLimit: limitFor(in, 10)})
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range in.batches {
		if err := s.Add(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
	if s.Metrics().Runs == 0 {
		t.Fatal("nothing spilled")
	}
	s.Close()
	s.Close()
	assertNoFiles(t, m)
}

// TestBudgetShared: a Budget shared with someone else holding most of it
// makes the sort spill, and every byte taken is given back.
func TestBudgetShared(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	in := makeInput(mem, []arrow.DataType{arrow.PrimitiveTypes.Int64}, []extsort.Key{asc}, 40, 100, 50, 14)
	defer in.release()
	b := extsort.NewBudget(in.bytes * 10)
	b.Grow(in.bytes * 9) // another operator's
	m := newManager(t, codec.Setting{}, 0, mem)
	ids, met, err := sortAll(t, context.Background(), in, extsort.Config{Keys: in.keys, Spill: m, Mem: mem, BatchRows: 64, Budget: b})
	if err != nil {
		t.Fatal(err)
	}
	checkIDs(t, ids, in.expected(t, mem))
	if met.Runs == 0 {
		t.Error("no spill with a tenth of the budget free")
	}
	if got := b.Available(); got != in.bytes {
		t.Errorf("budget has %d available after the sort, want %d back", got, in.bytes)
	}
}

func TestBadInput(t *testing.T) {
	// a run-end encoded column has no order (lists, structs, maps and unions have one: package sortkey)
	schema := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}, {Name: "m", Type: arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int8)}}, nil)
	for name, cfg := range map[string]extsort.Config{
		"no keys":     {},
		"column":      {Keys: []extsort.Key{{Col: 2}}},
		"unorderable": {Keys: []extsort.Key{{Col: 1}}},
	} {
		if _, err := extsort.New(schema, cfg); !errors.Is(err, extsort.ErrInput) {
			t.Errorf("%s: %v, want ErrInput", name, err)
		}
	}
	if _, err := extsort.New(schema, extsort.Config{Keys: []extsort.Key{{}}, MaxOpenFiles: 1}); err == nil {
		t.Error("MaxOpenFiles 1 accepted")
	}
}

// TestPayloadEveryType sorts batches of every type datagen.Record builds by one
// of their columns through spilled runs and merges, and checks every
// column of every output row against the input row it should be.
func TestPayloadEveryType(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var batches []arrow.RecordBatch
	var bytes int64
	for i := range 12 {
		rec := datagen.Record(mem, 50, uint64(i))
		batches = append(batches, rec)
		bytes += recBytes(rec)
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	schema := batches[0].Schema()
	key := schema.FieldIndices("i16")[0]
	keys := []extsort.Key{{Col: key, Desc: true}}
	m := newManager(t, codec.Setting{Kind: codec.Zstd, Level: 1}, 0, mem)
	s, err := extsort.New(schema, extsort.Config{Keys: keys, Spill: m, Mem: mem, BatchRows: 32, MaxOpenFiles: 4, MemoryLimit: 2 * bytes / 10})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, rec := range batches {
		if err := s.Add(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.Finish(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()

	// Expected: positions sorted stably by the key alone.
	type pos struct{ b, r int }
	var all []pos
	for b, rec := range batches {
		for i := range int(rec.NumRows()) {
			all = append(all, pos{b, i})
		}
	}
	fields := []sortkey.SortField{{Type: schema.Field(key).Type, Desc: true}}
	slices.SortStableFunc(all, func(x, y pos) int {
		c, err := sortkeytest.Comparator([]arrow.Array{batches[x.b].Column(key)}, []arrow.Array{batches[y.b].Column(key)}, fields)
		if err != nil {
			t.Fatal(err)
		}
		return c(x.r, y.r)
	})
	at := 0
	for r.Next() {
		rec := r.RecordBatch()
		for j := range int(rec.NumRows()) {
			w := all[at]
			for c := range int(rec.NumCols()) {
				g, e := rec.Column(c), batches[w.b].Column(c)
				if g.IsNull(j) != e.IsNull(w.r) || g.ValueStr(j) != e.ValueStr(w.r) {
					t.Fatalf("output row %d column %s: %q, want %q (input batch %d row %d)", at, schema.Field(c).Name, g.ValueStr(j), e.ValueStr(w.r), w.b, w.r)
				}
			}
			at++
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if at != len(all) {
		t.Fatalf("%d rows out, want %d", at, len(all))
	}
	if met := s.Metrics(); met.Runs < 5 {
		t.Errorf("only %d runs: %v", met.Runs, met)
	}
	r.Release()
	r.Retain()
	assertNoFiles(t, m)
}

// TestKeepsLastRunInMemory: at Finish the rows still buffered are merged
// from memory (only as many of the oldest spilled as the merge's read
// buffers need), never all written; the order is still exact.
func TestKeepsLastRunInMemory(t *testing.T) {
	for _, runs := range []int{2, 4} {
		t.Run(fmt.Sprint(runs), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			ks := keySets[2]
			in := makeInput(mem, ks.types, ks.dirs, 60, 100, 30, 15)
			defer in.release()
			m := newManager(t, codec.Setting{Kind: codec.LZ4}, 0, mem)
			cfg := extsort.Config{Keys: in.keys, Spill: m, Mem: mem, BatchRows: 32, MemoryLimit: limitFor(in, runs)}
			ids, met, err := sortAll(t, context.Background(), in, cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkIDs(t, ids, in.expected(t, mem))
			checkPeak(t, met, cfg.MemoryLimit)
			if met.Runs == 0 || met.RowsKept == 0 || met.SpilledRows+met.RowsKept != int64(in.rows) || met.MergePasses != 0 {
				t.Errorf("want runs on disk, the rest merged from memory, one merge: %v", met)
			}
			assertNoFiles(t, m)
			t.Log(met)
		})
	}
}

// TestEmptyInput: no batch, or only empty ones, sorts to no rows.
func TestEmptyInput(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, nb := range []int{0, 3} {
		in := makeInput(mem, []arrow.DataType{arrow.PrimitiveTypes.Int64}, []extsort.Key{asc}, nb, 0, 5, 16)
		ids, met, err := sortAll(t, context.Background(), in, extsort.Config{Keys: in.keys, Mem: mem})
		if err != nil || len(ids) != 0 || met.OutputRows != 0 {
			t.Errorf("%d empty batches: %d rows, %v", nb, len(ids), err)
		}
		in.release()
	}
}

// TestSliceReserve: a one-row slice of a large array reserves headroom
// for BatchRows rows of one row's size, not of the buffer it shares (a
// join hands such slices on; the sort failed with ErrMemory, 393 MB
// reserved for one 24 KB batch).
func TestSliceReserve(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	for i := range 100_000 {
		b.Append(int64(i))
	}
	big := b.NewArray()
	b.Release()
	defer big.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	s, err := extsort.New(schema, extsort.Config{Keys: []extsort.Key{asc}, Mem: mem, BatchRows: 8192, MemoryLimit: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	one := array.NewSlice(big, 5, 6)
	rec := array.NewRecordBatch(schema, []arrow.Array{one}, 1)
	one.Release()
	defer rec.Release()
	if err := s.Add(context.Background(), rec); err != nil {
		t.Fatalf("one row in 4 MiB: %v", err)
	}
}
