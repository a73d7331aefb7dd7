package query

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/quiverdb/quiver/query/expr"
)

// Subqueries. An uncorrelated scalar subquery — (SELECT max(x) FROM t),
// anywhere in the statement — runs once while the statement is planned,
// and its value is a constant of the plan (so it prunes like one, and
// EXPLAIN shows it). The others must be conjuncts of WHERE, and become
// joins with a relation the planner adds (hidden: its columns are named
// quiver$…):
//
//	EXISTS (SELECT … WHERE inner = outer AND …)  semi join on inner = outer
//	NOT EXISTS (…)                               anti join
//	x IN (SELECT y …)                            semi join on x = y
//	x NOT IN (SELECT y …)                        null-aware anti join on x = y
//	x op (SELECT agg … WHERE inner = outer …)    inner join with the subquery
//	                                             grouped by inner, on
//	                                             inner = outer; then x op agg
//
// [NOT] EXISTS that does not depend on the outer row (uncorrelated, or an
// aggregate without GROUP BY: always one row) is answered while
// planning. A decorrelated scalar subquery is narrowed to the keys its
// outer table's own filters keep (magicSet: inner IN (SELECT outer FROM
// that table WHERE its conjuncts)), so it aggregates only the groups
// some outer row looks up.
//
// A correlated condition of the subquery's WHERE that is not an equality
// of an inner and an outer column is the join's residual (semi and anti
// joins only). The scalar case is an inner join because the comparison
// is a conjunct of WHERE: a row whose subquery finds nothing compares
// with NULL and is dropped either way. Its aggregate must be NULL over
// no rows (not count). Outer columns anywhere else in a subquery are
// refused (ErrUnsupported).

// valueNode is a constant the planner computed (a scalar subquery's
// value), standing in the AST where the subquery was. It prints as its
// value.
type valueNode struct {
	*driver.ValueExpr
	lit expr.Expr
}

// pendingJoin is a semi, anti or null-aware anti join of a WHERE
// subquery, waiting for the relations its conditions read to be joined.
type pendingJoin struct {
	kind  joinKind
	rel   int            // the subquery's relation: the build side
	conds []ast.ExprNode // its keys and residual, over outer relations and rel
	outer relSet         // the outer relations the conditions read
	text  string         // for errors
}

// freeRefs returns the column references of s (and of the subqueries in
// it) that no relation of s resolves: references to outer queries, or
// names that resolve nowhere.
func (b *builder) freeRefs(s *ast.SelectStmt) ([]*ast.ColumnNameExpr, error) {
	c := b.child()
	c.probing = true
	if s.With != nil {
		if err := c.bindWith(s.With); err != nil {
			return nil, err
		}
	}
	if s.From != nil {
		if _, err := c.bindFrom(s); err != nil {
			return nil, err
		}
	}
	v := &freeCollector{b: c}
	visitClauses(s, v)
	return v.free, v.err
}

// visitClauses walks the expressions of a SELECT, not its FROM items.
func visitClauses(s *ast.SelectStmt, v ast.Visitor) {
	for _, f := range s.Fields.Fields {
		if f.Expr != nil {
			f.Expr.Accept(v)
		}
	}
	if s.From != nil {
		visitOn(s.From.TableRefs, v)
	}
	if s.Where != nil {
		s.Where.Accept(v)
	}
	if s.GroupBy != nil {
		for _, it := range s.GroupBy.Items {
			it.Expr.Accept(v)
		}
	}
	if s.Having != nil {
		s.Having.Expr.Accept(v)
	}
}

func visitOn(n ast.ResultSetNode, v ast.Visitor) {
	if j, ok := n.(*ast.Join); ok {
		visitOn(j.Left, v)
		if j.Right != nil {
			visitOn(j.Right, v)
		}
		if j.On != nil {
			j.On.Expr.Accept(v)
		}
	}
}

type freeCollector struct {
	b    *builder
	free []*ast.ColumnNameExpr
	err  error
}

