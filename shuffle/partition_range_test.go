package shuffle

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/sortkey"
)

// rangeRow is one row of rangeBatch: an int64 and a string, either NULL.
type rangeRow struct {
	i        int64
	s        string
	iok, sok bool
}

// rangeBatch makes rows of (int64, utf8) from a small domain (many
// ties) with NULLs in both columns.
func rangeBatch(mem memory.Allocator, rng *rand.Rand, n int) (arrow.RecordBatch, []rangeRow) {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	rows := make([]rangeRow, n)
	for r := range rows {
		x := rangeRow{i: int64(rng.IntN(40) - 20), s: fmt.Sprint("k", rng.IntN(6)), iok: rng.IntN(8) > 0, sok: rng.IntN(8) > 0}
		rows[r] = x
		if x.iok {
			b.Field(0).(*array.Int64Builder).Append(x.i)
		} else {
			b.Field(0).AppendNull()
		}
		if x.sok {
			b.Field(1).(*array.StringBuilder).Append(x.s)
		} else {
			b.Field(1).AppendNull()
		}
	}
	return b.NewRecordBatch(), rows
}

// sqlCompare orders two rows as ORDER BY i, s under fields' directions and
// NULL placements, typed: the oracle the normalized keys must agree with.
func sqlCompare(fields []sortkey.SortField, a, b rangeRow) int {
	col := func(k int, aok, bok bool, c int) int {
		f := fields[k]
		switch {
		case !aok && !bok:
			return 0
		case !aok || !bok:
			first := -1 // a is the NULL
			if !bok {
				first = 1
			}
			if f.NullsFirst {
				return first
			}
			return -first
		}
		if f.Desc {
			return -c
		}
		return c
	}
	if c := col(0, a.iok, b.iok, cmp.Compare(a.i, b.i)); c != 0 {
		return c
	}
	return col(1, a.sok, b.sok, cmp.Compare(a.s, b.s))
}

// TestRangePartitionerOracle places random rows with NULLs, ties and
// every direction against a brute-force oracle: a row's partition is the
// number of bounds (rows of the input) that sort strictly before it, by
// a typed comparison.
func TestRangePartitionerOracle(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 40 {
		fields := []sortkey.SortField{
			{Type: arrow.PrimitiveTypes.Int64, Desc: rng.IntN(2) == 0, NullsFirst: rng.IntN(2) == 0},
			{Type: arrow.BinaryTypes.String, Desc: rng.IntN(2) == 0, NullsFirst: rng.IntN(2) == 0},
		}
		rec, rows := rangeBatch(mem, rng, 300)
		// Bounds: distinct rows of the input, sorted by the oracle.
		var picks []rangeRow
		for range 1 + rng.IntN(6) {
			picks = append(picks, rows[rng.IntN(len(rows))])
		}
		slices.SortFunc(picks, func(a, b rangeRow) int { return sqlCompare(fields, a, b) })
		picks = slices.CompactFunc(picks, func(a, b rangeRow) bool { return sqlCompare(fields, a, b) == 0 })
		bounds := encodeRows(t, mem, fields, picks)
		p, err := NewRangePartitioner(fields, bounds)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := p.Partition(nil, rec.Columns(), int(rec.NumRows()))
		if err != nil {
			t.Fatal(err)
		}
		for r, row := range rows {
			want := 0
			for _, b := range picks {
				if sqlCompare(fields, b, row) < 0 {
					want++
				}
			}
			if int(ids[r]) != want {
				t.Fatalf("trial %d (%v): row %d %+v in partition %d, want %d (bounds %+v)", trial, fields, r, row, ids[r], want, picks)
			}
		}
		p.Release()
		rec.Release()
	}
}

// encodeRows returns the normalized keys of rows.
func encodeRows(t *testing.T, mem memory.Allocator, fields []sortkey.SortField, rows []rangeRow) [][]byte {
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	for _, r := range rows {
		if r.iok {
			ib.Append(r.i)
		} else {
			ib.AppendNull()
		}
		if r.sok {
			sb.Append(r.s)
		} else {
			sb.AppendNull()
		}
	}
	is, ss := ib.NewArray(), sb.NewArray()
	defer is.Release()
	defer ss.Release()
	ib.Release()
	sb.Release()
	enc, err := sortkey.NewEncoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	var keys sortkey.Rows
	if err := enc.Encode(&keys, []arrow.Array{is, ss}); err != nil {
		t.Fatal(err)
	}
	out := make([][]byte, keys.Len())
	for i := range out {
		out[i] = slices.Clone(keys.Row(i))
	}
	return out
}

