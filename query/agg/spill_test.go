package agg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/sortkey"
	"github.com/quiverdb/quiver/spill"
)

// testBudget is a Budget that records its peak.
type testBudget struct {
	mu                sync.Mutex
	limit, used, peak int64
}

func (b *testBudget) Grow(n int64) {
	b.mu.Lock()
	b.used += n
	b.peak = max(b.peak, b.used)
	b.mu.Unlock()
}

func (b *testBudget) Shrink(n int64) { b.Grow(-n) }

func (b *testBudget) Available() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.limit - b.used
}

func newManager(t testing.TB, cfg spill.Config) *spill.Manager {
	t.Helper()
	if cfg.Dir == "" {
		cfg.Dir = t.TempDir()
	}
	m, err := spill.NewManager(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if st := m.Stats(); st.Files != 0 || st.DiskBytes != 0 {
			t.Errorf("%d spill files (%d bytes) left behind", st.Files, st.DiskBytes)
		}
		m.Close()
	})
	return m
}

// readAll reads r to the end.
func readAll(t testing.TB, r array.RecordReader) ([]arrow.RecordBatch, error) {
	t.Helper()
	var recs []arrow.RecordBatch
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
	}
	return recs, r.Err()
}

// checkUnordered compares batches with the reference group by group,
// whatever their order, and checks that the groups come in key order.
func checkUnordered(t *testing.T, recs []arrow.RecordBatch, schema *arrow.Schema, ref *refAgg, tol float64) {
	t.Helper()
	nk := len(ref.keyTypes)
	want := map[string]*refGroup{}
	for k, g := range ref.groups {
		want[k] = g
	}
	var fields []sortkey.SortField
	for _, dt := range ref.keyTypes {
		fields = append(fields, sortkey.SortField{Type: dt})
	}
	enc, err := sortkey.NewEncoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	var last []byte
	rows := 0
	for _, rec := range recs {
		if !rec.Schema().Equal(schema) {
			t.Fatalf("schema %v, want %v", rec.Schema(), schema)
		}
		var keys sortkey.Rows
		if err := encodeKeys(enc, &keys, rec.Columns()[:nk], int(rec.NumRows())); err != nil {
			t.Fatal(err)
		}
		for i := range int(rec.NumRows()) {
			if rows > 0 && nk > 0 && bytes.Compare(keys.Row(i), last) <= 0 {
				t.Fatalf("row %d: keys not in ascending order", rows)
			}
			last = append(last[:0], keys.Row(i)...)
			rows++
			var sb bytes.Buffer
			var kv []any
			for k := range nk {
				v := cell(rec.Column(k), i)
				kv = append(kv, v)
				sb.WriteString(keyString(v))
				sb.WriteByte('|')
			}
			g := want[sb.String()]
			if g == nil {
				t.Fatalf("row %d: group %v not in the reference, or twice", rows, kv)
			}
			delete(want, sb.String())
			for j, s := range ref.specs {
				got, exp := cell(rec.Column(nk+j), i), ref.expect(g, j)
				if !sameValue(got, exp, specTol(s, ref.argTypes, tol)) {
					t.Fatalf("group %v: %s = %v, want %v", kv, schema.Field(nk+j).Name, got, exp)
				}
			}
		}
	}
	if len(want) > 0 {
		t.Fatalf("%d groups of the reference missing (%d rows returned)", len(want), rows)
	}
}

var spillCodecs = []codec.Setting{{}, codec.SettingLZ4, {Kind: codec.Zstd, Level: 1}}

// TestSpillRandom aggregates random batches with one or two aggregators
// sharing a Spiller, spilling whenever a table passes its limit and at
// random, with small batches and fan-ins that force merge passes, and
// compares the merged groups with the row-at-a-time reference.
func TestSpillRandom(t *testing.T) {
	n := *seeds / 2
	if testing.Short() {
		n = *seeds / 6
	}
	for seed := range uint64(n) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { runSpillRandom(t, seed) })
	}
}