func (v *freeCollector) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.SubqueryExpr:
		sel, ok := x.Query.(*ast.SelectStmt)
		if !ok {
			return n, true
		}
		inner, err := v.b.freeRefs(sel)
		if err != nil && v.err == nil {
			v.err = err
		}
		for _, c := range inner {
			if _, err := v.b.resolveName(c.Name); err != nil {
				v.free = append(v.free, c)
			}
		}
		return n, true
	case *ast.ColumnNameExpr:
		if _, err := v.b.resolveName(x.Name); err != nil {
			v.free = append(v.free, x)
		}
	}
	return n, false
}

func (v *freeCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// inlineScalars replaces each uncorrelated scalar subquery of s's
// clauses (not of its FROM items) by its value.
func (b *builder) inlineScalars(s *ast.SelectStmt) error {
	v := &scalarInliner{b: b}
	rewriteClauses(s, v)
	return v.err
}

// rewriteClauses walks v over s's SELECT list, WHERE, HAVING and ORDER BY
// (not its FROM items), each clause taking the node v returns for it when
// the walk completes.
func rewriteClauses(s *ast.SelectStmt, v ast.Visitor) {
	accept := func(e ast.ExprNode) ast.ExprNode {
		if n, ok := e.Accept(v); ok {
			return n.(ast.ExprNode)
		}
		return e
	}
	if s.Fields != nil {
		for _, f := range s.Fields.Fields {
			if f.Expr != nil {
				f.Expr = accept(f.Expr)
			}
		}
	}
	if s.Where != nil {
		s.Where = accept(s.Where)
	}
	if s.Having != nil {
		s.Having.Expr = accept(s.Having.Expr)
	}
	if s.OrderBy != nil {
		for _, it := range s.OrderBy.Items {
			it.Expr = accept(it.Expr)
		}
	}
}

type scalarInliner struct {
	b   *builder
	err error
}

func (v *scalarInliner) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.ExistsSubqueryExpr, *ast.PatternInExpr, *ast.CompareSubqueryExpr:
		// Their subqueries are not scalar; a scalar one inside IN's
		// left operand is rare enough to leave.
		return n, true
	}
	return n, false
}

func (v *scalarInliner) Leave(n ast.Node) (ast.Node, bool) {
	sq, ok := n.(*ast.SubqueryExpr)
	if !ok || v.err != nil {
		return n, true
	}
	sel, ok := sq.Query.(*ast.SelectStmt)
	if !ok {
		v.err = v.b.at(ErrUnsupported, sq, "set operations in a subquery")
		return n, false
	}
	free, err := v.b.freeRefs(sel)
	if err != nil {
		v.err = err
		return n, false
	}
	if len(free) > 0 {
		return n, true // correlated: a conjunct of WHERE, or refused
	}
	val, err := v.b.scalarValue(sq, sel)
	if err != nil {
		v.err = err
		return n, false
	}
	return val, true
}

// scalarValue runs an uncorrelated scalar subquery: one column, at most
// one row (NULL when none).
func (b *builder) scalarValue(at ast.Node, sel *ast.SelectStmt) (ast.ExprNode, error) {
	key := ""
	if !b.prepare && !hasVolatile(sel) && !hasParam(sel) { // two ? read alike with other values
		key = restoreSQL(sel) // before planning rewrites sel
		if v, ok := b.scalars.get(key); ok {
			return newValueNode(v.lit, v.ValueExpr.GetString()), nil // a node of its own per use
		}
	}
	n, err := b.runScalar(at, sel)
	if err == nil && key != "" {
		b.scalars.put(key, n)
	}
	return n, err
}

// scalarMemo keeps the value of each uncorrelated scalar subquery a
// statement ran, by its text: a part planned again from restored text (a
// derived table a conjunct moved into, each grouping set) would otherwise
// run its scalar subqueries again. One without volatile calls
// (hasVolatile) or ? placeholders (two read alike, bound to other values)
// gives the same value each time within a statement.
type scalarMemo struct{ values map[string]*valueNode }

