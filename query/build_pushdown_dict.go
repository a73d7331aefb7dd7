package query

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
)

// prunableNegated converts x NOT BETWEEN, x NOT IN (list) and x NOT LIKE
// 'p%' on a column kept as dictionaries to the NOT of what prunable
// makes of the form without NOT — the same in SQL, NULLs included — so
// the scan's row filter tests them on the dictionary
// (cache/rowfilter_dict.go) rather than the Filter decoding the column.
// Only for dictionary columns: elsewhere the row filter takes no NOT,
// and pruning and estimates stay as they were. handled is false for
// anything else.
func (b *builder) prunableNegated(n ast.ExprNode) (p cache.Predicate, exact bool, text string, handled bool) {
	var plain ast.ExprNode
	var operand ast.ExprNode
	switch x := n.(type) {
	case *ast.BetweenExpr:
		if x.Not {
			y := *x
			y.Not, plain, operand = false, &y, x.Expr
		}
	case *ast.PatternInExpr:
		if x.Not {
			y := *x
			y.Not, plain, operand = false, &y, x.Expr
		}
	case *ast.PatternLikeOrIlikeExpr:
		if x.Not {
			y := *x
			y.Not, plain, operand = false, &y, x.Expr
		}
	}
	if plain == nil {
		return nil, false, "", false
	}
	col, _, ok := b.bareColumn(operand)
	if !ok || b.info.Schema.Field(col).Type.ID() != arrow.DICTIONARY {
		return nil, false, "", false
	}
	q, exact, _ := b.prunable(plain)
	if q == nil || !exact {
		return nil, false, "", true
	}
	return cache.Not{X: q}, true, restore(n), true
}
