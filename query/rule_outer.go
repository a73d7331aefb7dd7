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
// WHERE's. (Outer joins nested under another outer join's inner side are
// left as they are.)
func (b *builder) outerToInner(n *fromNode, terms []ast.ExprNode) error {
	leaves, _ := flattenInner(n, nil, nil)
	for _, l := range leaves {
		if l.rel >= 0 || l.kind != joinLeft {
			continue
		}
		inner := relsOf(l.right)
		for _, t := range terms {
			if b.rejectsNulls(t, inner) {
				l.kind = joinInner
				break
			}
		}
		if l.kind == joinInner { // its items join the region: look again
			return b.outerToInner(n, terms)
		}
		if err := b.outerToInner(l.left, terms); err != nil {
			return err
		}
	}
	return nil
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