func (m *scalarMemo) get(key string) (*valueNode, bool) {
	if m == nil {
		return nil, false
	}
	v, ok := m.values[key]
	return v, ok
}

func (m *scalarMemo) put(key string, v *valueNode) {
	if m == nil {
		return
	}
	if m.values == nil {
		m.values = map[string]*valueNode{}
	}
	m.values[key] = v
}

// hasVolatile reports a call in n whose value changes from call to call
// (random()).
func hasVolatile(n ast.Node) bool {
	v := &volatileFinder{}
	n.Accept(v)
	return v.found
}

type volatileFinder struct{ found bool }

func (v *volatileFinder) Enter(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && expr.Volatile(f.FnName.L) {
		v.found = true
	}
	return n, v.found
}

func (v *volatileFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// runScalar plans and runs an uncorrelated scalar subquery.
func (b *builder) runScalar(at ast.Node, sel *ast.SelectStmt) (*valueNode, error) {
	sub := b.child()
	p, err := sub.buildSelect(sel)
	if err != nil {
		return nil, err
	}
	sch := p.schema()
	if sch.NumFields() != 1 {
		return nil, b.at(ErrInvalid, at, "a subquery used as a value returns one column; this one returns %d", sch.NumFields())
	}
	typ := sch.Field(0).Type
	if et, ok := expr.EngineType(typ); ok {
		typ = et
	}
	if b.prepare { // parameters are not bound yet: only the type matters
		return newValueNode(expr.NullLiteral(typ), "NULL"), nil
	}
	ctx := b.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	r, err := (&Engine{c: b.c, opts: b.opts}).run(ctx, p)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	var val arrow.Array
	rows := 0
	for r.Next() {
		rec := r.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		rows += int(rec.NumRows())
		if rows > 1 {
			if val != nil {
				val.Release()
			}
			return nil, b.at(ErrExec, at, "more than one row returned by a subquery used as an expression")
		}
		col, err := expr.ToEngine(ctx, b.opts.Alloc, rec.Column(0))
		if err != nil {
			return nil, b.at(ErrExec, at, "subquery value: %v", err)
		}
		val = col
	}
	if err := r.Err(); err != nil {
		if val != nil {
			val.Release()
		}
		return nil, err
	}
	if val == nil {
		return newValueNode(expr.NullLiteral(typ), "NULL"), nil
	}
	defer val.Release()
	lit, text, err := literalOf(val, 0)
	if err != nil {
		return nil, b.at(ErrUnsupported, at, "subquery value of type %s: %v", val.DataType(), err)
	}
	return newValueNode(lit, text), nil
}

// literalOf makes a literal of one value of an engine-typed array.
func literalOf(a arrow.Array, i int) (expr.Expr, string, error) {
	if a.IsNull(i) {
		return expr.NullLiteral(a.DataType()), "NULL", nil
	}
	text := a.ValueStr(i)
	switch a.DataType().ID() {
	case arrow.INT64, arrow.FLOAT64, arrow.BOOL:
		v := a.GetOneForMarshal(i)
		l, err := expr.Literal(v)
		return l, text, err
	case arrow.STRING:
		l, err := expr.Literal(text)
		return l, "'" + strings.ReplaceAll(text, "'", "''") + "'", err
	case arrow.DATE32:
		days, err := expr.ParseDate(text)
		return expr.DateLiteral(days), "DATE '" + text + "'", err
	case arrow.DECIMAL128:
		dt := a.DataType().(arrow.DecimalType)
		l := expr.DecimalLiteral(a.(*array.Decimal128).Value(i), dt.GetPrecision(), dt.GetScale())
		return l, text, nil
	}
	return nil, "", fmt.Errorf("no literal of type %s", a.DataType())
}

func newValueNode(lit expr.Expr, text string) *valueNode {
	return &valueNode{ValueExpr: ast.NewValueExpr(text, "", "").(*driver.ValueExpr), lit: lit}
}

// Accept visits the node itself (the embedded ValueExpr's Accept would
// hand visitors, and so the parent, the ValueExpr instead).
func (n *valueNode) Accept(v ast.Visitor) (ast.Node, bool) {
	out, skip := v.Enter(n)
	if skip {
		return v.Leave(out)
	}
	return v.Leave(n)
}

// Restore prints the value (not quoted as the string it holds).
func (n *valueNode) Restore(ctx *format.RestoreCtx) error {
	ctx.WritePlain(n.ValueExpr.GetString())
	return nil
}

// subqueryConjunct plans a conjunct of WHERE that holds a subquery: it
// returns the conjuncts that replace it (join conditions of an inner join
// it added, and the comparison over the new relation) or a pending semi
// or anti join. A conjunct without subqueries comes back as it is.
func (b *builder) subqueryConjunct(t ast.ExprNode) ([]ast.ExprNode, *pendingJoin, error) {
	switch x := unparen(t).(type) {
	case *ast.ExistsSubqueryExpr:
		sq, ok := unparen(x.Sel).(*ast.SubqueryExpr)
		if !ok {
			break
		}
		if c, done, err := b.existsConstant(sq, x.Not); done || err != nil {
			return []ast.ExprNode{c}, nil, err
		}
		kind := joinSemi
		if x.Not {
			kind = joinAnti
		}
		pj, err := b.semiJoin(sq, kind, nil)
		if errors.Is(err, ErrUnsupported) {
			return []ast.ExprNode{t}, nil, nil // evaluated by Apply (apply.go)
		}
		return nil, pj, err
	case *ast.UnaryOperationExpr:
		if x.Op != opcode.Not && x.Op != opcode.Not2 {
			break
		}
		if ex, ok := unparen(x.V).(*ast.ExistsSubqueryExpr); ok {
			ex.Not = !ex.Not
			return b.subqueryConjunct(ex)
		}
		if in, ok := unparen(x.V).(*ast.PatternInExpr); ok && in.Sel != nil {
			in.Not = !in.Not
			return b.subqueryConjunct(in)
		}
	case *ast.PatternInExpr:
		if x.Sel == nil {
			break
		}
		sq, ok := unparen(x.Sel).(*ast.SubqueryExpr)
		if !ok {
			break
		}
		kind := joinSemi
		if x.Not {
			kind = joinNullAwareAnti
		}
		pj, err := b.semiJoin(sq, kind, x.Expr)
		return nil, pj, err
	case *ast.BinaryOperationExpr:
		if _, cmp := pushCmp[x.Op]; !cmp {
			break
		}
		for _, side := range []*ast.ExprNode{&x.R, &x.L} {
			sq, ok := unparen(*side).(*ast.SubqueryExpr)
			if !ok {
				continue
			}
			val, conds, err := b.scalarJoin(sq)
			if errors.Is(err, ErrUnsupported) {
				return []ast.ExprNode{t}, nil, nil // evaluated by Apply (apply.go)
			}
			if err != nil {
				return nil, nil, err
			}
			*side = val
			return append(conds, x), nil, nil
		}
	}
	// Any other subquery (under OR, CASE, arithmetic) is evaluated per
	// outer row by Apply (apply.go), or refused there.
	return []ast.ExprNode{t}, nil, nil
}

// existsConstant answers [NOT] EXISTS while planning when it does not
// depend on the outer row: an uncorrelated subquery runs once (to its
// first row), and a correlated one that aggregates without GROUP BY or
// HAVING always has one row. done is false when it must be a join.
func (b *builder) existsConstant(sq *ast.SubqueryExpr, not bool) (ast.ExprNode, bool, error) {
	sel, ok := sq.Query.(*ast.SelectStmt)
	if !ok {
		return nil, true, b.at(ErrUnsupported, sq, "set operations in a subquery")
	}
	free, err := b.freeRefs(sel)
	if err != nil {
		return nil, true, err
	}
	constant := func(v bool) (ast.ExprNode, bool, error) {
		lit, _ := expr.Literal(v != not)
		text := "FALSE"
		if v != not {
			text = "TRUE"
		}
		return newValueNode(lit, text), true, nil
	}
	if len(free) > 0 {
		if sel.GroupBy == nil && sel.Having == nil && sel.Limit == nil && hasAggregate(sel) {
			return constant(true)
		}
		return nil, false, nil
	}
	sub := b.child()
	p, err := sub.buildSelect(sel)
	if err != nil {
		return nil, true, err
	}
	if b.prepare { // parameters are not bound yet: the plan's shape is what matters
		return constant(true)
	}
	ctx := b.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	r, err := (&Engine{c: b.c, opts: b.opts}).run(ctx, p)
	if err != nil {
		return nil, true, err
	}
	defer r.Release()
	found := false
	for !found && r.Next() {
		found = r.RecordBatch().NumRows() > 0
	}
	if err := r.Err(); err != nil {
		return nil, true, err
	}
	return constant(found)
}

// correlation splits a subquery's WHERE: conjuncts that read outer
// columns (correlated) and the rest. Outer columns elsewhere in the
// subquery are refused.
func (b *builder) correlation(sel *ast.SelectStmt) (corr, rest []ast.ExprNode, outer map[*ast.ColumnNameExpr]bool, err error) {
	free, err := b.freeRefs(sel)
	if err != nil {
		return nil, nil, nil, err
	}
	outer = map[*ast.ColumnNameExpr]bool{}
	for _, c := range free {
		if _, err := b.resolve(c); err != nil {
			return nil, nil, nil, err // resolves nowhere: the usual error
		}
		outer[c] = true
	}
	if len(outer) == 0 {
		if sel.Where == nil {
			return nil, nil, outer, nil
		}
		return nil, conjuncts(sel.Where, nil), outer, nil
	}
	found := 0
	if sel.Where != nil {
		for _, t := range conjuncts(sel.Where, nil) {
			n := countRefs(t, outer)
			if n == 0 {
				rest = append(rest, t)
				continue
			}
			if hasSubquery(t) {
				return nil, nil, nil, b.at(ErrUnsupported, t, "a subquery reading outer columns inside another subquery")
			}
			found += n
			corr = append(corr, t)
		}
	}
	if found != len(outer) {
		return nil, nil, nil, b.at(ErrUnsupported, sel, "a subquery reading outer columns outside the conjuncts of its WHERE")
	}
	return corr, rest, outer, nil
}

func countRefs(n ast.Node, set map[*ast.ColumnNameExpr]bool) int {
	v := &refCounter{set: set}
	n.Accept(v)
	return v.n
}

type refCounter struct {
	set map[*ast.ColumnNameExpr]bool
	n   int
}

func (v *refCounter) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok && v.set[c] {
		v.n++
	}
	return n, false
}

