package expr

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/sortkey"
)

// Whole lists and structs compared, sorted, grouped, joined and
// aggregated (issue 15). A list or struct has no engine type; instead
// NestedKey turns it into a BLOB, its sort key (package sortkey's
// "Lists and structs"), whose byte order is DuckDB's order of such
// values: element by element, field by field, a NULL element after every
// value and equal to another NULL, a list before every longer list it
// prefixes. So = and < on two keys are DuckDB's = and < on the values
// (with a NULL element equal to a NULL, as DuckDB has them), a sort by
// the key is ORDER BY the value, and grouping, DISTINCT, joins and
// count(DISTINCT) work on keys as on any BLOB. NestedValue turns a key
// back into its value, for what a GROUP BY or min and max return.
//
// Only values of one shape meet: the same field names, and leaves of the
// same type (a dictionary counts as its values; any list kind as any
// other, since their keys agree). Intervals inside are refused: their
// keys order the parts, not the normalized span DuckDB compares.

// NestedKey is the key of the list or struct e: a BLOB, NULL where e is.
func NestedKey(e Expr) (Expr, error) {
	t := e.Type()
	if !IsNested(t) {
		return nil, errorf(ErrType, "%s is a %s, not a list or struct", e, t)
	}
	if err := keyable(t); err != nil {
		return nil, errorf(ErrType, "%s of type %s cannot be compared, sorted or grouped: %v", e, t, err)
	}
	return &nestedKeyExpr{e: e}, nil
}

// keyable says why a nested type has no key here, or nil.
func keyable(t arrow.DataType) error {
	switch t.ID() {
	case arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO:
		return fmt.Errorf("it holds intervals")
	case arrow.MAP: // its entries, in their stored order (sortkey)
		return keyable(t.(*arrow.MapType).Elem())
	case arrow.DICTIONARY:
		return keyable(t.(*arrow.DictionaryType).ValueType)
	case arrow.STRUCT:
		for _, f := range t.(*arrow.StructType).Fields() {
			if err := keyable(f.Type); err != nil {
				return err
			}
		}
	case arrow.SPARSE_UNION, arrow.DENSE_UNION: // its member, then the member's value (sortkey)
		for _, f := range t.(arrow.UnionType).Fields() {
			if err := keyable(f.Type); err != nil {
				return err
			}
		}
	}
	if isList(t) {
		if err := keyable(elemType(t)); err != nil {
			return err
		}
	}
	if !sortkey.Supported(t) {
		return fmt.Errorf("a %s has no order", t)
	}
	return nil
}

// NestedComparable checks that lists or structs of types a and b can be
// compared by their keys: one shape (see above).
func NestedComparable(a, b arrow.DataType) error {
	if !sameShape(a, b) {
		return errorf(ErrType, "cannot compare %s with %s: lists, structs, maps and unions compare only with one of the same element, field and member types", a, b)
	}
	return nil
}

func sameShape(a, b arrow.DataType) bool {
	if d, ok := a.(*arrow.DictionaryType); ok {
		a = d.ValueType
	}
	if d, ok := b.(*arrow.DictionaryType); ok {
		b = d.ValueType
	}
	switch {
	case isList(a) && isList(b):
		return sameShape(elemType(a), elemType(b))
	case a.ID() == arrow.MAP && b.ID() == arrow.MAP: // their entries
		return sameShape(a.(*arrow.MapType).Elem(), b.(*arrow.MapType).Elem())
	case a.ID() == arrow.STRUCT && b.ID() == arrow.STRUCT:
		sa, sb := a.(*arrow.StructType), b.(*arrow.StructType)
		if sa.NumFields() != sb.NumFields() {
			return false
		}
		for i := range sa.NumFields() {
			fa, fb := sa.Field(i), sb.Field(i)
			if !strings.EqualFold(fa.Name, fb.Name) || !sameShape(fa.Type, fb.Type) {
				return false
			}
		}
		return true
	case isUnion(a) && isUnion(b): // sparse or dense: their keys agree
		fa, fb := a.(arrow.UnionType).Fields(), b.(arrow.UnionType).Fields()
		if len(fa) != len(fb) {
			return false
		}
		for i := range fa {
			if !strings.EqualFold(fa[i].Name, fb[i].Name) || !sameShape(fa[i].Type, fb[i].Type) {
				return false
			}
		}
		return true
	case IsNested(a) || IsNested(b):
		return false
	}
	return arrow.TypeEqual(a, b)
}

type nestedKeyExpr struct{ e Expr }

func (x *nestedKeyExpr) Type() arrow.DataType { return typBinary }
func (x *nestedKeyExpr) children() []Expr     { return []Expr{x.e} }
func (x *nestedKeyExpr) String() string       { return text(x) }
func (x *nestedKeyExpr) writeText(b *strings.Builder) {
	b.WriteString("key(")
	writeExpr(b, x.e)
	b.WriteByte(')')
}

func (x *nestedKeyExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	a, err := x.e.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	enc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: a.DataType()}})
	if err != nil {
		return nil, errorf(ErrType, "%s: %v", x, err)
	}
	var rows sortkey.Rows
	if err := enc.Encode(&rows, []arrow.Array{a}); err != nil {
		return nil, errorf(ErrInvalid, "%s: %v", x, err)
	}
	b := array.NewBinaryBuilder(mem, typBinary)
	defer b.Release()
	b.Reserve(a.Len())
	b.ReserveData(rows.DataBytes() - a.Len())
	for i := range a.Len() {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(rows.Row(i)[1:]) // without the null byte, the same for every value
	}
	return b.NewArray(), nil
}

// NestedValue is the list or struct of type typ whose key (NestedKey) key
// holds: NULL where key is. A key that is not one of typ fails with
// ErrInvalid (as does a dictionary inside past its index type); a type
// with no key fails when built, with ErrType.
func NestedValue(key Expr, typ arrow.DataType) (Expr, error) {
	if key.Type().ID() != arrow.BINARY {
		return nil, errorf(ErrType, "%s is a %s, not a key", key, key.Type())
	}
	if err := keyable(typ); err != nil {
		return nil, errorf(ErrType, "a %s cannot be grouped on or be the result of min or max: %v", typ, err)
	}
	return &nestedValueExpr{key: key, typ: typ}, nil
}

type nestedValueExpr struct {
	key Expr
	typ arrow.DataType
}

func (x *nestedValueExpr) Type() arrow.DataType { return x.typ }
func (x *nestedValueExpr) children() []Expr     { return []Expr{x.key} }
func (x *nestedValueExpr) String() string       { return x.key.String() }
func (x *nestedValueExpr) writeText(b *strings.Builder) {
	writeExpr(b, x.key)
}

func (x *nestedValueExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	a, err := x.key.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	b := array.NewBuilder(mem, x.typ)
	defer b.Release()
	keys, _ := a.(*array.Binary) // nil: all NULL
	for i := range a.Len() {
		if keys == nil || keys.IsNull(i) {
			b.AppendNull()
			continue
		}
		if err := sortkey.AppendDecoded(b, x.typ, keys.Value(i)); err != nil {
			return nil, errorf(ErrInvalid, "reading a %s from its key: %v", x.typ, err)
		}
	}
	return b.NewArray(), nil
}
