package query

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/query/expr"
)

// builder turns one SELECT into a plan.
type builder struct {
	ctx   context.Context // nil: never cancelled (errors made before planning)
	ticks int             // expression nodes built, for tick
	sql   string
	c     *cache.Cache
	opts  Options
	// otherStats caches the statistics of tables no relation of this
	// SELECT names (a subquery's, planned by its own builder), for the
	// runtime filters that reach their scans (from_estimate.go).
	otherStats map[string]*cache.TableStats

	table string
	alias string
	info  cache.TableInfo
	scan  *scanNode
	lay   *layout // the batches below the projection or aggregate

	params  []any // bound ? values, nil when none were bound
	nparams int   // ? placeholders in the statement
	prepare bool  // planning before binding: every ? is NULL

	rows     []cache.Predicate // the conjuncts of WHERE the scan evaluates (build_rowfilter.go)
	rowsText string

	// allowNested: a list or struct column resolves (build_nested.go).
	allowNested bool

	// The relational planner (from_*.go), for a query that joins.
	rels []*relation // the relations of FROM and of WHERE's subqueries
	// starExcludes: the columns each * of the SELECT list excludes
	// (parse_star.go)
	starExcludes map[*ast.SelectField][]string
	joined       *part        // their join: the "table" the rest of the query reads
	preset       *relation    // a table the planner scans through this builder
	ctes         []namedQuery // WITH names in scope
	ids          *int         // numbers the planner's relations, shared by a statement's builders
	scalars      *scalarMemo  // uncorrelated scalar subqueries' values, shared likewise (from_subquery.go)
	// probing: binding a subquery's FROM only to learn its names
	// (freeRefs), on copies of the ASTs it plans.
	probing bool
	depth   int         // of subqueries around this builder's query (from_bind.go)
	using   []usingPair // the columns JOIN … USING merged
	// whereTerms are WHERE's conjuncts, for narrowing a subquery to the
	// rows that use it (magicSet).
	whereTerms []ast.ExprNode
	// trace collects the logical plans for EXPLAIN FORMAT = 'logical'
	// (logical_trace.go); nil else. A statement's builders share it.
	trace *logicalTrace
}

// selectItem is one output column of the SELECT list.
type selectItem struct {
	node  ast.ExprNode
	name  string
	alias string
}