func (v *refCounter) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// innerOuter reports whether a correlated conjunct is inner = outer, two
// bare columns, returning them in that order.
func (b *builder) innerOuter(t ast.ExprNode, outer map[*ast.ColumnNameExpr]bool) (inner, out *ast.ColumnNameExpr, ok bool) {
	x, isBin := unparen(t).(*ast.BinaryOperationExpr)
	if !isBin || x.Op != opcode.EQ {
		return nil, nil, false
	}
	l, lok := unparen(x.L).(*ast.ColumnNameExpr)
	r, rok := unparen(x.R).(*ast.ColumnNameExpr)
	switch {
	case !lok || !rok:
		return nil, nil, false
	case outer[r] && !outer[l]:
		return l, r, true
	case outer[l] && !outer[r]:
		return r, l, true
	}
	return nil, nil, false
}

// columnNodes returns the column references of n, not looking into
// subqueries.
func columnNodes(n ast.Node) []*ast.ColumnNameExpr {
	v := &columnNodeCollector{}
	n.Accept(v)
	return v.cols
}

type columnNodeCollector struct{ cols []*ast.ColumnNameExpr }

func (v *columnNodeCollector) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.SubqueryExpr:
		return n, true
	case *ast.ColumnNameExpr:
		v.cols = append(v.cols, x)
	}
	return n, false
}

