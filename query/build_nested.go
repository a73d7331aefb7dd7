package query

import (
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/expr"
)

// Lists and structs (issue 15): a list, large_list, fixed_size_list,
// list_view, large_list_view, struct or map column has no engine type.
// A query may
//
//   - return it as it is (a bare column in the SELECT list, or *),
//   - read into it: l[i] (parse_subscript.go), list_extract/list_element/
//     array_extract(l, i), s.f, s['f'], struct_extract(s, 'f'),
//     len/length/array_length(l), list_contains/list_has/array_contains/
//     array_has(l, x) — package expr's nested.go, DuckDB's semantics —
//     and use what it reads like any value (WHERE l[1] > 3, GROUP BY s.f,
//     sum(l[2])), or return it when it is a list or struct again,
//   - test it IS [NOT] NULL,
//   - look a map's keys up (m['k'], element_at, map_extract,
//     map_extract_value, cardinality, map_keys, map_values) and read a
//     union (union_tag, union_extract): package expr's map.go, union.go.
//
// A whole one is compared, sorted, grouped, joined on and aggregated by
// its key (build_nestedkey.go). Anything else that names one — compute
// on it, cast it — is refused with the column, its type and what it can
// do (nestedRefusal). s.f reads as t.c to the grammar: a name whose
// qualifier is no table of the FROM clause but a struct column of one of
// its tables is that column's field (rewriteStructFields, as DuckDB
// resolves it). unnest is refused: one row per element is an operator
// the plan does not have (see nestedCall).

// nestedFuncs are the functions that read into a list or struct, by what
// they do.
var nestedFuncs = map[string]string{
	subscriptFunc: "element", "list_extract": "element", "list_element": "element", "struct_extract": "field",
	"len": "length", "length": "length", "array_length": "length",
	"list_contains": "contains", "list_has": "contains", "array_contains": "contains", "array_has": "contains",
	"unnest":    "unnest",
	"union_tag": "tag", "union_extract": "member",
	"element_at": "map_extract", "map_extract": "map_extract", "map_extract_value": "map_value",
	"quiver$cardinality": "map_part", "map_keys": "map_part", "map_values": "map_part", // parse_aggs.go renames cardinality
}

// nestedRefusal is the error for a list or struct column used where only
// a value can be: it names the column, its type, and what is allowed.
func (b *builder) nestedRefusal(n ast.Node, name string, t arrow.DataType) error {
	return b.at(ErrUnsupported, n, "column %s of type %s: a list, struct, map or union is returned as it is, read into (l[1], s.f, s['f'], len, list_contains, union_tag, union_extract) and tested IS NULL, and a list or struct also compared with another, sorted, grouped, joined on, counted and taken by min, max, first, last or any_value; none is computed on", name, t)
}

