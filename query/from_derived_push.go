package query

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/expr"
)

// Predicates into a derived table. Push down predicates (logical.go)
// leaves a conjunct over one derived table (a subquery in FROM, a WITH
// name, a view) in a filter over its rows. When that relation is lowered
// (relPart), the conjunct goes into the derived SELECT itself instead —
// its columns replaced by the SELECT items they name — and the SELECT is
// planned again, so its scan prunes by it and its row filter takes it:
//
//	SELECT … FROM (SELECT CAST(d AS TIMESTAMP) AS ts, q FROM t) x WHERE ts >= k
//	  →  SELECT … FROM (SELECT CAST(d AS TIMESTAMP) AS ts, q FROM t
//	                    WHERE CAST(d AS TIMESTAMP) >= k) x
//
// (and the cast then comes off d: rule_cast.go). Into a SELECT that
// groups or aggregates, the conjunct goes into HAVING, where a conjunct
// over the group keys moves on into WHERE (rule_having.go). Into a
// UNION ALL of SELECTs (a table split by month, read as one), the
// conjunct goes into each SELECT. DataFusion and DuckDB push filters
// through projections, aggregates and unions alike.
//
// The conjunct only moves where it keeps the same rows:
//
//   - the derived SELECT has no LIMIT, DISTINCT, QUALIFY, ROLLUP, named
//     window, * item, ? placeholder or TRY_CAST, and a FROM; over window
//     calls, it does not group, and the conjunct reads only columns that
//     every window partitions by (partitionKeys); a WITH name
//     whose result is held once for all its uses (cte_held.go) is
//     filtered above, as before; a set operation is a UNION ALL of such
//     SELECTs, each giving the union's column types itself;
//   - each item the conjunct names computes no subquery, no volatile call
//     (random()) and names no alias of the list (in WHERE a name means
//     FROM's column, in the list it may mean an earlier item's alias);
//   - the conjunct names only that relation's columns, and no ?.
//
// A conjunct that cannot move stays in a filter above the derived table,
// and all do when the SELECT fails to plan again. The derived SELECT is planned from its text
// as written (derivedSource), since planning rewrites an AST in place.

// derivedSource is the text of a derived table's SELECT as written, kept
// when conjuncts could move into it; or of a UNION ALL of such SELECTs,
// each of which then takes the conjuncts.
type derivedSource struct {
	text  string
	union bool         // text is a UNION ALL of SELECTs
	ctes  []namedQuery // the WITH names it sees
}

// pushableSource returns s's source when conjuncts could move into it;
// nil else. It must be called before s is planned.
func (b *builder) pushableSource(s *ast.SelectStmt, text string, ctes []namedQuery) *derivedSource {
	if !b.pushableSelect(s) {
		return nil
	}
	if text == "" {
		text = pipesKeptSQL(s)
	}
	return &derivedSource{text: text, ctes: ctes}
}

// pushableUnion is pushableSource for a set operation: a UNION ALL of
// SELECTs each pushable, with no ORDER BY, LIMIT or WITH of its own.
// (UNION, INTERSECT and EXCEPT compare rows, -0 and 0 as equal: a
// conjunct that tells them apart could keep another row of a group.)
func (b *builder) pushableUnion(s *ast.SetOprStmt, ctes []namedQuery) *derivedSource {
	if s.With != nil || s.OrderBy != nil || s.Limit != nil || s.SelectList == nil || s.SelectList.With != nil ||
		s.SelectList.OrderBy != nil || s.SelectList.Limit != nil || len(s.SelectList.Selects) < 2 {
		return nil
	}
	for i, n := range s.SelectList.Selects {
		sel, ok := n.(*ast.SelectStmt)
		if !ok || !b.pushableSelect(sel) {
			return nil
		}
		if i > 0 && (sel.AfterSetOperator == nil || *sel.AfterSetOperator != ast.UnionAll) {
			return nil
		}
	}
	return &derivedSource{text: pipesKeptSQL(s), union: true, ctes: ctes}
}

// pushableSelect reports whether conjuncts could move into s (the
// conditions in this file's comment that the SELECT alone decides).
func (b *builder) pushableSelect(s *ast.SelectStmt) bool {
	if b.opts.NoPruning || s.From == nil || s.Limit != nil || s.Distinct || len(s.WindowSpecs) > 0 || hasParam(s) || !b.replannable() {
		return false
	}
	if s.GroupBy != nil && s.GroupBy.Rollup {
		return false
	}
	for _, f := range s.Fields.Fields {
		if f.WildCard != nil || f.Expr == nil {
			return false
		}
	}
	if s.Having != nil && hasWindowExpr(s.Having.Expr) {
		return false
	}
	// Over windows, only a SELECT that does not group: a conjunct then
	// moves into WHERE if it reads only partition keys (partitionKeys).
	return len(selectWindows(s)) == 0 || s.GroupBy == nil && s.Having == nil && !hasAggregate(s)
}