func (v *columnNodeCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// semiJoin plans EXISTS, NOT EXISTS, IN and NOT IN: the subquery becomes
// a hidden relation of its inner key columns (and those its residual
// reads), joined by kind. For IN, lhs is the value tested.
func (b *builder) semiJoin(sq *ast.SubqueryExpr, kind joinKind, lhs ast.ExprNode) (*pendingJoin, error) {
	sel, ok := sq.Query.(*ast.SelectStmt)
	if !ok {
		return nil, b.at(ErrUnsupported, sq, "set operations in a subquery")
	}
	corr, rest, outer, err := b.correlation(sel)
	if err != nil {
		return nil, err
	}
	if lhs != nil && len(sel.Fields.Fields) != 1 {
		return nil, b.at(ErrInvalid, sq, "IN (subquery) needs a subquery of one column; this one has %d", len(sel.Fields.Fields))
	}
	if kind == joinNullAwareAnti && len(corr) > 0 {
		return nil, b.at(ErrUnsupported, sq, "NOT IN with a correlated subquery (write NOT EXISTS)")
	}
	if sel.Limit != nil && len(corr) > 0 {
		return nil, b.at(ErrUnsupported, sq, "LIMIT in a correlated subquery")
	}
	id := b.newID()
	relName := fmt.Sprintf("$sub%d", id)
	// The subquery's SELECT list becomes: [IN's column,] the inner
	// columns the correlated conjuncts read.
	var fields []*ast.SelectField
	var conds []ast.ExprNode
	if lhs != nil {
		if sel.Fields.Fields[0].WildCard != nil {
			return nil, b.at(ErrInvalid, sq, "IN (SELECT * …): name the one column")
		}
		fields = append(fields, &ast.SelectField{Expr: sel.Fields.Fields[0].Expr, AsName: ast.NewCIStr("$in")})
		conds = append(conds, equality(lhs, qualified(relName, "$in")))
	}
	inner := map[string]string{} // inner column text → its name in the relation
	rename := func(c *ast.ColumnNameExpr) *ast.ColumnNameExpr {
		text := restore(c)
		name, ok := inner[text]
		if !ok {
			name = fmt.Sprintf("$c%d", len(inner))
			inner[text] = name
			fields = append(fields, &ast.SelectField{Expr: &ast.ColumnNameExpr{Name: c.Name}, AsName: ast.NewCIStr(name)})
		}
		return qualified(relName, name)
	}
	for _, t := range corr {
		conds = append(conds, replaceColumns(t, func(c *ast.ColumnNameExpr) ast.ExprNode {
			if outer[c] {
				return c
			}
			return rename(c)
		}))
	}
	if len(fields) == 0 { // the correlated conjuncts read outer columns only: any column will do
		fields = append(fields, &ast.SelectField{Expr: ast.NewValueExpr(int64(1), "", ""), AsName: ast.NewCIStr("$one")})
	}
	if groupItems(sel) > 0 || sel.Having != nil || hasAggregate(sel) {
		if len(corr) > 0 {
			return nil, b.at(ErrUnsupported, sq, "a correlated subquery with GROUP BY, HAVING or aggregates under EXISTS or IN")
		}
	}
	body := *sel
	body.Fields = &ast.FieldList{Fields: fields}
	body.Where = nil
	for _, t := range rest {
		body.Where = and(body.Where, t)
	}
	if sel.Limit == nil { // ORDER BY alone changes no set of rows
		body.OrderBy = nil
	}
	rel, err := b.derived(&body, relName, sq)
	if err != nil {
		return nil, err
	}
	rel.hidden = true
	b.rels = append(b.rels, rel)
	ri := len(b.rels) - 1
	pj := &pendingJoin{kind: kind, rel: ri, conds: conds, text: restore(sq)}
	for _, c := range conds {
		rs, err := b.refsOf(c)
		if err != nil {
			return nil, err
		}
		pj.outer |= rs &^ (1 << ri)
	}
	return pj, nil
}

// scalarJoin plans a correlated scalar subquery compared in WHERE: a
// hidden relation of the subquery's value grouped by its inner
// correlation columns. It returns the value's column and the join
// conditions outer = inner.
func (b *builder) scalarJoin(sq *ast.SubqueryExpr) (ast.ExprNode, []ast.ExprNode, error) {
	sel, ok := sq.Query.(*ast.SelectStmt)
	if !ok {
		return nil, nil, b.at(ErrUnsupported, sq, "set operations in a subquery")
	}
	corr, rest, outer, err := b.correlation(sel)
	if err != nil {
		return nil, nil, err
	}
	if len(corr) == 0 { // uncorrelated, yet not inlined: cannot happen
		return nil, nil, b.at(ErrUnsupported, sq, "this subquery")
	}
	if len(sel.Fields.Fields) != 1 || sel.Fields.Fields[0].WildCard != nil {
		return nil, nil, b.at(ErrInvalid, sq, "a subquery used as a value returns one column")
	}
	value := sel.Fields.Fields[0].Expr
	if sel.GroupBy != nil || sel.Having != nil || sel.Limit != nil || !hasAggregateExpr(value) {
		return nil, nil, b.at(ErrUnsupported, sq, "a correlated scalar subquery must be one aggregate without GROUP BY, HAVING or LIMIT")
	}
	if !nullOverNoRows(value) {
		return nil, nil, b.at(ErrUnsupported, sq, "a correlated scalar subquery whose value over no rows is not NULL (count, coalesce, …)")
	}
	id := b.newID()
	relName := fmt.Sprintf("$sub%d", id)
	fields := []*ast.SelectField{{Expr: value, AsName: ast.NewCIStr("$value")}}
	var groupBy []*ast.ByItem
	var conds []ast.ExprNode
	var magic ast.ExprNode
	for i, t := range corr {
		in, out, ok := b.innerOuter(t, outer)
		if !ok {
			return nil, nil, b.at(ErrUnsupported, t, "a correlated scalar subquery whose outer columns are not in equalities inner = outer")
		}
		name := fmt.Sprintf("$k%d", i)
		fields = append(fields, &ast.SelectField{Expr: &ast.ColumnNameExpr{Name: in.Name}, AsName: ast.NewCIStr(name)})
		groupBy = append(groupBy, &ast.ByItem{Expr: &ast.ColumnNameExpr{Name: in.Name}})
		conds = append(conds, equality(out, qualified(relName, name)))
		if magic == nil {
			magic = b.magicSet(in, out)
		}
	}
	body := *sel
	body.Fields = &ast.FieldList{Fields: fields}
	body.Where = nil
	for _, t := range rest {
		body.Where = and(body.Where, t)
	}
	body.Where = and(body.Where, magic)
	body.GroupBy = &ast.GroupByClause{Items: groupBy}
	body.OrderBy, body.Limit = nil, nil
	rel, err := b.derived(&body, relName, sq)
	if err != nil {
		return nil, nil, err
	}
	rel.hidden = true
	b.rels = append(b.rels, rel)
	return qualified(relName, "$value"), conds, nil
}

// nullOverNoRows reports whether a scalar subquery's value is NULL when
// it aggregates no rows: aggregates other than count, and constants,
// under arithmetic and casts (which are NULL when an operand is), with
// at least one aggregate.
func nullOverNoRows(e ast.ExprNode) bool {
	switch x := unparen(e).(type) {
	case *ast.AggregateFuncExpr:
		f := strings.ToLower(x.F)
		return f != "count" && f != "count_if" && f != "approx_count_distinct"
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.Plus, opcode.Minus, opcode.Mul, opcode.Div, opcode.IntDiv, opcode.Mod:
			l, r := nullOverNoRows(x.L), nullOverNoRows(x.R)
			return (l && (r || isConstant(x.R))) || (r && isConstant(x.L))
		}
	case *ast.UnaryOperationExpr:
		return x.Op == opcode.Minus && nullOverNoRows(x.V)
	case *ast.FuncCastExpr:
		return nullOverNoRows(x.Expr)
	}
	return false
}

