package query

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/query/expr"
)

// Window functions (f(…) OVER (PARTITION BY … ORDER BY … frame)) are
// planned after WHERE, GROUP BY and HAVING and before the projection:
// planWindows takes the calls out of the SELECT list and ORDER BY, and
// puts one windowNode per distinct (PARTITION BY, ORDER BY) on the plan.
// A windowNode passes its input's columns through and appends one column
// per call; the projection above reads them (windowScope). Its operator
// (op_window.go) sorts by the partition and order keys on the external
// sort and walks the partitions (window_eval.go).

// windowKind is what a window call computes.
type windowKind uint8

const (
	winRowNumber windowKind = iota
	winRank
	winDenseRank
	winPercentRank
	winCumeDist
	winNtile
	winLag
	winLead
	winFirstValue
	winLastValue
	winNthValue
	winAggregate
	winGeneric // any aggregate of package agg over the whole partition (window_eval.go's generic)
)

var windowKinds = map[string]windowKind{
	"row_number": winRowNumber, "rank": winRank, "dense_rank": winDenseRank,
	"percent_rank": winPercentRank, "cume_dist": winCumeDist, "ntile": winNtile,
	"lag": winLag, "lead": winLead, "first_value": winFirstValue, "last_value": winLastValue,
	"nth_value": winNthValue,
	"sum":       winAggregate, "count": winAggregate, "avg": winAggregate, "min": winAggregate, "max": winAggregate,
}

// boundKind is one end of a frame.
type boundKind uint8

const (
	boundUnboundedPreceding boundKind = iota
	boundPreceding                    // n PRECEDING
	boundCurrent
	boundFollowing // n FOLLOWING
	boundUnboundedFollowing
)

type frameBound struct {
	kind boundKind
	n    int64 // ROWS: the offset
	arg  int   // RANGE with an offset: the bound's value per row (ORDER BY key ∓ offset), an index into windowNode.args
}

// frame is a call's window frame. A RANGE frame's CURRENT ROW is the
// row's peers (equal ORDER BY keys), and without ORDER BY every row of the
// partition is a peer; RANGE n PRECEDING/FOLLOWING, over one ORDER BY key,
// reaches the rows whose key is within n of the row's (an INTERVAL for
// dates and timestamps). The default frame is RANGE BETWEEN UNBOUNDED
// PRECEDING AND CURRENT ROW.
type frame struct {
	rows       bool
	groups     bool // GROUPS: offsets count peer groups; CURRENT ROW is the row's peers
	start, end frameBound
	exclude    excludeKind // EXCLUDE …: rows of [start, end) left out (parse_exclude.go)
}

var defaultFrame = frame{start: frameBound{kind: boundUnboundedPreceding}, end: frameBound{kind: boundCurrent}}

// windowCall is one window function of a windowNode.
type windowCall struct {
	kind     windowKind
	fn       agg.Func // winAggregate
	arg      int      // index into windowNode.args; -1: none
	fallback int      // lag/lead: the default's index into windowNode.args
	n        int64    // ntile's buckets, lag/lead's offset, nth_value's n
	frame    frame
	text     string
	typ      arrow.DataType
	spec     agg.Spec // winGeneric: the aggregate, its arguments indexes into windowNode.args
	whole    bool     // winGeneric: every row's frame is its whole partition
}

// windowNode computes calls over the partitions of its input by
// partition, ordered by order; its output is its input's columns then one
// per call.
type windowNode struct {
	in        planNode
	partition []expr.Expr
	order     []expr.Expr
	orderKeys []sortKey // desc and nullsFirst of each order key (col unused)
	args      []expr.Expr
	calls     []windowCall
	specText  string
	// sorted: the input already comes in this window's order (the window
	// below sorted by keys this one's are a prefix of), so no sort.
	sorted bool
	// keep: the input columns passed through, by position; nil: all. The
	// clauses above the windows read few of the columns below them, and
	// what is not passed through is not carried through the sort.
	keep []int
}

