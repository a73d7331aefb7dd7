package query

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/query/expr"
	"github.com/quiverdb/quiver/sortkey"
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
//     any_value(x) (the first non-NULL x of the group by row position,
//     as DuckDB's: first(x) over the rows where x is not NULL, so it
//     runs, spills and filters as first does);
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
	"bool_and": agg.Min, "bool_or": agg.Max, "any_value": agg.First, "count_if": agg.Sum,
	"arg_min": agg.ArgMin, "argmin": agg.ArgMin, "min_by": agg.ArgMin,
	"arg_max": agg.ArgMax, "argmax": agg.ArgMax, "max_by": agg.ArgMax,
	"first": agg.First, "last": agg.Last, "approx_count_distinct": agg.ApproxCountDistinct,
	"string_agg": agg.StringAgg, "listagg": agg.StringAgg, "group_concat": agg.StringAgg,
	"median": agg.QuantileCont, "quantile_cont": agg.QuantileCont,
	"quantile_disc": agg.QuantileDisc, "quantile": agg.QuantileDisc, "approx_quantile": agg.QuantileDisc,
}

// callAggs are the aggregates the parser leaves as function calls, by
// the name they are planned under (parse_aggs.go renames first and last).
var callAggs = map[string]string{"bool_and": "bool_and", "bool_or": "bool_or", "count_if": "count_if", "any_value": "any_value",
	"arg_min": "arg_min", "argmin": "argmin", "min_by": "min_by", "arg_max": "arg_max", "argmax": "argmax", "max_by": "max_by",
	"quiver$first": "first", "quiver$last": "last", "string_agg": "string_agg", "listagg": "listagg",
	"median": "median", "quantile_cont": "quantile_cont", "quantile_disc": "quantile_disc", "quantile": "quantile",
	"approx_quantile": "approx_quantile"}

// Names of the FILTER rewrite (parse_aggs.go): quiver$filter(agg, cond)
// as parsed, and the aggregate's trailing quiver$where(cond) argument it
// becomes.
const (
	filterFunc = "quiver$filter"
	whereFunc  = "quiver$where"
)

// asAggregates turns calls of callAggs into aggregate calls, a FILTER's
// quiver$filter(agg, cond) into agg with a trailing quiver$where(cond)
// argument, and names the variance family as written (the parser reads
// stddev, std and variance as MySQL's population ones; they are the
// sample ones in DuckDB and PostgreSQL), in place.
func (b *builder) asAggregates(s *ast.SelectStmt) error {
	c := &aggCaller{sql: b.sql}
	s.Accept(c)
	if c.bad != nil {
		return b.at(ErrInvalid, c.bad, "FILTER (WHERE …) follows an aggregate, not %s", restore(c.bad.Args[0]))
	}
	return nil
}

type aggCaller struct {
	sql string
	bad *ast.FuncCallExpr // a FILTER on something else than an aggregate
}

func (*aggCaller) Enter(n ast.Node) (ast.Node, bool) { return n, false }

func (c *aggCaller) Leave(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.FuncCallExpr:
		if x.FnName.L == filterFunc && len(x.Args) == 2 {
			a, ok := x.Args[0].(*ast.AggregateFuncExpr)
			if !ok || filterOf(a) != nil {
				if c.bad == nil {
					c.bad = x
				}
				return n, true
			}
			a.Args = append(a.Args, &ast.FuncCallExpr{FnName: ast.NewCIStr(whereFunc), Args: x.Args[1:]})
			return a, true
		}
		name, ok := callAggs[x.FnName.L]
		if !ok {
			return n, true
		}
		a := &ast.AggregateFuncExpr{F: name, Args: x.Args}
		a.SetOriginTextPosition(x.OriginTextPosition())
		return a, true
	case *ast.AggregateFuncExpr:
		switch strings.ToLower(x.F) {
		case "stddev_pop", "var_pop":
			x.F = varianceName(x.F, wordAt(c.sql, x.OriginTextPosition()))
		}
	}
	return n, true
}