func hasAggregateExpr(n ast.ExprNode) bool {
	f := &aggFinder{}
	n.Accept(f)
	return len(f.found) > 0
}

// replaceColumns returns n with each column reference replaced by fn's
// result. It rewrites n in place.
func replaceColumns(n ast.ExprNode, fn func(*ast.ColumnNameExpr) ast.ExprNode) ast.ExprNode {
	out, _ := n.Accept(&columnReplacer{fn: fn})
	return out.(ast.ExprNode)
}

type columnReplacer struct {
	fn func(*ast.ColumnNameExpr) ast.ExprNode
}

func (v *columnReplacer) Enter(n ast.Node) (ast.Node, bool) {
	_, sub := n.(*ast.SubqueryExpr)
	return n, sub
}

func (v *columnReplacer) Leave(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok {
		return v.fn(c), true
	}
	return n, true
}

func groupItems(s *ast.SelectStmt) int {
	if s.GroupBy == nil {
		return 0
	}
	return len(s.GroupBy.Items)
}

// magicSet narrows a decorrelated scalar subquery to the outer rows that
// can ask for it: when the outer column is a table's whose conjuncts of
// WHERE filter it, the subquery gets inner IN (SELECT outer FROM table
// WHERE those conjuncts), so it aggregates only the groups some outer row
// looks up (TPC-H Q17 averages the quantities of 200 parts, not of
// 200,000). It returns nil when there is nothing to narrow by.
func (b *builder) magicSet(inner, outer *ast.ColumnNameExpr) ast.ExprNode {
	ref, err := b.resolve(outer)
	if err != nil {
		return nil
	}
	r := b.rels[ref.rel]
	if r.table == "" {
		return nil
	}
	var where ast.ExprNode
	for _, t := range b.whereTerms {
		rs, err := b.refsOf(t)
		if err != nil || rs != 1<<ref.rel || (hasSubquery(t) && !b.uncorrelated(t)) {
			continue
		}
		cp, err := copyExpr(t)
		if err != nil {
			return nil
		}
		where = and(where, cp)
	}
	if where == nil {
		return nil
	}
	sel := &ast.SelectStmt{Kind: ast.SelectStmtKindSelect, SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true},
		Fields: &ast.FieldList{Fields: []*ast.SelectField{{Expr: qualified(r.name, r.schema.Field(ref.col).Name)}}},
		From: &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{
			Source: &ast.TableName{Name: ast.NewCIStr(r.table)}, AsName: ast.NewCIStr(r.name)}}},
		Where: where}
	return &ast.PatternInExpr{Expr: &ast.ColumnNameExpr{Name: inner.Name}, Sel: &ast.SubqueryExpr{Query: sel}}
}

// copyExpr returns a fresh copy of an expression (planning rewrites
// ASTs in place, and the copy is planned apart from the original).
func copyExpr(e ast.ExprNode) (ast.ExprNode, error) {
	sel, err := reparse("SELECT "+restoreSQL(e), paramOrders(e))
	if err != nil {
		return nil, err
	}
	return sel.Fields.Fields[0].Expr, nil
}

// uncorrelated reports whether every subquery in n reads only its own
// tables (so n can be copied into another query).
func (b *builder) uncorrelated(n ast.Node) bool {
	ok := true
	n.Accept(&subqueryVisitor{fn: func(sq *ast.SubqueryExpr) {
		sel, isSel := sq.Query.(*ast.SelectStmt)
		if !isSel {
			ok = false
			return
		}
		free, err := b.freeRefs(sel)
		ok = ok && err == nil && len(free) == 0
	}})
	return ok
}

// subqueryVisitor calls fn with each outermost subquery.
type subqueryVisitor struct{ fn func(*ast.SubqueryExpr) }

func (v *subqueryVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if sq, ok := n.(*ast.SubqueryExpr); ok {
		v.fn(sq)
		return n, true
	}
	return n, false
}

func (v *subqueryVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }
