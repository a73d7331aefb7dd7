package query

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// A subquery that is a set operation, in a SELECT's clauses:
//
//	WHERE x IN (SELECT a FROM s UNION SELECT b FROM u)
//	WHERE EXISTS (SELECT … EXCEPT SELECT …), (SELECT … UNION ALL …) AS v
//
// The planner takes subqueries as SELECTs (IN and EXISTS become semi and
// anti joins over the SELECT's relation, a scalar one is computed once),
// so before it plans a SELECT, wrapSetOpSubqueries makes each
// uncorrelated one a SELECT of the set operation's columns from it as a
// derived table:
//
//	(SELECT a FROM s UNION SELECT b FROM u)
//	  → (SELECT `setop$1` FROM (SELECT a AS `setop$1` FROM s UNION SELECT b FROM u) AS `setop$q`)
//
// Renaming the columns changes nothing a subquery shows: its rows are
// compared or tested, never named. A correlated one is left as it is
// (a derived table cannot see the enclosing query) and refused where it
// is planned, as is one with a ? placeholder or a * item, or in a
// statement with TRY_CAST or QUALIFY (replannable).

// setOpAlias begins the names the wrapper gives the set operation and
// its columns.
const setOpAlias = "setop$"

// wrapSetOpSubqueries rewrites the set-operation subqueries of s's SELECT
// list, WHERE, HAVING and ORDER BY (not of its FROM items, nor those
// inside other subqueries, which are rewritten when those are planned).
func (b *builder) wrapSetOpSubqueries(s *ast.SelectStmt) error {
	v := &setOpWrapper{b: b}
	rewriteClauses(s, v) // from_subquery.go
	return v.err
}

type setOpWrapper struct {
	b   *builder
	err error
}

func (v *setOpWrapper) Enter(n ast.Node) (ast.Node, bool) {
	sq, ok := n.(*ast.SubqueryExpr)
	if !ok || v.err != nil {
		return n, v.err != nil
	}
	if u, isSet := sq.Query.(*ast.SetOprStmt); isSet {
		sel, err := v.b.setOpAsSelect(u)
		if err != nil {
			v.err = err
		} else if sel != nil {
			sq.Query = sel
		}
	}
	return n, true // a subquery's own subqueries wait for its planning
}

func (v *setOpWrapper) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// setOpAsSelect is the SELECT of u's columns from u; nil when u is left
// as it is.
func (b *builder) setOpAsSelect(u *ast.SetOprStmt) (*ast.SelectStmt, error) {
	first := firstSetSelect(u)
	if first == nil || first.Fields == nil || hasParam(u) || !b.replannable() {
		return nil, nil
	}
	for _, f := range first.Fields.Fields {
		if f.WildCard != nil {
			return nil, nil
		}
	}
	if correlated, err := b.correlated(u); err != nil || correlated {
		return nil, err
	}
	cols := make([]string, len(first.Fields.Fields))
	for i, f := range first.Fields.Fields {
		name := fmt.Sprintf("%s%d", setOpAlias, i+1)
		f.AsName = ast.NewCIStr(name)
		cols[i] = "`" + name + "`"
	}
	text := fmt.Sprintf("SELECT %s FROM (%s) AS `%sq`", strings.Join(cols, ", "), restoreSQL(u), setOpAlias)
	sel, err := reparse(text, nil)
	if err != nil {
		return nil, nil // left as it is: refused where it is planned
	}
	return sel, nil
}