// varianceName is the aggregate the parser names name (stddev_pop or
// var_pop, or a window's std, stddev, variance) when the user wrote
// word: stddev, std and variance are the sample ones.
func varianceName(name, word string) string {
	switch word {
	case "stddev", "std":
		return "stddev_samp"
	case "variance":
		return "var_samp"
	}
	switch name {
	case "std", "stddev":
		return "stddev_samp"
	case "variance":
		return "var_samp"
	}
	return name
}

// filterOf is the condition of a's FILTER, or nil.
func filterOf(a *ast.AggregateFuncExpr) ast.ExprNode {
	if len(a.Args) == 0 {
		return nil
	}
	if f, ok := a.Args[len(a.Args)-1].(*ast.FuncCallExpr); ok && f.FnName.L == whereFunc && len(f.Args) == 1 {
		return f.Args[0]
	}
	return nil
}

// withoutFilter is a copy of a without its FILTER's argument, and the
// condition.
func withoutFilter(a *ast.AggregateFuncExpr) (*ast.AggregateFuncExpr, ast.ExprNode) {
	cond := filterOf(a)
	if cond == nil {
		return a, nil
	}
	c := *a
	c.Args = a.Args[:len(a.Args)-1]
	return &c, cond
}

// filterText writes the FILTERs and window aggregates of an
// expression's restored text as the user did: sum(x, quiver$where(c))
// is sum(x) FILTER (WHERE c), max(quiver$win_median(x)) is median(x).
func filterText(s string) string {
	const marker = ", " + whereFunc + "("
	const win = "max(" + winFuncPrefix
	for range maxAggRewrites {
		i := strings.Index(s, win)
		if i < 0 {
			break
		}
		open := strings.IndexByte(s[i+len(win):], '(') + i + len(win)
		end := closing(s, open)
		if end < 0 || end+1 >= len(s) || s[end+1] != ')' {
			break
		}
		s = s[:i] + s[i+len(win):end+1] + s[end+2:]
	}
	for range maxAggRewrites {
		i := strings.Index(s, marker)
		if i < 0 {
			break
		}
		open := i + len(marker) - 1
		end := closing(s, open) // parse_aggs.go
		if end < 0 || end+1 >= len(s) || s[end+1] != ')' {
			break
		}
		s = s[:i] + ") FILTER (WHERE " + s[open+1:end] + ")" + s[end+2:]
	}
	return unrewriteFrames(s) // parse_exclude.go
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
	case "first", "last", "any_value", "approx_count_distinct":
		return wrap(b, call)(expr.Cast(arg, nullType(arg.Type())))
	}
	return arg, nil
}

