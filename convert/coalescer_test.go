package convert

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/convert/internal/column"
	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/internal/datagen"
)

// matrixSchema has a column of every type of the differential matrix;
// the ones that can be are dictionary-encoded every other column.
func matrixInput(mem memory.Allocator, rows int, nullFrac float64, r *rand.Rand) arrow.RecordBatch {
	return matrixInputDict(mem, rows, nullFrac, r, true)
}

func matrixInputDict(mem memory.Allocator, rows int, nullFrac float64, r *rand.Rand, dict bool) arrow.RecordBatch {
	var fields []arrow.Field
	var cols []arrow.Array
	for i, c := range datagen.Cases() {
		var a arrow.Array
		if dict && c.Dict && i%2 == 0 {
			values := datagen.Gen(mem, c.Type, 30, nullFrac/2, r)
			a = datagen.Dictionary(mem, values, rows, nullFrac, r)
			values.Release()
		} else {
			a = datagen.Gen(mem, c.Type, rows, nullFrac, r)
		}
		fields = append(fields, arrow.Field{Name: c.Name, Type: a.DataType(), Nullable: true})
		cols = append(cols, a)
	}
	rec := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(rows))
	for _, a := range cols {
		a.Release()
	}
	return rec
}

// rebuilt is the reference for a run of inputs: every column rebuilt
// value by value and concatenated.
func rebuilt(t *testing.T, mem memory.Allocator, out *arrow.Schema, ins []arrow.RecordBatch) []arrow.Array {
	t.Helper()
	var want []arrow.Array
	for i := range out.NumFields() {
		var parts []arrow.Array
		for _, in := range ins {
			parts = append(parts, datagen.Rebuild(mem, out.Field(i).Type, in.Column(i), 0, int(in.NumRows())))
		}
		c, err := array.Concatenate(parts, mem)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			p.Release()
		}
		want = append(want, c)
	}
	return want
}

// drain takes every batch, checking sizes, and concatenates each column.
func drain(t *testing.T, mem memory.Allocator, c *Coalescer, batchRows int, flush bool) ([]arrow.Array, int) {
	t.Helper()
	if flush {
		c.Flush()
	}
	var recs []arrow.RecordBatch
	for rec := c.Next(); rec != nil; rec = c.Next() {
		recs = append(recs, rec)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for i, r := range recs {
		if i < len(recs)-1 && int(r.NumRows()) != batchRows {
			t.Errorf("batch %d of %d has %d rows, want %d", i, len(recs), r.NumRows(), batchRows)
		}
		for j, col := range r.Columns() {
			if err := array.ValidateFull(col); err != nil {
				t.Fatalf("batch %d column %d: %v", i, j, err)
			}
		}
	}
	var got []arrow.Array
	for i := range c.Schema().NumFields() {
		var parts []arrow.Array
		for _, r := range recs {
			parts = append(parts, r.Column(i))
		}
		col, err := array.Concatenate(parts, mem)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, col)
	}
	return got, len(recs)
}

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// TestCoalesce: input batches of uneven sizes, slices of them, with
// nulls and dictionaries, come out as batches of exactly BatchRows rows
// (the last short) equal to the rows rebuilt value by value.
func TestCoalesce(t *testing.T) {
	for _, nullFrac := range []float64{0, 0.2, 1} {
		t.Run(fmt.Sprint("nulls=", nullFrac), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			r := rand.New(rand.NewPCG(7, uint64(nullFrac*10)))
			var ins []arrow.RecordBatch
			for _, n := range []int{1, 150, 7, 300, 100, 0, 33, 240} {
				ins = append(ins, matrixInput(mem, n, nullFrac, r))
			}
			defer func() {
				for _, in := range ins {
					in.Release()
				}
			}()
			c, err := NewCoalescer(ins[0].Schema(), Config{BatchRows: 100, Alloc: mem})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Release()
			var used []arrow.RecordBatch
			for i, in := range ins {
				if i == 3 { // a slice of a batch, in two pieces
					if err := c.AppendSlice(in, 10, 50); err != nil {
						t.Fatal(err)
					}
					if err := c.AppendSlice(in, 60, 40); err != nil {
						t.Fatal(err)
					}
					s := in.NewSlice(10, 100)
					defer s.Release()
					used = append(used, s)
					continue
				}
				if err := c.Append(in); err != nil {
					t.Fatal(err)
				}
				used = append(used, in)
			}
			got, nb := drain(t, mem, c, 100, true)
			defer releaseAll(got)
			want := rebuilt(t, mem, c.Schema(), used)
			defer releaseAll(want)
			for i := range got {
				if !array.Equal(got[i], want[i]) {
					t.Errorf("column %s differs", c.Schema().Field(i).Name)
				}
			}
			st := c.Stats()
			if st.Rows != int64(got[0].Len()) || st.Batches != int64(nb) || st.InputRows != st.Rows {
				t.Errorf("stats %+v, rows %d batches %d", st, got[0].Len(), nb)
			}
		})
	}
}

