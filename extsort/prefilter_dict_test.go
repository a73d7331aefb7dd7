package extsort

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestCopyOneDictionaryOwnsItsMemory checks that the top-k bound of a
// dictionary key holds none of its batch's memory (arrow-go's Concatenate
// shares the dictionary, which then never went back to its allocator),
// and that it is the row's value, NULL included.
func TestCopyOneDictionaryOwnsItsMemory(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint8, ValueType: arrow.BinaryTypes.String}
	vb := array.NewStringBuilder(mem)
	vb.AppendValues([]string{"pear", "fig", "kiwi"}, nil)
	dict := vb.NewArray()
	vb.Release()
	ib := array.NewUint8Builder(mem)
	ib.AppendValues([]uint8{2, 0, 1}, []bool{true, false, true})
	idx := ib.NewArray()
	ib.Release()
	col := array.NewDictionaryArray(dt, idx, dict)
	idx.Release()
	dict.Release()

	var copies []arrow.Array
	for i := range col.Len() {
		cp, ok := copyOne(col, i)
		if !ok {
			t.Fatalf("row %d: no copy", i)
		}
		if !arrow.TypeEqual(cp.DataType(), dt) || cp.Len() != 1 || cp.IsNull(0) != col.IsNull(i) ||
			col.IsValid(i) && cp.ValueStr(0) != col.ValueStr(i) {
			t.Errorf("row %d: copy %v of %s, want %q", i, cp, cp.DataType(), col.ValueStr(i))
		}
		copies = append(copies, cp)
	}
	col.Release()
	mem.AssertSize(t, 0) // the copies hold nothing of mem
	for _, cp := range copies {
		cp.Release()
	}
}