// argMinMax plans arg_min(x, by) or arg_max(x, by).
func (b *builder) argMinMax(call *ast.AggregateFuncExpr, fn agg.Func, name string, ts scope, n *aggregateNode, argIndex map[string]int) (aggCall, error) {
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

// stringAgg plans string_agg(x [, sep] [ORDER BY …]) and its aliases
// listagg and group_concat (MySQL's group_concat(x ORDER BY … SEPARATOR
// sep) too, which parse_aggs.go makes of string_agg's ORDER BY): x as
// VARCHAR, sep a constant (',' when left out; NULL makes every result
// NULL, as in DuckDB).
func (b *builder) stringAgg(call *ast.AggregateFuncExpr, name string, ts scope, n *aggregateNode, argIndex map[string]int) (aggCall, error) {
	if call.Distinct {
		return aggCall{}, b.at(ErrUnsupported, call, "%s(DISTINCT …)", name)
	}
	args := call.Args
	if name == "group_concat" && len(args) == 3 { // DuckDB's group_concat(x, sep): the grammar appends its default separator
		args = args[:2]
	}
	if len(args) < 1 || len(args) > 2 {
		return aggCall{}, b.at(ErrInvalid, call, "%s takes a string and a separator", name)
	}
	x, err := b.expr(args[0], ts)
	if err != nil {
		return aggCall{}, err
	}
	if x, err = expr.Cast(x, arrow.BinaryTypes.String); err != nil {
		return aggCall{}, b.typeErr(call, err)
	}
	ac := aggCall{fn: agg.StringAgg, sep: ",", text: restore(call), typ: arrow.BinaryTypes.String}
	if len(args) == 2 {
		sep, err := b.expr(args[1], ts)
		if err == nil {
			sep, err = expr.Cast(sep, arrow.BinaryTypes.String)
		}
		if err != nil {
			return aggCall{}, b.typeErr(call, err)
		}
		lit := expr.Inspect(sep)
		if lit.Kind != expr.KindLiteral {
			return aggCall{}, b.at(ErrInvalid, args[1], "%s: the separator must be a constant, not %s", name, restore(args[1]))
		}
		if v, ok := lit.Value.(string); ok {
			ac.sep = v
		} else { // NULL
			x = expr.NullLiteral(arrow.BinaryTypes.String)
		}
	}
	ac.arg = n.argSlot(x, argIndex)
	if call.Order != nil {
		for _, it := range call.Order.Items {
			if c, ok := it.Expr.(*ast.ColumnNameExpr); ok && strings.HasPrefix(c.Name.Name.L, sentinelPrefix) {
				if len(ac.order) == 0 {
					return aggCall{}, b.at(ErrInvalid, it, "NULLS FIRST/LAST without an ORDER BY item before it")
				}
				ac.order[len(ac.order)-1].NullsFirst = c.Name.Name.L == nullsFirstSentinel
				continue
			}
			k, err := b.expr(it.Expr, ts)
			if err != nil {
				return aggCall{}, err
			}
			if k, err = expr.Cast(k, nullType(k.Type())); err != nil {
				return aggCall{}, b.typeErr(it.Expr, err)
			}
			if !sortkey.Supported(k.Type()) {
				return aggCall{}, b.at(ErrUnsupported, it.Expr, "%s: ORDER BY %s of type %s", name, restore(it.Expr), k.Type())
			}
			ac.order = append(ac.order, agg.OrderKey{Arg: n.argSlot(k, argIndex), Desc: it.Desc})
		}
	}
	return ac, nil
}

// quantile plans median(x), quantile_cont(x, q), quantile_disc(x, q)
// (quantile) and approx_quantile(x, q), which is quantile_disc, exact. q
// is a constant in [0, 1]. median of a string or boolean is
// quantile_disc's, as in DuckDB.
func (b *builder) quantile(call *ast.AggregateFuncExpr, fn agg.Func, name string, ts scope, n *aggregateNode, argIndex map[string]int) (aggCall, error) {
	want := 2
	if name == "median" {
		want = 1
	}
	if call.Distinct {
		return aggCall{}, b.at(ErrUnsupported, call, "%s(DISTINCT …)", name)
	}
	if len(call.Args) != want {
		if want == 1 {
			return aggCall{}, b.at(ErrInvalid, call, "median takes one argument")
		}
		return aggCall{}, b.at(ErrInvalid, call, "%s takes two arguments: the value and the quantile, a constant between 0 and 1", name)
	}
	x, err := b.expr(call.Args[0], ts)
	if err != nil {
		return aggCall{}, err
	}
	if x, err = expr.Cast(x, nullType(x.Type())); err != nil {
		return aggCall{}, b.typeErr(call, err)
	}
	q := 0.5
	if want == 2 {
		e, err := b.expr(call.Args[1], ts)
		if err == nil {
			e, err = expr.Cast(e, arrow.PrimitiveTypes.Float64)
		}
		v, ok := 0.0, false
		if err == nil {
			v, ok = expr.Inspect(e).Value.(float64)
		}
		if !ok || !(v >= 0 && v <= 1) {
			return aggCall{}, b.at(ErrInvalid, call.Args[1], "%s: the quantile must be a constant between 0 and 1, not %s", name, restore(call.Args[1]))
		}
		q = v
	}
	if id := x.Type().ID(); name == "median" && (id == arrow.STRING || id == arrow.BOOL) {
		fn = agg.QuantileDisc
	}
	typ, err := agg.ResultType(fn, x.Type())
	if err != nil {
		return aggCall{}, b.at(ErrInvalid, call, "%s: %s over %s is not supported", restore(call), name, x.Type())
	}
	return aggCall{fn: fn, arg: n.argSlot(x, argIndex), text: restore(call), typ: typ, q: q}, nil
}
