package expr

import (
	"context"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Lists and structs (issue 15). They have no engine type: a query returns
// such a column as it is stored, and reads into it through the nodes of
// this file — an element of a list (l[i]), a field of a struct (s.f), a
// list's length, whether a list holds a value — each of which returns a
// value in its engine type (an int32 element is an Int64), or, when that
// value is itself a list or struct, in its stored type, to be passed out
// or read into again. IsNull reads them too (a NULL list is NULL; an
// empty one is not), and NestedKey turns them into keys to compare, sort
// and group on (nested_key.go). Nothing else takes them: Compare, Cast,
// Call and the rest fail with ErrType, since Coerce knows no list or
// struct.
//
// Semantics are DuckDB's: l[i] counts from 1, a negative i from the end
// (l[-1] is the last element), and i = 0 or past either end is NULL, as a
// NULL list or index is; list_contains is NULL for a NULL list or value,
// else TRUE when an element equals the value (NULL elements never do),
// FALSE for an empty list.

// IsNested reports whether dt is a list type (list, large_list,
// fixed_size_list, list_view, large_list_view), a struct, a map or a
// union (union.go): the types a query passes through and reads into, but
// never computes on.
func IsNested(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW, arrow.STRUCT, arrow.MAP,
		arrow.SPARSE_UNION, arrow.DENSE_UNION:
		return true
	}
	return false
}

// isList reports whether dt is one of the list types (a map is not: its
// elements are looked up by key, map.go).
func isList(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW:
		return true
	}
	return false
}

// elemType is the element type of a list type.
func elemType(dt arrow.DataType) arrow.DataType {
	return dt.(arrow.ListLikeType).Elem()
}

// readType is the type a read of a stored value of type dt returns: its
// engine type, or dt itself for a list or struct; a dictionary reads as
// its values. ok is false when dt is neither (a union, a map's value…).
func readType(dt arrow.DataType) (arrow.DataType, bool) {
	if d, ok := dt.(*arrow.DictionaryType); ok {
		dt = d.ValueType
	}
	if IsNested(dt) {
		return dt, true
	}
	return EngineType(dt)
}

// readValues converts values read out of a list or struct to their read
// type (readType): a dictionary is decoded, then the engine conversion.
// It releases arr.
func readValues(ctx context.Context, mem memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	if d, ok := arr.(*array.Dictionary); ok {
		dense, err := compute.TakeArray(compute.WithAllocator(ctx, mem), d.Dictionary(), d.Indices())
		arr.Release()
		if err != nil {
			return nil, errorf(ErrInvalid, "decoding a dictionary in a list or struct: %v", err)
		}
		arr = dense
	}
	if IsNested(arr.DataType()) {
		return arr, nil
	}
	defer arr.Release()
	return ToEngine(ctx, mem, arr)
}

// takeRows returns the rows at idx of arr (NULL where idx is NULL), for
// any type arrow-go's take handles, which covers every list, struct and
// engine type. It releases idx.
func takeRows(ctx context.Context, mem memory.Allocator, arr arrow.Array, idx arrow.Array) (arrow.Array, error) {
	defer idx.Release()
	out, err := compute.TakeArray(compute.WithAllocator(ctx, mem), arr, idx)
	if err != nil {
		return nil, errorf(ErrInvalid, "reading %s values: %v", arr.DataType(), err)
	}
	return out, nil
}

// listElementExpr is l[i].
type listElementExpr struct {
	list, index Expr
	typ         arrow.DataType
}

// ListElement is list[index] (DuckDB's list_extract): the element at the
// 1-based index, counting from the end when it is negative, NULL when
// the list or index is NULL or the index is 0 or out of range. The index
// must be an integer.
func ListElement(list, index Expr) (Expr, error) {
	lt := list.Type()
	if !isList(lt) {
		return nil, errorf(ErrType, "cannot index %s with [] (%s[%s]): only lists have elements", lt, paren(list), index)
	}
	switch index.Type().ID() {
	case arrow.INT64, arrow.NULL:
	default:
		return nil, errorf(ErrType, "list index %s is %s, not an integer", index, index.Type())
	}
	typ, ok := readType(elemType(lt))
	if !ok {
		return nil, errorf(ErrType, "list %s: elements of type %s cannot be read", list, elemType(lt))
	}
	return &listElementExpr{list: list, index: index, typ: typ}, nil
}

