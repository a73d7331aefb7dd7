package query

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// SELECT-list aliases in WHERE, HAVING, QUALIFY and later SELECT items,
// as DuckDB reads them:
//
//	SELECT k, v * 2 AS w FROM t WHERE w > 10
//	SELECT length(s) AS l, l * 2 FROM t
//	SELECT k AS g, sum(v) AS s FROM t GROUP BY g HAVING s > 10
//	SELECT k, row_number() OVER (ORDER BY v) AS rn FROM t QUALIFY rn = 1
//
// An unqualified name that no relation of FROM has, but that a SELECT
// item is called, stands for that item's expression: the name is
// replaced by the item's own node (the same node, so its aggregate or
// window call is the one the SELECT list has, matched by its text). In
// WHERE a column of FROM wins over an alias of the same name (SELECT v * 2
// AS v … WHERE v > 10 reads the column), as in DuckDB; in HAVING and
// QUALIFY an alias of an aggregate or window call wins (HAVING v > 10
// after sum(v) AS v is the sum: a column there could only be a grouping
// key). Names inside subqueries are the subquery's own. GROUP BY and
// ORDER BY take aliases where they resolve their items (buildAggregate,
// orderBy). An alias of an aggregate in WHERE is an aggregate in WHERE,
// refused as any is.

// substituteAliases replaces the aliases in e (see above); having says
// whether e is a HAVING or QUALIFY condition. isColumn reports whether a
// relation of FROM has the name.
func substituteAliases(e ast.ExprNode, fields []*ast.SelectField, having bool, isColumn func(*ast.ColumnName) bool) ast.ExprNode {
	if e == nil || !hasAlias(fields) {
		return e
	}
	return replaceColumns(e, func(c *ast.ColumnNameExpr) ast.ExprNode {
		if c.Name.Table.O != "" || strings.HasPrefix(c.Name.Name.L, sentinelPrefix) {
			return c
		}
		item := aliasedItem(fields, c.Name.Name.O)
		if item == nil {
			return c
		}
		if isColumn(c.Name) && !(having && (hasAggregateExpr(item) || hasWindowExpr(item))) {
			return c
		}
		return item
	})
}

// hasAlias reports whether a SELECT item has an alias.
func hasAlias(fields []*ast.SelectField) bool {
	for _, f := range fields {
		if f.AsName.O != "" && f.Expr != nil {
			return true
		}
	}
	return false
}

// aliasedItem is the expression of the SELECT item called name, or nil
// when none (or more than one with different expressions) is.
func aliasedItem(fields []*ast.SelectField, name string) ast.ExprNode {
	var found ast.ExprNode
	for _, f := range fields {
		if f.Expr == nil || !strings.EqualFold(f.AsName.O, name) {
			continue
		}
		if found != nil && restore(found) != restore(f.Expr) {
			return nil // ambiguous: the name is left to fail as a column
		}
		found = f.Expr
	}
	return found
}

// hasWindowExpr reports a window call in n (outside subqueries).
func hasWindowExpr(n ast.ExprNode) bool {
	f := &windowFinder{}
	n.Accept(f)
	return len(f.found) > 0
}

// substituteClauseAliases applies substituteAliases to the WHERE (when
// where is set), HAVING and QUALIFY of s, once FROM is bound.
func (b *builder) substituteClauseAliases(s *ast.SelectStmt, where bool) {
	if s.Fields == nil || !hasAlias(s.Fields.Fields) {
		return
	}
	if where {
		b.substituteLateral(s)
		s.Where = substituteAliases(s.Where, s.Fields.Fields, false, b.isFromColumn)
	}
	if s.Having != nil {
		s.Having.Expr = substituteAliases(s.Having.Expr, s.Fields.Fields, true, b.isFromColumn)
	}
}

// substituteLateral lets a SELECT item name the items before it, as
// DuckDB does (SELECT length(s) AS l, l * 2 FROM t): an alias of an
// earlier item, where FROM has no column of that name, is that item's
// expression.
func (b *builder) substituteLateral(s *ast.SelectStmt) {
	fields := s.Fields.Fields
	for i := 1; i < len(fields); i++ {
		f := fields[i]
		if f.Expr == nil || !hasAlias(fields[:i]) {
			continue
		}
		text := restore(f.Expr)
		f.Expr = substituteAliases(f.Expr, fields[:i], false, b.isFromColumn)
		if f.AsName.O == "" && restore(f.Expr) != text {
			f.AsName = ast.NewCIStr(text) // named as written: l*2, not length(s)*2
		}
	}
}

// isFromColumn reports whether a relation of FROM has a column called
// cn (an ambiguous name counts: it fails as a column, not as an alias).
func (b *builder) isFromColumn(cn *ast.ColumnName) bool {
	switch {
	case b.rels != nil:
		_, err := b.resolveName(cn)
		return err == nil || strings.Contains(err.Error(), "ambiguous")
	case b.scanNoTable():
		return false
	}
	return b.columnIndex(cn.Name.O) != -1
}
