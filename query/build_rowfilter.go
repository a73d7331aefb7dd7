package query

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/take"
	"github.com/quiverdb/quiver/query/expr"
)

// The row filter: the conjuncts of WHERE that compare an integer, date32,
// decimal or string column with constants (=, <, <=, >, >=, BETWEEN, IN,
// and LIKE 'prefix%') are evaluated by the scan itself
// (cache.ScanOptions.Rows) on the stored values, before the other columns
// are decoded, and only the rows that pass are returned. Those conjuncts leave the engine's
// filter, which evaluates the rest, and a column only they read is not
// returned by the scan at all. TPC-H Q6's WHERE goes entirely into the
// scan.
//
// A conjunct moves only when the cache evaluates it exactly as the engine
// would: cache.RowFilterable says which predicates it can evaluate, and
// prunable's exact flag that the predicate is the conjunct (its literal
// converted to the column's type without rounding). Moving it changes
// which rows the rest of WHERE sees, never which rows pass: SQL does not
// order the evaluation of AND's operands (a run-time error in another
// conjunct, such as a division by zero, may now not be reached on rows
// the moved conjuncts reject, as in DuckDB).

// splitWhere moves the conjuncts of s.Where the scan can evaluate into
// b.rows and returns the rest of WHERE (nil: nothing is left).
func (b *builder) splitWhere(s *ast.SelectStmt) ast.ExprNode {
	if s.Where == nil || b.opts.NoPruning || b.prepare {
		return s.Where
	}
	var rest []ast.ExprNode
	var texts []string
	for _, c := range conjuncts(s.Where, nil) {
		p, exact, text := b.prunable(c)
		if p != nil && exact && cache.RowFilterable(b.info.Schema, p) && b.engineTyped(p) {
			b.rows = append(b.rows, p)
			texts = append(texts, text)
			continue
		}
		rest = append(rest, c)
	}
	b.rowsText = strings.Join(texts, " AND ")
	var where ast.ExprNode
	for _, c := range rest {
		if where == nil {
			where = c
		} else {
			where = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: where, R: c}
		}
	}
	return where
}

// engineTyped reports whether the column p reads has an engine type: a
// conjunct the engine could not evaluate (a binary column's) stays in the
// Filter, to fail there as it would without the row filter.
func (b *builder) engineTyped(p cache.Predicate) bool {
	c, ok := predColumn(p)
	if !ok {
		return false
	}
	_, ok = expr.EngineType(b.info.Schema.Field(c).Type)
	return ok
}

// predColumn is the column a row filter conjunct reads.
func predColumn(p cache.Predicate) (int, bool) {
	switch p := p.(type) {
	case cache.Cmp:
		return p.Col, true
	case cache.Between:
		return p.Col, true
	case cache.In:
		return p.Col, true
	case cache.Prefix:
		return p.Col, true
	case cache.IsNull: // these three only on dictionary columns (cache/rowfilter_dict.go)
		return p.Col, true
	case cache.IsNotNull:
		return p.Col, true
	case cache.Not:
		return predColumn(p.X)
	}
	return 0, false
}

// gatherable reports whether the scan can keep the rows that pass of
// every column it returns (cache.Scan refuses a row filter otherwise).
func (n *scanNode) gatherable() bool {
	for _, f := range n.fields {
		if !take.Supported(f.Type) {
			return false
		}
	}
	return true
}

// conjuncts appends the operands of n's top-level ANDs to dst.
func conjuncts(n ast.ExprNode, dst []ast.ExprNode) []ast.ExprNode {
	return chainOf(opcode.LogicAnd, n, dst)
}

// disjuncts appends the operands of a chain of ORs to dst.
func disjuncts(n ast.ExprNode, dst []ast.ExprNode) []ast.ExprNode {
	return chainOf(opcode.LogicOr, n, dst)
}

// chainOf appends the operands of a chain of op (through parentheses) to
// dst, in order.
func chainOf(op opcode.Op, n ast.ExprNode, dst []ast.ExprNode) []ast.ExprNode {
	switch x := n.(type) {
	case *ast.ParenthesesExpr:
		return chainOf(op, x.Expr, dst)
	case *ast.BinaryOperationExpr:
		if x.Op == op {
			return chainOf(op, x.R, chainOf(op, x.L, dst))
		}
	}
	return append(dst, n)
}