func (x *listElementExpr) Type() arrow.DataType { return x.typ }
func (x *listElementExpr) children() []Expr     { return []Expr{x.list, x.index} }
func (x *listElementExpr) String() string       { return text(x) }
func (x *listElementExpr) writeText(b *strings.Builder) {
	writeParen(b, x.list)
	b.WriteByte('[')
	writeExpr(b, x.index)
	b.WriteByte(']')
}

func (x *listElementExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	la, err := x.list.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	ia, err := x.index.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	defer ia.Release()
	l, ok := la.(array.ListLike)
	if !ok {
		return nil, errorf(ErrInvalid, "%s: got a %s array, not a list", x, la.DataType())
	}
	ints, _ := ia.(*array.Int64) // nil: an all-NULL index (arrow-go's IsNull is false on a Null array)
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Reserve(l.Len())
	for i := range l.Len() {
		if l.IsNull(i) || ints == nil || ints.IsNull(i) {
			b.AppendNull()
			continue
		}
		start, end := l.ValueOffsets(i)
		at := ints.Value(i)
		switch {
		case at > 0 && at <= end-start:
			b.UnsafeAppend(start + at - 1)
		case at < 0 && at >= start-end: // not -at: -MinInt64 overflows
			b.UnsafeAppend(end + at)
		default:
			b.AppendNull()
		}
	}
	out, err := takeRows(ctx, mem, l.ListValues(), b.NewArray())
	if err != nil {
		return nil, err
	}
	return readValues(ctx, mem, out)
}

// structFieldExpr is s.f.
type structFieldExpr struct {
	s     Expr
	field int
	name  string
	typ   arrow.DataType
}

// StructField is the field name of the struct s (DuckDB's
// struct_extract): NULL where s is NULL. The name matches exactly, else
// ignoring case when only one field matches so.
func StructField(s Expr, name string) (Expr, error) {
	st, ok := s.Type().(*arrow.StructType)
	if !ok {
		return nil, errorf(ErrType, "cannot take field %q of %s (%s): only structs have fields", name, s.Type(), s)
	}
	i, ok := st.FieldIdx(name)
	if !ok {
		i = -1
		for j, f := range st.Fields() {
			if strings.EqualFold(f.Name, name) {
				if i >= 0 {
					return nil, errorf(ErrType, "struct %s: field %q is ambiguous (quote it to match case)", s, name)
				}
				i = j
			}
		}
	}
	if i < 0 {
		names := make([]string, st.NumFields())
		for j, f := range st.Fields() {
			names[j] = strconv.Quote(f.Name)
		}
		return nil, errorf(ErrType, "struct %s has no field %q (fields: %s)", s, name, strings.Join(names, ", "))
	}
	f := st.Field(i)
	typ, ok := readType(f.Type)
	if !ok {
		return nil, errorf(ErrType, "field %s.%s of type %s cannot be read", s, f.Name, f.Type)
	}
	return &structFieldExpr{s: s, field: i, name: f.Name, typ: typ}, nil
}

func (x *structFieldExpr) Type() arrow.DataType { return x.typ }
func (x *structFieldExpr) children() []Expr     { return []Expr{x.s} }
func (x *structFieldExpr) String() string       { return text(x) }
func (x *structFieldExpr) writeText(b *strings.Builder) {
	writeParen(b, x.s)
	b.WriteByte('.')
	b.WriteString(x.name)
}