// TestRangePartitionSortsByConcatenation samples a batch, partitions it
// through a Repartitioner by its bounds, and checks what sorting and
// concatenating the partitions needs: every key of a partition at or
// before every key of the next, so equal keys in one partition.
func TestRangePartitionSortsByConcatenation(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(3, 4))
	fields := []sortkey.SortField{{Type: arrow.PrimitiveTypes.Int64, Desc: true}, {Type: arrow.BinaryTypes.String, NullsFirst: true}}
	rec, _ := rangeBatch(mem, rng, 5000)
	defer rec.Release()
	s, err := NewKeySampler(fields, 200, 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Add(rec.Columns()); err != nil {
		t.Fatal(err)
	}
	const fanout = 5
	p, err := NewRangePartitioner(fields, RangeBounds(s.Sample(), fanout))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	if p.Fanout() != fanout {
		t.Fatalf("%d partitions from a sample of 200 keys, want %d", p.Fanout(), fanout)
	}
	rp, err := NewRepartitioner(mem, rec.Schema(), RepartitionConfig{Fanout: fanout, BatchRows: 512})
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Release()
	enc, _ := sortkey.NewEncoder(fields)
	lo := make([][]byte, fanout) // each partition's smallest and largest key
	hi := make([][]byte, fanout)
	rows := make([]int, fanout)
	emit := func(part int, b arrow.RecordBatch) error {
		var keys sortkey.Rows
		if err := enc.Encode(&keys, b.Columns()); err != nil {
			return err
		}
		for i := range keys.Len() {
			k := keys.Row(i)
			if lo[part] == nil || string(k) < string(lo[part]) {
				lo[part] = slices.Clone(k)
			}
			if hi[part] == nil || string(k) > string(hi[part]) {
				hi[part] = slices.Clone(k)
			}
		}
		rows[part] += int(b.NumRows())
		return nil
	}
	if err := rp.AddBy(context.Background(), rec, p, rec.Columns(), emit); err != nil {
		t.Fatal(err)
	}
	if err := rp.Flush(emit); err != nil {
		t.Fatal(err)
	}
	for part := 1; part < fanout; part++ {
		if hi[part-1] == nil || lo[part] == nil || string(hi[part-1]) >= string(lo[part]) {
			t.Fatalf("partition %d ends at %x, partition %d starts at %x: not in order, or a key in both", part-1, hi[part-1], part, lo[part])
		}
	}
	for part, n := range rows {
		if n > 3*5000/fanout { // about 1,000 each; a distinct key holds about 0.4%
			t.Errorf("partition %d holds %d of 5000 rows: %v", part, n, rows)
		}
	}
}

// rangeSizes partitions keys (distinct weights given as counts) by
// RangeBounds of them and returns each partition's rows.
func rangeSizes(counts []int, partitions int) []int {
	var sample []WeightedKey
	for k, c := range counts {
		if c > 0 {
			sample = append(sample, WeightedKey{Key: []byte{byte(k >> 8), byte(k)}, Weight: float64(c)})
		}
	}
	bounds := RangeBounds(sample, partitions)
	sizes := make([]int, len(bounds)+1)
	for k, c := range counts {
		key := []byte{byte(k >> 8), byte(k)}
		p, _ := slices.BinarySearchFunc(bounds, key, func(b, k []byte) int { return cmp.Compare(string(b), string(k)) })
		sizes[p] += c
	}
	return sizes
}

// TestRangeBoundsSkew: heavy keys neither put every row in one range nor
// leave ranges empty that could hold rows.
func TestRangeBoundsSkew(t *testing.T) {
	uniform := func(n int) []int {
		c := make([]int, n)
		for i := range c {
			c[i] = 1
		}
		return c
	}
	for _, tc := range []struct {
		name       string
		counts     []int
		partitions int
		want       []int
	}{
		{"uniform", uniform(1000), 4, []int{250, 250, 250, 250}},
		{"one key", []int{5000}, 4, []int{5000}},
		{"two keys", []int{10, 5000}, 4, []int{10, 5000}},
		{"heavy last key", append(uniform(400), 600), 2, []int{400, 600}},
		{"heavy first key", append([]int{600}, uniform(400)...), 2, []int{600, 400}},
		// Spark's fixed step would cut after the heavy key, then make
		// ranges of one key each until the step caught up.
		{"heavy middle key", slices.Concat(uniform(200), []int{600}, uniform(200)), 4, []int{200, 600, 100, 100}},
		{"two heavy keys", slices.Concat(uniform(100), []int{400}, uniform(100), []int{400}), 4, []int{100, 400, 100, 400}},
	} {
		got := rangeSizes(tc.counts, tc.partitions)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: ranges of %v rows, want %v", tc.name, got, tc.want)
		}
	}
	if b := RangeBounds(nil, 4); b != nil {
		t.Errorf("bounds %x of an empty sample", b)
	}
}