// selectWindows returns the window calls of s's list and ORDER BY.
func selectWindows(s *ast.SelectStmt) []*ast.WindowFuncExpr {
	f := &windowFinder{}
	for _, fld := range s.Fields.Fields {
		if fld.Expr != nil {
			fld.Expr.Accept(f)
		}
	}
	if s.OrderBy != nil {
		for _, it := range s.OrderBy.Items {
			it.Expr.Accept(f)
		}
	}
	return f.found
}

// partitionKeys returns, for a SELECT with window calls, the columns
// every window partitions by, as written ("t.k" or "k"): a conjunct over
// those alone drops whole partitions, so it may filter the rows before
// the windows run (DataFusion and Spark push such filters too). Nil when
// s has no window (every item may be read); empty when no column is in
// every window's PARTITION BY.
func partitionKeys(s *ast.SelectStmt) map[string]bool {
	windows := selectWindows(s)
	if len(windows) == 0 {
		return nil
	}
	keys := map[string]bool{}
	for i, w := range windows {
		these := map[string]bool{}
		if w.Spec.PartitionBy != nil && w.Spec.Ref.L == "" {
			for _, it := range w.Spec.PartitionBy.Items {
				if c, ok := unparen(it.Expr).(*ast.ColumnNameExpr); ok {
					these[columnKey(c)] = true
				}
			}
		}
		if i == 0 {
			keys = these
			continue
		}
		for k := range keys {
			if !these[k] {
				delete(keys, k)
			}
		}
	}
	return keys
}

// columnKey is a column name as written, qualifier and all, ignoring case.
func columnKey(c *ast.ColumnNameExpr) string {
	return c.Name.Table.L + "." + c.Name.Name.L
}

// pushIntoDerived plans relation ri's derived SELECT (each SELECT of its
// UNION ALL) again with those of its pushed conjuncts inside that can
// move (the conditions above), and returns the plan and the conjuncts
// left to filter its rows; false when none can move, and the caller
// filters the relation's rows as before.
func (b *builder) pushIntoDerived(ri int) (planNode, []ast.ExprNode, bool) {
	r := b.rels[ri]
	if r.source == nil || len(r.pushed) == 0 {
		return nil, nil, false
	}
	sels, ok := r.source.selects()
	if !ok {
		return nil, nil, false
	}
	// moved[s][i]: conjunct i in SELECT s's terms; it moves only if it
	// moves into every SELECT.
	moved := make([][]ast.ExprNode, len(sels))
	for si, sel := range sels {
		moved[si] = b.substitutions(sel, ri, r.pushed)
	}
	var rest []ast.ExprNode
	moves := 0
	for i, t := range r.pushed {
		all := true
		for si := range sels {
			all = all && moved[si][i] != nil
		}
		if !all {
			rest = append(rest, t)
			for si := range sels {
				moved[si][i] = nil
			}
			continue
		}
		moves++
	}
	if moves == 0 {
		return nil, nil, false
	}
	var out planNode
	for si, sel := range sels {
		addConjuncts(sel, moved[si])
		sub := b.child()
		sub.ctes = r.source.ctes
		p, err := sub.buildSelect(sel)
		if err != nil {
			return nil, nil, false
		}
		// Each SELECT must give the relation's types itself: a conjunct
		// computed in another type (an integer where the union has a
		// decimal) could answer otherwise.
		if !sameTypes(p.schema(), r.schema) {
			return nil, nil, false
		}
		if out == nil {
			out = p
		} else if out, err = b.unionAll(out, p, r.node); err != nil {
			return nil, nil, false
		}
	}
	q, _ := uniqueNames(out)
	return q, rest, true
}

// selects parses the source again: its SELECT, or its UNION ALL's.
func (d *derivedSource) selects() ([]*ast.SelectStmt, bool) {
	if !d.union {
		sel, err := reparse(d.text, nil)
		return []*ast.SelectStmt{sel}, err == nil
	}
	st, err := parseSQL(d.text)
	if err != nil {
		return nil, false
	}
	u, ok := st.(*ast.SetOprStmt)
	if !ok || u.SelectList == nil {
		return nil, false
	}
	var sels []*ast.SelectStmt
	for _, n := range u.SelectList.Selects {
		sel, ok := n.(*ast.SelectStmt)
		if !ok {
			return nil, false
		}
		sels = append(sels, sel)
	}
	return sels, true
}

// substitutions returns each conjunct over relation ri in sel's terms,
// its columns replaced by the items of sel they name; nil for one that
// cannot move into sel (hasParam: a ? is numbered by its place in the
// statement).
func (b *builder) substitutions(sel *ast.SelectStmt, ri int, pushed []ast.ExprNode) []ast.ExprNode {
	out := make([]ast.ExprNode, len(pushed))
	if len(sel.Fields.Fields) != b.rels[ri].schema.NumFields() {
		return out
	}
	aliases := map[string]bool{}
	for _, f := range sel.Fields.Fields {
		if f.AsName.L != "" {
			aliases[f.AsName.L] = true
		}
	}
	keys := partitionKeys(sel)
	for i, t := range pushed {
		if hasParam(t) {
			continue
		}
		if c, ok := b.substituteItems(t, ri, sel, aliases, keys); ok {
			out[i] = c
		}
	}
	return out
}