// nestedCall plans x when it reads into a list or struct; ok is false when
// it does not (another function, or length of a string). allowNested
// lets the result be a list or struct itself: where it is returned or
// read into again.
func (b *builder) nestedCall(x *ast.FuncCallExpr, sc scope, allowNested bool) (e expr.Expr, ok bool, err error) {
	what, isNested := nestedFuncs[x.FnName.L]
	if !isNested || len(x.Args) == 0 {
		return nil, false, nil
	}
	operand, ok, err := b.nestedOperand(x.Args[0], sc)
	if err != nil {
		return nil, true, err
	}
	if !ok {
		if what == "tag" || what == "member" {
			return nil, true, b.at(ErrInvalid, x, "%s: %s is not a union", restore(x), restore(x.Args[0]))
		}
		if strings.HasPrefix(what, "map_") {
			return nil, true, b.at(ErrInvalid, x, "%s: %s is not a map", restore(x), restore(x.Args[0]))
		}
		if what == "field" || what == "element" {
			return nil, true, b.at(ErrInvalid, x, "%s: only lists have elements and structs fields, and %s is neither", restore(x), restore(x.Args[0]))
		}
		return nil, false, nil
	}
	args := func(n int) error {
		if len(x.Args) != n {
			return b.at(ErrInvalid, x, "%s takes %d arguments, not %d", x.FnName.O, n, len(x.Args))
		}
		return nil
	}
	switch what {
	case "tag":
		if err := args(1); err != nil {
			return nil, true, err
		}
		e, err = wrap(b, x)(expr.UnionTag(operand))
	case "member":
		if err := args(2); err != nil {
			return nil, true, err
		}
		name, isName := stringLiteral(x.Args[1])
		if !isName {
			return nil, true, b.at(ErrInvalid, x.Args[1], "a union member is named by a string constant, not %s", restore(x.Args[1]))
		}
		e, err = wrap(b, x)(expr.UnionExtract(operand, name))
	case "map_extract", "map_value":
		if err := args(2); err != nil {
			return nil, true, err
		}
		k, kerr := b.expr(x.Args[1], sc)
		if kerr != nil {
			return nil, true, kerr
		}
		if what == "map_value" {
			e, err = wrap(b, x)(expr.MapValue(operand, k))
		} else {
			e, err = wrap(b, x)(expr.MapExtract(operand, k))
		}
	case "map_part":
		if err := args(1); err != nil {
			return nil, true, err
		}
		e, err = wrap(b, x)(expr.MapPart(operand, strings.TrimPrefix(x.FnName.L, "quiver$")))
	case "unnest": // planUnnest takes the ones it can
		return nil, true, b.at(ErrUnsupported, x, "unnest(%s) only as a whole item of the SELECT list of a query without GROUP BY, aggregates or window functions", restore(x.Args[0]))
	case "length":
		if err := args(1); err != nil {
			return nil, true, err
		}
		e, err = wrap(b, x)(expr.ListLength(operand))
	case "contains":
		if err := args(2); err != nil {
			return nil, true, err
		}
		v, verr := b.expr(x.Args[1], sc)
		if verr != nil {
			return nil, true, verr
		}
		e, err = wrap(b, x)(expr.ListContains(operand, v))
	case "field", "element":
		if err := args(2); err != nil {
			return nil, true, err
		}
		if operand.Type().ID() == arrow.MAP && what == "element" { // m['k']: the key's value
			k, kerr := b.expr(x.Args[1], sc)
			if kerr != nil {
				return nil, true, kerr
			}
			e, err = wrap(b, x)(expr.MapValue(operand, k))
			break
		}
		if operand.Type().ID() == arrow.STRUCT || what == "field" {
			name, isName := stringLiteral(x.Args[1])
			if !isName {
				return nil, true, b.at(ErrInvalid, x.Args[1], "a struct field is named by a string constant (s['f'] or s.f), not %s", restore(x.Args[1]))
			}
			e, err = wrap(b, x)(expr.StructField(operand, name))
			break
		}
		i, ierr := b.expr(x.Args[1], sc)
		if ierr != nil {
			return nil, true, ierr
		}
		e, err = wrap(b, x)(expr.ListElement(operand, i))
	}
	if err != nil {
		return nil, true, err
	}
	if !allowNested && expr.IsNested(e.Type()) {
		return nil, true, b.at(ErrUnsupported, x, "%s is of type %s: a list or struct is returned as it is or indexed, not computed on", restore(x), e.Type())
	}
	return e, true, nil
}

// nestedOperand resolves n when it is a list or struct: a column of one,
// or a read into one that gives one. ok is false for anything else.
func (b *builder) nestedOperand(n ast.ExprNode, sc scope) (expr.Expr, bool, error) {
	switch x := unparen(n).(type) {
	case *ast.ColumnNameExpr:
		if t := b.nameType(x, sc); t == nil || !expr.IsNested(t) {
			return nil, false, nil
		}
		b.allowNested = true
		e, err := sc.stored(b, x)
		b.allowNested = false
		return e, true, err
	case *ast.FuncCallExpr:
		if _, ok := nestedFuncs[x.FnName.L]; !ok {
			return nil, false, nil
		}
		e, ok, err := b.nestedCall(x, sc, true)
		if !ok || err != nil {
			return e, ok, err
		}
		if !expr.IsNested(e.Type()) {
			return nil, false, nil // length(l[1]) of a string element: the string function
		}
		return e, true, nil
	case *ast.AggregateFuncExpr:
		// min(m), first(l) …: after GROUP BY, the aggregate's value,
		// turned back from its key (aggScope.col)
		if _, ok := sc.(*aggScope); !ok {
			return nil, false, nil
		}
		e, err := sc.aggregate(b, x)
		if err != nil || !expr.IsNested(e.Type()) {
			return nil, false, nil // the usual planning reports it
		}
		return e, true, nil
	}
	return nil, false, nil
}

// nameType is the stored type of the column n names in scope sc, or nil
// when it names none (the scope's own resolution then says why).
func (b *builder) nameType(n *ast.ColumnNameExpr, sc scope) arrow.DataType {
	if _, ok := sc.(partScope); ok { // within the join planner: by relation
		ref, err := b.resolve(n)
		if err != nil {
			return nil
		}
		return b.rels[ref.rel].schema.Field(ref.col).Type
	}
	if b.info.Schema == nil {
		return nil
	}
	if i := b.colIndex(n.Name); i >= 0 {
		return b.info.Schema.Field(i).Type
	}
	return nil
}

