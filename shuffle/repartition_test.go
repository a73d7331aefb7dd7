package shuffle

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
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// mixedBatch is a batch of every kind a Repartitioner gathers, with
// NULLs in every column when nulls (and one column without any).
func mixedBatch(mem memory.Allocator, rows int, seed uint64, nulls bool) arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(seed, 5))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "u16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
		{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "i64", Type: arrow.PrimitiveTypes.Int64},
		{Name: "dec", Type: &arrow.Decimal128Type{Precision: 20, Scale: 2}, Nullable: true},
		{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "lb", Type: arrow.BinaryTypes.LargeBinary, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	null := func(c int) bool { return nulls && c != 3 && rng.IntN(5) == 0 }
	for i := range rows {
		for c, f := range b.Fields() {
			if null(c) {
				f.AppendNull()
				continue
			}
			switch f := f.(type) {
			case *array.Int8Builder:
				f.Append(int8(rng.IntN(256) - 128))
			case *array.Uint16Builder:
				f.Append(uint16(rng.IntN(1 << 16)))
			case *array.Float32Builder:
				f.Append(rng.Float32())
			case *array.Int64Builder:
				f.Append(int64(i))
			case *array.Decimal128Builder:
				f.Append(decimal128.New(rng.Int64N(10), rng.Uint64()))
			case *array.BooleanBuilder:
				f.Append(rng.IntN(2) == 0)
			case *array.StringBuilder:
				f.Append(strings.Repeat("x", rng.IntN(40)) + fmt.Sprint(i))
			case *array.BinaryBuilder:
				f.Append([]byte(strings.Repeat("y", rng.IntN(3))))
			}
		}
	}
	return b.NewRecordBatch()
}

// rowStrings renders each row of rec as one string.
func rowStrings(rec arrow.RecordBatch) []string {
	out := make([]string, rec.NumRows())
	for r := range out {
		var sb strings.Builder
		for _, c := range rec.Columns() {
			sb.WriteString(c.ValueStr(r))
			sb.WriteByte('|')
		}
		out[r] = sb.String()
	}
	return out
}

// TestRepartition: every row reaches its partition in the order it came,
// across batches (slices of batches too), NULLs and string bytes kept; no batch is emitted past
// BatchRows rows or (but for a single row) its string bound; dropped ids
// drop rows; what is held is counted and freed.
func TestRepartition(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fanout   int
		rows     int
		maxBytes int64
		nulls    bool
	}{
		{"fanout=1", 1, 100, 0, false},
		{"fanout=4/nulls", 4, 50, 0, true},
		{"fanout=64/nulls", 64, 8192, 0, true},
		{"fanout=16/maxbytes", 16, 0, 16 << 10, true},
		{"fanout=3/bytes", 3, 1 << 20, 300, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			rng := rand.New(rand.NewPCG(uint64(tc.fanout), 1))
			var want, got [][]string
			want, got = make([][]string, tc.fanout), make([][]string, tc.fanout)
			var r *Repartitioner
			emit := func(p int, b arrow.RecordBatch) error {
				if int(b.NumRows()) > r.BatchRows() {
					t.Errorf("partition %d: batch of %d rows, BatchRows %d", p, b.NumRows(), r.BatchRows())
				}
				if tc.maxBytes > 0 && b.NumRows() > 1 {
					if n := b.Column(6).Data().Buffers()[2].Len(); int64(n) > tc.maxBytes/int64(tc.fanout) {
						t.Errorf("partition %d: %d string bytes, bound %d", p, n, tc.maxBytes/int64(tc.fanout))
					}
				}
				got[p] = append(got[p], rowStrings(b)...)
				return nil
			}
			for i := range 5 {
				rec := mixedBatch(mem, 4+rng.IntN(700), uint64(i), tc.nulls && i != 2)
				if i%2 == 1 { // a slice: offsets into every buffer, bitmaps off byte boundaries
					sl := rec.NewSlice(3, rec.NumRows())
					rec.Release()
					rec = sl
				}
				if r == nil {
					var err error
					r, err = NewRepartitioner(mem, rec.Schema(), RepartitionConfig{Fanout: tc.fanout, BatchRows: tc.rows, MaxBytes: tc.maxBytes})
					if err != nil {
						t.Fatal(err)
					}
				}
				ids := make([]uint16, rec.NumRows())
				rows := rowStrings(rec)
				for j := range ids {
					ids[j] = uint16(rng.IntN(tc.fanout + 1)) // fanout: dropped
					if int(ids[j]) < tc.fanout {
						want[ids[j]] = append(want[ids[j]], rows[j])
					}
				}
				if err := r.Add(context.Background(), rec, ids, emit); err != nil {
					t.Fatal(err)
				}
				rec.Release()
				if r.Buffered() <= 0 {
					t.Errorf("batch %d: %d bytes held", i, r.Buffered())
				}
			}
			if err := r.Flush(emit); err != nil {
				t.Fatal(err)
			}
			if r.Buffered() != 0 {
				t.Errorf("after Flush: %d bytes held", r.Buffered())
			}
			r.Release()
			for p := range want {
				if !slices.Equal(got[p], want[p]) {
					i := 0
					for i < min(len(got[p]), len(want[p])) && got[p][i] == want[p][i] {
						i++
					}
					t.Errorf("partition %d: %d rows, want %d; first difference at row %d", p, len(got[p]), len(want[p]), i)
				}
			}
		})
	}
}

