package query

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/expr"
)

// Scalar functions are planned through package expr's registry
// (expr.Call): its signatures resolve overloads by argument type and
// name the candidates when none fits. This file handles only what the
// grammar spells specially — EXTRACT(unit FROM d), TRIM(LEADING x FROM
// s), POSITION(a IN b) arrive as calls with marker arguments — and the
// unknown names, which get the closest registered names as suggestions.
// Semantics are DuckDB's, which query/difftest compares with.

// callFunc plans a function call (beside DATE/TIMESTAMP/TIME literals,
// date_add and ||, which call in build_expr.go takes first).
func (b *builder) callFunc(name string, x *ast.FuncCallExpr, sc scope) (expr.Expr, error) {
	if nowFuncs[name] {
		return b.now(name, x) // build_now.go
	}
	switch name {
	case "extract":
		return b.extract(x, sc)
	case "age":
		if len(x.Args) == 1 { // age(ts) is age(current_date, ts), as in DuckDB
			ts, err := b.expr(x.Args[0], sc)
			if err != nil {
				return nil, err
			}
			today, err := b.now("current_date", &ast.FuncCallExpr{})
			if err != nil {
				return nil, err
			}
			return wrap(b, x)(expr.Call("age", today, ts))
		}
	case "trim":
		return b.trim(x, sc)
	case "position":
		// POSITION(needle IN haystack) is strpos(haystack, needle).
		if len(x.Args) == 2 {
			return b.registryCall(x, "strpos", []ast.ExprNode{x.Args[1], x.Args[0]}, sc)
		}
	}
	return b.registryCall(x, name, x.Args, sc)
}

// registryCall plans name(args) for the call x.
func (b *builder) registryCall(x *ast.FuncCallExpr, name string, args []ast.ExprNode, sc scope) (expr.Expr, error) {
	if !expr.IsFunction(name) {
		msg := "function " + x.FnName.O
		if s := closestNames(name, expr.FunctionNames()); len(s) > 0 {
			msg += " (did you mean " + strings.Join(s, " or ") + "?)"
		}
		return nil, b.at(ErrUnsupported, x, "%s", msg)
	}
	es := make([]expr.Expr, len(args))
	for i, a := range args {
		var err error
		if es[i], err = b.expr(a, sc); err != nil {
			return nil, err
		}
	}
	if e, ok, err := b.zoneCall(name, es); ok { // build_zone.go
		return wrap(b, x)(e, err)
	}
	return wrap(b, x)(expr.Call(name, es...))
}

// extract is EXTRACT(unit FROM d), date_part('unit', d). The parser takes
// MySQL's units only; EXTRACT(EPOCH FROM d), DOW, DOY and the like reach
// the planner as date_part('epoch', d) (parse_types.go).
func (b *builder) extract(x *ast.FuncCallExpr, sc scope) (expr.Expr, error) {
	unit, ok := x.Args[0].(*ast.TimeUnitExpr)
	if !ok || len(x.Args) != 2 {
		return nil, b.at(ErrInvalid, x, "EXTRACT needs a field and a date: EXTRACT(YEAR FROM d)")
	}
	name := strings.ToUpper(unit.Unit.String())
	switch name {
	case "YEAR", "QUARTER", "MONTH", "WEEK", "DAY", "HOUR", "MINUTE", "SECOND", "MICROSECOND":
	default:
		return nil, b.at(ErrUnsupported, unit, "EXTRACT(%s FROM …): the fields are YEAR, QUARTER, MONTH, WEEK (ISO), DAY, HOUR, MINUTE, SECOND, MICROSECOND, MILLISECOND, EPOCH, DOW, ISODOW, DOY, ISOYEAR, YEARWEEK, DECADE, CENTURY, MILLENNIUM and ERA", name)
	}
	d, err := b.expr(x.Args[1], sc)
	if err != nil {
		return nil, err
	}
	part, err := expr.Literal(strings.ToLower(name))
	if err != nil {
		return nil, b.typeErr(x, err)
	}
	if e, ok, err := b.zoneCall("date_part", []expr.Expr{part, d}); ok { // build_zone.go
		return wrap(b, x)(e, err)
	}
	return wrap(b, x)(expr.Call("date_part", part, d))
}

// trim is TRIM([BOTH | LEADING | TRAILING] [chars] FROM s), which the
// parser passes as (s, chars, direction), and trim(s[, chars]).
func (b *builder) trim(x *ast.FuncCallExpr, sc scope) (expr.Expr, error) {
	args := x.Args
	name := "trim"
	if len(args) == 3 {
		if d, ok := args[2].(*ast.TrimDirectionExpr); ok {
			switch d.Direction {
			case ast.TrimLeading:
				name = "ltrim"
			case ast.TrimTrailing:
				name = "rtrim"
			}
			args = args[:2]
		}
	}
	return b.registryCall(x, name, args, sc)
}
