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
// (logical_select_rules.go). The rewrites still edit the statement,
// because parts of the physical planning read it (readAbove, planWindows,
// planScan, the top-k pruning); each rule edits it once and binds the
// operators again from it, so the plan printed is the one lowered.
// buildSelect (build.go) then plans the physical operators from the
// selectPlan's clauses: group keys, HAVING, QUALIFY, the items, ORDER BY
// keys, LIMIT and OFFSET.

// selectPlan is one SELECT as logical operators, each field one
// operator; a nil or empty field is an operator the SELECT does not have.
type selectPlan struct {
	sel *ast.SelectStmt

	// The FROM part: from for a SELECT that joins; else table (and
	// alias) with the filter where, the conjuncts the scan evaluates
	// (scanRows, once predicates are pushed) and the columns it decodes
	// (scanCols, once pruned); neither for no FROM.
	from     *logicalPlan
	table    string
	alias    string
	where    []ast.ExprNode
	scanRows string
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
	sp.bindClauses()
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

// bindClauses binds every operator but Project and Distinct from the
// statement's clauses, as they stand: after each rewrite of the
// statement, the plan binds them again. (The statement keeps DISTINCT
// once it is a GROUP BY: ruleDistinct clears the plan's.)
func (sp *selectPlan) bindClauses() {
	s := sp.sel
	sp.groupBy, sp.having, sp.qualify, sp.orderBy = nil, nil, nil, nil
	sp.grouped = s.GroupBy != nil
	if sp.grouped {
		sp.groupBy = s.GroupBy.Items
	}
	if s.Having != nil {
		if sp.qualifies {
			sp.qualify = s.Having.Expr
		} else {
			sp.having = s.Having.Expr
		}
	}
	if s.OrderBy != nil {
		sp.orderBy = s.OrderBy.Items
	}
	sp.limit = s.Limit
	sp.where = nil
	if sp.from == nil && s.Where != nil {
		sp.where = conjuncts(s.Where, nil)
	}
	f := &aggFinder{}
	for _, it := range sp.items {
		it.node.Accept(f)
	}
	if s.Having != nil { // a QUALIFY's aggregate calls too, as hasAggregate
		s.Having.Expr.Accept(f)
	}
	for _, it := range sp.orderBy {
		it.Expr.Accept(f)
	}
	sp.aggregates = f.found
	sp.windows = findWindows(sp.orderBy, sp.items, sp.qualify) // plan_window.go
}

// orderClause is ORDER BY as the statement holds it (nil: none).
func (sp *selectPlan) orderClause() *ast.OrderByClause {
	if sp.orderBy == nil {
		return nil
	}
	return sp.sel.OrderBy
}
