package expr

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Maps (issue 15), with DuckDB 1.5's functions: m[k] and
// map_extract_value(m, k) are the value of key k (NULL when m or k is
// NULL or m has no such key); map_extract(m, k) and element_at(m, k) are
// that value in a list ([] when the key is missing or NULL, NULL when m
// is); cardinality(m) the number of entries; map_keys(m) and
// map_values(m) the keys and values as lists. A key matches as = does,
// after the two meet in their common type.

// mapLookupExpr is m[k] (asList false) or map_extract(m, k) (asList).
type mapLookupExpr struct {
	m, key Expr
	eq     Expr // entry key = key, over [entry key, key] batches
	asList bool
	typ    arrow.DataType
}

// MapValue is m[key]: the value of the entry whose key equals key, in
// its read type; NULL when there is none or m or key is NULL.
func MapValue(m, key Expr) (Expr, error) { return mapLookup(m, key, false) }

// MapExtract is map_extract(m, key): the value of the entry whose key
// equals key in a list of one, or an empty list; NULL where m is NULL.
func MapExtract(m, key Expr) (Expr, error) { return mapLookup(m, key, true) }

func mapLookup(m, key Expr, asList bool) (Expr, error) {
	mt, ok := m.Type().(*arrow.MapType)
	if !ok {
		return nil, errorf(ErrType, "%s is a %s, not a map", m, m.Type())
	}
	kt, ok := readType(mt.KeyType())
	if !ok || IsNested(kt) || IsNested(key.Type()) {
		return nil, errorf(ErrType, "map %s: keys of type %s cannot be looked up by a %s", m, mt.KeyType(), key.Type())
	}
	eq, err := Compare(Eq, Column(0, "key", kt), Column(1, key.String(), key.Type()))
	if err != nil {
		return nil, errorf(ErrType, "map %s[%s]: %v", m, key, err)
	}
	var typ arrow.DataType
	if asList {
		typ = arrow.ListOfField(mt.ItemField())
	} else if typ, ok = readType(mt.ItemType()); !ok {
		return nil, errorf(ErrType, "map %s: values of type %s cannot be read", m, mt.ItemType())
	}
	return &mapLookupExpr{m: m, key: key, eq: eq, asList: asList, typ: typ}, nil
}

func (x *mapLookupExpr) Type() arrow.DataType { return x.typ }
func (x *mapLookupExpr) children() []Expr     { return []Expr{x.m, x.key} }
func (x *mapLookupExpr) String() string       { return text(x) }
func (x *mapLookupExpr) writeText(b *strings.Builder) {
	if x.asList {
		b.WriteString("map_extract(")
		writeExpr(b, x.m)
		b.WriteString(", ")
		writeExpr(b, x.key)
		b.WriteByte(')')
		return
	}
	writeParen(b, x.m)
	b.WriteByte('[')
	writeExpr(b, x.key)
	b.WriteByte(']')
}