// nestedOutput plans a SELECT item or ORDER BY key that is a read into a
// list or struct, whose value may be a list or struct itself; ok is false
// for anything else.
func (b *builder) nestedOutput(n ast.ExprNode, sc scope) (expr.Expr, bool, error) {
	x, ok := unparen(n).(*ast.FuncCallExpr)
	if !ok {
		return nil, false, nil
	}
	if _, ok := nestedFuncs[x.FnName.L]; !ok {
		return nil, false, nil
	}
	if e, err := sc.whole(b, n); e != nil || err != nil { // a GROUP BY key
		return e, true, err
	}
	return b.nestedCall(x, sc, true)
}

// rewriteStructFields turns the names of s that read a struct's field
// into struct_extract calls: q.f, where q is no table of the FROM clause
// but a struct column of one of its cached tables, t.s.f, where t is a
// table of the FROM clause (its column s must be a struct), and s.f.g, a
// field of a field. A struct column of a derived table or WITH name is
// read as d.s.f or s['f'] (its columns are not known before it is
// planned). Subqueries are left to their own planning.
func (b *builder) rewriteStructFields(s *ast.SelectStmt) {
	if s.From == nil {
		return
	}
	r := &structFields{b: b, sources: map[string]*ast.TableName{}, names: map[string]bool{}}
	r.collect(s.From.TableRefs)
	for _, f := range s.Fields.Fields {
		if f.Expr != nil {
			if c, ok := f.Expr.(*ast.ColumnNameExpr); ok && f.AsName.O == "" && r.field(c) != nil {
				f.AsName = c.Name.Name // s.f is named f, as in DuckDB
			}
			f.Expr = r.rewrite(f.Expr)
		}
	}
	s.Where = r.rewrite(s.Where)
	if s.GroupBy != nil {
		for _, it := range s.GroupBy.Items {
			it.Expr = r.rewrite(it.Expr)
		}
	}
	if s.Having != nil {
		s.Having.Expr = r.rewrite(s.Having.Expr)
	}
	if s.OrderBy != nil {
		for _, it := range s.OrderBy.Items {
			it.Expr = r.rewrite(it.Expr)
		}
	}
	r.rewriteOn(s.From.TableRefs)
}

// structFields finds the struct columns of a FROM clause's tables. It
// looks their schemas up only once a name needs them (most statements
// name no struct field).
type structFields struct {
	b       *builder
	sources map[string]*ast.TableName // lower-case name or alias → a table that may be cached
	tables  map[string]*arrow.Schema  // the cached ones' schemas, once looked up
	names   map[string]bool           // every name or alias of the FROM clause, lower case
}

// schemas looks the cached tables' schemas up, once.
func (r *structFields) schemas() map[string]*arrow.Schema {
	if r.tables != nil {
		return r.tables
	}
	r.tables = map[string]*arrow.Schema{}
	for name, tn := range r.sources {
		table, err := r.b.lookupTable(tn)
		if err != nil {
			continue
		}
		if info, err := r.b.c.Info(table); err == nil {
			r.tables[name] = info.Schema
		}
	}
	return r.tables
}

func (r *structFields) collect(n ast.ResultSetNode) {
	switch x := n.(type) {
	case *ast.Join:
		r.collect(x.Left)
		if x.Right != nil {
			r.collect(x.Right)
		}
	case *ast.TableSource:
		name := strings.ToLower(x.AsName.O)
		tn, isTable := x.Source.(*ast.TableName)
		if name == "" && isTable {
			name = tn.Name.L
		}
		r.names[name] = true
		if !isTable || r.b.c == nil || slices.ContainsFunc(r.b.ctes, func(q namedQuery) bool { return strings.EqualFold(q.name, tn.Name.O) }) {
			return
		}
		r.sources[name] = tn
	}
}

// structColumn finds name among the struct columns of the FROM tables,
// or of the one table q names: the only one, or nil.
func (r *structFields) structColumn(q, name string) *arrow.StructType {
	var found *arrow.StructType
	for t, sch := range r.schemas() {
		if q != "" && t != q {
			continue
		}
		for _, f := range sch.Fields() {
			if st, ok := f.Type.(*arrow.StructType); ok && strings.EqualFold(f.Name, name) {
				if found != nil {
					return nil // ambiguous: the usual error names it
				}
				found = st
			}
		}
	}
	return found
}

// field returns the struct_extract a column name stands for, or nil.
func (r *structFields) field(c *ast.ColumnNameExpr) ast.ExprNode {
	cn := c.Name
	if cn.Table.O == "" {
		return nil
	}
	q, tbl := cn.Schema.L, cn.Table.L
	var base ast.ExprNode
	switch {
	case q == "" && !r.names[tbl] && r.structColumn("", tbl) != nil: // s.f
		base = &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: cn.Table}}
	case q != "" && r.names[q] && (r.schemas()[q] == nil || r.structColumn(q, tbl) != nil):
		// t.s.f: a FROM name can be nothing but a table here, so also
		// where t's columns are not known yet (a derived table, a WITH
		// name): struct_extract says so if s is no struct
		base = &ast.ColumnNameExpr{Name: &ast.ColumnName{Table: cn.Schema, Name: cn.Table}}
	case q != "" && !r.names[q] && r.structColumn("", q) != nil: // s.f.g
		base = structExtract(&ast.ColumnNameExpr{Name: &ast.ColumnName{Name: cn.Schema}}, cn.Table.O, c)
	default:
		return nil
	}
	base.SetOriginTextPosition(c.OriginTextPosition())
	return structExtract(base, cn.Name.O, c)
}