// sortKeys is the order the window sorts its input in, as text: the
// partition keys ascending, NULLS LAST, then the order keys.
func (n *windowNode) sortKeys() []string {
	keys := make([]string, 0, len(n.partition)+len(n.order))
	for _, e := range n.partition {
		keys = append(keys, e.String()+" ASC NULLS LAST")
	}
	for i, e := range n.order {
		keys = append(keys, orderText(e.String(), n.orderKeys[i]))
	}
	return keys
}

func (n *windowNode) schema() *arrow.Schema {
	in := n.in.schema()
	fields := append([]arrow.Field(nil), in.Fields()...)
	if n.keep != nil {
		fields = fields[:0]
		for _, p := range n.keep {
			fields = append(fields, in.Field(p))
		}
	}
	for _, c := range n.calls {
		fields = append(fields, arrow.Field{Name: filterText(c.text), Type: c.typ, Nullable: true})
	}
	return arrow.NewSchema(fields, nil)
}

func (n *windowNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	in, err := n.in.open(ctx, rt, c)
	if err != nil {
		return nil, err
	}
	return newWindowOp(rt, in, n) // op_window.go
}

func (n *windowNode) explain(b *strings.Builder, depth int) {
	indent(b, depth)
	calls := make([]string, len(n.calls))
	for i, c := range n.calls {
		calls[i] = filterText(c.text) // median(x), not the grammar's max(quiver$win_median(x))
	}
	sorted := ""
	if n.sorted {
		sorted = " (input already in order)"
	}
	fmt.Fprintf(b, "Window over (%s)%s: %s\n", n.specText, sorted, strings.Join(calls, ", "))
	n.in.explain(b, depth+1)
}

// windowFinder collects window calls, outermost only.
type windowFinder struct{ found []*ast.WindowFuncExpr }

func (f *windowFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.WindowFuncExpr:
		f.found = append(f.found, x)
		return n, true
	case *ast.SubqueryExpr:
		return n, true
	}
	return n, false
}

