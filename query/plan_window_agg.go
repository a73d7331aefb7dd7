package query

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/query/expr"
)

// Aggregates beyond sum, count, avg, min and max as window functions
// (stddev, arg_min, bool_and, string_agg, median, approx_count_distinct,
// … OVER (…)): planned as in GROUP BY (plainAggCall) and computed by an
// agg aggregator per block (window_eval_agg.go): keyed by partition where
// the frame is the whole partition — OVER without ORDER BY (the default
// frame is then every row), or ROWS/RANGE BETWEEN UNBOUNDED PRECEDING AND
// UNBOUNDED FOLLOWING — and otherwise by row, each row's frame (ROWS,
// RANGE, GROUPS, EXCLUDE) gathered and aggregated on its own: these
// aggregates have no running or removable form here. bool_and, bool_or
// and count_if, which are min, max and sum, run as those do.

// slot is the index of e among n's arguments, added once.
func (n *windowNode) slot(argIndex map[string]int, e expr.Expr) int {
	t := e.String() + "\x00" + e.Type().String()
	if i, ok := argIndex[t]; ok {
		return i
	}
	argIndex[t] = len(n.args)
	n.args = append(n.args, e)
	return len(n.args) - 1
}

// windowWrapped returns the call parse_aggs.go wrapped as
// max(quiver$win_name(args)) for the grammar to take OVER after it.
func windowWrapped(w *ast.WindowFuncExpr) (*ast.FuncCallExpr, bool) {
	if strings.ToLower(w.Name) != "max" || len(w.Args) != 1 {
		return nil, false
	}
	f, ok := w.Args[0].(*ast.FuncCallExpr)
	return f, ok && strings.HasPrefix(f.FnName.L, winFuncPrefix)
}

// genericWindowCall plans name(args) OVER (…) for an aggregate of
// extraAggs.
func (b *builder) genericWindowCall(w *ast.WindowFuncExpr, name string, args []ast.ExprNode, n *windowNode, argIndex map[string]int, sc scope) (windowCall, error) {
	c := windowCall{kind: winGeneric, arg: -1, fallback: -1, frame: defaultFrame}
	fr, err := b.windowFrame(w, n, sc, func(e expr.Expr) int { return n.slot(argIndex, e) })
	if err != nil {
		return c, err
	}
	if fr != nil {
		c.frame = *fr
	}
	c.whole = c.frame.exclude == excludeNoOthers && c.frame.start.kind == boundUnboundedPreceding &&
		(c.frame.end.kind == boundUnboundedFollowing || (!c.frame.rows && c.frame.end.kind == boundCurrent && len(n.order) == 0))
	if w.Distinct {
		return c, b.at(ErrUnsupported, w, "%s(DISTINCT …) as a window function", name)
	}
	call := &ast.AggregateFuncExpr{F: name, Args: args}
	call.SetOriginTextPosition(w.OriginTextPosition())
	tmp := &aggregateNode{}
	ac, err := b.plainAggCall(call, sc, tmp, map[string]int{})
	if err != nil {
		return c, err
	}
	if ac.decode != nil { // the window has no step turning a key back into its value
		return c, b.at(ErrUnsupported, w, "%s over a list or struct as a window function (count and count(DISTINCT) are; %s is not)", name, name)
	}
	remap := func(i int) int { return n.slot(argIndex, tmp.args[i]) }
	if (ac.fn == agg.Min || ac.fn == agg.Max || ac.fn == agg.Sum) && ac.filter == 0 {
		// bool_and, bool_or (min and max of booleans) and count_if (a sum)
		// run as min, max and sum do: over any frame without computing
		// it from scratch (window_eval.go)
		c.kind, c.fn, c.arg, c.typ = winAggregate, ac.fn, remap(ac.arg), ac.typ
		if ac.fn != agg.Sum {
			c.fallback = n.slot(argIndex, expr.NullLiteral(tmp.args[ac.arg].Type()))
		}
		return c, nil
	}
	c.spec = agg.Spec{Func: ac.fn, Sep: ac.sep, Q: ac.q}
	if ac.arg >= 0 {
		c.spec.Arg = remap(ac.arg)
	}
	switch {
	case ac.fn == agg.ArgMin || ac.fn == agg.ArgMax:
		c.spec.By = remap(ac.by)
	case ac.by == byPosition: // first, any_value: by the rows' order in the frame (window_eval_agg.go)
		c.spec.By = byPosition
	}
	if ac.filter > 0 { // any_value's: the rows where its argument is not NULL
		c.spec.Filter = remap(ac.filter-1) + 1
	}
	for _, o := range ac.order {
		o.Arg = remap(o.Arg)
		c.spec.Order = append(c.spec.Order, o)
	}
	c.typ = ac.typ
	return c, nil
}
