package spill

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/arrowsize"
)

// bigViews returns a record of n rows: a StringView column of distinct
// 100-byte values and a struct holding another, so that both a top-level
// and a nested view column sit over large data buffers.
func bigViews(mem memory.Allocator, n int) arrow.RecordBatch {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("%08d%s", i, strings.Repeat("v", 92))
	}
	top := viewStrings(mem, arrow.BinaryTypes.StringView, vals, 5)
	defer top.Release()
	inner := viewStrings(mem, arrow.BinaryTypes.BinaryView, vals, 0)
	defer inner.Release()
	st, err := array.NewStructArray([]arrow.Array{inner}, []string{"v"})
	if err != nil {
		panic(err)
	}
	defer st.Release()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "top", Type: top.DataType(), Nullable: true},
		{Name: "nested", Type: st.DataType(), Nullable: true},
	}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{top, st}, int64(n))
}

// TestSlicedViewsCompacted: a 10-row slice of view columns over 1 MB of
// data spills about 10 rows' worth of bytes, at the top level and nested,
// under every codec.
func TestSlicedViewsCompacted(t *testing.T) {
	for _, s := range settings {
		t.Run(fmt.Sprint("codec=", s), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			m := newTestManager(t, Config{Codec: s}, mem)
			whole := bigViews(mem, 10000)
			defer whole.Release()
			slice := whole.NewSlice(4321, 4331)
			defer slice.Release()
			f := spillAll(t, m, slice)
			defer f.Remove()
			checkFile(t, f, mem, slice)
			// 10 rows x 2 columns x (16-byte view + 100 bytes) plus
			// metadata: a few KB. The parent's data is 2 MB.
			if f.Bytes() > 8<<10 {
				t.Fatalf("a 10-row slice spilled %d bytes", f.Bytes())
			}
		})
	}
}

// TestCompactKeepsCompactArrays: a view array whose buffers hold just
// what its rows use is passed through, not copied.
func TestCompactKeepsCompactArrays(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := bigViews(mem, 100)
	defer rec.Release()
	for i, c := range rec.Columns() {
		d := compact(c.Data(), mem)
		same := d == c.Data()
		d.Release()
		if i == 1 && !same {
			t.Errorf("column %d: a struct of compact views was copied", i)
		}
	}
	// The top-level column has nulls whose values were never appended:
	// its buffers are compact too.
	d := compact(rec.Column(0).Data(), mem)
	defer d.Release()
	if d != rec.Column(0).Data() {
		t.Errorf("compact view column copied")
	}
	slice := array.NewSliceData(rec.Column(0).Data(), 10, 20)
	defer slice.Release()
	c := compact(slice, mem)
	defer c.Release()
	if c == slice {
		t.Fatal("a slice of a view column was not compacted")
	}
	a, b := array.MakeFromData(c), array.MakeFromData(slice)
	defer a.Release()
	defer b.Release()
	if !array.Equal(a, b) {
		t.Fatalf("compacted %v, want %v", a, b)
	}
	if got := arrowsize.Data(c); got > 10*(16+100)+64*4 {
		t.Fatalf("compacted slice holds %d bytes", got)
	}
}

// TestCodecNoneKeepsColumns: with no compression, strings go to disk as
// they are, so `quiver inspect` and peers see the caller's schema.
func TestCodecNoneKeepsColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newTestManager(t, Config{Codec: codec.SettingNone}, mem)
	rec := stringRecord(mem, 10, 1, 0)
	defer rec.Release()
	f := spillAll(t, m, rec)
	defer f.Remove()
	if !f.plan.spill.Equal(rec.Schema()) {
		t.Fatalf("spill schema %s", f.plan.spill)
	}
}

// nestedViews returns n rows of view columns inside a list, a list view
// and a fixed-size list, each value about 100 bytes.
func nestedViews(mem memory.Allocator, n int) arrow.RecordBatch {
	long := func(i int) string { return fmt.Sprintf("%08d%s", i, strings.Repeat("w", 92)) }
	lb := array.NewListBuilder(mem, arrow.BinaryTypes.StringView)
	defer lb.Release()
	lvb := array.NewLargeListViewBuilder(mem, arrow.BinaryTypes.BinaryView)
	defer lvb.Release()
	fb := array.NewFixedSizeListBuilder(mem, 2, arrow.BinaryTypes.StringView)
	defer fb.Release()
	for i := range n {
		if i%7 == 3 {
			lb.AppendNull()
			lvb.AppendNull()
			fb.AppendNull()
			continue
		}
		lb.Append(true)
		lvb.AppendWithSize(true, 2)
		fb.Append(true)
		for j := range 2 {
			lb.ValueBuilder().(*array.StringViewBuilder).Append(long(2*i + j))
			lvb.ValueBuilder().(*array.BinaryViewBuilder).Append([]byte(long(2*i + j)))
			fb.ValueBuilder().(*array.StringViewBuilder).Append(long(2*i + j))
		}
	}
	cols := []arrow.Array{lb.NewArray(), lvb.NewArray(), fb.NewArray()}
	defer releaseArrays(cols)
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: fmt.Sprint("c", i), Type: c.DataType(), Nullable: true}
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, int64(n))
}

// TestSlicedNestedViewsCompacted: views inside lists, list views and
// fixed-size lists of a slice are compacted to the rows the slice uses.
func TestSlicedNestedViewsCompacted(t *testing.T) {
	for _, s := range settings {
		t.Run(fmt.Sprint("codec=", s), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			m := newTestManager(t, Config{Codec: s}, mem)
			whole := nestedViews(mem, 5000)
			defer whole.Release()
			slice := whole.NewSlice(1234, 1244)
			defer slice.Release()
			empty := whole.NewSlice(0, 0)
			defer empty.Release()
			f := spillAll(t, m, slice, empty)
			defer f.Remove()
			checkFile(t, f, mem, slice, empty)
			// 10 rows × 3 columns × 2 values × (16 + 100) bytes, plus
			// offsets and metadata. The parent's data is 3 MB.
			if f.Bytes() > 16<<10 {
				t.Fatalf("a 10-row slice spilled %d bytes", f.Bytes())
			}
		})
	}
}