func (x *structFieldExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	sa, err := x.s.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	defer sa.Release()
	s, ok := sa.(*array.Struct)
	if !ok {
		return nil, errorf(ErrInvalid, "%s: got a %s array, not a struct", x, sa.DataType())
	}
	f := s.Field(x.field) // sliced to s's rows by arrow-go
	var out arrow.Array
	if s.NullN() == 0 {
		f.Retain()
		out = f
	} else {
		// A NULL struct's fields hold anything: take the rows with the
		// struct's NULLs added (the fields' own stay).
		b := array.NewInt64Builder(mem)
		b.Reserve(s.Len())
		for i := range s.Len() {
			if s.IsNull(i) {
				b.AppendNull()
			} else {
				b.UnsafeAppend(int64(i))
			}
		}
		idx := b.NewArray()
		b.Release()
		if out, err = takeRows(ctx, mem, f, idx); err != nil {
			return nil, err
		}
	}
	return readValues(ctx, mem, out)
}

// listLengthExpr is len(l).
type listLengthExpr struct{ list Expr }

// ListLength is the number of elements of a list (DuckDB's len and
// array_length), NULL elements counted; NULL for a NULL list.
func ListLength(list Expr) (Expr, error) {
	if !isList(list.Type()) {
		return nil, errorf(ErrType, "len(%s): %s is not a list", list, list.Type())
	}
	return &listLengthExpr{list: list}, nil
}

func (x *listLengthExpr) Type() arrow.DataType { return typInt64 }
func (x *listLengthExpr) children() []Expr     { return []Expr{x.list} }
func (x *listLengthExpr) String() string       { return text(x) }
func (x *listLengthExpr) writeText(b *strings.Builder) {
	b.WriteString("len(")
	writeExpr(b, x.list)
	b.WriteByte(')')
}

func (x *listLengthExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	la, err := x.list.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	l, ok := la.(array.ListLike)
	if !ok {
		return nil, errorf(ErrInvalid, "%s: got a %s array, not a list", x, la.DataType())
	}
	n := l.Len()
	validity, nulls := combineValidity(mem, n, la)
	buf, out := newValues[int64](mem, n)
	for i := range n {
		if l.IsValid(i) {
			start, end := l.ValueOffsets(i)
			out[i] = end - start
		}
	}
	return makeArray(typInt64, n, validity, nulls, buf), nil
}

// listContainsExpr is list_contains(l, v).
type listContainsExpr struct {
	list, value Expr
	eq          Expr // element = value, over [element, value] batches
}

// ListContains is TRUE when an element of list equals value (as = does,
// after the two meet in their common type), FALSE when none does (NULL
// elements never match, an empty list holds nothing), NULL when list or
// value is NULL: DuckDB's list_contains.
func ListContains(list, value Expr) (Expr, error) {
	if !isList(list.Type()) {
		return nil, errorf(ErrType, "list_contains(%s, %s): %s is not a list", list, value, list.Type())
	}
	et, ok := readType(elemType(list.Type()))
	if !ok || IsNested(et) {
		return nil, errorf(ErrType, "list_contains(%s, %s): elements of type %s cannot be compared", list, value, elemType(list.Type()))
	}
	if IsNested(value.Type()) {
		return nil, errorf(ErrType, "list_contains(%s, %s): a %s cannot be compared", list, value, value.Type())
	}
	eq, err := Compare(Eq, Column(0, "element", et), Column(1, value.String(), value.Type()))
	if err != nil {
		return nil, errorf(ErrType, "list_contains: %v", err)
	}
	return &listContainsExpr{list: list, value: value, eq: eq}, nil
}

func (x *listContainsExpr) Type() arrow.DataType { return typBool }
func (x *listContainsExpr) children() []Expr     { return []Expr{x.list, x.value} }
func (x *listContainsExpr) String() string       { return text(x) }
func (x *listContainsExpr) writeText(b *strings.Builder) {
	b.WriteString("list_contains(")
	writeExpr(b, x.list)
	b.WriteString(", ")
	writeExpr(b, x.value)
	b.WriteByte(')')
}