func (b *builder) buildSelect(s *ast.SelectStmt) (planNode, error) {
	if hasGroupingSets(s) { // ROLLUP, CUBE, GROUPING SETS: build_groupingsets.go
		return b.buildGroupingSets(s)
	}
	if err := b.resolveNamedWindows(s); err != nil { // plan_window.go
		return nil, err
	}
	if err := b.checkSupported(s); err != nil {
		return nil, err
	}
	if s.Fields != nil { // * EXCLUDE (…): parse_star.go
		kept, excl, err := starExcludes(s.Fields.Fields)
		if err != nil {
			return nil, err
		}
		s.Fields.Fields, b.starExcludes = kept, excl
	}
	if s.With != nil {
		if err := b.bindWith(s.With); err != nil {
			return nil, err
		}
		b.countWithUses(s.With, s) // cte_held.go
	}
	b.rewriteStructFields(s)                  // build_nested.go
	fixConcatPrecedence(s)                    // build_concat.go
	markPipes(s)                              // build_concat.go
	if err := b.asAggregates(s); err != nil { // build_aggfuncs.go
		return nil, err
	}
	if err := b.wrapSetOpSubqueries(s); err != nil { // (SELECT … UNION …): rule_setop_subquery.go
		return nil, err
	}
	if err := b.rewriteQuantified(s); err != nil { // x op ANY/ALL (…): rule_quantified.go
		return nil, err
	}
	if err := b.inlineScalars(s); err != nil { // from_subquery.go
		return nil, err
	}
	// A HAVING written QUALIFY (parse_qualify.go) filters after the
	// window functions, not after GROUP BY.
	qualify := s.Having != nil && isQualify(b.sql, s.Having.Expr)
	var where ast.ExprNode
	var from *logicalPlan
	join := b.joinsFrom(s)
	switch {
	case b.preset != nil: // a table of a join (from_join.go)
		b.table, b.alias, b.info = b.preset.table, b.preset.name, b.preset.info
	case s.From == nil:
		b.info = noTableInfo // one row of no columns (op_values.go)
	case join:
		var err error
		if from, where, err = b.planFrom(s); err != nil { // from_plan.go
			return nil, err
		}
	default:
		if err := b.resolveTable(s); err != nil {
			return nil, err
		}
	}
	// The operators above FROM, as logical operators (logical_select.go),
	// rewritten by their rules; what follows plans them.
	sp, err := b.bindSelect(s, from, qualify)
	if err != nil {
		return nil, err
	}
	if err := b.optimizeSelect(sp); err != nil {
		return nil, err
	}
	items := sp.items
	var plan planNode
	if join {
		plan = b.joined.plan
	} else {
		where = b.splitWhere(s)
		b.planScan(sp, where)
		if len(b.rows) > 0 && !b.scan.gatherable() {
			b.rows, b.rowsText, where = nil, "", s.Where
			b.planScan(sp, where)
		}
		plan = b.scan
		b.traceScan(sp, where) // logical_trace.go
	}

	// Columns reach the operators in their stored types. Each step
	// converts what its expressions read (b.lay.flush): the predicate's
	// columns below the filter, the rest above it, once the filter has cut
	// the rows down; the filter gathers only what is read above it.
	ts := &tableScope{}
	if where != nil {
		// The row filter's conjuncts prune too (cache.ScanOptions.Rows);
		// pruning uses what it can of the rest.
		if b.scan != nil && !b.opts.NoPruning {
			if p, text := b.pushdown(where); p != nil {
				b.scan.pushed, b.scan.pushedText = p, text
			}
		}
		pred, err := b.expr(where, ts)
		if err != nil {
			return nil, err
		}
		if !arrow.TypeEqual(pred.Type(), arrow.FixedWidthTypes.Boolean) && pred.Type().ID() != arrow.NULL {
			return nil, b.at(ErrInvalid, where, "WHERE %s is %s, not boolean", restore(where), pred.Type())
		}
		plan = b.lay.flush(plan)
		keep := b.lay.keep(b.readAbove(sp))
		plan = &filterNode{in: plan, pred: pred, what: "Filter", keep: keep}
	}

	// After WHERE: expressions see the table's columns (ts), or, with
	// GROUP BY or aggregates, the keys and aggregates (as).
	var sc scope = ts
	if sp.aggregated() {
		an, as, err := b.buildAggregate(sp, ts, plan)
		if err != nil {
			return nil, err
		}
		plan, sc = an, as
		if sp.having != nil {
			pred, err := b.expr(sp.having, sc)
			if err != nil {
				return nil, err
			}
			plan = &filterNode{in: plan, pred: pred, what: "Having"}
		}
	} else if sp.having != nil {
		return nil, b.at(ErrInvalid, sp.having, "HAVING without GROUP BY or an aggregate")
	}

	// Window calls become columns of windowNodes under the projection
	// (plan_window.go).
	windowed := false
	if len(sp.windows) > 0 {
		if plan, sc, err = b.planWindows(sp, plan, sc, ts); err != nil {
			return nil, err
		}
		windowed = true
	}
	if qualify := sp.qualify; qualify != nil {
		pred, err := b.expr(qualify, sc)
		if err != nil {
			return nil, err
		}
		if !arrow.TypeEqual(pred.Type(), arrow.FixedWidthTypes.Boolean) && pred.Type().ID() != arrow.NULL {
			return nil, b.at(ErrInvalid, qualify, "QUALIFY %s is %s, not boolean", restore(qualify), pred.Type())
		}
		if sc == scope(ts) {
			plan = b.lay.flush(plan)
		}
		plan = &filterNode{in: plan, pred: pred, what: "Qualify"}
	}

	// The projection computes the SELECT list, then any ORDER BY key that
	// is not one of its columns (hidden, dropped after the sort). A bare
	// column comes out as it is stored (b.output).
	exprs := make([]expr.Expr, len(items))
	names := make([]string, len(items))
	plan, unnestAt, unnested, err := b.planUnnest(items, plan, sc == scope(ts), sc) // build_nested.go
	if err != nil {
		return nil, err
	}
	for i, it := range items {
		if i == unnestAt {
			exprs[i], names[i] = unnested, it.name
			continue
		}
		if exprs[i], err = b.output(it.node, sc); err != nil {
			return nil, err
		}
		names[i] = it.name
	}
	limit, offset, err := b.limit(sp.limit)
	if err != nil {
		return nil, err
	}
	var keys []sortKey
	var keyText []string
	if sp.orderBy != nil {
		keys, keyText, exprs, names, err = b.orderBy(sp.orderBy, items, exprs, names, sc)
		if err != nil {
			return nil, err
		}
	}
	var consts []expr.Expr // by SELECT item: a constant computed after the sort
	if keys != nil {
		exprs, consts = deferConstants(exprs, len(items))
	}
	if sc == scope(ts) {
		plan = b.lay.flush(plan)
	}
	if unnestAt >= 0 {
		unnestReads(plan, exprs) // build_nested.go
	}
	plan = &projectNode{in: plan, exprs: exprs, names: names}
	if keys != nil {
		topK := int64(-1)
		if limit >= 0 {
			topK = limit + offset
		}
		sn := &sortNode{in: plan, keys: keys, keyText: keyText, limit: topK}
		if b.scan != nil && !windowed && unnestAt < 0 { // a window needs every row; an unnest's element is no table column
			b.planTopKPrune(sp, sn, exprs)
		}
		plan = sn
	}
	if len(exprs) > len(items) || consts != nil { // drop the hidden sort keys
		final := make([]expr.Expr, len(items))
		ps := plan.schema()
		for i := range items {
			final[i] = expr.Column(i, names[i], ps.Field(i).Type)
			if consts != nil && consts[i] != nil {
				final[i] = consts[i]
			}
		}
		plan = &projectNode{in: plan, exprs: final, names: names[:len(items)]}
	}
	if limit >= 0 || offset > 0 {
		plan = &limitNode{in: plan, limit: limit, offset: offset}
	}
	return plan, nil
}