// Eval lays every entry key beside its row's key, compares the pairs
// with one = and takes each row's first match.
func (x *mapLookupExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	ma, err := x.m.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	defer ma.Release()
	ka, err := x.key.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	defer ka.Release()
	m, ok := ma.(*array.Map)
	if !ok {
		return nil, errorf(ErrInvalid, "%s: got a %s array, not a map", x, ma.DataType())
	}
	n := m.Len()
	keyNull := func(i int) bool { return ka.DataType().ID() == arrow.NULL || ka.IsNull(i) } // arrow-go's IsNull is false on a Null array
	found := make([]int64, n)
	for i := range found {
		found[i] = -1
	}
	err = matchItems(ctx, mem, x.eq, [2]string{"key", "value"}, m, m.Keys(), ka,
		func(i int) bool { return m.IsNull(i) || keyNull(i) },
		func(row int, pos int64) {
			if found[row] < 0 {
				found[row] = pos
			}
		})
	if err != nil {
		return nil, err
	}
	idx := array.NewInt64Builder(mem)
	idx.Reserve(n)
	for _, f := range found {
		if f < 0 {
			idx.AppendNull()
		} else {
			idx.UnsafeAppend(f)
		}
	}
	if !x.asList {
		v, err := takeRows(ctx, mem, m.Items(), idx.NewArray())
		idx.Release()
		if err != nil {
			return nil, err
		}
		return readValues(ctx, mem, v)
	}
	// a list of the found value, or an empty one; NULL where m is
	idx.Release()
	pos := array.NewInt64Builder(mem)
	offBuf := memory.NewResizableBuffer(mem)
	defer offBuf.Release()
	offBuf.Resize(4 * (n + 1))
	offs := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())
	validity, nulls := combineValidity(mem, n, ma)
	if validity != nil {
		defer validity.Release()
	}
	at := int32(0)
	for i, f := range found {
		offs[i] = at
		if f >= 0 {
			pos.Append(f)
			at++
		}
	}
	offs[n] = at
	vals, err := takeRows(ctx, mem, m.Items(), pos.NewArray())
	pos.Release()
	if err != nil {
		return nil, err
	}
	defer vals.Release()
	d := array.NewData(x.typ, n, []*memory.Buffer{validity, offBuf}, []arrow.ArrayData{vals.Data()}, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), nil
}

// mapPartExpr is cardinality(m), map_keys(m) or map_values(m).
type mapPartExpr struct {
	m    Expr
	what string // "cardinality", "map_keys", "map_values"
	typ  arrow.DataType
}

// MapPart is cardinality(m) (the number of entries, a BIGINT),
// map_keys(m) or map_values(m) (a list of the keys or values, in entry
// order), NULL where m is NULL.
func MapPart(m Expr, what string) (Expr, error) {
	mt, ok := m.Type().(*arrow.MapType)
	if !ok {
		return nil, errorf(ErrType, "%s(%s): %s is not a map", what, m, m.Type())
	}
	var typ arrow.DataType
	switch what {
	case "cardinality":
		typ = typInt64
	case "map_keys":
		typ = arrow.ListOf(mt.KeyType())
	case "map_values":
		typ = arrow.ListOfField(mt.ItemField())
	default:
		return nil, errorf(ErrInvalid, "no map function %s", what)
	}
	return &mapPartExpr{m: m, what: what, typ: typ}, nil
}

func (x *mapPartExpr) Type() arrow.DataType { return x.typ }
func (x *mapPartExpr) children() []Expr     { return []Expr{x.m} }
func (x *mapPartExpr) String() string       { return text(x) }
func (x *mapPartExpr) writeText(b *strings.Builder) {
	b.WriteString(x.what)
	b.WriteByte('(')
	writeExpr(b, x.m)
	b.WriteByte(')')
}

// Eval shares the map's validity and offsets: its keys or values are the
// list's child as they stand.
func (x *mapPartExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	ma, err := x.m.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	defer ma.Release()
	m, ok := ma.(*array.Map)
	if !ok {
		return nil, errorf(ErrInvalid, "%s: got a %s array, not a map", x, ma.DataType())
	}
	if x.what == "cardinality" {
		n := m.Len()
		validity, nulls := combineValidity(mem, n, ma)
		buf, out := newValues[int64](mem, n)
		for i := range n {
			if m.IsValid(i) {
				start, end := m.ValueOffsets(i)
				out[i] = end - start
			}
		}
		return makeArray(typInt64, n, validity, nulls, buf), nil
	}
	entries := m.Data().Children()[0] // the entries struct: keys, then values
	child := entries.Children()[0]
	if x.what == "map_values" {
		child = entries.Children()[1]
	}
	if entries.Offset() != 0 || child.Len() < entries.Len() {
		child = array.NewSliceData(child, int64(entries.Offset()), int64(entries.Offset()+entries.Len()))
		defer child.Release()
	}
	d := array.NewData(x.typ, m.Len(), m.Data().Buffers()[:2], []arrow.ArrayData{child}, m.Data().NullN(), m.Data().Offset())
	defer d.Release()
	return array.MakeFromData(d), nil
}
