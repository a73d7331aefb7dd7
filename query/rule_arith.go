package query

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// Optimizer rule: arithmetic with constants moves off the column. A
// conjunct of WHERE such as
//
//	l_orderkey + 0 BETWEEN 100 AND 200     →  l_orderkey BETWEEN 100 AND 200
//	2 * x - 6 > 10                         →  x > 8
//	10 - x <= 3                            →  x >= 7
//	x * 3 < 10                             →  x < 4      (integers: ⌈10/3⌉)
//	price + 1.50 IN (2.00, 3.25)           →  price IN (0.50, 1.75)
//
// compares a bare column with constants, so pruning and the scan's row
// filter (build_pushdown.go, build_rowfilter.go) take it; before, the
// engine computed the arithmetic on every row of every batch. A date
// column's cast to TIMESTAMP comes off it too (rule_cast.go).
//
// Exactness is the rule's whole contract: the rewritten conjunct selects
// the same rows. So it moves only
//
//   - +, - and * by constants, around integer columns (int8 to int64,
//     uint8 to uint32) with integer constants, and +, - around decimal
//     columns (precision ≤ 18) with integer or decimal constants: exact
//     arithmetic, done here in big.Rat. Never floats, where x + c = k and
//     x = k - c differ by rounding, nor dates (a month is not invertible).
//   - Where the original could not overflow either: the engine raises an
//     error when x + c leaves int64, and the rewritten conjunct would not.
//     Each step's range is computed from the column's: its type's for
//     narrow integers, the table's statistics (cache.Stats) for int64.
//     (Should the table be replaced between planning and the scan, a row
//     past those bounds passes the rewritten conjunct where the original
//     would have failed the query with an overflow; never a wrong row.)
//   - x * c with c < 0 flips the comparison; an integer quotient rounds
//     toward the side that keeps the rows (x*3 < 10 is x < ⌈10/3⌉); x*c = k
//     with c not dividing k is left alone, and such IN items are dropped
//     (no integer x makes x*c equal them).
//   - Only top-level conjuncts of WHERE, where UNKNOWN and FALSE both
//     reject a row; constants must evaluate at plan time to a non-NULL
//     integer or decimal (a ? placeholder is left alone, so a prepared
//     plan stays valid for every binding).
//
// Constant-only subexpressions (DATE '1998-12-01' - INTERVAL '90' DAY,
// 100 - 1) are already folded by package expr when WHERE is built, and
// pushdown evaluates them to a statistics value (build_pushdown.go's
// constant), so this rule only has to isolate the column. Options.NoPruning
// turns it off with pruning: the reference a test compares with.

// maxArithSteps bounds the arithmetic peeled off one column: each step
// evaluates constants, so a long chain would cost more than it saves.
const maxArithSteps = 8

// moveArith returns where with the arithmetic of its conjuncts moved off
// their columns where exact; where itself when nothing moved.
func (b *builder) moveArith(where ast.ExprNode) ast.ExprNode {
	if where == nil || b.opts.NoPruning || b.info.Schema == nil {
		return where
	}
	cs := conjuncts(where, nil)
	changed := false
	for i, c := range cs {
		if r := b.arithConjunct(c); r != nil {
			cs[i], changed = r, true
		} else if r := b.castConjunct(c); r != nil { // rule_cast.go
			cs[i], changed = r, true
		}
	}
	if !changed {
		return where
	}
	out := cs[0]
	for _, c := range cs[1:] {
		out = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: out, R: c}
	}
	return out
}

// arithConjunct rewrites one conjunct, or returns nil.
func (b *builder) arithConjunct(c ast.ExprNode) ast.ExprNode {
	switch x := unparen(c).(type) {
	case *ast.BinaryOperationExpr:
		if _, ok := cmpOps[x.Op]; !ok {
			return nil
		}
		if r := b.arithCmp(x.L, x.Op, x.R); r != nil {
			return r
		}
		return b.arithCmp(x.R, mirror[x.Op], x.L)
	case *ast.BetweenExpr:
		iso, ok := b.isolate(x.Expr)
		if !ok {
			return nil
		}
		lo, ok1 := b.arithNumber(x.Left, iso)
		hi, ok2 := b.arithNumber(x.Right, iso)
		if !ok1 || !ok2 {
			return nil
		}
		op1, k1, ok1 := iso.solve(opcode.GE, lo)
		_, k2, ok2 := iso.solve(opcode.LE, hi)
		if !ok1 || !ok2 {
			return nil
		}
		if op1 != opcode.GE { // a decreasing step swapped the bounds
			k1, k2 = k2, k1
		}
		l, ok1 := iso.literal(k1)
		r, ok2 := iso.literal(k2)
		if !ok1 || !ok2 {
			return nil
		}
		return &ast.BetweenExpr{Expr: iso.col, Left: l, Right: r, Not: x.Not}
	case *ast.PatternInExpr:
		if x.Sel != nil {
			return nil
		}
		iso, ok := b.isolate(x.Expr)
		if !ok {
			return nil
		}
		var list []ast.ExprNode
		for _, item := range x.List {
			k, ok := b.arithNumber(item, iso)
			if !ok {
				return nil
			}
			_, k, ok = iso.solve(opcode.EQ, k)
			if !ok {
				if iso.indivisible {
					continue // no x makes the item: it never matches
				}
				return nil
			}
			lit, ok := iso.literal(k)
			if !ok {
				return nil
			}
			list = append(list, lit)
		}
		if len(list) == 0 {
			return nil
		}
		return &ast.PatternInExpr{Expr: iso.col, List: list, Not: x.Not}
	}
	return nil
}

// mirror is the comparison with its operands swapped (c < e is e > c).
var mirror = map[opcode.Op]opcode.Op{
	opcode.EQ: opcode.EQ, opcode.NE: opcode.NE, opcode.LT: opcode.GT, opcode.LE: opcode.GE, opcode.GT: opcode.LT, opcode.GE: opcode.LE,
}

// arithCmp rewrites e op k, k constant, or returns nil.
func (b *builder) arithCmp(e ast.ExprNode, op opcode.Op, k ast.ExprNode) ast.ExprNode {
	iso, ok := b.isolate(e)
	if !ok {
		return nil
	}
	kv, ok := b.arithNumber(k, iso)
	if !ok {
		return nil
	}
	op, kv, ok = iso.solve(op, kv)
	if !ok {
		return nil
	}
	lit, ok := iso.literal(kv)
	if !ok {
		return nil
	}
	return &ast.BinaryOperationExpr{Op: op, L: iso.col, R: lit}
}
