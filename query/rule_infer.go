package query

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// ruleInferFilters copies a filter on a column to the columns an inner
// join equates it with: a.x = b.y AND a.x < 10 implies b.y < 10, which
// b's scan can then prune and filter by, before b is joined (DuckDB's
// and Spark's "inferred filters"). Equalities chain: with b.y = c.z too,
// c.z < 10 follows.
//
// Only what is certain is copied:
//   - the equalities are conjuncts of WHERE or of the ON of an inner
//     join in the top region, between bare columns of two relations of
//     that region (not under an outer join, whose NULL rows an equality
//     does not constrain), of the same engine type (so the value the
//     filter tests is the same value);
//   - the filters are conjuncts over that one column and constants
//     (comparisons, BETWEEN, IN lists, LIKE), without ? placeholders;
//   - a copy that is already a conjunct is not added again.
//
// A LEFT JOIN of the top region passes a filter on its preserved side the
// same way, through an equality of its ON, into its ON as a condition on
// the inner side: with WHERE c.custkey = 42, customer c LEFT JOIN orders
// o ON o.custkey = c.custkey can only join orders of customer 42, and
// ON … AND o.custkey = 42 says so, for orders' scan (the LEFT JOIN's
// build side, which no runtime filter reaches). The reverse does not
// hold: a filter on the inner side says nothing of the preserved rows.
//
// The original filter stays; the copies are redundant above the join, and
// cost a scan a predicate it evaluates on its stored values.
func (b *builder) ruleInferFilters(lp *logicalPlan) error {
	leaves, ons := flattenInner(lp.tree, nil, nil)
	var region relSet
	for _, l := range leaves {
		if l.rel >= 0 {
			region |= 1 << l.rel
		}
	}
	terms := slices.Clip(lp.where)
	for _, on := range ons {
		terms = append(terms, splitTerms(on)...)
	}
	seen := map[string]bool{}
	for _, t := range terms {
		seen[restore(t)] = true
	}
	inferred := b.copyFilters(terms, b.equalColumns(terms, region, region), region, region, seen)
	lp.where = append(lp.where, inferred...)
	terms = append(terms, inferred...)
	for _, l := range leaves {
		if l.rel >= 0 || l.kind != joinLeft || l.on == nil {
			continue
		}
		onTerms := splitTerms(l.on)
		for _, t := range onTerms {
			seen[restore(t)] = true
		}
		preserved, inner := relsOf(l.left), relsOf(l.right)
		classes := b.equalColumns(onTerms, preserved, inner)
		for _, c := range b.copyFilters(terms, classes, preserved, inner, seen) {
			l.on = and(l.on, c)
		}
	}
	return nil
}

// copyFilters returns, for each conjunct of terms that filters a column of
// a relation in from, the same filter on each other column of its class
// in a relation of to, unless seen.
func (b *builder) copyFilters(terms []ast.ExprNode, classes map[colRef][]colRef, from, to relSet, seen map[string]bool) []ast.ExprNode {
	if len(classes) == 0 {
		return nil
	}
	var out []ast.ExprNode
	for _, t := range terms {
		col, with, ok := filteredColumn(t)
		if !ok {
			continue
		}
		ref, err := b.resolve(col)
		if err != nil || !from.has(ref.rel) {
			continue
		}
		for _, other := range classes[ref] {
			if other == ref || !to.has(other.rel) {
				continue
			}
			r := b.rels[other.rel]
			copied := with(qualified(r.name, r.schema.Field(other.col).Name))
			if text := restore(copied); !seen[text] {
				seen[text] = true
				out = append(out, copied)
			}
		}
	}
	return out
}

// equalColumns groups the columns that equalities among terms of a
// column of left with a column of right make equal, each column mapped to
// its group (itself included); columns no equality names are absent.
func (b *builder) equalColumns(terms []ast.ExprNode, left, right relSet) map[colRef][]colRef {
	parent := map[colRef]colRef{}
	var find func(c colRef) colRef
	find = func(c colRef) colRef {
		p, ok := parent[c]
		if !ok || p == c {
			return c
		}
		root := find(p)
		parent[c] = root
		return root
	}
	for _, t := range terms {
		l, r, ok := b.equiKey(t, left, right) // from_where.go
		if !ok || l.rel == r.rel {
			continue
		}
		lt, lok := b.engineType(l)
		rt, rok := b.engineType(r)
		if !lok || !rok || !arrow.TypeEqual(lt, rt) {
			continue
		}
		parent[find(l)] = find(r)
	}
	groups := map[colRef][]colRef{}
	for c := range parent {
		root := find(c)
		groups[root] = append(groups[root], c)
	}
	classes := map[colRef][]colRef{}
	for root, g := range groups {
		g = append(g, root)
		slices.SortFunc(g, func(x, y colRef) int {
			if x.rel != y.rel {
				return x.rel - y.rel
			}
			return x.col - y.col
		})
		g = slices.Compact(g)
		for _, c := range g {
			classes[c] = g
		}
	}
	return classes
}

// filteredColumn returns the column a conjunct filters when it compares
// one bare column with constants — col op k (either side), col [NOT]
// BETWEEN k1 AND k2, col [NOT] IN (k, …), col [NOT] LIKE k — and a
// function that copies the conjunct with another column in its place
// (the constants shared: nothing rewrites them in place).
func filteredColumn(t ast.ExprNode) (*ast.ColumnNameExpr, func(*ast.ColumnNameExpr) ast.ExprNode, bool) {
	constant := func(es ...ast.ExprNode) bool {
		for _, e := range es {
			if e == nil || !isConstant(e) || hasParam(e) {
				return false
			}
		}
		return true
	}
	column := func(e ast.ExprNode) (*ast.ColumnNameExpr, bool) {
		c, ok := unparen(e).(*ast.ColumnNameExpr)
		return c, ok
	}
	switch x := unparen(t).(type) {
	case *ast.BinaryOperationExpr:
		if _, cmp := pushCmp[x.Op]; !cmp {
			break
		}
		if c, ok := column(x.L); ok && constant(x.R) {
			return c, func(col *ast.ColumnNameExpr) ast.ExprNode { y := *x; y.L = col; return &y }, true
		}
		if c, ok := column(x.R); ok && constant(x.L) {
			return c, func(col *ast.ColumnNameExpr) ast.ExprNode { y := *x; y.R = col; return &y }, true
		}
	case *ast.BetweenExpr:
		if c, ok := column(x.Expr); ok && constant(x.Left, x.Right) {
			return c, func(col *ast.ColumnNameExpr) ast.ExprNode { y := *x; y.Expr = col; return &y }, true
		}
	case *ast.PatternInExpr:
		if c, ok := column(x.Expr); ok && x.Sel == nil && constant(x.List...) {
			return c, func(col *ast.ColumnNameExpr) ast.ExprNode {
				y := *x
				y.Expr, y.List = col, slices.Clone(x.List)
				return &y
			}, true
		}
	case *ast.PatternLikeOrIlikeExpr:
		if c, ok := column(x.Expr); ok && constant(x.Pattern) {
			return c, func(col *ast.ColumnNameExpr) ast.ExprNode { y := *x; y.Expr = col; return &y }, true
		}
	}
	return nil, nil, false
}
