package query

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// outerToInner turns a LEFT JOIN into an inner join when a conjunct of
// WHERE rejects NULLs on its inner side: a row the outer join would add,
// with NULL inner columns, fails that conjunct anyway. The inner join can
// then be reordered with the others and its ON conditions pushed like
// WHERE's. A FULL JOIN loses the rows WHERE rejects: when it rejects
// NULLs of the left side, the rows only the right side has go and it is a
// LEFT JOIN; of the right side, a RIGHT JOIN (a LEFT JOIN with its sides
// swapped); of both, inner. (Outer joins nested under another outer
// join's inner side are left as they are.)
func (b *builder) outerToInner(n *fromNode, terms []ast.ExprNode) error {
	leaves, _ := flattenInner(n, nil, nil)
	for _, l := range leaves {
		if l.rel >= 0 || l.kind != joinLeft && l.kind != joinFull {
			continue
		}
		if l.kind == joinFull {
			b.fullToOuter(l, terms)
			if l.kind != joinLeft {
				continue // still FULL, or inner: flattenInner saw it as a leaf, so look again below
			}
		}
		if b.anyRejectsNulls(terms, relsOf(l.right)) {
			l.kind = joinInner
		}
		if l.kind == joinInner { // its items join the region: look again
			return b.outerToInner(n, terms)
		}
		if err := b.outerToInner(l.left, terms); err != nil {
			return err
		}
	}
	for _, l := range leaves { // a FULL JOIN made inner above
		if l.rel < 0 && l.kind == joinInner {
			return b.outerToInner(n, terms)
		}
	}
	return nil
}

// fullToOuter narrows a FULL JOIN by the sides whose NULLs a WHERE
// conjunct rejects (outerToInner).
func (b *builder) fullToOuter(l *fromNode, terms []ast.ExprNode) {
	left, right := b.anyRejectsNulls(terms, relsOf(l.left)), b.anyRejectsNulls(terms, relsOf(l.right))
	switch {
	case left && right:
		l.kind = joinInner
	case left: // the rows only the right side has are gone
		l.kind = joinLeft
	case right: // the rows only the left side has are gone: a RIGHT JOIN
		l.kind, l.left, l.right = joinLeft, l.right, l.left
	}
}

// anyRejectsNulls reports whether some term rejects NULLs of rels.
func (b *builder) anyRejectsNulls(terms []ast.ExprNode, rels relSet) bool {
	for _, t := range terms {
		if b.rejectsNulls(t, rels) {
			return true
		}
	}
	return false
}

// rejectsNulls reports whether a condition is never TRUE when every
// column of the relations in inner is NULL: some operand that makes the
// condition not TRUE when it is NULL (a strict operand: both sides of a
// comparison, all three of BETWEEN, the tested value of NOT BETWEEN, IN
// and LIKE and LIKE's pattern, IS NOT NULL's) is NULL whenever a column
// of inner it reads is (nullPropagating) and reads one. AND needs one
// side to reject, OR both. It errs on the side of false.
func (b *builder) rejectsNulls(t ast.ExprNode, inner relSet) bool {
	strict := func(ops ...ast.ExprNode) bool {
		for _, op := range ops {
			if !nullPropagating(op) {
				continue
			}
			rs, err := b.refsOf(op)
			if err == nil && rs&inner != 0 {
				return true
			}
		}
		return false
	}
	switch x := unparen(t).(type) {
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.EQ, opcode.NE, opcode.LT, opcode.LE, opcode.GT, opcode.GE:
			return strict(x.L, x.R)
		case opcode.LogicAnd:
			return b.rejectsNulls(x.L, inner) || b.rejectsNulls(x.R, inner)
		case opcode.LogicOr:
			return b.rejectsNulls(x.L, inner) && b.rejectsNulls(x.R, inner)
		}
	case *ast.BetweenExpr:
		if x.Not {
			return strict(x.Expr)
		}
		return strict(x.Expr, x.Left, x.Right)
	case *ast.PatternInExpr:
		return x.Sel == nil && strict(x.Expr)
	case *ast.PatternLikeOrIlikeExpr:
		return strict(x.Expr, x.Pattern)
	case *ast.IsNullExpr:
		return x.Not && strict(x.Expr)
	}
	return false
}

// nullPropagating reports whether an expression is NULL when the columns
// it reads are: columns, constants, arithmetic and casts of such.
func nullPropagating(e ast.ExprNode) bool {
	switch x := unparen(e).(type) {
	case *ast.ColumnNameExpr:
		return true
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.Plus, opcode.Minus, opcode.Mul, opcode.Div, opcode.IntDiv, opcode.Mod:
			return nullPropagating(x.L) && nullPropagating(x.R)
		}
		return false
	case *ast.UnaryOperationExpr:
		return x.Op == opcode.Minus && nullPropagating(x.V)
	case *ast.FuncCastExpr:
		return nullPropagating(x.Expr)
	case *ast.FuncCallExpr:
		switch strings.ToLower(x.FnName.L) {
		case "substring", "substr", "extract", "year", "month", "day":
			for _, a := range x.Args {
				if _, unit := a.(*ast.TimeUnitExpr); !unit && !nullPropagating(a) {
					return false
				}
			}
			return true
		}
		return false
	}
	return isConstant(e)
}

// isConstant reports an expression without columns or subqueries.
func isConstant(e ast.ExprNode) bool {
	return len(columnNodes(e)) == 0 && !hasSubquery(e)
}