// TestCoalesceAllTypes runs datagen.Record's records of every type through:
// the supported columns come out equal, the others are refused by name.
func TestCoalesceAllTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := datagen.Record(mem, 500, 3)
	defer rec.Release()
	if _, err := NewCoalescer(rec.Schema(), Config{Alloc: mem}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("all types: %v, want ErrUnsupported", err)
	}
	var keep []int
	for i, f := range rec.Schema().Fields() {
		if _, err := column.New(f.Type, mem, 1); err == nil {
			keep = append(keep, i)
		} else if !strings.Contains(err.Error(), "unsupported") {
			t.Errorf("%s: %v", f.Name, err)
		}
	}
	var fields []arrow.Field
	var cols []arrow.Array
	for _, i := range keep {
		fields = append(fields, rec.Schema().Field(i))
		cols = append(cols, rec.Column(i))
	}
	sub := array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
	defer sub.Release()
	c, err := NewCoalescer(sub.Schema(), Config{BatchRows: 128, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	for _, s := range [][2]int64{{0, 1}, {1, 200}, {200, 500}} {
		part := sub.NewSlice(s[0], s[1])
		if err := c.Append(part); err != nil {
			t.Fatal(err)
		}
		part.Release()
	}
	got, _ := drain(t, mem, c, 128, true)
	defer releaseAll(got)
	want := rebuilt(t, mem, c.Schema(), []arrow.RecordBatch{sub})
	defer releaseAll(want)
	for i := range got {
		if !array.Equal(got[i], want[i]) {
			t.Errorf("column %s differs", c.Schema().Field(i).Name)
		}
	}
	t.Logf("%d of %d datagen.Record columns supported", len(keep), rec.NumCols())
}

// TestByteCap: batches close before their buffers pass MaxBytes.
func TestByteCap(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(1, 2))
	in := matrixInput(mem, 1000, 0.1, r)
	defer in.Release()
	const maxBytes = 20_000
	c, err := NewCoalescer(in.Schema(), Config{BatchRows: 1000, MaxBytes: maxBytes, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if err := c.Append(in); err != nil {
		t.Fatal(err)
	}
	c.Flush()
	rows := 0
	n := 0
	for rec := c.Next(); rec != nil; rec = c.Next() {
		var bytes int64
		for _, col := range rec.Columns() {
			bytes += arrowsize.Data(col.Data())
		}
		if bytes > maxBytes*11/10 && rec.NumRows() > 1 {
			t.Errorf("batch of %d rows holds %d bytes", rec.NumRows(), bytes)
		}
		rows += int(rec.NumRows())
		n++
		rec.Release()
	}
	if rows != 1000 || n < 5 {
		t.Errorf("%d rows in %d batches", rows, n)
	}
}

// TestOffsetSplit: a batch closes before its string data would pass the
// int32 offset limit (lowered here), and the rows all come out.
func TestOffsetSplit(t *testing.T) {
	defer func(v int64) { column.MaxOffset = v }(column.MaxOffset)
	column.MaxOffset = 1000
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	for i := range 500 {
		sb.Append(fmt.Sprintf("%09d", i)) // 9 bytes
	}
	s := sb.NewArray()
	sb.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{s}, 500)
	s.Release()
	defer rec.Release()
	c, _ := NewCoalescer(schema, Config{BatchRows: 400, MaxBytes: 1 << 30, Alloc: mem})
	defer c.Release()
	if err := c.Append(rec); err != nil {
		t.Fatal(err)
	}
	c.Flush()
	var sizes []int64
	for b := c.Next(); b != nil; b = c.Next() {
		sizes = append(sizes, b.NumRows())
		if d := b.Column(0).(*array.String).ValueOffsets()[b.NumRows()]; d > 1000 {
			t.Errorf("batch data %d bytes", d)
		}
		b.Release()
	}
	if fmt.Sprint(sizes) != "[111 111 111 111 56]" {
		t.Errorf("batch sizes %v", sizes)
	}
}

// TestPassThrough: input batches of exactly the target size are handed
// on without a copy.
func TestPassThrough(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewInt64Builder(mem)
	for i := range 100 {
		b.Append(int64(i))
	}
	a := b.NewArray()
	b.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{a}, 100)
	a.Release()
	defer rec.Release()
	c, _ := NewCoalescer(schema, Config{BatchRows: 100, Alloc: mem})
	defer c.Release()
	for range 3 {
		if err := c.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	for out := c.Next(); out != nil; out = c.Next() {
		if out.Column(0) != rec.Column(0) {
			t.Error("copied")
		}
		out.Release()
	}
	if st := c.Stats(); st.PassedThrough != 3 || st.Batches != 3 {
		t.Errorf("stats %+v", st)
	}
}

func TestSchemaMismatch(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s1 := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	s2 := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int32}}, nil)
	c, _ := NewCoalescer(s1, Config{Alloc: mem})
	defer c.Release()
	b := array.NewInt32Builder(mem)
	b.Append(1)
	a := b.NewArray()
	b.Release()
	rec := array.NewRecordBatch(s2, []arrow.Array{a}, 1)
	a.Release()
	defer rec.Release()
	if err := c.Append(rec); !errors.Is(err, ErrSchema) || !strings.Contains(err.Error(), "column 1 (x)") {
		t.Errorf("%v", err)
	}
}