func runSpillRandom(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 17))
	mem := checked(t)
	g := &gen{rng: rng, mem: mem, card: []int{1, 5, 60, 700, 4000}[rng.IntN(5)], nullP: 0.15}
	keyTypes := make([]arrow.DataType, rng.IntN(4))
	for i := range keyTypes {
		keyTypes[i] = engineTypes[rng.IntN(len(engineTypes))]
	}
	argTypes := make([]arrow.DataType, 1+rng.IntN(3))
	for i := range argTypes {
		argTypes[i] = engineTypes[rng.IntN(len(engineTypes))]
	}
	specs := validSpecs(argTypes)
	rng.Shuffle(len(specs), func(i, j int) { specs[i], specs[j] = specs[j], specs[i] })
	specs = specs[:1+rng.IntN(len(specs))]
	if rng.IntN(3) == 0 { // repeats share a state
		specs = append(specs, specs[rng.IntN(len(specs))])
	}
	opts := Options{Mem: mem, MemoryLimit: int64(40_000 + rng.IntN(200_000))}
	m := newManager(t, spill.Config{Codec: spillCodecs[rng.IntN(len(spillCodecs))]})
	var budget *testBudget
	cfg := SpillConfig{Manager: m, BatchRows: 1 + rng.IntN(300), FanIn: 2 + rng.IntN(4)}
	if rng.IntN(2) == 0 {
		budget = &testBudget{limit: int64(rng.IntN(2_000_000))}
		cfg.Budget = budget
	}
	aggs := make([]*HashAggregator, 1+rng.IntN(2))
	for i := range aggs {
		var err error
		if aggs[i], err = NewHashAggregator(keyTypes, argTypes, specs, opts); err != nil {
			t.Fatal(err)
		}
		defer aggs[i].Release()
	}
	sp, err := NewSpiller(aggs[0], cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	ctx := context.Background()
	ref := newRef(keyTypes, argTypes, specs)
	for range 2 + rng.IntN(12) {
		n := rng.IntN(700)
		keys, args := genBatch(g, keyTypes, argTypes, n)
		h := aggs[rng.IntN(len(aggs))]
		err := h.Add(keys, args)
		if errors.Is(err, ErrMemoryLimit) {
			if err := sp.Spill(ctx, h); err != nil {
				t.Fatal(err)
			}
			err = h.Add(keys, args)
		}
		switch {
		case errors.Is(err, ErrMemoryLimit): // one batch larger than the limit
		case err != nil:
			t.Fatal(err)
		default:
			ref.add(keys, args, n)
		}
		releaseArrays(keys)
		releaseArrays(args)
		if rng.IntN(4) == 0 {
			if err := sp.Spill(ctx, h); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, h := range aggs[1:] {
		if err := sp.Spill(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	r, err := sp.Finish(ctx, aggs[0])
	if err != nil {
		t.Fatal(err)
	}
	if aggs[0].Groups() != 0 && len(keyTypes) > 0 {
		t.Fatalf("Finish left %d groups in the aggregator", aggs[0].Groups())
	}
	recs, err := readAll(t, r)
	defer releaseBatches(recs)
	switch {
	case ref.overflows():
		if !errors.Is(err, ErrOverflow) {
			t.Fatalf("merge: %v, want ErrOverflow", err)
		}
		return
	case err != nil:
		t.Fatal(err)
	}
	checkUnordered(t, recs, aggs[0].ResultSchema(), ref, 1e-9)
	met := sp.Metrics()
	if testing.Verbose() {
		t.Logf("keys %v card %d fan-in %d batch %d: %d groups; %v", keyTypes, g.card, cfg.FanIn, cfg.BatchRows, len(ref.order), met)
	}
	if st := m.Stats(); int64(met.Files) != st.FilesCreated || met.Bytes != st.BytesWritten || met.Rows != st.RowsWritten {
		t.Fatalf("metrics %v, manager wrote %d files, %d bytes, %d rows", met, st.FilesCreated, st.BytesWritten, st.RowsWritten)
	}
	r.Release()
	sp.Close()
	if budget != nil && budget.used != 0 {
		t.Fatalf("%d bytes still charged to the budget after Close", budget.used)
	}
}

// intBatch is keys [from, from+n) each once, and the same as values.
func intBatch(mem memory.Allocator, from, n int) (keys, args []arrow.Array) {
	b := array.NewInt64Builder(mem)
	defer b.Release()
	for i := range n {
		b.Append(int64(from + i))
	}
	k := b.NewArray()
	k.Retain()
	return []arrow.Array{k}, []arrow.Array{k}
}

// TestSpillManyRuns spills 40 runs of overlapping keys and merges them with
// a fan-in of 3: several merge passes, every count and distinct count
// exact.
func TestSpillManyRuns(t *testing.T) {
	mem := checked(t)
	i64 := arrow.PrimitiveTypes.Int64
	specs := []Spec{{Func: CountStar}, {Func: Sum, Arg: 0}, {Func: CountDistinct, Arg: 0}, {Func: Max, Arg: 0}}
	h, err := NewHashAggregator([]arrow.DataType{i64}, []arrow.DataType{i64}, specs, Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	m := newManager(t, spill.Config{Codec: codec.SettingLZ4})
	budget := &testBudget{limit: 1 << 40}
	sp, err := NewSpiller(h, SpillConfig{Manager: m, BatchRows: 100, FanIn: 3, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	ctx := context.Background()
	const runs, per = 40, 1000
	for i := range runs {
		keys, args := intBatch(mem, i*per/2, per) // each key in two runs
		if err := h.Add(keys, args); err != nil {
			t.Fatal(err)
		}
		releaseArrays(keys)
		releaseArrays(args)
		if err := sp.Spill(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	r, err := sp.Finish(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	want := int64(0)
	for r.Next() {
		rec := r.RecordBatch()
		k, cnt := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int64)
		dist, mx := rec.Column(3).(*array.Int64), rec.Column(4).(*array.Int64)
		for i := range rec.NumRows() {
			if k.Value(int(i)) != want {
				t.Fatalf("key %d, want %d", k.Value(int(i)), want)
			}
			c := int64(2)
			if want < per/2 || want >= runs*per/2 {
				c = 1
			}
			if cnt.Value(int(i)) != c || dist.Value(int(i)) != 1 || mx.Value(int(i)) != want {
				t.Fatalf("key %d: count %d distinct %d max %d, want %d 1 %d", want, cnt.Value(int(i)), dist.Value(int(i)), mx.Value(int(i)), c, want)
			}
			want++
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if want != (runs+1)*per/2 {
		t.Fatalf("%d groups, want %d", want, (runs+1)*per/2)
	}
	met := sp.Metrics()
	if met.Runs != runs || met.MergePasses == 0 || met.KeptRows != 0 {
		t.Fatalf("metrics %v: want %d runs, merge passes, nothing kept", met, runs)
	}
	t.Logf("%v; budget peak %d", met, budget.peak)
}

// TestSpillDistinctOneGroup is count(DISTINCT) of a global aggregate whose
// values are spilled in many runs: the merge counts them without holding
// them.
func TestSpillDistinctOneGroup(t *testing.T) {
	mem := checked(t)
	i64 := arrow.PrimitiveTypes.Int64
	h, err := NewHashAggregator(nil, []arrow.DataType{i64}, []Spec{{Func: CountDistinct, Arg: 0}, {Func: CountStar}}, Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	m := newManager(t, spill.Config{})
	sp, err := NewSpiller(h, SpillConfig{Manager: m, BatchRows: 333, FanIn: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	ctx := context.Background()
	for i := range 20 {
		keys, args := intBatch(mem, i*500, 1000)
		if err := h.Add(nil, args); err != nil {
			t.Fatal(err)
		}
		releaseArrays(keys)
		releaseArrays(args)
		if err := sp.Spill(ctx, h); err != nil {
			t.Fatal(err)
		}
	}
	r, err := sp.Finish(ctx, h)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	recs, err := readAll(t, r)
	defer releaseBatches(recs)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].NumRows() != 1 {
		t.Fatalf("%d batches, want one row", len(recs))
	}
	if d, c := recs[0].Column(0).(*array.Int64).Value(0), recs[0].Column(1).(*array.Int64).Value(0); d != 10500 || c != 20000 {
		t.Fatalf("count(DISTINCT) %d, count(*) %d; want 10500, 20000", d, c)
	}
}

// TestSpillErrors: a full quota fails the spill with spill.ErrQuota and
// leaves the aggregator as it was; a cancelled merge stops; Close removes
// every file either way (newManager checks).
func TestSpillErrors(t *testing.T) {
	i64 := arrow.PrimitiveTypes.Int64
	specs := []Spec{{Func: Sum, Arg: 0}, {Func: CountDistinct, Arg: 0}}
	setup := func(t *testing.T, quota int64) (*HashAggregator, *Spiller, memory.Allocator) {
		mem := checked(t)
		h, err := NewHashAggregator([]arrow.DataType{i64}, []arrow.DataType{i64}, specs, Options{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(h.Release)
		m := newManager(t, spill.Config{Quota: quota})
		sp, err := NewSpiller(h, SpillConfig{Manager: m, BatchRows: 64, FanIn: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sp.Close)
		return h, sp, mem
	}
	add := func(t *testing.T, h *HashAggregator, mem memory.Allocator, from int) {
		keys, args := intBatch(mem, from, 2000)
		defer releaseArrays(keys)
		defer releaseArrays(args)
		if err := h.Add(keys, args); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("quota", func(t *testing.T) {
		h, sp, mem := setup(t, 40_000)
		add(t, h, mem, 0)
		err := sp.Spill(context.Background(), h)
		if !errors.Is(err, spill.ErrQuota) {
			t.Fatalf("Spill: %v, want spill.ErrQuota", err)
		}
		if h.Groups() != 2000 {
			t.Fatalf("failed spill left %d groups, want 2000", h.Groups())
		}
	})
	t.Run("cancel", func(t *testing.T) {
		h, sp, mem := setup(t, 0)
		ctx, cancel := context.WithCancel(context.Background())
		for i := range 5 {
			add(t, h, mem, i*1000)
			if err := sp.Spill(ctx, h); err != nil {
				t.Fatal(err)
			}
		}
		r, err := sp.Finish(ctx, h)
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
			t.Fatalf("after cancel: %v", r.Err())
		}
	})
	t.Run("corrupt", func(t *testing.T) {
		h, sp, mem := setup(t, 0)
		for i := range 3 {
			add(t, h, mem, i*1000)
			if err := sp.Spill(context.Background(), h); err != nil {
				t.Fatal(err)
			}
		}
		path := sp.runs[1].main.Path()
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		var b [1]byte
		off := st.Size() * 2 / 3
		f.ReadAt(b[:], off)
		b[0] ^= 0x10
		f.WriteAt(b[:], off)
		f.Close()
		r, err := sp.Finish(context.Background(), h)
		if err == nil {
			defer r.Release()
			for r.Next() {
			}
			err = r.Err()
		}
		if !errors.Is(err, spill.ErrCorrupt) || !strings.Contains(err.Error(), path) {
			t.Fatalf("merge of a damaged run: %v, want spill.ErrCorrupt naming %s", err, path)
		}
	})
	t.Run("cancelled-spill", func(t *testing.T) {
		h, sp, mem := setup(t, 0)
		add(t, h, mem, 0)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := sp.Spill(ctx, h); !errors.Is(err, context.Canceled) {
			t.Fatalf("Spill: %v", err)
		}
	})
	t.Run("shape", func(t *testing.T) {
		h, sp, mem := setup(t, 0)
		_ = h
		other, err := NewHashAggregator([]arrow.DataType{i64}, []arrow.DataType{i64}, specs[:1], Options{Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		defer other.Release()
		if err := sp.Spill(context.Background(), other); !errors.Is(err, ErrInput) {
			t.Fatalf("Spill of another shape: %v", err)
		}
	})
}

// FuzzSpill drives the random spill test from fuzz input: whatever the
// shapes, batch sizes and fan-ins, the merged groups equal the
// reference's.
func FuzzSpill(f *testing.F) {
	for _, s := range []uint64{0, 1, 7, 42} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { runSpillRandom(t, seed) })
}

// TestSpillWorkedExample spills doc.go's example and reads the run's two
// files back: the partial states sorted by key (NULL last), the pairs
// sorted by key and value.
func TestSpillWorkedExample(t *testing.T) {
	mem := checked(t)
	i64, str := arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String
	h, err := NewHashAggregator([]arrow.DataType{i64}, []arrow.DataType{str},
		[]Spec{{Func: CountStar}, {Func: CountDistinct, Arg: 0}}, Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	kb, vb := array.NewInt64Builder(mem), array.NewStringBuilder(mem)
	defer kb.Release()
	defer vb.Release()
	kb.AppendValues([]int64{2, 1, 2, 2, 0}, []bool{true, true, true, true, false})
	vb.AppendValues([]string{"a", "b", "a", "c", "a"}, nil)
	k, v := kb.NewArray(), vb.NewArray()
	defer k.Release()
	defer v.Release()
	if err := h.Add([]arrow.Array{k}, []arrow.Array{v}); err != nil {
		t.Fatal(err)
	}
	sp, err := NewSpiller(h, SpillConfig{Manager: newManager(t, spill.Config{Codec: codec.SettingLZ4})})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	if err := sp.Spill(context.Background(), h); err != nil {
		t.Fatal(err)
	}
	read := func(f *spill.File) string {
		r, err := f.Open(mem)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Release()
		var rows []string
		for r.Next() {
			rec := r.RecordBatch()
			for i := range int(rec.NumRows()) {
				var cells []string
				for _, c := range rec.Columns() {
					cells = append(cells, c.ValueStr(i))
				}
				rows = append(rows, "("+strings.Join(cells, ", ")+")")
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		return strings.Join(rows, " ")
	}
	run := sp.runs[0]
	if got, want := read(run.main), "(1, 1) (2, 3) ((null), 1)"; got != want {
		t.Errorf("partial states %s, want %s", got, want)
	}
	if got, want := read(run.distinct[0]), "(1, b) (2, a) (2, c) ((null), a)"; got != want {
		t.Errorf("pairs %s, want %s", got, want)
	}
}

// TestShrink: Shrink gives back what Reset keeps, and the aggregator
// works on as new.
func TestShrink(t *testing.T) {
	mem := checked(t)
	i64 := arrow.PrimitiveTypes.Int64
	specs := []Spec{{Func: CountStar}, {Func: CountDistinct, Arg: 0}, {Func: Sum, Arg: 0}}
	h, err := NewHashAggregator([]arrow.DataType{i64}, []arrow.DataType{i64}, specs, Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	fresh := h.MemoryUsage()
	keys, args := intBatch(mem, 0, 5000)
	defer releaseArrays(keys)
	defer releaseArrays(args)
	if err := h.Add(keys, args); err != nil {
		t.Fatal(err)
	}
	full := h.MemoryUsage()
	if err := h.Reset(); err != nil {
		t.Fatal(err)
	}
	if h.MemoryUsage() != full {
		t.Fatalf("Reset: %d bytes, want the %d kept", h.MemoryUsage(), full)
	}
	if err := h.Shrink(); err != nil {
		t.Fatal(err)
	}
	if h.MemoryUsage() != fresh || h.Groups() != 0 {
		t.Fatalf("Shrink: %d bytes and %d groups, want %d and 0", h.MemoryUsage(), h.Groups(), fresh)
	}
	ref := newRef([]arrow.DataType{i64}, []arrow.DataType{i64}, specs)
	if err := h.Add(keys, args); err != nil {
		t.Fatal(err)
	}
	ref.add(keys, args, 5000)
	checkResult(t, h, ref, 1000, 0)
}
