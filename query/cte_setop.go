package query

import (
	"fmt"
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// A WITH name whose query is a set operation:
//
//	WITH sales AS (SELECT … FROM sales_2023 UNION ALL SELECT … FROM sales_2024)
//	SELECT region, sum(amount) FROM sales WHERE day >= DATE '2024-06-01' GROUP BY region
//
// Each use plans the set operation as a derived table does (setop.go),
// the first use from the statement's AST and every later one from a
// fresh parse of its text; a conjunct over a UNION ALL moves into each
// of its SELECTs (from_derived_push.go). A column list names the first
// SELECT's items, whose names the set operation's columns take. Used
// more than once, its result is held once as a WITH SELECT's is
// (cte_held.go).

// bindWithSetOp adds WITH c, whose query is the set operation u, to b's
// scope.
func (b *builder) bindWithSetOp(c *ast.CommonTableExpression, u *ast.SetOprStmt) error {
	first := firstSetSelect(u)
	if first == nil {
		return b.at(ErrUnsupported, c.Query, "WITH %s AS (a set operation without a SELECT)", c.Name.O)
	}
	if err := b.nameCTEColumns(c, first); err != nil {
		return err
	}
	b.ctes = append(b.ctes, namedQuery{name: c.Name.O, setop: u, text: pipesKeptSQL(u), used: new(bool),
		scope: slices.Clip(b.ctes), params: paramOrders(u), shared: &cteShared{}})
	return nil
}

// firstSetSelect is the leftmost SELECT of a set operation, which names
// its columns; nil when there is none.
func firstSetSelect(u *ast.SetOprStmt) *ast.SelectStmt {
	if u.SelectList == nil {
		return nil
	}
	l := u.SelectList
	for len(l.Selects) > 0 {
		switch x := l.Selects[0].(type) {
		case *ast.SelectStmt:
			return x
		case *ast.SetOprSelectList:
			l = x
		default:
			return nil
		}
	}
	return nil
}

// setOpCTE plans one use of a WITH name whose query is a set operation.
func (b *builder) setOpCTE(q *namedQuery, name string, at ast.Node) (*relation, error) {
	if b.probing { // only its names, from its first SELECT
		return b.namesRelation(firstSetSelect(q.setop), name, at)
	}
	if h, err := b.heldCTE(q, at); err != nil || h != nil {
		if err != nil {
			return nil, err
		}
		return planRelation(h, name, at), nil
	}
	u, err := q.useSetOp()
	if err != nil {
		return nil, b.at(ErrExec, at, "planning WITH %s again: %v", q.name, err)
	}
	if err := b.nest(at); err != nil {
		return nil, err
	}
	ps := b.pushableUnion(u, q.scope)
	sub := b.child()
	sub.ctes = q.scope
	p, err := sub.buildSetOpr(u)
	if err != nil {
		return nil, err
	}
	rel := planRelation(p, name, at)
	rel.source = ps
	return rel, nil
}

// useSetOp is use for a set operation: the statement's AST the first
// time, a fresh parse of its text after.
func (q *namedQuery) useSetOp() (*ast.SetOprStmt, error) {
	if !*q.used {
		*q.used = true
		return q.setop, nil
	}
	st, err := parseSQL(q.text)
	if err != nil {
		return nil, err
	}
	u, ok := st.(*ast.SetOprStmt)
	if !ok {
		return nil, fmt.Errorf("%T", st)
	}
	v := &paramVisitor{set: q.params}
	u.Accept(v)
	if v.i != len(q.params) {
		return nil, fmt.Errorf("%d placeholders in the copy, %d in the query", v.i, len(q.params))
	}
	return u, nil
}

// planNamed plans one use of a WITH name's query, SELECT or set
// operation, with the names it sees.
func (b *builder) planNamed(q *namedQuery) (planNode, error) {
	sub := b.child()
	sub.ctes = q.scope
	if q.setop != nil {
		u, err := q.useSetOp()
		if err != nil {
			return nil, err
		}
		return sub.buildSetOpr(u)
	}
	sel, err := q.use(false)
	if err != nil {
		return nil, err
	}
	return sub.buildSelect(sel)
}
