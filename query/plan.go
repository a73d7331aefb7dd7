package query

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/query/expr"
)

// planNode is one node of a query plan. Plans are trees; open turns one
// into a tree of running operators.
type planNode interface {
	schema() *arrow.Schema
	open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error)
	explain(b *strings.Builder, depth int)
}

func indent(b *strings.Builder, depth int) {
	for range depth {
		b.WriteString("  ")
	}
}

// scanNode reads columns of a cached table.
type scanNode struct {
	table       string
	info        cache.TableInfo
	columns     []int         // table columns decoded, in scan order; empty: count only
	fields      []arrow.Field // the table's fields of those columns, as stored
	pushed      cache.Predicate
	pushedText  string
	rows        []cache.Predicate // the row filter: conjuncts of WHERE the scan evaluates
	rowsText    string
	prune       *topKPrune       // skip batches a top-k sort cannot use (topk_prune.go)
	filters     []*runtimeFilter // joins' build-side key ranges (runtime_filter.go)
	estRows     float64          // the join planner's estimate of the rows out (0: none)
	concurrency int
	onDone      func(cache.ScanMetrics)

	// Filled by Explain: what pruning does with the pushed predicate.
	batches, skipped int
	explained        bool
	analyzed         bool // EXPLAIN ANALYZE ran it: runtime filters count what they skipped
}

func (n *scanNode) schema() *arrow.Schema { return arrow.NewSchema(n.fields, nil) }

// filterOnlyColumns are the table columns only the row filter reads, in
// table order: the scan decodes them and returns none of them.
func (n *scanNode) filterOnlyColumns() []string {
	var cols []int
	for _, p := range n.rows {
		c, _ := predColumn(p)
		if !slices.Contains(n.columns, c) && !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	slices.Sort(cols)
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = n.info.Schema.Field(c).Name
	}
	return names
}

// options are the cache.ScanOptions of the scan.
func (n *scanNode) options(rt *runtime) cache.ScanOptions {
	o := cache.ScanOptions{Columns: n.columns, Filter: n.pushed, Rows: n.rows, Concurrency: n.concurrency}
	if keys := keyFilters(n.filters); len(keys) > 0 {
		o.Rows = slices.Concat(n.rows, keys)
	}
	if n.prune != nil && rt.topK != nil {
		o.Skip = rt.topK.skip
	}
	o.Skip = scanSkip(n.filters, o.Skip)
	return o
}

func (n *scanNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	if n.noTable() {
		return &oneRowOp{onDone: n.onDone}, nil
	}
	return openScan(ctx, rt, c, n)
}

func (n *scanNode) explain(b *strings.Builder, depth int) {
	indent(b, depth)
	if n.noTable() {
		b.WriteString("One row (no FROM)\n")
		return
	}
	names := make([]string, len(n.fields))
	for i, f := range n.fields {
		names[i] = f.Name
	}
	filterOnly := n.filterOnlyColumns()
	fmt.Fprintf(b, "Scan %s: decodes %d of %d columns", n.table, len(n.columns)+len(filterOnly), n.info.Schema.NumFields())
	switch {
	case len(n.columns) > 0:
		fmt.Fprintf(b, " [%s]", strings.Join(names, ", "))
	case len(filterOnly) == 0:
		b.WriteString(" (row counts only)")
	}
	if len(filterOnly) > 0 {
		fmt.Fprintf(b, ", [%s] only to filter rows", strings.Join(filterOnly, ", "))
	}
	if n.rows != nil {
		fmt.Fprintf(b, "; keeps rows where %s", n.rowsText)
	}
	switch {
	case n.pushed != nil && n.rows != nil:
		fmt.Fprintf(b, "; pruning on that and %s", n.pushedText)
	case n.pushed != nil:
		fmt.Fprintf(b, "; pruning on %s", n.pushedText)
	case n.rows != nil:
		b.WriteString("; pruning on that")
	}
	if n.prune != nil {
		fmt.Fprintf(b, "; skips batches past the top-k's %s", n.info.Schema.Field(n.prune.col).Name)
	}
	if n.explained {
		fmt.Fprintf(b, "; %d batches, pruning skips %d", n.batches, n.skipped)
	}
	b.WriteString(runtimeFilterText(n.filters, n.analyzed))
	if n.estRows > 0 {
		fmt.Fprintf(b, " (~%.0f rows)", n.estRows)
	}
	b.WriteString("\n")
}

// filterNode keeps rows where pred is TRUE, and of the columns only those
// at positions keep (all when keep is nil): a column only the predicate
// reads is not gathered.
type filterNode struct {
	in   planNode
	pred expr.Expr
	what string // "Filter" or "Having"
	keep []int
}

func (n *filterNode) schema() *arrow.Schema {
	in := n.in.schema()
	if n.keep == nil {
		return in
	}
	fields := make([]arrow.Field, len(n.keep))
	for i, p := range n.keep {
		fields[i] = in.Field(p)
	}
	return arrow.NewSchema(fields, nil)
}

