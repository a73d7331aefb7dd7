package expr

import (
	"context"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Unions (sparse and dense; issue 15) have no engine type either: a
// query returns them as they are stored, and reads them with DuckDB's
// union_tag(u), the name of the member each row holds (a VARCHAR;
// DuckDB's is an ENUM of the names), and union_extract(u, 'name'), that
// member's value where the row holds it and NULL elsewhere. An Arrow
// union has no NULLs of its own, only its members' (DuckDB's NULL union
// reaches Arrow as a NULL member), so u IS NULL is TRUE where the member
// a row holds is NULL (UnionIsNull); union_tag still names it.

// isUnion reports whether dt is a sparse or dense union.
func isUnion(dt arrow.DataType) bool {
	return dt.ID() == arrow.SPARSE_UNION || dt.ID() == arrow.DENSE_UNION
}

// unionMember is where row i's value is: its member's child, and its
// position there (arrow-go slices a sparse union's children to its rows;
// a dense one's rows point into them).
func unionMember(u array.Union, i int) (child int, pos int) {
	if u.RawTypeCodes()[i] < 0 {
		return -1, -1 // no member: ChildID would index out of its table
	}
	child = u.ChildID(i)
	if d, ok := u.(*array.DenseUnion); ok {
		return child, int(d.ValueOffset(i))
	}
	return child, i
}

func evalUnion(ctx context.Context, mem memory.Allocator, e Expr, batch arrow.RecordBatch, what string) (array.Union, error) {
	a, err := e.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	u, ok := a.(array.Union)
	if !ok {
		a.Release()
		return nil, errorf(ErrInvalid, "%s: got a %s array, not a union", what, a.DataType())
	}
	return u, nil
}

// unionTagExpr is union_tag(u).
type unionTagExpr struct{ u Expr }

// UnionTag is the name of the member each row of the union u holds.
func UnionTag(u Expr) (Expr, error) {
	if !isUnion(u.Type()) {
		return nil, errorf(ErrType, "union_tag(%s): %s is not a union", u, u.Type())
	}
	return &unionTagExpr{u: u}, nil
}

func (x *unionTagExpr) Type() arrow.DataType { return typString }
func (x *unionTagExpr) children() []Expr     { return []Expr{x.u} }
func (x *unionTagExpr) String() string       { return text(x) }
func (x *unionTagExpr) writeText(b *strings.Builder) {
	b.WriteString("union_tag(")
	writeExpr(b, x.u)
	b.WriteByte(')')
}

func (x *unionTagExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	u, err := evalUnion(ctx, mem, x.u, batch, "union_tag")
	if err != nil {
		return nil, err
	}
	defer u.Release()
	fields := u.DataType().(arrow.UnionType).Fields()
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(u.Len())
	for i := range u.Len() {
		c, _ := unionMember(u, i)
		if c < 0 || c >= len(fields) {
			return nil, errorf(ErrInvalid, "union_tag: row %d has no member (type code %d)", i, u.RawTypeCodes()[i])
		}
		b.Append(fields[c].Name)
	}
	return b.NewArray(), nil
}

// unionExtractExpr is union_extract(u, 'name').
type unionExtractExpr struct {
	u      Expr
	member int
	name   string
	typ    arrow.DataType
}

// UnionExtract is the member name of the union u (exactly, else ignoring
// case when only one matches): its value where a row holds that member,
// NULL elsewhere, in its engine type (or stored type, for a list or
// struct).
func UnionExtract(u Expr, name string) (Expr, error) {
	ut, ok := u.Type().(arrow.UnionType)
	if !ok {
		return nil, errorf(ErrType, "union_extract(%s, %q): %s is not a union", u, name, u.Type())
	}
	at := -1
	for j, f := range ut.Fields() {
		if f.Name == name {
			at = j
			break
		}
		if strings.EqualFold(f.Name, name) {
			if at >= 0 {
				return nil, errorf(ErrType, "union_extract(%s, %q): the member is ambiguous (match its case)", u, name)
			}
			at = j
		}
	}
	if at < 0 {
		names := make([]string, len(ut.Fields()))
		for j, f := range ut.Fields() {
			names[j] = strconv.Quote(f.Name)
		}
		return nil, errorf(ErrType, "union %s has no member %q (members: %s)", u, name, strings.Join(names, ", "))
	}
	f := ut.Fields()[at]
	typ, ok := readType(f.Type)
	if !ok {
		return nil, errorf(ErrType, "union_extract(%s, %q): a member of type %s cannot be read", u, name, f.Type)
	}
	return &unionExtractExpr{u: u, member: at, name: f.Name, typ: typ}, nil
}

func (x *unionExtractExpr) Type() arrow.DataType { return x.typ }
func (x *unionExtractExpr) children() []Expr     { return []Expr{x.u} }
func (x *unionExtractExpr) String() string       { return text(x) }
func (x *unionExtractExpr) writeText(b *strings.Builder) {
	b.WriteString("union_extract(")
	writeExpr(b, x.u)
	b.WriteString(", ")
	b.WriteString(strconv.Quote(x.name))
	b.WriteByte(')')
}

func (x *unionExtractExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	u, err := evalUnion(ctx, mem, x.u, batch, "union_extract")
	if err != nil {
		return nil, err
	}
	defer u.Release()
	child := u.Field(x.member)
	idx := array.NewInt64Builder(mem)
	idx.Reserve(u.Len())
	for i := range u.Len() {
		c, pos := unionMember(u, i)
		switch {
		case c != x.member:
			idx.AppendNull()
		case pos < 0 || pos >= child.Len():
			idx.Release()
			return nil, errorf(ErrInvalid, "union_extract: row %d points at %d of a member of %d values", i, pos, child.Len())
		default:
			idx.UnsafeAppend(int64(pos))
		}
	}
	out, err := takeRows(ctx, mem, child, idx.NewArray())
	idx.Release()
	if err != nil {
		return nil, err
	}
	return readValues(ctx, mem, out)
}

// unionNullExpr is u IS [NOT] NULL.
type unionNullExpr struct {
	u   Expr
	not bool
}

// UnionIsNull is u IS NULL (IS NOT NULL when not): TRUE where the member
// a row of the union u holds is NULL.
func UnionIsNull(u Expr, not bool) (Expr, error) {
	if !isUnion(u.Type()) {
		return nil, errorf(ErrType, "%s is not a union", u.Type())
	}
	return &unionNullExpr{u: u, not: not}, nil
}

func (x *unionNullExpr) Type() arrow.DataType { return typBool }
func (x *unionNullExpr) children() []Expr     { return []Expr{x.u} }
func (x *unionNullExpr) String() string       { return text(x) }
func (x *unionNullExpr) writeText(b *strings.Builder) {
	writeParen(b, x.u)
	if x.not {
		b.WriteString(" IS NOT NULL")
	} else {
		b.WriteString(" IS NULL")
	}
}

func (x *unionNullExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	u, err := evalUnion(ctx, mem, x.u, batch, "IS NULL")
	if err != nil {
		return nil, err
	}
	defer u.Release()
	b := array.NewBooleanBuilder(mem)
	defer b.Release()
	b.Reserve(u.Len())
	for i := range u.Len() {
		c, pos := unionMember(u, i)
		child := u.Field(c) // nil for c < 0
		if child == nil || pos < 0 || pos >= child.Len() {
			return nil, errorf(ErrInvalid, "IS NULL: row %d of a union points at no member value", i)
		}
		null := child.DataType().ID() == arrow.NULL || child.IsNull(pos) // arrow-go's IsNull is false on a Null array
		b.UnsafeAppend(null != x.not)
	}
	return b.NewArray(), nil
}