func (f *windowFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// findWindows returns the window calls of the SELECT list, QUALIFY
// (nil: none) and ORDER BY (orderBy's items).
func findWindows(orderBy []*ast.ByItem, items []selectItem, qualify ast.ExprNode) []*ast.WindowFuncExpr {
	f := &windowFinder{}
	for _, it := range items {
		it.node.Accept(f)
	}
	if qualify != nil {
		qualify.Accept(f)
	}
	for _, it := range orderBy {
		it.Expr.Accept(f)
	}
	return f.found
}

// windowScope resolves a window call to its column of the windowNodes
// and everything else as the scope under them does.
type windowScope struct {
	scope
	cols map[string]expr.Expr // by the call's text
	dry  bool                 // planning only to queue conversions: calls are NULL
	typs map[string]arrow.DataType
}

func (s *windowScope) whole(b *builder, n ast.ExprNode) (expr.Expr, error) {
	if w, ok := n.(*ast.WindowFuncExpr); ok {
		text := restore(w)
		if s.dry {
			return expr.NullLiteral(s.typs[text]), nil
		}
		if e, ok := s.cols[text]; ok {
			return e, nil
		}
		return nil, b.at(ErrExec, n, "planner: window call %s has no column", text)
	}
	return s.scope.whole(b, n)
}

// planWindows puts the windowNodes of the query's window calls on plan
// and returns the scope the projection above resolves names in.
func (b *builder) planWindows(sp *selectPlan, plan planNode, sc scope, ts *tableScope) (planNode, scope, error) {
	items, calls, qualify := sp.items, sp.windows, sp.qualify
	var nodes []*windowNode
	bySpec := map[string]*windowNode{}
	argIndex := map[*windowNode]map[string]int{}
	seen := map[string]bool{}
	typs := map[string]arrow.DataType{}
	for _, w := range calls {
		text := restore(w)
		if seen[text] {
			continue
		}
		seen[text] = true
		spec, err := b.windowSpecText(w)
		if err != nil {
			return nil, nil, err
		}
		n := bySpec[spec]
		if n == nil {
			if n, err = b.newWindowNode(w, spec, sc); err != nil {
				return nil, nil, err
			}
			bySpec[spec] = n
			argIndex[n] = map[string]int{}
			nodes = append(nodes, n)
		}
		c, err := b.windowCall(w, n, argIndex[n], sc)
		if err != nil {
			return nil, nil, err
		}
		c.text = text
		typs[text] = c.typ
		n.calls = append(n.calls, c)
	}
	// Plan the projection once with the calls as NULLs, so every
	// conversion it needs is queued and flushed below the windows (which
	// append columns the layout does not know).
	dry := &windowScope{scope: sc, dry: true, typs: typs}
	exprs := make([]expr.Expr, len(items))
	names := make([]string, len(items))
	for i, it := range items {
		var err error
		if exprs[i], err = b.output(it.node, dry); err != nil {
			return nil, nil, err
		}
		names[i] = it.name
	}
	if sp.orderBy != nil {
		if _, _, _, _, err := b.orderBy(sp.orderBy, items, exprs, names, dry); err != nil {
			return nil, nil, err
		}
	}
	if qualify != nil {
		if _, err := b.expr(qualify, dry); err != nil {
			return nil, nil, err
		}
	}
	var keep []int
	if sc == scope(ts) {
		plan = b.lay.flush(plan)
		// Only what the clauses above read passes through the windows.
		keep = b.lay.keep(b.readAboveWindows(sp))
	}
	// The window with the most keys sorts first; one whose keys are a
	// prefix of the window's below it reads that order as it is.
	slices.SortStableFunc(nodes, func(a, b *windowNode) int {
		return len(b.partition) + len(b.order) - len(a.partition) - len(a.order)
	})
	var below []string
	for i, n := range nodes {
		keys := n.sortKeys()
		n.sorted = len(keys) == 0 || (i > 0 && len(keys) <= len(below) && slices.Equal(keys, below[:len(keys)]))
		if !n.sorted {
			below = keys
		}
	}
	ws := &windowScope{scope: sc, cols: map[string]expr.Expr{}}
	// The windows' keys and arguments read the columns below the first
	// window, where every window but the last keeps them; the last passes
	// through only what is read above it, and the calls below it. Output:
	// the columns passed through, then every call, in node order.
	width := plan.schema().NumFields()
	placed := 0 // calls of the windows placed so far
	for i, n := range nodes {
		n.in = plan
		if i == len(nodes)-1 && keep != nil {
			for j := range placed {
				keep = append(keep, width+j)
			}
			n.keep = keep
		}
		placed += len(n.calls)
		plan = n
	}
	out := plan.schema().NumFields() - placed
	for _, n := range nodes {
		for _, c := range n.calls {
			ws.cols[c.text] = expr.Column(out, filterText(c.text), c.typ)
			out++
		}
	}
	return plan, ws, nil
}

// windowSpecText is the text of a call's PARTITION BY and ORDER BY, which
// calls share a windowNode by; it refuses what is not supported.
func (b *builder) windowSpecText(w *ast.WindowFuncExpr) (string, error) {
	sp := &w.Spec
	switch {
	case w.Distinct:
		return "", b.at(ErrUnsupported, w, "DISTINCT in a window function")
	case w.IgnoreNull:
		return "", b.at(ErrUnsupported, w, "IGNORE NULLS")
	case w.FromLast:
		return "", b.at(ErrUnsupported, w, "FROM LAST")
	}
	var parts []string
	if sp.PartitionBy != nil {
		p := make([]string, len(sp.PartitionBy.Items))
		for i, it := range sp.PartitionBy.Items {
			p[i] = restore(it.Expr)
		}
		parts = append(parts, "PARTITION BY "+strings.Join(p, ", "))
	}
	if items, _ := excludeOf(sp.OrderBy); len(items) > 0 {
		o := make([]string, 0, len(items))
		for _, it := range items {
			t := restore(it.Expr)
			if it.Desc {
				t += " DESC"
			}
			o = append(o, t)
		}
		parts = append(parts, "ORDER BY "+strings.Join(o, ", "))
	}
	return strings.Join(parts, " "), nil
}

// newWindowNode plans the partition and order keys of w's window.
func (b *builder) newWindowNode(w *ast.WindowFuncExpr, spec string, sc scope) (*windowNode, error) {
	n := &windowNode{specText: spec}
	sp := &w.Spec
	if sp.PartitionBy != nil {
		for _, it := range sp.PartitionBy.Items {
			e, err := b.expr(it.Expr, sc)
			if err != nil {
				return nil, err
			}
			n.partition = append(n.partition, e)
		}
	}
	if items, _ := excludeOf(sp.OrderBy); len(items) > 0 {
		prevKey := false
		for _, it := range items {
			if c, ok := it.Expr.(*ast.ColumnNameExpr); ok && strings.HasPrefix(c.Name.Name.L, sentinelPrefix) {
				if !prevKey {
					return nil, b.at(ErrInvalid, it, "NULLS FIRST/LAST without an ORDER BY item before it")
				}
				n.orderKeys[len(n.orderKeys)-1].nullsFirst = c.Name.Name.L == nullsFirstSentinel
				prevKey = false
				continue
			}
			prevKey = true
			e, err := b.expr(it.Expr, sc)
			if err != nil {
				return nil, err
			}
			n.order = append(n.order, e)
			n.orderKeys = append(n.orderKeys, sortKey{desc: it.Desc})
		}
	}
	return n, nil
}

// windowCall plans one call of n's window.
func (b *builder) windowCall(w *ast.WindowFuncExpr, n *windowNode, argIndex map[string]int, sc scope) (windowCall, error) {
	name, args := strings.ToLower(w.Name), w.Args
	kind, ok := windowKinds[name]
	if f, wrapped := windowWrapped(w); wrapped { // parse_aggs.go's max(quiver$win_name(args))
		name, args, ok = strings.TrimPrefix(f.FnName.L, winFuncPrefix), f.Args, false
	}
	if !ok {
		switch name {
		case "std", "stddev", "stddev_pop", "variance", "var_pop":
			name = varianceName(name, wordAt(b.sql, w.OriginTextPosition()))
		}
		if _, generic := extraAggs[name]; generic {
			return b.genericWindowCall(w, name, args, n, argIndex, sc)
		}
		return windowCall{}, b.at(ErrUnsupported, w, "window function %s (supported: row_number, rank, dense_rank, percent_rank, cume_dist, ntile, lag, lead, first_value, last_value, first, last, nth_value, sum, count, avg, min, max)", w.Name)
	}
	c := windowCall{kind: kind, arg: -1, fallback: -1, frame: defaultFrame}
	slot := func(e expr.Expr) int { return n.slot(argIndex, e) }
	fr, err := b.windowFrame(w, n, sc, slot)
	if err != nil {
		return c, err
	}
	if fr != nil {
		c.frame = *fr
	}
	nargs := func(lo, hi int) error {
		if len(w.Args) < lo || len(w.Args) > hi {
			want := fmt.Sprintf("%d", lo)
			if hi > lo {
				want = fmt.Sprintf("%d to %d", lo, hi)
			}
			return b.at(ErrInvalid, w, "%s takes %s arguments, not %d", name, want, len(w.Args))
		}
		return nil
	}
	constArg := func(i int, what string, min int64) (int64, error) {
		v, ok := intLiteral(w.Args[i])
		if !ok || v < min {
			return 0, b.at(ErrInvalid, w.Args[i], "%s: the %s must be an integer constant of at least %d", name, what, min)
		}
		return v, nil
	}
	switch kind {
	case winRowNumber, winRank, winDenseRank, winPercentRank, winCumeDist:
		if err := nargs(0, 0); err != nil {
			return c, err
		}
		c.typ = arrow.PrimitiveTypes.Int64
		if kind == winPercentRank || kind == winCumeDist {
			c.typ = arrow.PrimitiveTypes.Float64
		}
		return c, nil
	case winNtile:
		if err := nargs(1, 1); err != nil {
			return c, err
		}
		if c.n, err = constArg(0, "number of buckets", 1); err != nil {
			return c, err
		}
		c.typ = arrow.PrimitiveTypes.Int64
		return c, nil
	}
	if kind == winAggregate && name == "count" && len(w.Args) == 1 {
		if v, ok := w.Args[0].(interface{ GetValue() any }); ok && v.GetValue() != nil {
			c.fn, c.typ = agg.CountStar, arrow.PrimitiveTypes.Int64 // count(*)
			return c, nil
		}
	}
	switch kind {
	case winLag, winLead:
		err = nargs(1, 3)
	case winNthValue:
		err = nargs(2, 2)
	default:
		err = nargs(1, 1)
	}
	if err != nil {
		return c, err
	}
	arg, err := b.expr(w.Args[0], sc)
	if err != nil {
		return c, err
	}
	c.typ = arg.Type()
	switch kind {
	case winLag, winLead:
		c.n = 1
		if len(w.Args) > 1 {
			if c.n, err = constArg(1, "offset", 0); err != nil {
				return c, err
			}
		}
		fb := expr.NullLiteral(arg.Type())
		if len(w.Args) > 2 {
			d, err := b.expr(w.Args[2], sc)
			if err != nil {
				return c, err
			}
			if !arrow.TypeEqual(d.Type(), arg.Type()) {
				if d, err = expr.Cast(d, arg.Type()); err != nil {
					return c, b.typeErr(w.Args[2], err)
				}
			}
			fb = d
		}
		c.fallback = slot(fb)
	case winNthValue:
		if c.n, err = constArg(1, "position", 1); err != nil {
			return c, err
		}
	case winAggregate:
		c.fn = aggFuncs[name]
		if c.typ, err = agg.ResultType(c.fn, arg.Type()); err != nil {
			return c, b.at(ErrInvalid, w, "%s: %v", restore(w), err)
		}
	}
	if kind == winFirstValue || kind == winLastValue || kind == winNthValue || kind == winLag || kind == winLead ||
		(kind == winAggregate && (c.fn == agg.Min || c.fn == agg.Max)) {
		// These take a row's value; the null fallback is what an empty
		// frame or a row past the partition gives.
		if c.fallback < 0 {
			c.fallback = slot(expr.NullLiteral(arg.Type()))
		}
	}
	c.arg = slot(arg)
	return c, nil
}

// windowFrame reads w's frame clause: nil for the default. A RANGE
// offset's bound values are arguments of n (slot).
func (b *builder) windowFrame(w *ast.WindowFuncExpr, n *windowNode, sc scope, slot func(expr.Expr) int) (*frame, error) {
	fc := w.Spec.Frame
	if fc == nil {
		return nil, nil
	}
	f := &frame{}
	_, f.exclude, f.groups = frameSentinels(w.Spec.OrderBy)
	switch {
	case f.groups: // parse_exclude.go's markGroups
	case fc.Type == ast.Rows:
		f.rows = true
	case fc.Type != ast.Ranges:
		return nil, b.at(ErrUnsupported, w, "frame type %v", fc.Type)
	}
	bound := func(fb *ast.FrameBound, start bool) (frameBound, error) {
		switch {
		case fb.Type == ast.CurrentRow:
			return frameBound{kind: boundCurrent}, nil
		case fb.UnBounded && fb.Type == ast.Preceding:
			return frameBound{kind: boundUnboundedPreceding}, nil
		case fb.UnBounded:
			return frameBound{kind: boundUnboundedFollowing}, nil
		}
		if !f.rows && !f.groups {
			return b.rangeOffset(w, fb, n, sc, slot)
		}
		v, ok := intLiteral(fb.Expr)
		if !ok || v < 0 || fb.Unit != ast.TimeUnitInvalid {
			return frameBound{}, b.at(ErrInvalid, w, "frame offset %s: must be a non-negative integer constant", restore(fb))
		}
		if fb.Type == ast.Preceding {
			return frameBound{kind: boundPreceding, n: v}, nil
		}
		return frameBound{kind: boundFollowing, n: v}, nil
	}
	var err error
	if f.start, err = bound(&fc.Extent.Start, true); err != nil {
		return nil, err
	}
	if f.end, err = bound(&fc.Extent.End, false); err != nil {
		return nil, err
	}
	if f.start.kind == boundUnboundedFollowing || f.end.kind == boundUnboundedPreceding || f.start.kind > f.end.kind {
		return nil, b.at(ErrInvalid, w, "frame %s: its start is after its end", restore(fc))
	}
	return f, nil
}

// readAboveWindows is readAbove (build_layout.go) for the clauses above
// the windows: what they read outside the window calls, whose arguments
// and keys the windows compute below.
func (b *builder) readAboveWindows(sp *selectPlan) map[int]use {
	need := map[int]use{}
	grouped := sp.aggregated()
	visit := func(n ast.ExprNode, passable bool) {
		if c, ok := unparen(n).(*ast.ColumnNameExpr); ok && passable && !grouped {
			if i := b.colIndex(c.Name); i >= 0 {
				need[i] |= useStored
			}
			return
		}
		used := map[int]bool{}
		n.Accept(&outsideWindows{columnCollector{b: b, used: used}})
		for i := range used {
			need[i] |= useEngine
		}
	}
	for _, it := range sp.items {
		visit(it.node, true)
	}
	if sp.qualify != nil {
		visit(sp.qualify, false)
	}
	for _, it := range sp.orderBy {
		visit(it.Expr, true)
	}
	return need
}

// outsideWindows collects the columns an AST names outside window calls.
type outsideWindows struct{ columnCollector }

func (v *outsideWindows) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.WindowFuncExpr); ok {
		return n, true
	}
	return v.columnCollector.Enter(n)
}

