package query

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// Quantified comparisons: x op ANY (SELECT …), x op SOME (…), x op ALL
// (…). Before anything else plans a SELECT, rewriteQuantified turns each
// one in its clauses into what the planner already runs, with SQL's
// NULL rules (ANY is TRUE when some comparison is TRUE, FALSE when every
// one is FALSE — an empty subquery too —, else NULL; ALL is FALSE when
// some comparison is FALSE, TRUE when every one is TRUE, else NULL):
//
//	x = ANY (S)   →  x IN (S)         correlated or not (from_subquery.go
//	x <> ALL (S)  →  x NOT IN (S)     decorrelates IN and NOT IN)
//
// and, for an uncorrelated S of one column c (a SELECT or a set
// operation), every other form through
// S's count(*), count(c), min(c) and max(c), each an uncorrelated scalar
// subquery that the planner computes once (inlineScalars):
//
//	x > ANY (S)  →  CASE WHEN count(*) = 0 THEN FALSE WHEN x IS NULL THEN NULL
//	                     WHEN x > min(c) THEN TRUE
//	                     WHEN count(c) < count(*) THEN NULL ELSE FALSE END
//	x > ALL (S)  →  CASE WHEN count(*) = 0 THEN TRUE WHEN x IS NULL THEN NULL
//	                     WHEN x <= max(c) THEN FALSE
//	                     WHEN count(c) < count(*) THEN NULL ELSE TRUE END
//
// (<, <= and >= alike; x = ALL and x <> ANY test x against both min and
// max). A correlated S in those forms, a ? placeholder in them, or an x
// that calls a volatile function or holds a subquery (x is computed
// more than once) is refused with an error that says how to write it.

// quantifiedAlias names S's column, and S, in the rewritten subqueries
// (not quiver$…: such a column name is a planner's marker, sentinelPrefix).
const quantifiedAlias = "quantified$s"

// rewriteQuantified rewrites the quantified comparisons of s's SELECT
// list, WHERE, HAVING and ORDER BY (not those of its subqueries, which
// are rewritten when they are planned).
func (b *builder) rewriteQuantified(s *ast.SelectStmt) error {
	if !hasQuantified(s) {
		return nil
	}
	v := &quantifiedRewriter{b: b}
	rewriteClauses(s, v) // from_subquery.go
	return v.err
}

// hasQuantified reports a quantified comparison among s's clauses, so
// that a statement without one costs one walk.
func hasQuantified(s *ast.SelectStmt) bool {
	f := &quantifiedFinder{}
	s.Accept(f)
	return f.found
}

type quantifiedFinder struct{ found bool }

func (f *quantifiedFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.CompareSubqueryExpr); ok {
		f.found = true
	}
	return n, f.found
}