// Eval lays every element of the rows that can match beside its row's
// value, compares the pairs with one = and folds them back per row.
func (x *listContainsExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	la, err := x.list.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	defer la.Release()
	va, err := x.value.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	defer va.Release()
	l, ok := la.(array.ListLike)
	if !ok {
		return nil, errorf(ErrInvalid, "%s: got a %s array, not a list", x, la.DataType())
	}
	n := l.Len()
	if va.DataType().ID() == arrow.NULL { // arrow-go's IsNull is false on a Null array
		return nullArray(mem, typBool, n), nil
	}
	found := make([]bool, n)
	err = matchItems(ctx, mem, x.eq, [2]string{"element", "value"}, l, l.ListValues(), va,
		func(i int) bool { return l.IsNull(i) || va.IsNull(i) },
		func(row int, _ int64) { found[row] = true })
	if err != nil {
		return nil, err
	}
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.Reserve(n)
	for i := range n {
		if l.IsNull(i) || va.IsNull(i) {
			b.AppendNull()
		} else {
			b.UnsafeAppend(found[i])
		}
	}
	return b.NewArray(), nil
}

// matchItems lays each item of the rows of l that skip does not name (a
// list's elements, a map's keys: items at the item's position, read as
// values) beside its row's value of vals, compares the pairs with eq
// (column 0 the item, column 1 the value: one comparison for the whole
// batch) and calls hit(row, position) for each pair it finds TRUE, a
// row's items in order. list_contains and map lookups share it.
func matchItems(ctx context.Context, mem memory.Allocator, eq Expr, names [2]string, l array.ListLike, items, vals arrow.Array, skip func(int) bool, hit func(row int, pos int64)) error {
	pos, rows := array.NewInt64Builder(mem), array.NewInt64Builder(mem)
	defer pos.Release()
	defer rows.Release()
	for i := range l.Len() {
		if skip(i) {
			continue
		}
		start, end := l.ValueOffsets(i)
		for j := start; j < end; j++ {
			pos.Append(j)
			rows.Append(int64(i))
		}
	}
	k := pos.Len()
	if k == 0 {
		return nil
	}
	posIdx, rowIdx := pos.NewInt64Array(), rows.NewInt64Array()
	defer posIdx.Release()
	defer rowIdx.Release()
	posIdx.Retain() // takeRows releases its index
	it, err := takeRows(ctx, mem, items, posIdx)
	if err != nil {
		return err
	}
	if it, err = readValues(ctx, mem, it); err != nil {
		return err
	}
	defer it.Release()
	rowIdx.Retain()
	v, err := takeRows(ctx, mem, vals, rowIdx)
	if err != nil {
		return err
	}
	defer v.Release()
	pairs := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{
		{Name: names[0], Type: it.DataType(), Nullable: true}, {Name: names[1], Type: v.DataType(), Nullable: true},
	}, nil), []arrow.Array{it, v}, int64(k))
	defer pairs.Release()
	eqs, err := eq.Eval(ctx, mem, pairs)
	if err != nil {
		return err
	}
	defer eqs.Release()
	hits, _ := eqs.(*array.Boolean) // nil: every pair NULL
	if hits == nil {
		return nil
	}
	for p := range k {
		if hits.IsValid(p) && hits.Value(p) {
			hit(int(rowIdx.Value(p)), posIdx.Value(p))
		}
	}
	return nil
}

// ListElementType is the type the elements of a list of type dt read as
// (their engine type, or their stored type when they are lists or
// structs), for unnest.
func ListElementType(dt arrow.DataType) (arrow.DataType, error) {
	if !isList(dt) {
		return nil, errorf(ErrType, "%s is not a list", dt)
	}
	typ, ok := readType(elemType(dt))
	if !ok {
		return nil, errorf(ErrType, "elements of type %s cannot be read", elemType(dt))
	}
	return typ, nil
}

// TakeElements returns the elements of list at pos, positions in its
// values (array.ListLike's ListValues), as ListElementType says.
func TakeElements(ctx context.Context, mem memory.Allocator, list arrow.Array, pos []int64) (arrow.Array, error) {
	l, ok := list.(array.ListLike)
	if !ok {
		return nil, errorf(ErrInvalid, "got a %s array, not a list", list.DataType())
	}
	idx := array.NewInt64Builder(mem)
	idx.AppendValues(pos, nil)
	out, err := takeRows(ctx, mem, l.ListValues(), idx.NewArray())
	idx.Release()
	if err != nil {
		return nil, err
	}
	return readValues(ctx, mem, out)
}