// resolveNamedWindows replaces OVER w and OVER (w …) with the window w
// of the statement's WINDOW clause names (w's PARTITION BY, w's ORDER BY
// unless the call has its own, the call's frame or else w's), in place,
// and drops the clause.
func (b *builder) resolveNamedWindows(s *ast.SelectStmt) error {
	named := map[string]*ast.WindowSpec{}
	if s.WindowSpecs != nil {
		for i := range s.WindowSpecs {
			sp := &s.WindowSpecs[i]
			if sp.Ref.O != "" {
				return b.at(ErrUnsupported, sp, "a named window defined on another (%s AS (%s …))", sp.Name.O, sp.Ref.O)
			}
			named[sp.Name.L] = sp
		}
	}
	var err error
	v := &namedWindowResolver{resolve: func(w *ast.WindowFuncExpr) {
		sp := &w.Spec
		name := sp.Ref
		if sp.OnlyAlias || sp.Ref.O == "" {
			name = sp.Name
		}
		if name.O == "" || err != nil {
			return
		}
		base, ok := named[name.L]
		if !ok {
			err = b.at(ErrInvalid, w, "window %s is not defined (WINDOW %s AS (…))", name.O, name.O)
			return
		}
		if sp.PartitionBy != nil && sp.Ref.O != "" {
			err = b.at(ErrInvalid, w, "OVER (%s PARTITION BY …): a window that names another takes its PARTITION BY", name.O)
			return
		}
		sp.PartitionBy = base.PartitionBy
		// The call's ORDER BY, or w's; the call's frame and EXCLUDE, or w's.
		items, exclude, groups := frameSentinels(sp.OrderBy) // parse_exclude.go
		baseItems, baseExclude, baseGroups := frameSentinels(base.OrderBy)
		if len(items) == 0 {
			items = baseItems
		}
		if sp.Frame == nil {
			sp.Frame, exclude, groups = base.Frame, baseExclude, baseGroups
		}
		sp.OrderBy = withSentinels(items, exclude, groups)
		sp.Name, sp.Ref, sp.OnlyAlias = ast.CIStr{}, ast.CIStr{}, false
	}}
	for _, f := range s.Fields.Fields {
		if f.Expr != nil {
			f.Expr.Accept(v)
		}
	}
	if s.Having != nil {
		s.Having.Expr.Accept(v)
	}
	if s.OrderBy != nil {
		for _, it := range s.OrderBy.Items {
			it.Expr.Accept(v)
		}
	}
	s.WindowSpecs = nil
	return err
}

