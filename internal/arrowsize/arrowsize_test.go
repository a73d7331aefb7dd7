package arrowsize

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestCountsBuffersChildrenAndDictionaries(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)

	// No validity bitmap, 3 × 8 bytes of values.
	values := memory.NewBufferBytes(make([]byte, 24))
	a := array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, 3, []*memory.Buffer{nil, values}, nil, 0, 0))
	defer a.Release()
	if got := Data(a.Data()); got != 24 {
		t.Errorf("int64: %d", got)
	}

	db := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String})
	defer db.Release()
	sb := db.(*array.BinaryDictionaryBuilder)
	for _, s := range []string{"ab", "c", "ab"} {
		if err := sb.AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	d := db.NewArray()
	defer d.Release()
	// The indices' buffers plus the dictionary's (offsets 3 × 4, data 3,
	// and whatever validity the builder made).
	var want int64
	for _, b := range d.Data().Buffers() {
		if b != nil {
			want += int64(b.Len())
		}
	}
	dict := d.(*array.Dictionary).Dictionary()
	want += Data(dict.Data())
	if dictOnly := Data(dict.Data()); dictOnly < 15 {
		t.Errorf("dictionary values: %d bytes, want at least 15", dictOnly)
	}
	if got := Data(d.Data()); got != want {
		t.Errorf("dictionary: %d, want %d", got, want)
	}

	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "a", Type: a.DataType()}, {Name: "d", Type: d.DataType()}}, nil), []arrow.Array{a, d}, 3)
	defer rec.Release()
	if got := Record(rec); got != 24+want {
		t.Errorf("record: %d", got)
	}
}

func TestLogicalOfSlices(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	for i := range 1000 {
		ib.Append(int64(i))
		sb.Append("abcd")
	}
	ints, strs := ib.NewArray(), sb.NewArray()
	ib.Release()
	sb.Release()
	defer ints.Release()
	defer strs.Release()
	if got := Logical(ints); got != 8000 {
		t.Errorf("1000 int64s: %d, want 8000", got)
	}
	i1 := array.NewSlice(ints, 10, 11)
	s1 := array.NewSlice(strs, 10, 12)
	defer i1.Release()
	defer s1.Release()
	if got := Logical(i1); got != 8 {
		t.Errorf("a one-row int64 slice: %d, want 8", got)
	}
	if got := Logical(s1); got != 4*3+8 {
		t.Errorf("a two-row string slice: %d, want 20", got)
	}
	if Data(i1.Data()) < 8000 {
		t.Errorf("Data of a slice counts the shared buffer: %d", Data(i1.Data()))
	}
}
