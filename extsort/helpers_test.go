package extsort_test

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/extsort"
	"github.com/quiverdb/quiver/sortkey"
	"github.com/quiverdb/quiver/sortkey/sortkeytest"
	"github.com/quiverdb/quiver/spill"
)

// input is a test's batches: key columns of the given types, then "id",
// each row's position in the whole input, then a string payload.
type input struct {
	schema  *arrow.Schema
	batches []arrow.RecordBatch
	keys    []extsort.Key
	fields  []sortkey.SortField
	rows    int
	bytes   int64
}

func (in *input) release() {
	for _, b := range in.batches {
		b.Release()
	}
}

func (in *input) idCol() int { return len(in.keys) }

// makeInput builds nb batches of about per rows (some empty, sizes vary)
// with keys of types in the directions given, distinct values per key.
func makeInput(mem memory.Allocator, types []arrow.DataType, dirs []extsort.Key, nb, per, distinct int, seed uint64) *input {
	r := rand.New(rand.NewPCG(seed, 99))
	fields := make([]arrow.Field, 0, len(types)+2)
	in := &input{}
	for i, t := range types {
		fields = append(fields, arrow.Field{Name: "k" + string(rune('0'+i)), Type: t, Nullable: true})
		k := dirs[i]
		k.Col = i
		in.keys = append(in.keys, k)
		in.fields = append(in.fields, sortkey.SortField{Type: t, Desc: k.Desc, NullsFirst: k.NullsFirst})
	}
	fields = append(fields, arrow.Field{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "payload", Type: arrow.BinaryTypes.String, Nullable: true})
	in.schema = arrow.NewSchema(fields, nil)
	id := int64(0)
	for b := range nb {
		n := per/2 + r.IntN(per+1)
		if b%7 == 3 {
			n = 0
		}
		cols := make([]arrow.Array, 0, len(fields))
		for _, t := range types {
			cols = append(cols, sortkeytest.Column(mem, t, n, distinct, 0.1, r))
		}
		ib := array.NewInt64Builder(mem)
		pb := array.NewStringBuilder(mem)
		for range n {
			ib.Append(id)
			id++
			if r.IntN(10) == 0 {
				pb.AppendNull()
			} else {
				pb.Append("payload of a row that is long enough"[:r.IntN(30)])
			}
		}
		cols = append(cols, ib.NewArray(), pb.NewArray())
		ib.Release()
		pb.Release()
		rec := array.NewRecordBatch(in.schema, cols, int64(n))
		for _, c := range cols {
			c.Release()
		}
		in.batches = append(in.batches, rec)
		in.rows += n
		in.bytes += recBytes(rec)
	}
	return in
}

func recBytes(rec arrow.RecordBatch) int64 {
	var n int64
	var walk func(d arrow.ArrayData)
	walk = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			walk(c)
		}
	}
	for _, c := range rec.Columns() {
		walk(c.Data())
	}
	return n
}

// expected returns the ids of the input's rows in stable sorted order.
func (in *input) expected(t *testing.T, mem memory.Allocator) []int64 {
	t.Helper()
	whole := make([]arrow.Array, len(in.keys)+1)
	for k := range whole {
		parts := make([]arrow.Array, len(in.batches))
		for b, rec := range in.batches {
			parts[b] = rec.Column(k)
		}
		var err error
		if whole[k], err = array.Concatenate(parts, mem); err != nil {
			t.Fatal(err)
		}
		defer whole[k].Release()
	}
	c, err := sortkeytest.Comparator(whole[:len(in.keys)], whole[:len(in.keys)], in.fields)
	if err != nil {
		t.Fatal(err)
	}
	perm := make([]int, in.rows)
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, c)
	ids := whole[len(in.keys)].(*array.Int64)
	out := make([]int64, len(perm))
	for i, p := range perm {
		out[i] = ids.Value(p)
	}
	return out
}

// newManager returns a spill Manager in a test folder, closed (and
// checked empty) when the test ends.
func newManager(t *testing.T, c codec.Setting, quota int64, mem memory.Allocator) *spill.Manager {
	t.Helper()
	m, err := spill.NewManager(spill.Config{Dir: t.TempDir(), Codec: c, Quota: quota, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// assertNoFiles checks the Manager holds no spill file, on its books or
// on disk.
func assertNoFiles(t *testing.T, m *spill.Manager) {
	t.Helper()
	if st := m.Stats(); st.Files != 0 || st.DiskBytes != 0 {
		t.Errorf("spill manager still holds %d files, %d bytes", st.Files, st.DiskBytes)
	}
	ents, err := os.ReadDir(m.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("left on disk: %s", e.Name())
	}
}

// sortAll runs the sort over the input and returns the output ids, the
// output batches' row counts and the metrics.
func sortAll(t *testing.T, ctx context.Context, in *input, cfg extsort.Config) ([]int64, extsort.Metrics, error) {
	t.Helper()
	s, err := extsort.New(in.schema, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, rec := range in.batches {
		if err := s.Add(ctx, rec); err != nil {
			return nil, s.Metrics(), err
		}
	}
	r, err := s.Finish(ctx)
	if err != nil {
		return nil, s.Metrics(), err
	}
	defer r.Release()
	var ids []int64
	for r.Next() {
		rec := r.RecordBatch()
		if n := rec.NumRows(); n > int64(max(cfg.BatchRows, extsort.DefaultBatchRows*boolInt(cfg.BatchRows == 0))) {
			t.Errorf("output batch of %d rows, BatchRows %d", n, cfg.BatchRows)
		}
		if !rec.Schema().Equal(in.schema) {
			t.Fatalf("output schema %s", rec.Schema())
		}
		col := rec.Column(in.idCol()).(*array.Int64)
		ids = append(ids, col.Int64Values()...)
	}
	if err := r.Err(); err != nil {
		return nil, s.Metrics(), err
	}
	return ids, s.Metrics(), nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func checkIDs(t *testing.T, got, want []int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows out, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("row %d of the output is input row %d, want %d", i, got[i], want[i])
		}
	}
}

func arrowRecord(schema *arrow.Schema, cols []arrow.Array, rows int64) arrow.RecordBatch {
	return array.NewRecordBatch(schema, cols, rows)
}

// checkPeak checks the sort stayed within its memory limit, with 10%
// slack: the headroom for output batches is an estimate, and these limits
// are tens of KiB, where one batch is a few percent of them. Limits that
// do not hold two runs' read buffers are not checked: a merge needs two
// runs at least, and the sort goes over rather than fail.
func checkPeak(t *testing.T, met extsort.Metrics, limit int64) {
	t.Helper()
	if float64(met.PeakMemory) > 1.1*float64(limit) {
		t.Errorf("peak memory %d passes the %d-byte limit", met.PeakMemory, limit)
	}
}