// TestRepartitionOther: a schema with a column the Repartitioner does not
// gather is cut by Split, a batch per partition of every batch; bad input
// is an error; Release frees rows never emitted; an emit error stops Add.
func TestRepartitionOther(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	lb := array.NewListBuilder(mem, arrow.PrimitiveTypes.Int32)
	for i := range 10 {
		lb.Append(true)
		lb.ValueBuilder().(*array.Int32Builder).Append(int32(i))
	}
	list := lb.NewArray()
	lb.Release()
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "l", Type: list.DataType()}}, nil), []arrow.Array{list}, 10)
	list.Release()
	defer rec.Release()
	r, err := NewRepartitioner(mem, rec.Schema(), RepartitionConfig{Fanout: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Gathers() {
		t.Error("list column: Gathers")
	}
	ids := []uint16{0, 1, 0, 1, 0, 1, 0, 1, 0, 0}
	n := 0
	if err := r.Add(context.Background(), rec, ids, func(p int, b arrow.RecordBatch) error { n += int(b.NumRows()); return nil }); err != nil || n != 10 {
		t.Fatalf("list column: %v, %d rows emitted", err, n)
	}
	if err := r.Add(context.Background(), rec, ids[:3], nil); err == nil {
		t.Error("3 ids for 10 rows: no error")
	}
	r.Release()

	if _, err := NewRepartitioner(mem, rec.Schema(), RepartitionConfig{Fanout: 0}); err == nil {
		t.Error("fanout 0: no error")
	}

	m := mixedBatch(mem, 100, 1, true)
	defer m.Release()
	r, err = NewRepartitioner(mem, m.Schema(), RepartitionConfig{Fanout: 4, BatchRows: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Gathers() || !r.Bounded() {
		t.Errorf("mixed columns: Gathers %v, Bounded %v", r.Gathers(), r.Bounded())
	}
	for _, tc := range []struct {
		maxBytes int64
		bounded  bool
	}{{0, true}, {64 << 20, true}, {64 * 64 * 8, false}} {
		tight, err := NewRepartitioner(mem, m.Schema(), RepartitionConfig{Fanout: 64, MaxBytes: tc.maxBytes})
		if err != nil {
			t.Fatal(err)
		}
		if tight.Bounded() != tc.bounded {
			t.Errorf("fanout 64, MaxBytes %d: Bounded %v", tc.maxBytes, tight.Bounded())
		}
	}
	boom := errors.New("boom")
	if err := r.Add(context.Background(), m, make([]uint16, 100), func(int, arrow.RecordBatch) error { return boom }); !errors.Is(err, boom) {
		t.Errorf("emit error: %v", err)
	}
	if err := r.Add(context.Background(), rec, make([]uint16, 10), nil); err == nil {
		t.Error("batch of another schema: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Add(ctx, m, make([]uint16, 100), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	r.Release() // the rows held after the failed emit
}