// namedWindowResolver calls resolve on each window call of this SELECT.
type namedWindowResolver struct {
	resolve func(*ast.WindowFuncExpr)
}

func (v *namedWindowResolver) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.WindowFuncExpr:
		v.resolve(x)
	case *ast.SubqueryExpr: // its windows are its own
		return n, true
	}
	return n, false
}

func (v *namedWindowResolver) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// rangeOffset plans RANGE n PRECEDING or FOLLOWING: the bound's value on
// each row is the ORDER BY key minus or plus n (plus or minus under DESC),
// computed as the expression would be (a date minus INTERVAL 7 DAY is a
// date), in the key's type.
func (b *builder) rangeOffset(w *ast.WindowFuncExpr, fb *ast.FrameBound, n *windowNode, sc scope, slot func(expr.Expr) int) (frameBound, error) {
	var key *ast.ByItem
	if items, _ := excludeOf(w.Spec.OrderBy); len(items) > 0 {
		for _, it := range items {
			if c, ok := it.Expr.(*ast.ColumnNameExpr); ok && strings.HasPrefix(c.Name.Name.L, sentinelPrefix) {
				continue
			}
			if key != nil {
				key = nil
				break
			}
			key = it
		}
	}
	if key == nil || len(n.order) != 1 {
		return frameBound{}, b.at(ErrInvalid, w, "RANGE %s needs exactly one ORDER BY key", restore(fb))
	}
	if v, ok := fb.Expr.(interface{ GetValue() any }); !ok || v.GetValue() == nil {
		return frameBound{}, b.at(ErrInvalid, w, "frame offset %s: must be a non-negative constant", restore(fb))
	} else if v, ok := intLiteral(fb.Expr); ok && v < 0 {
		return frameBound{}, b.at(ErrInvalid, w, "frame offset %s: must be a non-negative constant", restore(fb))
	}
	minus := (fb.Type == ast.Preceding) != key.Desc
	var bound ast.ExprNode
	if fb.Unit != ast.TimeUnitInvalid {
		fn := "date_add"
		if minus {
			fn = "date_sub"
		}
		bound = &ast.FuncCallExpr{FnName: ast.NewCIStr(fn), Args: []ast.ExprNode{key.Expr, fb.Expr, &ast.TimeUnitExpr{Unit: fb.Unit}}}
	} else {
		op := opcode.Plus
		if minus {
			op = opcode.Minus
		}
		bound = &ast.BinaryOperationExpr{Op: op, L: key.Expr, R: fb.Expr}
	}
	e, err := b.expr(bound, sc)
	if err != nil {
		return frameBound{}, err
	}
	if kt := n.order[0].Type(); !arrow.TypeEqual(e.Type(), kt) {
		if e, err = expr.Cast(e, kt); err != nil {
			return frameBound{}, b.at(ErrInvalid, w, "RANGE %s over ORDER BY %s: %v", restore(fb), restore(key.Expr), err)
		}
	}
	kind := boundFollowing
	if fb.Type == ast.Preceding {
		kind = boundPreceding
	}
	return frameBound{kind: kind, arg: slot(e)}, nil
}