// checkSupported refuses, by name and position, what the engine does not do.
func (b *builder) checkSupported(s *ast.SelectStmt) error {
	switch {
	case s.Kind != ast.SelectStmtKindSelect:
		return b.at(ErrUnsupported, s, "%v statements", s.Kind)
	case s.Distinct && (s.GroupBy != nil || hasAggregate(s)):
		return b.at(ErrUnsupported, s, "SELECT DISTINCT with GROUP BY or aggregates")
	case s.LockInfo != nil && s.LockInfo.LockType != ast.SelectLockNone:
		return b.at(ErrUnsupported, s, "locking reads")
	case s.SelectIntoOpt != nil:
		return b.at(ErrUnsupported, s, "SELECT … INTO")
	}
	return nil
}

// resolveTable finds the FROM table in the cache: one table, optionally
// qualified by schema main, with an optional alias (names.go).
func (b *builder) resolveTable(s *ast.SelectStmt) error {
	refs := s.From.TableRefs
	if refs.Right != nil {
		return b.at(ErrUnsupported, refs.Right, "joins (FROM names one table)")
	}
	src, ok := refs.Left.(*ast.TableSource)
	if !ok {
		if j, ok := refs.Left.(*ast.Join); ok && j.Right != nil {
			return b.at(ErrUnsupported, j.Right, "joins (FROM names one table)")
		}
		return b.at(ErrUnsupported, refs.Left, "FROM %s", restore(refs.Left))
	}
	tn, ok := src.Source.(*ast.TableName)
	if !ok {
		return b.at(ErrUnsupported, src.Source, "subqueries in FROM")
	}
	name, err := b.lookupTable(tn) // names.go
	if err != nil {
		return err
	}
	b.table, b.alias = name, src.AsName.O
	b.info, err = b.c.Info(name)
	if errors.Is(err, cache.ErrNotFound) {
		return b.at(ErrNoTable, tn, "%q", tn.Name.O)
	}
	return err
}

// selectItems expands the SELECT list (* becomes every column).
func (b *builder) selectItems(s *ast.SelectStmt) ([]selectItem, error) {
	var items []selectItem
	for _, f := range s.Fields.Fields {
		if f.WildCard != nil {
			if b.scanNoTable() {
				return nil, b.at(ErrInvalid, f, "SELECT * without FROM")
			}
			var more []selectItem
			if b.joined != nil {
				var err error
				if more, err = b.joinedStar(f); err != nil {
					return nil, err
				}
			} else {
				if f.WildCard.Table.O != "" && !b.matchesTable(f.WildCard.Table.O) {
					return nil, b.at(ErrInvalid, f, "%s.* names no table of the FROM clause", f.WildCard.Table.O)
				}
				for _, fld := range b.info.Schema.Fields() {
					more = append(more, selectItem{node: &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(fld.Name)}}, name: fld.Name})
				}
			}
			if names := b.starExcludes[f]; names != nil {
				var err error
				if more, err = excludeItems(more, names, f); err != nil {
					return nil, b.at(ErrInvalid, f, "%v", err)
				}
			}
			items = append(items, more...)
			continue
		}
		items = append(items, selectItem{node: f.Expr, alias: f.AsName.O, name: fieldName(f)})
	}
	return items, nil
}

// fieldName is the name of a SELECT item's column: its alias, the
// column it names, or the text of its expression.
func fieldName(f *ast.SelectField) string {
	switch {
	case f.AsName.O != "":
		return f.AsName.O
	case isColumn(f.Expr):
		return f.Expr.(*ast.ColumnNameExpr).Name.Name.O
	}
	// The parser writes count(*) back as count(1). A long expression is
	// named by its start (clipName).
	return clipName(pipesText(strings.ReplaceAll(filterText(restore(f.Expr)), "count(1)", "count(*)")))
}

func isColumn(n ast.ExprNode) bool {
	_, ok := n.(*ast.ColumnNameExpr)
	return ok
}

// matchesTable reports whether a qualifier names the FROM table (by its
// alias when it has one).
func (b *builder) matchesTable(q string) bool {
	if b.alias != "" {
		return strings.EqualFold(q, b.alias)
	}
	return strings.EqualFold(q, b.table)
}