// addConjuncts ANDs the non-nil conds into sel: into HAVING when sel
// groups or aggregates, else into WHERE.
func addConjuncts(sel *ast.SelectStmt, conds []ast.ExprNode) {
	var cond ast.ExprNode
	for _, c := range conds {
		if c != nil {
			cond = and(cond, c)
		}
	}
	if cond == nil {
		return
	}
	if sel.GroupBy != nil || sel.Having != nil || hasAggregate(sel) {
		if sel.Having == nil {
			sel.Having = &ast.HavingClause{}
		}
		sel.Having.Expr = and(sel.Having.Expr, cond)
		return
	}
	sel.Where = and(sel.Where, cond)
}

// substituteItems is a copy of conjunct t, over relation ri, with each of
// its columns replaced by a copy of the item of sel it names.
func (b *builder) substituteItems(t ast.ExprNode, ri int, sel *ast.SelectStmt, aliases, keys map[string]bool) (ast.ExprNode, bool) {
	cp, err := reparse("SELECT "+restoreSQL(t), nil)
	if err != nil || len(cp.Fields.Fields) != 1 {
		return nil, false
	}
	v := &itemSubstituter{b: b, ri: ri, sel: sel, aliases: aliases, keys: keys, ok: true}
	out, _ := cp.Fields.Fields[0].Expr.Accept(v)
	if !v.ok {
		return nil, false
	}
	return out.(ast.ExprNode), true
}

// itemSubstituter replaces the columns of relation ri by copies of the
// SELECT items they name; ok turns false at anything that cannot move.
type itemSubstituter struct {
	b       *builder
	ri      int
	sel     *ast.SelectStmt
	aliases map[string]bool
	keys    map[string]bool // over windows, the partition keys an item must be (partitionKeys)
	ok      bool
}

func (v *itemSubstituter) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.ColumnNameExpr:
		return n, true // replaced in Leave
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.VariableExpr, *ast.DefaultExpr:
		v.ok = false
	}
	return n, !v.ok
}

func (v *itemSubstituter) Leave(n ast.Node) (ast.Node, bool) {
	c, isCol := n.(*ast.ColumnNameExpr)
	if !isCol || !v.ok {
		return n, v.ok
	}
	ref, err := v.b.resolve(c)
	if err != nil || ref.rel != v.ri || ref.col >= len(v.sel.Fields.Fields) {
		v.ok = false
		return n, false
	}
	item := v.sel.Fields.Fields[ref.col].Expr
	if v.keys != nil {
		if c, isCol := unparen(item).(*ast.ColumnNameExpr); !isCol || !v.keys[columnKey(c)] {
			v.ok = false
			return n, false
		}
	}
	if !movableItem(item, v.aliases) {
		v.ok = false
		return n, false
	}
	cp, err := reparse("SELECT "+restoreSQL(item), nil)
	if err != nil || len(cp.Fields.Fields) != 1 {
		v.ok = false
		return n, false
	}
	out := cp.Fields.Fields[0].Expr
	switch out.(type) {
	case *ast.ColumnNameExpr, *ast.FuncCallExpr, *ast.FuncCastExpr, *ast.AggregateFuncExpr, *ast.ParenthesesExpr:
		return out, true // delimited in text as it is; bare, the scan's pushdown takes a column
	}
	return &ast.ParenthesesExpr{Expr: out}, true // restored text keeps the item whole
}

// movableItem reports whether a SELECT item may be computed in WHERE or
// HAVING too: no subquery, no volatile call, no name that is an alias of
// the list.
func movableItem(item ast.ExprNode, aliases map[string]bool) bool {
	v := &movableVisitor{aliases: aliases, ok: true}
	item.Accept(v)
	return v.ok
}

type movableVisitor struct {
	aliases map[string]bool
	ok      bool
}

func (v *movableVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.ColumnNameExpr:
		if x.Name.Table.L == "" && v.aliases[strings.ToLower(x.Name.Name.O)] {
			v.ok = false
		}
	case *ast.FuncCallExpr:
		if expr.Volatile(x.FnName.L) {
			v.ok = false
		}
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr, *ast.VariableExpr, *ast.DefaultExpr, *ast.WindowFuncExpr:
		v.ok = false
	}
	return n, !v.ok
}

func (v *movableVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, v.ok }

// sameTypes reports whether two schemas have the same column types.
func sameTypes(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() {
		return false
	}
	for i := range a.NumFields() {
		if !arrow.TypeEqual(a.Field(i).Type, b.Field(i).Type) {
			return false
		}
	}
	return true
}

// replannable reports whether a part of the statement may be planned
// again from restored text (restoreSQL): not when the user's text holds
// TRY_CAST or QUALIFY, which the planner tells from CAST and HAVING by
// the user's text at the node's position (isTryCast, isQualify), and a
// restored text's positions are its own.
func (b *builder) replannable() bool {
	return !containsFold(b.sql, "try_cast") && !containsFold(b.sql, "qualify")
}