// TestKeySampler: the sample is uniform (its median near the input's),
// of the size asked, and weighs the rows added.
func TestKeySampler(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fields := []sortkey.SortField{{Type: arrow.PrimitiveTypes.Int64}}
	s, err := NewKeySampler(fields, 500, 1)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewInt64Builder(mem)
	for batch := range 10 {
		for i := range 10000 {
			b.Append(int64(batch*10000 + i))
		}
		a := b.NewArray()
		if err := s.Add([]arrow.Array{a}); err != nil {
			t.Fatal(err)
		}
		a.Release()
	}
	b.Release()
	sample := s.Sample()
	total := 0.0
	for _, k := range sample {
		total += k.Weight
	}
	if len(sample) != 500 || s.Seen() != 100000 || total != 100000 {
		t.Fatalf("%d keys weighing %v of %d rows, want 500 of 100000", len(sample), total, s.Seen())
	}
	bounds := RangeBounds(sample, 2)
	if len(bounds) != 1 {
		t.Fatalf("bounds %x", bounds)
	}
	// The key of 50,000, sign bit flipped, big-endian after the valid byte.
	mid := int64(bounds[0][5])<<16 | int64(bounds[0][6])<<8 | int64(bounds[0][7])
	mid = mid<<8 | int64(bounds[0][8])
	if mid < 45000 || mid > 55000 {
		t.Errorf("median of the sample %d, want about 50000", mid)
	}
	if o := s.Ordered(); o != 1 {
		t.Errorf("keys added in order: Ordered %v, want 1", o)
	}
	if _, err := NewKeySampler(fields, 0, 1); err == nil {
		t.Error("a sampler of 0 keys")
	}
}

// TestKeySamplerOrdered: keys added in order, either way, and in no
// order.
func TestKeySamplerOrdered(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		name   string
		key    func(i int) int64
		lo, hi float64
	}{
		{"ascending with ties", func(i int) int64 { return int64(i / 3) }, 1, 1},
		{"descending", func(i int) int64 { return int64(-i) }, 1, 1},
		{"random", func(int) int64 { return rng.Int64N(1000) }, 0.45, 0.55},
		{"one key", func(int) int64 { return 7 }, 0, 0},
	} {
		s, err := NewKeySampler([]sortkey.SortField{{Type: arrow.PrimitiveTypes.Int64, Desc: true}}, 16, 1)
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewInt64Builder(mem)
		for batch := range 3 {
			for i := range 1000 {
				b.Append(tc.key(batch*1000 + i))
			}
			a := b.NewArray()
			if err := s.Add([]arrow.Array{a}); err != nil {
				t.Fatal(err)
			}
			a.Release()
		}
		b.Release()
		if o := s.Ordered(); o < tc.lo || o > tc.hi {
			t.Errorf("%s: Ordered %v, want %v to %v", tc.name, o, tc.lo, tc.hi)
		}
	}
}

// TestRangePartitionerErrors: bounds out of order and key columns that do
// not match the fields fail, not panic.
func TestRangePartitionerErrors(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fields := []sortkey.SortField{{Type: arrow.PrimitiveTypes.Int64}}
	if _, err := NewRangePartitioner(fields, [][]byte{{2}, {1}}); err == nil {
		t.Error("bounds out of order accepted")
	}
	if _, err := NewRangePartitioner(fields, [][]byte{{1}, {1}}); err == nil {
		t.Error("equal bounds accepted")
	}
	p, err := NewRangePartitioner(fields, [][]byte{{1, 0x80, 0, 0, 0, 0, 0, 0, 0}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release()
	b := array.NewStringBuilder(mem)
	b.Append("x")
	a := b.NewArray()
	b.Release()
	defer a.Release()
	if _, err := p.Partition(nil, []arrow.Array{a}, 1); !errors.Is(err, sortkey.ErrInput) {
		t.Errorf("a string column for an int64 key: %v", err)
	}
}