// planScan makes the scan node: the table columns any part of the query
// names, in table order.
func (b *builder) planScan(sp *selectPlan, where ast.ExprNode) {
	used := map[int]bool{}
	collect := func(n ast.Node) {
		if n == nil {
			return
		}
		n.Accept(&columnCollector{b: b, used: used})
	}
	for _, it := range sp.items {
		collect(it.node)
	}
	collect(where)
	for _, it := range sp.groupBy {
		collect(it.Expr)
	}
	collect(sp.having)
	collect(sp.qualify)
	for _, it := range sp.orderBy {
		collect(it.Expr)
	}
	cols := make([]int, 0, len(used))
	for c := range used {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		// The table's field as it is: type, nullability and all. Types
		// with no engine type are refused when the query names them.
		fields[i] = b.info.Schema.Field(c)
	}
	b.scan = &scanNode{table: b.table, info: b.info, columns: cols, fields: fields, concurrency: b.opts.ScanConcurrency,
		rows: b.rows, rowsText: b.rowsText}
	b.lay = newLayout(b.info.Schema, cols)
}

// colIndex finds the column a name refers to: in the joined relations
// when the query joins (from_*.go), else in the table by name; -1 when
// none, -2 when ambiguous.
func (b *builder) colIndex(cn *ast.ColumnName) int {
	if b.joined == nil {
		return b.columnIndex(cn.Name.O)
	}
	ref, err := b.resolveName(cn)
	if err != nil {
		return -1
	}
	return b.joined.find(ref)
}

// joinedColumn resolves a column reference to a column of the joined
// relations.
func (b *builder) joinedColumn(n *ast.ColumnNameExpr) (int, error) {
	ref, err := b.resolve(n)
	if err != nil {
		return 0, err
	}
	i := b.joined.find(ref)
	if i < 0 {
		return 0, b.at(ErrExec, n, "planner: column %s is not in the joined batches", restore(n))
	}
	if err := b.checkReadable(n, n.Name.Name.O, b.info.Schema.Field(i).Type); err != nil {
		return 0, err
	}
	return i, nil
}

// columnIndex finds a column of the table by name: exactly, else
// case-insensitively when unambiguous.
func (b *builder) columnIndex(name string) int {
	fields := b.info.Schema.Fields()
	for i, f := range fields {
		if f.Name == name {
			return i
		}
	}
	found := -1
	for i, f := range fields {
		if strings.EqualFold(f.Name, name) {
			if found >= 0 {
				return -2
			}
			found = i
		}
	}
	return found
}

// columnCollector records the table columns an AST names.
type columnCollector struct {
	b    *builder
	used map[int]bool
}

func (v *columnCollector) Enter(n ast.Node) (ast.Node, bool) {
	if c, ok := n.(*ast.ColumnNameExpr); ok {
		if i := v.b.colIndex(c.Name); i >= 0 {
			v.used[i] = true
		}
	}
	return n, false
}

