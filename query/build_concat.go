package query

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/expr"
)

// The parser runs with PIPES_AS_CONCAT (parse.go), so a || b arrives as a
// call of concat(a, b), the same node a written concat(a, b) makes. The
// two differ in SQL: || is NULL when either side is, while concat()
// skips NULLs in DuckDB and PostgreSQL (and returns NULL in MySQL). They
// are told apart by position: the node of a || b starts where its left
// operand does, a call starts at its name, before its first argument.
func isPipes(x *ast.FuncCallExpr) bool {
	off := x.OriginTextPosition()
	return len(x.Args) == 2 && off > 0 && x.Args[0].OriginTextPosition() == off
}

// concat plans a || b (a written concat() is refused: see isPipes).
func (b *builder) concat(x *ast.FuncCallExpr, sc scope) (expr.Expr, error) {
	if !isPipes(x) {
		return nil, b.at(ErrUnsupported, x, "function %s (|| concatenates: a || b)", x.FnName.O)
	}
	l, err := b.expr(x.Args[0], sc)
	if err != nil {
		return nil, err
	}
	r, err := b.expr(x.Args[1], sc)
	if err != nil {
		return nil, err
	}
	return wrap(b, x)(expr.Concat(l, r))
}
