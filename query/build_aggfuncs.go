package query

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/query/expr"
)

// Aggregates beyond count, sum, min, max and avg, with DuckDB's names and
// semantics:
//
//   - stddev_samp, stddev_pop, var_samp, var_pop, and stddev, std and
//     variance, which are the sample ones in DuckDB and PostgreSQL (the
//     parser reads them as MySQL's population ones: asAggregates looks at
//     the name as written); over numbers converted to DOUBLE (package agg's
//     variance states), NULL for a sample of fewer than two values;
//   - bool_and and bool_or over BOOLEAN (min and max of booleans: FALSE <
//     TRUE), count_if(b) (the TRUE rows: sum(CAST(b AS BIGINT)), NULL
//     when b is NULL on every row of the group, as in DuckDB), and
//     any_value(x) (a non-NULL x of the group when there is one; quiver
//     returns the smallest, so results are reproducible);
//   - arg_min(x, by) and arg_max(x, by) (argmin, min_by, argmax, max_by):
//     the x of the row with the smallest (largest) by, rows where either is
//     NULL skipped (package agg's argminmax.go).
//
// The parser makes calls of bool_and, bool_or, count_if and any_value
// plain function calls; asAggregates turns them into aggregate calls
// before the query is planned, so they are found, named and grouped as
// the others.

// extraAggs are the aggregates of this file, by name as planned.
var extraAggs = map[string]agg.Func{
	"var_samp": agg.VarSamp, "var_pop": agg.VarPop, "stddev_samp": agg.StddevSamp, "stddev_pop": agg.StddevPop,
	"bool_and": agg.Min, "bool_or": agg.Max, "any_value": agg.Min, "count_if": agg.Sum,
	"arg_min": agg.ArgMin, "argmin": agg.ArgMin, "min_by": agg.ArgMin,
	"arg_max": agg.ArgMax, "argmax": agg.ArgMax, "max_by": agg.ArgMax,
}

// callAggs are the aggregates the parser leaves as function calls.
var callAggs = map[string]bool{"bool_and": true, "bool_or": true, "count_if": true, "any_value": true,
	"arg_min": true, "argmin": true, "min_by": true, "arg_max": true, "argmax": true, "max_by": true}

// asAggregates turns calls of callAggs into aggregate calls, and names
// the variance family as written (the parser reads stddev, std and
// variance as MySQL's population ones; they are the sample ones in
// DuckDB and PostgreSQL), in place; sql is the statement's text.
func asAggregates(s *ast.SelectStmt, sql string) { s.Accept(aggCaller{sql}) }

type aggCaller struct{ sql string }

func (aggCaller) Enter(n ast.Node) (ast.Node, bool) { return n, false }

func (c aggCaller) Leave(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.FuncCallExpr:
		if !callAggs[x.FnName.L] {
			return n, true
		}
		a := &ast.AggregateFuncExpr{F: x.FnName.L, Args: x.Args}
		a.SetOriginTextPosition(x.OriginTextPosition())
		return a, true
	case *ast.AggregateFuncExpr:
		switch strings.ToLower(x.F) {
		case "stddev_pop", "var_pop":
			switch wordAt(c.sql, x.OriginTextPosition()) {
			case "stddev", "std":
				x.F = "stddev_samp"
			case "variance":
				x.F = "var_samp"
			}
		}
	}
	return n, true
}

// wordAt is the identifier at byte off of sql, lower-cased.
func wordAt(sql string, off int) string {
	if off < 0 || off >= len(sql) {
		return ""
	}
	end := off
	for end < len(sql) && isWordByte(sql[end]) {
		end++
	}
	return strings.ToLower(sql[off:end])
}

// aggArg adapts the argument of the aggregates of this file: a number
// becomes DOUBLE for the variance family, bool_and and bool_or take a
// boolean, count_if(b) sums CAST(b AS BIGINT).
func (b *builder) aggArg(name string, call *ast.AggregateFuncExpr, arg expr.Expr) (expr.Expr, error) {
	switch name {
	case "var_samp", "var_pop", "stddev_samp", "stddev_pop":
		switch arg.Type().ID() {
		case arrow.INT64, arrow.FLOAT64, arrow.DECIMAL128, arrow.NULL:
			return wrap(b, call)(expr.Cast(arg, arrow.PrimitiveTypes.Float64))
		}
		return nil, b.at(ErrInvalid, call, "%s needs a number, got %s (%s)", name, arg.Type(), arg)
	case "bool_and", "bool_or", "count_if":
		if id := arg.Type().ID(); id != arrow.BOOL && id != arrow.NULL {
			return nil, b.at(ErrInvalid, call, "%s needs a boolean, got %s (%s)", name, arg.Type(), arg)
		}
		to := arrow.DataType(arrow.FixedWidthTypes.Boolean)
		if name == "count_if" {
			to = arrow.PrimitiveTypes.Int64
		}
		return wrap(b, call)(expr.Cast(arg, to))
	}
	return arg, nil
}

// argMinMax plans arg_min(x, by) or arg_max(x, by).
func (b *builder) argMinMax(call *ast.AggregateFuncExpr, fn agg.Func, name string, ts *tableScope, n *aggregateNode, argIndex map[string]int) (aggCall, error) {
	if len(call.Args) != 2 || call.Distinct {
		return aggCall{}, b.at(ErrInvalid, call, "%s takes two arguments: the value and what to order by", name)
	}
	x, err := b.expr(call.Args[0], ts)
	if err != nil {
		return aggCall{}, err
	}
	by, err := b.expr(call.Args[1], ts)
	if err != nil {
		return aggCall{}, err
	}
	if x.Type().ID() == arrow.NULL || by.Type().ID() == arrow.NULL {
		// every row is skipped: a NULL of x's type (BIGINT when untyped)
		if x, err = expr.Cast(x, nullType(x.Type())); err != nil {
			return aggCall{}, b.typeErr(call, err)
		}
		if by, err = expr.Cast(by, nullType(by.Type())); err != nil {
			return aggCall{}, b.typeErr(call, err)
		}
	}
	typ, err := agg.ResultType(fn, x.Type())
	if err != nil {
		return aggCall{}, b.at(ErrInvalid, call, "%s: %v", restore(call), err)
	}
	if _, err := agg.ResultType(agg.Min, by.Type()); err != nil {
		return aggCall{}, b.at(ErrInvalid, call, "%s: cannot order by %s", restore(call), by.Type())
	}
	return aggCall{fn: fn, arg: n.argSlot(x, argIndex), by: n.argSlot(by, argIndex), text: restore(call), typ: typ}, nil
}

// nullType is t, or BIGINT for an untyped NULL.
func nullType(t arrow.DataType) arrow.DataType {
	if t.ID() == arrow.NULL {
		return arrow.PrimitiveTypes.Int64
	}
	return t
}
