package expr

import "github.com/apache/arrow-go/v18/arrow"

// mayFail reports whether evaluating e can return an error for some input
// (overflow, division by zero, a cast that does not parse). CASE and
// COALESCE evaluate operands that cannot fail on every row at once, which
// is cheaper than cutting the batch per arm and gives the same answer.
func mayFail(e Expr) bool {
	switch x := e.(type) {
	case *column, *literal:
		return false
	case *arithExpr:
		if x.typ.ID() != arrow.FLOAT64 || x.op == Div || x.op == Mod {
			return true
		}
	case *negateExpr:
		if x.Type().ID() == arrow.INT64 {
			return true
		}
	case *castExpr:
		if !x.try && !safeCast(x.e.Type(), x.to) {
			return true
		}
	case *intervalExpr:
		return true
	case *callExpr:
		if x.k.fails {
			return true
		}
	case *compareExpr, *boolExpr, *nullTest, *inExpr, *betweenExpr, *likeExpr, *caseExpr, *coalesceExpr,
		*extractExpr:
	default:
		return true // not ours
	}
	for _, c := range childrenOf(e) {
		if mayFail(c) {
			return true
		}
	}
	return false
}

// safeCast reports whether every value of from converts to to.
func safeCast(from, to arrow.DataType) bool {
	switch {
	case from.ID() == arrow.NULL, to.ID() == arrow.STRING:
		return true
	case to.ID() == arrow.FLOAT64:
		return from.ID() == arrow.INT64 || from.ID() == arrow.DECIMAL128
	case from.ID() == arrow.BOOL && to.ID() == arrow.INT64, from.ID() == arrow.INT64 && to.ID() == arrow.BOOL:
		return true
	case from.ID() == arrow.INT64 && to.ID() == arrow.DECIMAL128:
		t := to.(*arrow.Decimal128Type)
		return t.Precision-t.Scale >= 19
	case from.ID() == arrow.DECIMAL128 && to.ID() == arrow.DECIMAL128:
		f, t := from.(*arrow.Decimal128Type), to.(*arrow.Decimal128Type)
		return f.Scale == t.Scale && t.Precision >= f.Precision
	}
	return false
}