func (n *filterNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	in, err := n.in.open(ctx, rt, c)
	if err != nil {
		return nil, err
	}
	return &filterOp{rt: rt, in: in, pred: n.pred, conj: splitConjuncts(n.pred), keep: n.keep, schema: n.schema()}, nil
}

func (n *filterNode) explain(b *strings.Builder, depth int) {
	indent(b, depth)
	fmt.Fprintf(b, "%s %s", n.what, n.pred)
	if n.keep != nil {
		out := n.schema()
		names := make([]string, out.NumFields())
		for i, f := range out.Fields() {
			names[i] = f.Name
		}
		fmt.Fprintf(b, "; passes on [%s]", strings.Join(names, ", "))
	}
	b.WriteString("\n")
	n.in.explain(b, depth+1)
}

// projectNode computes exprs, named names. A column passed through keeps
// its input field's type and nullability (a NOT NULL column of the table
// stays NOT NULL); anything computed is nullable.
type projectNode struct {
	in    planNode
	exprs []expr.Expr
	names []string
}

func (n *projectNode) schema() *arrow.Schema {
	in := n.in.schema()
	fields := make([]arrow.Field, len(n.exprs))
	for i, e := range n.exprs {
		fields[i] = arrow.Field{Name: n.names[i], Type: e.Type(), Nullable: nullable(e, in)}
	}
	return arrow.NewSchema(fields, nil)
}

func (n *projectNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	in, err := n.in.open(ctx, rt, c)
	if err != nil {
		return nil, err
	}
	return &projectOp{rt: rt, in: in, exprs: n.exprs, schema: n.schema(), left: -1}, nil
}

func (n *projectNode) explain(b *strings.Builder, depth int) {
	indent(b, depth)
	parts := make([]string, len(n.exprs))
	for i, e := range n.exprs {
		parts[i] = e.String()
		if parts[i] != n.names[i] {
			parts[i] += " AS " + n.names[i]
		}
	}
	fmt.Fprintf(b, "Project %s\n", strings.Join(parts, ", "))
	n.in.explain(b, depth+1)
}

// aggCall is one aggregate of an aggregateNode.
type aggCall struct {
	fn   agg.Func
	arg  int    // index into aggregateNode.args; -1 for count(*)
	by   int    // arg_min/arg_max: the index of the argument ordered by
	text string // as written, for EXPLAIN and matching
	typ  arrow.DataType
	// filter is 1 + the index of the FILTER (WHERE …) condition's
	// argument; 0 without one.
	filter int
	sep    string         // string_agg's separator
	order  []agg.OrderKey // string_agg's ORDER BY
	q      float64        // the quantiles' fraction
	// decode: the list or struct type min, max, first, last or
	// any_value of one returns, turned back from the key the aggregate
	// picks (build_nestedkey.go); nil for every other call.
	decode arrow.DataType
}

// aggregateNode groups by keys and computes aggs; its output is the keys
// then the aggregates.
type aggregateNode struct {
	in       planNode
	keys     []expr.Expr
	keyNames []string
	args     []expr.Expr
	aggs     []aggCall
	dense    *agg.DenseRange // the one key's range, to group by an array (plan_densegroup.go)
	exchange bool            // many groups: through the hash exchange (plan_exchange.go)
	// groups the statistics estimate (0: unknown), for the exchange and
	// the fanout of a spill through the shuffle (op_aggshuffle.go).
	groups int64
	// positions: first or last reads the rows' positions, an argument
	// after args the operator makes per batch (rowPositions).
	positions bool
}

// byPosition is aggCall.by of first and last: the rows' positions.
const byPosition = -2

func (n *aggregateNode) schema() *arrow.Schema {
	in := n.in.schema()
	fields := make([]arrow.Field, 0, len(n.keys)+len(n.aggs))
	for i, k := range n.keys {
		// A key column of a NOT NULL column has no NULL group.
		fields = append(fields, arrow.Field{Name: n.keyNames[i], Type: k.Type(), Nullable: nullable(k, in)})
	}
	for _, a := range n.aggs {
		fields = append(fields, arrow.Field{Name: a.text, Type: a.typ, Nullable: true})
	}
	return arrow.NewSchema(fields, nil)
}

// countOnly reports a global aggregate of count(*) alone.
func (n *aggregateNode) countOnly() bool {
	if len(n.keys) > 0 {
		return false
	}
	for _, a := range n.aggs {
		if a.fn != agg.CountStar || a.filter > 0 {
			return false
		}
	}
	return true
}

// serial is the first aggregate that runs on one aggregator and does not
// spill (agg.Serial: string_agg, the quantiles), or "".
func (n *aggregateNode) serial() string {
	for _, a := range n.aggs {
		if agg.Serial(a.fn) {
			return a.text
		}
	}
	return ""
}

