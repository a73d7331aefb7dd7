package query

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// The logical plan of a whole SELECT: the operators above FROM and WHERE
// — Aggregate (GROUP BY and the aggregate calls), a Filter for HAVING,
// Window, a Filter for QUALIFY, Project (the SELECT list), Distinct, Sort
// or TopK (ORDER BY, with a LIMIT), Limit — over the FROM part: a joining
// SELECT's logicalPlan (logical.go), a Scan of one table under a Filter of
// WHERE, or one row of no columns when there is no FROM.
//
// The operators are bound from the statement once FROM is bound (a * in
// the SELECT list needs FROM's columns), then rewritten by selectRules
// (logical_select_rules.go), and buildSelect (build.go) plans the
// physical operators from them alone: the scan's columns, the filter's
// kept columns, the group keys and aggregate calls, HAVING, the window
// calls, QUALIFY, the items, the ORDER BY keys, LIMIT and OFFSET. Three
// rules edit the statement as well, where the rewrite lives in a helper
// over it or a later step reads the statement: substituting aliases (the
// SELECT list's later items, WHERE and HAVING), moving HAVING's
// conjuncts over keys into WHERE, and moving arithmetic off columns
// (WHERE, which the single-table scan planning, splitWhere, reads); each
// edits it once and binds the operators it changed again from it.

// selectPlan is one SELECT as logical operators: a nil or empty field
// is an operator the SELECT does not have.
type selectPlan struct {
	sel *ast.SelectStmt

	// The FROM part: from for a SELECT that joins; else table (and
	// alias) with the filter where, the conjuncts the scan evaluates
	// (scanRows) and its estimated rows (scanEst) once predicates are
	// pushed, and the columns read above it (scanCols) once pruned;
	// neither for no FROM.
	from     *logicalPlan
	table    string
	alias    string
	where    []ast.ExprNode
	scanRows string
	scanEst  float64
	pushed   bool
	scanCols []string
	pruned   bool

	grouped    bool          // GROUP BY
	groupBy    []*ast.ByItem // Aggregate's keys, as written (positions name items)
	aggregates []*ast.AggregateFuncExpr
	having     ast.ExprNode
	windows    []*ast.WindowFuncExpr
	qualify    ast.ExprNode
	qualifies  bool // the statement's HAVING is a QUALIFY (parse_qualify.go)
	items      []selectItem
	distinct   bool
	orderBy    []*ast.ByItem // with the NULLS FIRST/LAST sentinels (parse.go)
	limit      *ast.Limit
}

// aggregated reports whether the SELECT has an Aggregate: GROUP BY or an
// aggregate call.
func (sp *selectPlan) aggregated() bool {
	return sp.grouped || len(sp.aggregates) > 0
}

// bindSelect binds the operators above FROM from s, whose FROM is bound:
// from when it joins, else the builder's table, or no table. qualify says
// s.Having is a QUALIFY.
func (b *builder) bindSelect(s *ast.SelectStmt, from *logicalPlan, qualify bool) (*selectPlan, error) {
	sp := &selectPlan{sel: s, from: from, qualifies: qualify, distinct: s.Distinct}
	if from == nil && s.From != nil {
		sp.table, sp.alias = b.table, b.alias
	}
	if err := b.bindItems(sp); err != nil {
		return nil, err
	}
	sp.grouped = s.GroupBy != nil
	if sp.grouped {
		sp.groupBy = s.GroupBy.Items
	}
	if s.OrderBy != nil {
		sp.orderBy = s.OrderBy.Items
	}
	sp.limit = s.Limit
	sp.bindFilters()
	sp.bindCalls()
	return sp, nil
}

// bindItems binds the SELECT list (* becomes FROM's columns).
func (b *builder) bindItems(sp *selectPlan) error {
	items, err := b.selectItems(sp.sel)
	if err != nil {
		return err
	}
	sp.items = items
	return nil
}

// bindFilters binds HAVING (or QUALIFY) and, over one table or none,
// WHERE from the statement, as they stand.
func (sp *selectPlan) bindFilters() {
	s := sp.sel
	sp.having, sp.qualify, sp.where = nil, nil, nil
	if s.Having != nil {
		if sp.qualifies {
			sp.qualify = s.Having.Expr
		} else {
			sp.having = s.Having.Expr
		}
	}
	if sp.from == nil && s.Where != nil {
		sp.where = conjuncts(s.Where, nil)
	}
}

// bindCalls finds the aggregate calls of the items, HAVING (or QUALIFY:
// hasAggregate counts its calls too) and ORDER BY, and the window calls
// of the items, QUALIFY and ORDER BY.
func (sp *selectPlan) bindCalls() {
	f := &aggFinder{}
	for _, it := range sp.items {
		it.node.Accept(f)
	}
	for _, e := range []ast.ExprNode{sp.having, sp.qualify} {
		if e != nil {
			e.Accept(f)
		}
	}
	for _, it := range sp.orderBy {
		it.Expr.Accept(f)
	}
	sp.aggregates = f.found
	sp.windows = findWindows(sp.orderBy, sp.items, sp.qualify) // plan_window.go
}