func (v *columnCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// tableScope resolves names to the table's columns, as the layout below
// the projection or aggregate holds them.
type tableScope struct{}

// tableColumn resolves a column reference to a table column.
func (b *builder) tableColumn(n *ast.ColumnNameExpr) (int, error) {
	cn := n.Name
	if b.joined != nil {
		return b.joinedColumn(n)
	}
	if !b.qualifies(cn) {
		return 0, b.at(ErrInvalid, n, "column %s: no such table in FROM", restore(n))
	}
	if strings.HasPrefix(cn.Name.L, sentinelPrefix) {
		return 0, b.at(ErrInvalid, n, "NULLS FIRST/LAST only follows an ORDER BY item")
	}
	i := b.columnIndex(cn.Name.O)
	switch i {
	case -1:
		if b.scanNoTable() {
			return 0, b.at(ErrInvalid, n, "no column %q: the query has no FROM", cn.Name.O)
		}
		return 0, b.at(ErrInvalid, n, "no column %q in table %s (columns: %s)", cn.Name.O, b.table, columnList(b.info.Schema))
	case -2:
		return 0, b.at(ErrInvalid, n, "column %q is ambiguous in table %s (quote it to match case)", cn.Name.O, b.table)
	}
	if err := b.checkReadable(n, cn.Name.O, b.info.Schema.Field(i).Type); err != nil {
		return 0, err
	}
	return i, nil
}

// checkReadable refuses a column whose type has no engine type, but a
// list or struct where the planner reads it as one (build_nested.go).
func (b *builder) checkReadable(n ast.Node, name string, t arrow.DataType) error {
	switch {
	case hasEngineType(t):
		return nil
	case expr.IsNested(t) && b.allowNested:
		return nil
	case expr.IsNested(t):
		return b.nestedRefusal(n, name, t)
	}
	return b.at(ErrUnsupported, n, "column %s of type %s", name, t)
}

func hasEngineType(t arrow.DataType) bool {
	_, ok := expr.EngineType(t)
	return ok
}

// column reads a table column in its engine type, for an expression.
func (tableScope) column(b *builder, n *ast.ColumnNameExpr) (expr.Expr, error) {
	i, err := b.tableColumn(n)
	if err != nil {
		return nil, err
	}
	if t := b.info.Schema.Field(i).Type; expr.IsNested(t) { // only stored reads take one
		return nil, b.nestedRefusal(n, n.Name.Name.O, t)
	}
	return b.lay.engineRef(i), nil
}

// stored passes a table column through as it is stored.
func (tableScope) stored(b *builder, n *ast.ColumnNameExpr) (expr.Expr, error) {
	i, err := b.tableColumn(n)
	if err != nil {
		return nil, err
	}
	return b.lay.storedRef(i), nil
}

func (tableScope) aggregate(b *builder, n *ast.AggregateFuncExpr) (expr.Expr, error) {
	return nil, b.at(ErrInvalid, n, "aggregate %s not allowed here (WHERE, GROUP BY or inside another aggregate)", restore(n))
}

func (tableScope) whole(*builder, ast.ExprNode) (expr.Expr, error) { return nil, nil }

func columnList(s *arrow.Schema) string {
	names := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// hasAggregate reports an aggregate call in the SELECT list, HAVING or
// ORDER BY.
func hasAggregate(s *ast.SelectStmt) bool {
	f := &aggFinder{}
	for _, fld := range s.Fields.Fields {
		if fld.Expr != nil {
			fld.Expr.Accept(f)
		}
	}
	if s.Having != nil {
		s.Having.Expr.Accept(f)
	}
	if s.OrderBy != nil {
		for _, it := range s.OrderBy.Items {
			it.Expr.Accept(f)
		}
	}
	return len(f.found) > 0
}

// aggFinder collects aggregate calls, outermost only.
type aggFinder struct{ found []*ast.AggregateFuncExpr }

func (f *aggFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.AggregateFuncExpr:
		f.found = append(f.found, x)
		return n, true
	case *ast.SubqueryExpr: // its aggregates are its own
		return n, true
	}
	return n, false
}

func (f *aggFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// buildAggregate plans GROUP BY: keys over the table, the aggregate calls
// of SELECT, HAVING and ORDER BY, and the scope that resolves those
// clauses against the aggregate's output.
func (b *builder) buildAggregate(sp *selectPlan, ts *tableScope, in planNode) (planNode, *aggScope, error) {
	items := sp.items
	n := &aggregateNode{}
	as := &aggScope{keyIndex: map[string]int{}, aggIndex: map[string]int{}}
	for _, it := range sp.groupBy {
		node := it.Expr
		// GROUP BY 2 and GROUP BY alias name SELECT items.
		if p, ok := node.(*ast.PositionExpr); ok {
			if p.N < 1 || p.N > len(items) {
				return nil, nil, b.at(ErrInvalid, it, "GROUP BY %d: the SELECT list has %d items", p.N, len(items))
			}
			node = items[p.N-1].node
		} else if c, ok := node.(*ast.ColumnNameExpr); ok && b.colIndex(c.Name) == -1 {
			for _, item := range items {
				if item.alias != "" && strings.EqualFold(item.alias, c.Name.Name.O) {
					node = item.node
				}
			}
		}
		k, nested, isNested, err := b.nestedKeyOf(node, ts) // a whole list or struct: its key (build_nestedkey.go)
		if err != nil {
			return nil, nil, err
		}
		if isNested {
			if _, err := expr.NestedValue(k, nested); err != nil {
				return nil, nil, b.typeErr(it, err)
			}
		} else if dk := b.groupKeyByCodes(node, ts); dk != nil {
			k = dk // a dictionary column, grouped by its codes (build_dictkey.go)
		} else if k, err = b.expr(node, ts); err != nil {
			return nil, nil, err
		}
		k = nullKey(k) // build_nullkey.go
		if k.Type().ID() == arrow.INTERVAL_MONTH_DAY_NANO {
			// equal intervals ('1 day', '24 hours') group together
			if k, err = expr.NormalizedIntervals(k); err != nil {
				return nil, nil, b.typeErr(it, err)
			}
		}
		text := restore(node)
		as.keySizes.max = max(as.keySizes.max, len(text))
		if _, dup := as.keyIndex[text]; dup {
			continue
		}
		as.keyIndex[text] = len(n.keys)
		if c, ok := node.(*ast.ColumnNameExpr); ok {
			as.keyIndex[strings.ToLower(c.Name.Name.O)] = len(n.keys)
		}
		n.keys = append(n.keys, k)
		name := text
		if c, ok := node.(*ast.ColumnNameExpr); ok {
			name = c.Name.Name.O
		}
		// A bare column key is returned in its stored type (stored).
		var stored arrow.DataType
		if c, ok := unparen(node).(*ast.ColumnNameExpr); ok {
			if i, err := b.tableColumn(c); err == nil && hasTypedKey(b.info.Schema.Field(i).Type) {
				stored = b.info.Schema.Field(i).Type
			}
		}
		if isNested {
			stored = nil
		}
		n.keyNames = append(n.keyNames, name)
		as.keyStored = append(as.keyStored, stored)
		as.keyNested = append(as.keyNested, nested)
	}
	// The aggregate calls, deduplicated by their text.
	argIndex := map[string]int{}
	for _, call := range sp.aggregates {
		text := restore(call)
		if _, dup := as.aggIndex[text]; dup {
			continue
		}
		ac, err := b.aggCall(call, ts, n, argIndex)
		if err != nil {
			return nil, nil, err
		}
		as.aggIndex[text] = len(n.keys) + len(n.aggs)
		if ac.decode != nil {
			as.aggNested = append(as.aggNested, nestedCol{len(n.keys) + len(n.aggs), ac.decode})
		}
		n.aggs = append(n.aggs, ac)
	}
	// Arguments such as ext * (1 - disc) and ext * (1 - disc) * (1 + tax)
	// compute their common part once per batch.
	n.args = expr.Share(n.args)
	n.in = b.lay.flush(in)
	n.dense = b.denseGroupRange(n)   // plan_densegroup.go
	n.groups = b.estimateGroups(n)   // plan_exchange.go
	n.exchange = b.exchangeChosen(n) // plan_exchange.go
	as.schema = n.schema()
	return n, as, nil
}

var aggFuncs = map[string]agg.Func{"count": agg.Count, "sum": agg.Sum, "min": agg.Min, "max": agg.Max, "avg": agg.Avg}

// aggCall plans one aggregate call, its FILTER (WHERE …) too.
func (b *builder) aggCall(call *ast.AggregateFuncExpr, ts scope, n *aggregateNode, argIndex map[string]int) (aggCall, error) {
	plain, cond := withoutFilter(call) // build_aggfuncs.go
	ac, err := b.plainAggCall(plain, ts, n, argIndex)
	if err != nil || cond == nil {
		return ac, err
	}
	f, err := b.expr(cond, ts)
	if err != nil {
		return aggCall{}, err
	}
	switch f.Type().ID() {
	case arrow.BOOL:
	case arrow.NULL:
		if f, err = expr.Cast(f, arrow.FixedWidthTypes.Boolean); err != nil {
			return aggCall{}, b.typeErr(cond, err)
		}
	default:
		return aggCall{}, b.at(ErrInvalid, cond, "FILTER (WHERE %s) needs a boolean condition, got %s", restore(cond), f.Type())
	}
	if ac.filter > 0 { // any_value's own condition too
		if f, err = expr.And(n.args[ac.filter-1], f); err != nil {
			return aggCall{}, b.typeErr(cond, err)
		}
	}
	ac.filter = n.argSlot(f, argIndex) + 1
	ac.text += " FILTER (WHERE " + restore(cond) + ")"
	return ac, nil
}

func (b *builder) plainAggCall(call *ast.AggregateFuncExpr, ts scope, n *aggregateNode, argIndex map[string]int) (aggCall, error) {
	name := strings.ToLower(call.F)
	fn, ok := aggFuncs[name]
	if !ok {
		if fn, ok = extraAggs[name]; !ok {
			return aggCall{}, b.at(ErrUnsupported, call, "aggregate %s", call.F)
		}
	}
	switch {
	case fn == agg.StringAgg:
		return b.stringAgg(call, name, ts, n, argIndex) // build_aggfuncs.go
	case call.Order != nil:
		return aggCall{}, b.at(ErrUnsupported, call, "ORDER BY inside %s (only string_agg takes one)", name)
	case fn == agg.ArgMin || fn == agg.ArgMax:
		return b.argMinMax(call, fn, name, ts, n, argIndex) // build_aggfuncs.go
	case fn == agg.QuantileCont || fn == agg.QuantileDisc:
		return b.quantile(call, fn, name, ts, n, argIndex) // build_aggfuncs.go
	}
	if len(call.Args) != 1 {
		return aggCall{}, b.at(ErrInvalid, call, "%s takes one argument", name)
	}
	text := restore(call)
	if fn == agg.Count && !call.Distinct {
		// count(*) and count(constant) count rows.
		if v, ok := call.Args[0].(*driver.ValueExpr); ok && v.GetValue() != nil {
			return aggCall{fn: agg.CountStar, arg: -1, text: "count(*)", typ: arrow.PrimitiveTypes.Int64}, nil
		}
	}
	if call.Distinct {
		if fn != agg.Count {
			return aggCall{}, b.at(ErrUnsupported, call, "%s(DISTINCT …)", name)
		}
		fn = agg.CountDistinct
	}
	arg, decode, nested, err := b.nestedAggArg(call, name, ts) // a whole list or struct: build_nestedkey.go
	if err != nil {
		return aggCall{}, err
	}
	if !nested {
		if arg, err = b.expr(call.Args[0], ts); err != nil {
			return aggCall{}, err
		}
		if arg, err = b.aggArg(name, call, arg); err != nil {
			return aggCall{}, err
		}
	}
	if (fn == agg.Min || fn == agg.Max) && arg.Type().ID() == arrow.INTERVAL_MONTH_DAY_NANO {
		// min and max of intervals order them normalized, as DuckDB does,
		// and return the value as it is: arg_min/arg_max by the sort key
		key, err := expr.IntervalSortKey(arg)
		if err != nil {
			return aggCall{}, b.typeErr(call, err)
		}
		fn = map[agg.Func]agg.Func{agg.Min: agg.ArgMin, agg.Max: agg.ArgMax}[fn]
		return aggCall{fn: fn, arg: n.argSlot(arg, argIndex), by: n.argSlot(key, argIndex), text: text, typ: arg.Type()}, nil
	}
	typ, err := agg.ResultType(fn, arg.Type())
	if err != nil {
		return aggCall{}, b.at(ErrInvalid, call, "%s: %v", text, err)
	}
	ac := aggCall{fn: fn, arg: n.argSlot(arg, argIndex), text: text, typ: typ, decode: decode}
	if fn == agg.First || fn == agg.Last {
		ac.by, n.positions = byPosition, true // the rows' positions (rowPositions)
	}
	if name == "any_value" { // first's, of the rows where it is not NULL (build_aggfuncs.go)
		ac.filter = n.argSlot(expr.IsNotNull(arg), argIndex) + 1
	}
	return ac, nil
}

// argSlot is the index of arg among n's aggregate arguments, added once
// however many aggregates read it.
func (n *aggregateNode) argSlot(arg expr.Expr, argIndex map[string]int) int {
	argText := expr.Key(arg) // not its text: a join may hold two columns of one name
	i, ok := argIndex[argText]
	if !ok {
		i = len(n.args)
		argIndex[argText] = i
		n.args = append(n.args, arg)
	}
	return i
}

// aggScope resolves expressions after GROUP BY: a GROUP BY key (matched by
// its text, or a bare column by name) or an aggregate becomes a column of
// the aggregate's output; any other column is an error.
type aggScope struct {
	schema    *arrow.Schema
	keyIndex  map[string]int
	keySizes  exprSizes // to skip matching what is larger than every key
	aggIndex  map[string]int
	keyStored []arrow.DataType // per key: its table column's stored type when it is a bare column, else nil
	keyNested []arrow.DataType // per key: the list or struct type a key grouped on by its key is, else nil
	aggNested []nestedCol      // the aggregates that pick a list or struct's key
}

// nestedCol is an output column holding the keys of lists or structs of
// type typ (build_nestedkey.go).
type nestedCol struct {
	col int
	typ arrow.DataType
}

// col is output column i, a list or struct turned back from its key
// where the column holds keys.
func (s *aggScope) col(i int) expr.Expr {
	f := s.schema.Field(i)
	c := expr.Column(i, f.Name, f.Type)
	typ := arrow.DataType(nil)
	if i < len(s.keyNested) {
		typ = s.keyNested[i]
	}
	for _, a := range s.aggNested {
		if a.col == i {
			typ = a.typ
		}
	}
	if typ == nil {
		return c
	}
	v, err := expr.NestedValue(c, typ)
	if err != nil {
		panic("query: " + err.Error()) // checked when the key or aggregate was planned
	}
	return v
}

func (s *aggScope) whole(_ *builder, n ast.ExprNode) (expr.Expr, error) {
	if _, ok := n.(*driver.ValueExpr); ok {
		return nil, nil
	}
	// Restoring every node's text would be quadratic in a long
	// expression; a node is compared only when it is no larger than the
	// longest key.
	if s.keySizes.of(n) > s.keySizes.max {
		return nil, nil
	}
	if i, ok := s.keyIndex[restore(n)]; ok {
		return s.col(i), nil
	}
	return nil, nil
}

func (s *aggScope) column(b *builder, n *ast.ColumnNameExpr) (expr.Expr, error) {
	if i, ok := s.keyIndex[strings.ToLower(n.Name.Name.O)]; ok {
		return s.col(i), nil
	}
	if b.colIndex(n.Name) < 0 {
		return tableScope{}.column(b, n) // the usual "no such column"
	}
	return nil, b.at(ErrInvalid, n, "column %s must appear in GROUP BY or be used in an aggregate", restore(n))
}

// stored returns a GROUP BY key that is a bare table column in that
// column's stored type: the aggregator groups on engine types, and turns
// only its result, one value per group, back.
func (s *aggScope) stored(b *builder, n *ast.ColumnNameExpr) (expr.Expr, error) {
	e, err := b.expr(n, s)
	if err != nil {
		return nil, err
	}
	if x := expr.Inspect(e); x.Kind == expr.KindColumn && x.Column < len(s.keyStored) && s.keyStored[x.Column] != nil {
		return wrap(b, n)(expr.AsStored(e, s.keyStored[x.Column]))
	}
	return e, nil
}

func (s *aggScope) aggregate(b *builder, n *ast.AggregateFuncExpr) (expr.Expr, error) {
	if i, ok := s.aggIndex[restore(n)]; ok {
		return s.col(i), nil
	}
	return nil, b.at(ErrInvalid, n, "aggregate %s not allowed here", restore(n))
}

// orderBy resolves ORDER BY items to columns of the projection: a position
// or an alias names a SELECT item, a SELECT expression written again is
// that item, and anything else is appended as a hidden column. A
// NULLS FIRST/LAST sentinel item (see parse.go) qualifies the item before
// it. The default is NULLS LAST in both directions, as in DuckDB.
func (b *builder) orderBy(ob []*ast.ByItem, items []selectItem, exprs []expr.Expr, names []string, sc scope) ([]sortKey, []string, []expr.Expr, []string, error) {
	var keys []sortKey
	var text, raw []string
	prevKey := false
	for _, it := range ob {
		if c, ok := it.Expr.(*ast.ColumnNameExpr); ok && strings.HasPrefix(c.Name.Name.L, sentinelPrefix) {
			if !prevKey {
				return nil, nil, nil, nil, b.at(ErrInvalid, it, "NULLS FIRST/LAST without an ORDER BY item before it")
			}
			last := len(keys) - 1
			keys[last].nullsFirst = c.Name.Name.L == nullsFirstSentinel
			text[last] = orderText(raw[last], keys[last])
			prevKey = false
			continue
		}
		prevKey = true
		col := -1
		switch x := it.Expr.(type) {
		case *ast.PositionExpr:
			if x.N < 1 || x.N > len(items) {
				return nil, nil, nil, nil, b.at(ErrInvalid, it, "ORDER BY %d: the SELECT list has %d items", x.N, len(items))
			}
			col = x.N - 1
		case *ast.ColumnNameExpr:
			if x.Name.Table.O == "" {
				for i, item := range items {
					if item.alias != "" && strings.EqualFold(item.alias, x.Name.Name.O) {
						col = i
						break
					}
				}
			}
		}
		if col < 0 {
			t := restore(it.Expr)
			for i, item := range items {
				if restore(item.node) == t {
					col = i
					break
				}
			}
		}
		if col < 0 {
			e, err := b.output(it.Expr, sc)
			if err != nil {
				return nil, nil, nil, nil, err
			}
			col = len(exprs)
			exprs = append(exprs, e)
			names = append(names, fmt.Sprintf("$sort%d", len(keys)))
		}
		switch exprs[col].Type().ID() {
		case arrow.RUN_END_ENCODED, arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME:
			// a column passed through as stored sorts by what it reads
			// as: a run-end encoded one by its values (package expr's
			// ree.go), a month or day_time one by the INTERVAL's key
			node := it.Expr
			if col < len(items) {
				node = items[col].node
			}
			e, err := b.expr(node, sc)
			if err != nil {
				return nil, nil, nil, nil, err
			}
			if exprs[col].Type().ID() != arrow.RUN_END_ENCODED {
				if e, err = expr.IntervalSortKey(e); err != nil {
					return nil, nil, nil, nil, b.typeErr(it, err)
				}
			}
			col = len(exprs)
			exprs = append(exprs, e)
			names = append(names, fmt.Sprintf("$sort%d", len(keys)))
		case arrow.INTERVAL_MONTH_DAY_NANO:
			// intervals sort normalized ('25 hours' after '1 day'): by a
			// hidden key ordered as they are
			e, err := expr.IntervalSortKey(exprs[col])
			if err != nil {
				return nil, nil, nil, nil, b.typeErr(it, err)
			}
			col = len(exprs)
			exprs = append(exprs, e)
			names = append(names, fmt.Sprintf("$sort%d", len(keys)))
		}
		if expr.IsNested(exprs[col].Type()) {
			// a list or struct sorts by its key (build_nestedkey.go),
			// hidden
			e, err := expr.NestedKey(exprs[col])
			if err != nil {
				return nil, nil, nil, nil, b.typeErr(it, err)
			}
			col = len(exprs)
			exprs = append(exprs, e)
			names = append(names, fmt.Sprintf("$sort%d", len(keys)))
		}
		k := sortKey{col: col, desc: it.Desc}
		keys = append(keys, k)
		raw = append(raw, restore(it.Expr))
		text = append(text, orderText(raw[len(raw)-1], k))
	}
	return keys, text, exprs, names, nil
}

func orderText(name string, k sortKey) string {
	dir, nulls := "ASC", "NULLS LAST"
	if k.desc {
		dir = "DESC"
	}
	if k.nullsFirst {
		nulls = "NULLS FIRST"
	}
	return name + " " + dir + " " + nulls
}

// limit reads LIMIT and OFFSET, which must be non-negative integer
// constants; -1 means no limit.
func (b *builder) limit(l *ast.Limit) (int64, int64, error) {
	if l == nil {
		return -1, 0, nil
	}
	read := func(n ast.ExprNode, what string) (int64, error) {
		if n == nil {
			return 0, nil
		}
		v, ok := intLiteral(n)
		if !ok || v < 0 {
			return 0, b.at(ErrInvalid, n, "%s must be a non-negative integer constant", what)
		}
		return v, nil
	}
	limit, err := read(l.Count, "LIMIT")
	if err != nil {
		return 0, 0, err
	}
	offset, err := read(l.Offset, "OFFSET")
	if l.Count == nil {
		limit = -1
	}
	return limit, offset, err
}