func structExtract(s ast.ExprNode, field string, at ast.Node) ast.ExprNode {
	x := &ast.FuncCallExpr{FnName: ast.NewCIStr("struct_extract"), Args: []ast.ExprNode{s, ast.NewValueExpr(field, "", "")}}
	x.SetOriginTextPosition(at.OriginTextPosition())
	return x
}

// rewrite replaces the struct field names in n (not in its subqueries).
func (r *structFields) rewrite(n ast.ExprNode) ast.ExprNode {
	if n == nil {
		return nil
	}
	out, _ := n.Accept(r)
	return out.(ast.ExprNode)
}

func (r *structFields) rewriteOn(n ast.ResultSetNode) {
	if j, ok := n.(*ast.Join); ok {
		r.rewriteOn(j.Left)
		if j.Right != nil {
			r.rewriteOn(j.Right)
		}
		if j.On != nil {
			j.On.Expr = r.rewrite(j.On.Expr)
		}
	}
}

func (r *structFields) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.SubqueryExpr, *ast.SelectStmt, *ast.SetOprStmt:
		return n, true
	}
	return n, false
}

func (r *structFields) Leave(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok {
		if f := r.field(c); f != nil {
			return f, true
		}
	}
	return n, true
}

// planUnnest puts an Unnest step (op_unnest.go) under the projection
// when a SELECT item is unnest(l): one row per element of l, the other
// items computed on the row it came from, repeated; a NULL or empty list
// gives no row (DuckDB's unnest). It returns the plan and the item's
// expression: the element column the step appends to the batches, which
// the layout records so later conversions go after it. One unnest per
// SELECT, in a query without GROUP BY, aggregates or window functions
// (tabular is false then: the items read another scope).
func (b *builder) planUnnest(items []selectItem, plan planNode, tabular bool, sc scope) (planNode, int, expr.Expr, error) {
	at := -1
	for i, it := range items {
		x, ok := unparen(it.node).(*ast.FuncCallExpr)
		if !ok || x.FnName.L != "unnest" {
			continue
		}
		if at >= 0 {
			return nil, 0, nil, b.at(ErrUnsupported, x, "a second unnest in one SELECT list")
		}
		at = i
	}
	if at < 0 {
		return plan, -1, nil, nil
	}
	x := unparen(items[at].node).(*ast.FuncCallExpr)
	if !tabular {
		return nil, 0, nil, b.at(ErrUnsupported, x, "unnest with GROUP BY, aggregates or window functions (unnest in a derived table, and aggregate over it)")
	}
	if len(x.Args) != 1 {
		return nil, 0, nil, b.at(ErrInvalid, x, "unnest takes 1 argument, not %d", len(x.Args))
	}
	list, ok, err := b.nestedOperand(x.Args[0], sc)
	if err != nil {
		return nil, 0, nil, err
	}
	if !ok {
		return nil, 0, nil, b.at(ErrInvalid, x, "unnest(%s): %s is not a list", restore(x.Args[0]), restore(x.Args[0]))
	}
	typ, err := expr.ListElementType(list.Type())
	if err != nil {
		return nil, 0, nil, b.typeErr(x, err)
	}
	plan = b.lay.flush(plan)
	n := &unnestNode{in: plan, list: list, name: items[at].name, typ: typ}
	b.lay.fields = append(b.lay.fields, arrow.Field{Name: n.name, Type: typ, Nullable: true})
	return n, at, expr.Column(len(b.lay.fields)-1, n.name, typ), nil
}

// unnestReads tells the Unnest step under plan (the projection's input:
// it, or a conversion over it) which of its input columns the projection
// and the conversion read: only those are repeated per element, so a
// long list is not copied once per element of itself.
func unnestReads(plan planNode, exprs []expr.Expr) {
	read := map[int]bool{}
	for _, e := range exprs {
		for _, c := range expr.Columns(e) {
			read[c] = true
		}
	}
	if cv, ok := plan.(*convertNode); ok {
		for _, c := range cv.cols {
			read[c] = true
		}
		plan = cv.in
	}
	if un, ok := plan.(*unnestNode); ok {
		un.read = read
	}
}
