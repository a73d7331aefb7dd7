package query

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/query/expr"
)

// deferConstants takes the string constants out of the first n exprs (the
// SELECT list) of a projection that feeds a sort: the projection computes
// a NULL of the same type in their place, which sorts the same way (all
// rows equal), and the projection after the sort computes the constant
// (the returned slice, nil where nothing was taken), for the rows the sort
// and LIMIT pass on only. Sorted along, SELECT '<64 KiB>', k … ORDER BY k
// LIMIT 10 copied the constant onto every row of every batch.
func deferConstants(exprs []expr.Expr, n int) ([]expr.Expr, []expr.Expr) {
	var consts []expr.Expr
	for i, e := range exprs[:n] {
		if e.Type().ID() != arrow.STRING || expr.Inspect(e).Kind != expr.KindLiteral {
			continue
		}
		if consts == nil {
			consts = make([]expr.Expr, n)
			exprs = append([]expr.Expr(nil), exprs...)
		}
		consts[i], exprs[i] = e, expr.NullLiteral(e.Type())
	}
	return exprs, consts
}
