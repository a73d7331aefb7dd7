package sortkeytest

import (
	"cmp"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// NestedTypes are list, map and struct sort-key types: every list type
// over a few element types, a map, structs of a few fields, and lists and
// structs in each other.
func NestedTypes() []arrow.DataType {
	inner := arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true})
	return []arrow.DataType{
		arrow.ListOf(arrow.PrimitiveTypes.Int32),
		arrow.ListOf(arrow.BinaryTypes.String),
		arrow.LargeListOf(arrow.PrimitiveTypes.Float64),
		arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int64),
		arrow.ListViewOf(arrow.BinaryTypes.Binary),
		arrow.ListOf(&arrow.Decimal128Type{Precision: 20, Scale: 2}),
		arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int8)),
		inner,
		arrow.StructOf(arrow.Field{Name: "a", Type: arrow.ListOf(arrow.BinaryTypes.LargeString), Nullable: true},
			arrow.Field{Name: "s", Type: inner, Nullable: true}),
		arrow.ListOf(inner),
		arrow.ListOf(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}),
		arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32),
	}
}

// nestedColumn makes n random lists (0 to 3 elements from a small pool,
// so lists share prefixes) or structs, about nullFrac of them NULL, their
// children with NULLs too. A NULL list still spans elements, as writers
// may leave them.
func nestedColumn(mem memory.Allocator, t arrow.DataType, n, distinct int, nullFrac float64, r *rand.Rand) arrow.Array {
	valid := make([]bool, n)
	for i := range valid {
		valid[i] = r.Float64() >= nullFrac
	}
	bitmap := memory.NewResizableBuffer(mem)
	defer bitmap.Release()
	bitmap.Resize(int(bitutil.BytesForBits(int64(n))))
	nulls := 0
	for i, v := range valid {
		bitutil.SetBitTo(bitmap.Bytes(), i, v)
		if !v {
			nulls++
		}
	}
	if st, ok := t.(*arrow.StructType); ok {
		var kids []arrow.ArrayData
		for _, f := range st.Fields() {
			c := Column(mem, f.Type, n, min(distinct, 3), nullFrac, r)
			defer c.Release()
			kids = append(kids, c.Data())
		}
		d := array.NewData(t, n, []*memory.Buffer{bitmap}, kids, nulls, 0)
		defer d.Release()
		return array.MakeFromData(d)
	}
	elem := t.(arrow.ListLikeType).Elem()
	sizes := make([]int, n)
	total := 0
	for i := range sizes {
		sizes[i] = r.IntN(4)
		if ft, ok := t.(*arrow.FixedSizeListType); ok {
			sizes[i] = int(ft.Len())
		}
		total += sizes[i]
	}
	var values arrow.Array
	if mt, ok := t.(*arrow.MapType); ok {
		values = mapEntries(mem, mt, total, min(distinct, 4), nullFrac/2, r)
	} else {
		values = Column(mem, elem, total, min(distinct, 4), nullFrac/2, r)
	}
	defer values.Release()
	var bufs []*memory.Buffer
	switch t.ID() {
	case arrow.LIST, arrow.LIST_VIEW, arrow.MAP:
		offs, lens := make([]int32, 0, n+1), make([]int32, 0, n)
		at := int32(0)
		for _, s := range sizes {
			offs = append(offs, at)
			lens = append(lens, int32(s))
			at += int32(s)
		}
		offs = append(offs, at)
		bufs = []*memory.Buffer{bitmap, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs))}
		if t.ID() == arrow.LIST_VIEW {
			bufs = append(bufs, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(lens)))
		}
	case arrow.LARGE_LIST:
		offs := make([]int64, 0, n+1)
		at := int64(0)
		for _, s := range sizes {
			offs = append(offs, at)
			at += int64(s)
		}
		offs = append(offs, at)
		bufs = []*memory.Buffer{bitmap, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(offs))}
	case arrow.FIXED_SIZE_LIST:
		bufs = []*memory.Buffer{bitmap}
	}
	d := array.NewData(t, n, bufs, []arrow.ArrayData{values.Data()}, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// mapEntries makes a map's n entries: a struct of keys (never NULL, as
// Arrow requires of a map's keys and entries) and items (some NULL).
func mapEntries(mem memory.Allocator, t *arrow.MapType, n, distinct int, nullFrac float64, r *rand.Rand) arrow.Array {
	keys := Column(mem, t.KeyType(), n, distinct, 0, r)
	defer keys.Release()
	items := Column(mem, t.ItemType(), n, distinct, nullFrac, r)
	defer items.Release()
	d := array.NewData(t.Elem(), n, []*memory.Buffer{nil}, []arrow.ArrayData{keys.Data(), items.Data()}, 0, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// nestedComparator is DuckDB's order of lists and structs: element by
// element (field by field), a NULL element after every value and equal
// to another NULL, a list before every longer list it prefixes.
func nestedComparator(x, y arrow.Array) (func(i, j int) int, bool, error) {
	child := func(a, b arrow.Array) (func(i, j int) int, error) {
		c, err := valueComparator(a, b)
		if err != nil {
			return nil, err
		}
		return func(i, j int) int {
			ni, nj := isNull(a, i), isNull(b, j)
			switch {
			case ni || nj:
				return cmp.Compare(b2i(ni), b2i(nj))
			}
			return c(i, j)
		}, nil
	}
	switch a := x.(type) {
	case *array.Struct:
		b := y.(*array.Struct)
		var cs []func(i, j int) int
		for k := range a.NumField() {
			c, err := child(a.Field(k), b.Field(k))
			if err != nil {
				return nil, true, err
			}
			cs = append(cs, c)
		}
		return func(i, j int) int {
			for _, c := range cs {
				if r := c(i, j); r != 0 {
					return r
				}
			}
			return 0
		}, true, nil
	case array.ListLike:
		b := y.(array.ListLike)
		c, err := child(a.ListValues(), b.ListValues())
		if err != nil {
			return nil, true, err
		}
		return func(i, j int) int {
			s, e := a.ValueOffsets(i)
			t, f := b.ValueOffsets(j)
			for ; s < e && t < f; s, t = s+1, t+1 {
				if r := c(int(s), int(t)); r != 0 {
					return r
				}
			}
			return cmp.Compare(e-s, f-t)
		}, true, nil
	}
	return nil, false, nil
}

// unionColumn makes n random rows of a sparse or dense union: each row a
// random member, whose values are drawn as Column draws them (about
// nullFrac NULL).
func unionColumn(mem memory.Allocator, t arrow.UnionType, n, distinct int, nullFrac float64, r *rand.Rand) arrow.Array {
	fields, codes := t.Fields(), t.TypeCodes()
	typeCodes := make([]int8, n)
	counts := make([]int, len(fields))
	offsets := make([]int32, n)
	for i := range typeCodes {
		j := r.IntN(len(fields))
		typeCodes[i] = codes[j]
		offsets[i] = int32(counts[j])
		counts[j]++
	}
	var kids []arrow.ArrayData
	for j, f := range fields {
		rows := n
		if t.Mode() == arrow.DenseMode {
			rows = counts[j]
		}
		c := Column(mem, f.Type, rows, distinct, nullFrac, r)
		defer c.Release()
		kids = append(kids, c.Data())
	}
	bufs := []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int8Traits.CastToBytes(typeCodes))}
	if t.Mode() == arrow.DenseMode {
		bufs = append(bufs, memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets)))
	}
	d := array.NewData(t, n, bufs, kids, 0, 0)
	defer d.Release()
	return array.MakeFromData(d)
}
