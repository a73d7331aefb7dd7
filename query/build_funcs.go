package query

import (
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/expr"
)

// Scalar functions by name, beside those call (build_expr.go) plans
// itself. Their semantics are DuckDB's, which query/difftest compares
// with: EXTRACT and date_part (package expr's DatePart: dow counts from
// Sunday 0, week is the ISO week) and substring (characters, not bytes;
// start ≤ 0 and a negative length as DuckDB reads them).

// partFuncs are DuckDB's one-argument functions that take a part of a
// date: year(d) is EXTRACT(YEAR FROM d). The names are DuckDB's, not
// MySQL's: dayofweek and weekday count from Sunday 0, week is ISO.
var partFuncs = map[string]bool{
	"year": true, "month": true, "day": true, "quarter": true, "week": true, "weekofyear": true,
	"dayofmonth": true, "dayofweek": true, "weekday": true, "dayofyear": true, "isodow": true,
	"yearweek": true, "isoyear": true, "decade": true, "century": true, "millennium": true, "era": true,
}

// scalarFunc plans the function call x named name; ok is false when the
// name is not one of this file's.
func (b *builder) scalarFunc(name string, x *ast.FuncCallExpr, sc scope) (e expr.Expr, ok bool, err error) {
	switch {
	case name == "extract":
		e, err = b.extract(x, sc)
	case name == "date_part" || name == "datepart":
		e, err = b.datePart(x, sc)
	case partFuncs[name]:
		if err = b.arity(x, 1, 1); err == nil {
			var part expr.DatePart
			if part, err = expr.ParseDatePart(name); err == nil {
				e, err = b.partOf(x, part, x.Args[0], sc)
			}
		}
	case name == "substring" || name == "substr":
		e, err = b.substring(x, sc)
	default:
		return nil, false, nil
	}
	return e, true, err
}

// extract is EXTRACT(unit FROM d). The parser takes MySQL's units only,
// so DOW, DOY and the like are written date_part('dow', d).
func (b *builder) extract(x *ast.FuncCallExpr, sc scope) (expr.Expr, error) {
	unit, ok := x.Args[0].(*ast.TimeUnitExpr)
	if !ok || len(x.Args) != 2 {
		return nil, b.at(ErrInvalid, x, "EXTRACT needs a field and a date: EXTRACT(YEAR FROM d)")
	}
	name := strings.ToUpper(unit.Unit.String())
	switch name {
	case "YEAR", "QUARTER", "MONTH", "WEEK", "DAY":
	default:
		return nil, b.at(ErrUnsupported, unit, "EXTRACT(%s FROM …): the fields are YEAR, QUARTER, MONTH, WEEK (ISO) and DAY, and date_part('dow' | 'isodow' | 'doy' | 'isoyear' | 'yearweek' | 'decade' | 'century' | 'millennium' | 'era', d)", name)
	}
	part, err := expr.ParseDatePart(name)
	if err != nil {
		return nil, b.at(ErrInvalid, unit, "EXTRACT: %v", err)
	}
	return b.partOf(x, part, x.Args[1], sc)
}

// datePart is date_part('part', d), the part a string constant.
func (b *builder) datePart(x *ast.FuncCallExpr, sc scope) (expr.Expr, error) {
	if err := b.arity(x, 2, 2); err != nil {
		return nil, err
	}
	s, ok := stringLiteral(x.Args[0])
	if !ok {
		return nil, b.at(ErrUnsupported, x.Args[0], "%s: the part must be a string constant, such as 'year'", x.FnName.O)
	}
	part, err := expr.ParseDatePart(s)
	if err != nil {
		return nil, b.at(ErrInvalid, x.Args[0], "%s: %v", x.FnName.O, err)
	}
	return b.partOf(x, part, x.Args[1], sc)
}

// partOf plans part of the date arg, for the call x.
func (b *builder) partOf(x *ast.FuncCallExpr, part expr.DatePart, arg ast.ExprNode, sc scope) (expr.Expr, error) {
	d, err := b.expr(arg, sc)
	if err != nil {
		return nil, err
	}
	return wrap(b, x)(expr.Extract(part, d))
}

// substring is substring(s, start[, length]), also written SUBSTRING(s
// FROM start [FOR length]) (the parser makes the same call of it) and
// substr.
func (b *builder) substring(x *ast.FuncCallExpr, sc scope) (expr.Expr, error) {
	if err := b.arity(x, 2, 3); err != nil {
		return nil, err
	}
	args := make([]expr.Expr, 3)
	for i, a := range x.Args {
		var err error
		if args[i], err = b.expr(a, sc); err != nil {
			return nil, err
		}
	}
	return wrap(b, x)(expr.Substring(args[0], args[1], args[2]))
}

// arity checks that x has between lo and hi arguments.
func (b *builder) arity(x *ast.FuncCallExpr, lo, hi int) error {
	n := len(x.Args)
	if n >= lo && n <= hi {
		return nil
	}
	want := "1 argument"
	switch {
	case lo != hi:
		want = strconv.Itoa(lo) + " or " + strconv.Itoa(hi) + " arguments"
	case lo != 1:
		want = strconv.Itoa(lo) + " arguments"
	}
	return b.at(ErrInvalid, x, "%s takes %s, got %d", x.FnName.O, want, n)
}