func (n *aggregateNode) keyTypes() []arrow.DataType {
	ts := make([]arrow.DataType, len(n.keys))
	for i, k := range n.keys {
		ts[i] = k.Type()
	}
	return ts
}

func (n *aggregateNode) argTypes() []arrow.DataType {
	ts := make([]arrow.DataType, len(n.args))
	for i, a := range n.args {
		ts[i] = a.Type()
	}
	if n.positions {
		ts = append(ts, arrow.PrimitiveTypes.Int64)
	}
	return ts
}

func (n *aggregateNode) specs() []agg.Spec {
	specs := make([]agg.Spec, len(n.aggs))
	for i, a := range n.aggs {
		by := a.by
		if by == byPosition {
			by = len(n.args)
		}
		specs[i] = agg.Spec{Func: a.fn, Arg: max(a.arg, 0), By: by, Filter: a.filter, Sep: a.sep, Order: a.order, Q: a.q}
	}
	return specs
}

func (n *aggregateNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	in, err := n.in.open(ctx, rt, c)
	if err != nil {
		return nil, err
	}
	return &aggregateOp{rt: rt, in: in, n: n, schema: n.schema()}, nil
}

func (n *aggregateNode) explain(b *strings.Builder, depth int) {
	indent(b, depth)
	keys := make([]string, len(n.keys))
	for i, k := range n.keys {
		keys[i] = k.String()
	}
	if len(n.keys) == 1 && isDictKey(n.keys[0]) {
		keys[0] += " (dictionary codes)" // build_dictkey.go
	}
	aggs := make([]string, len(n.aggs))
	for i, a := range n.aggs {
		aggs[i] = a.text
	}
	if n.countOnly() {
		fmt.Fprintf(b, "Aggregate %s (from row counts)\n", strings.Join(aggs, ", "))
	} else if len(keys) == 0 {
		fmt.Fprintf(b, "Aggregate %s\n", strings.Join(aggs, ", "))
	} else {
		fmt.Fprintf(b, "HashAggregate by %s: %s", strings.Join(keys, ", "), strings.Join(aggs, ", "))
		if n.dense != nil {
			fmt.Fprintf(b, " (dense keys %d…%d)", n.dense.Lo, n.dense.Hi)
		}
		if n.exchange {
			b.WriteString(" (hash exchange: many groups)")
		}
		b.WriteString("\n")
	}
	n.in.explain(b, depth+1)
}

// sortNode orders by keys (columns of its input), keeping the first limit
// rows when limit >= 0.
type sortNode struct {
	in      planNode
	keys    []sortKey
	keyText []string
	limit   int64
	prune   *topKPrune // the scan skips what the top-k cannot use (topk_prune.go)
}

func (n *sortNode) schema() *arrow.Schema { return n.in.schema() }

func (n *sortNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	var link *topKLink
	if n.prune != nil {
		link = &topKLink{prune: *n.prune}
		rt.topK = link // for the scan below (topk_prune.go)
	}
	in, err := n.in.open(ctx, rt, c)
	if err != nil {
		return nil, err
	}
	op, err := newExtSortOp(rt, in, n.keys, n.limit, n.schema(), rt.sortWorkers) // op_extsort.go
	if err == nil && link != nil {
		link.sorter.Store(op.s)
	}
	return op, err
}

func (n *sortNode) explain(b *strings.Builder, depth int) {
	indent(b, depth)
	if n.limit >= 0 {
		fmt.Fprintf(b, "TopK %d by %s\n", n.limit, strings.Join(n.keyText, ", "))
	} else {
		fmt.Fprintf(b, "Sort by %s\n", strings.Join(n.keyText, ", "))
	}
	n.in.explain(b, depth+1)
}

// limitNode skips offset rows and passes limit (negative: all).
type limitNode struct {
	in            planNode
	limit, offset int64
}

func (n *limitNode) schema() *arrow.Schema { return n.in.schema() }

func (n *limitNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	in, err := n.in.open(ctx, rt, c)
	if err != nil {
		return nil, err
	}
	if p, ok := in.(*projectOp); ok && n.limit >= 0 {
		// Compute only the rows the limit passes on: a constant or a
		// costly expression is evaluated for them alone.
		p.left = n.limit + n.offset
	}
	return &limitOp{in: in, limit: n.limit, offset: n.offset}, nil
}

func (n *limitNode) explain(b *strings.Builder, depth int) {
	indent(b, depth)
	if n.limit >= 0 {
		fmt.Fprintf(b, "Limit %d", n.limit)
	} else {
		b.WriteString("Limit all")
	}
	if n.offset > 0 {
		fmt.Fprintf(b, " offset %d", n.offset)
	}
	b.WriteString("\n")
	n.in.explain(b, depth+1)
}