func (f *quantifiedFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

type quantifiedRewriter struct {
	b   *builder
	err error
}

func (v *quantifiedRewriter) Enter(n ast.Node) (ast.Node, bool) {
	switch n.(type) {
	case *ast.SubqueryExpr, *ast.ExistsSubqueryExpr:
		return n, true // its own SELECT's clauses are rewritten when it is planned
	}
	return n, v.err != nil
}

func (v *quantifiedRewriter) Leave(n ast.Node) (ast.Node, bool) {
	x, ok := n.(*ast.CompareSubqueryExpr)
	if !ok || v.err != nil {
		return n, true
	}
	r, err := v.b.quantified(x)
	if err != nil {
		v.err = err
		return n, false
	}
	return r, true
}

// quantified rewrites one quantified comparison.
func (b *builder) quantified(x *ast.CompareSubqueryExpr) (ast.ExprNode, error) {
	sq, ok := x.R.(*ast.SubqueryExpr)
	if !ok {
		return nil, b.at(ErrUnsupported, x, "%s with %s", quantifierWord(x.All), restore(x.R))
	}
	switch {
	case x.Op == opcode.EQ && !x.All:
		return &ast.PatternInExpr{Expr: x.L, Sel: sq}, nil
	case x.Op == opcode.NE && x.All:
		return &ast.PatternInExpr{Expr: x.L, Sel: sq, Not: true}, nil
	}
	how := fmt.Sprintf("%s %s (SELECT …)", opText(x.Op), quantifierWord(x.All))
	first := firstSelect(sq.Query) // it names S's column
	if first == nil {
		return nil, b.at(ErrUnsupported, x, "%s over %s", how, restore(sq))
	}
	if first.Fields == nil || len(first.Fields.Fields) != 1 || first.Fields.Fields[0].WildCard != nil {
		return nil, b.at(ErrInvalid, sq, "the subquery of %s returns one column", how)
	}
	if hasParam(x) {
		return nil, b.at(ErrUnsupported, x, "%s with ? parameters", how)
	}
	if !b.replannable() { // from_derived_push.go
		return nil, b.at(ErrUnsupported, x, "%s in a statement with TRY_CAST or QUALIFY", how)
	}
	if !movableItem(x.L, nil) {
		return nil, b.at(ErrUnsupported, x.L, "%s whose left side holds a subquery or a volatile call", how)
	}
	if correlated, err := b.correlated(sq.Query); err != nil || correlated {
		if err != nil {
			return nil, err
		}
		return nil, b.at(ErrUnsupported, x, "%s over a correlated subquery (write it with EXISTS or NOT EXISTS)", how)
	}
	f := first.Fields.Fields[0]
	if f.AsName.L == "" {
		f.AsName = ast.NewCIStr(quantifiedAlias)
	}
	col := "`" + strings.ReplaceAll(f.AsName.O, "`", "``") + "`"
	inner := restoreSQL(sq.Query)
	agg := func(a string) string {
		return fmt.Sprintf("(SELECT %s FROM (%s) AS `%s`)", a, inner, quantifiedAlias)
	}
	l := "(" + restoreSQL(x.L) + ")"
	n, nn := agg("count(*)"), agg("count("+col+")")
	lo, hi := agg("min("+col+")"), agg("max("+col+")")
	var decides string // the comparison that decides: TRUE for ANY, FALSE for ALL
	switch {
	case x.Op == opcode.EQ || x.Op == opcode.NE: // x = ALL, x <> ANY: some value differs from x
		decides = fmt.Sprintf("%s <> %s OR %s <> %s", l, lo, l, hi)
	case !x.All: // some value v has x op v
		bound := map[opcode.Op]string{opcode.GT: lo, opcode.GE: lo, opcode.LT: hi, opcode.LE: hi}[x.Op]
		decides = fmt.Sprintf("%s %s %s", l, opText(x.Op), bound)
	default: // some value v has NOT (x op v)
		negated := map[opcode.Op]opcode.Op{opcode.GT: opcode.LE, opcode.GE: opcode.LT, opcode.LT: opcode.GE, opcode.LE: opcode.GT}[x.Op]
		bound := map[opcode.Op]string{opcode.GT: hi, opcode.GE: hi, opcode.LT: lo, opcode.LE: lo}[x.Op]
		decides = fmt.Sprintf("%s %s %s", l, opText(negated), bound)
	}
	empty, found := "FALSE", "TRUE" // ANY
	if x.All {
		empty, found = "TRUE", "FALSE"
	}
	text := fmt.Sprintf("SELECT CASE WHEN %s = 0 THEN %s WHEN %s IS NULL THEN NULL WHEN %s THEN %s WHEN %s < %s THEN NULL ELSE %s END",
		n, empty, l, decides, found, nn, n, empty)
	cp, err := reparse(text, nil)
	if err != nil || len(cp.Fields.Fields) != 1 {
		return nil, b.at(ErrUnsupported, x, "%s: %v", how, err)
	}
	return &ast.ParenthesesExpr{Expr: cp.Fields.Fields[0].Expr}, nil
}

// firstSelect is a query's SELECT, or the leftmost SELECT of its set
// operation; nil when it has none.
func firstSelect(q ast.ResultSetNode) *ast.SelectStmt {
	switch x := q.(type) {
	case *ast.SelectStmt:
		return x
	case *ast.SetOprStmt:
		return firstSetSelect(x) // cte_setop.go
	}
	return nil
}

// correlated reports whether a query, or any SELECT of its set
// operation, names a column of an enclosing query.
func (b *builder) correlated(q ast.Node) (bool, error) {
	switch x := q.(type) {
	case *ast.SelectStmt:
		free, err := b.freeRefs(x)
		return len(free) > 0, err
	case *ast.SetOprStmt:
		if x.SelectList == nil {
			return false, nil
		}
		return b.correlated(x.SelectList)
	case *ast.SetOprSelectList:
		for _, n := range x.Selects {
			if c, err := b.correlated(n); err != nil || c {
				return c, err
			}
		}
		return false, nil
	}
	return true, nil // unknown: treated as correlated, and refused
}

func quantifierWord(all bool) string {
	if all {
		return "ALL"
	}
	return "ANY"
}

// opText is a comparison operator as SQL writes it (expr.CmpOp's name,
// through build_expr.go's cmpOps).
func opText(op opcode.Op) string {
	if c, ok := cmpOps[op]; ok {
		return c.String()
	}
	return op.String()
}
