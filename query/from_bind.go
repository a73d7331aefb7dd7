package query

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/expr"
)

// Binding a FROM clause with more than one item, or with a derived table
// (from_*.go). The single-table path (build.go) stays as it was: a query
// over one table plans its scan, pruning and row filter directly. A query
// that joins goes through these steps, each in its own file; logical.go
// runs them as passes over a logical plan, which EXPLAIN FORMAT =
// 'logical' prints after each:
//
//	from_bind.go      the FROM items become relations (a table of the cache
//	                  or a derived table) and a tree of joins; a column
//	                  name resolves to (relation, column) once, here
//	from_subquery.go  subqueries in WHERE become relations and joins:
//	                  EXISTS/IN to semi joins, NOT EXISTS to anti joins,
//	                  NOT IN to a null-aware anti join, a correlated scalar
//	                  subquery to a grouped relation joined on its
//	                  correlation keys; an uncorrelated scalar subquery runs
//	                  once while planning and becomes a constant
//	from_where.go     the conjuncts of WHERE and ON are sorted: those over
//	                  one table go into its scan (pruning and row filter as
//	                  for one table), those over one derived table filter
//	                  its rows before the join, equalities between
//	                  columns of two relations become join keys, the rest
//	                  are applied at the first join that has all their
//	                  columns; an OR's common conjuncts come out of it,
//	                  and the OR of what each branch says of one table
//	                  goes into its scan
//	rule_infer.go     a filter on a join key is copied to the columns an
//	                  inner join (or a LEFT JOIN's ON, to its inner side)
//	                  equates it with
//	rule_outer.go     a LEFT JOIN whose inner side WHERE (or a semi join's
//	                  condition) rejects as NULL is an inner join
//	from_estimate.go  rows and distinct keys from the cache's statistics
//	join_order.go     the join order of 3 to 10 connected parts: the
//	                  cheapest bushy tree by dynamic programming (rows out
//	                  of every join plus its build side), when it is
//	                  estimated a tenth cheaper than the greedy order
//	from_join.go      greedy operator ordering for larger or unconnected
//	                  regions: the connected pair whose join is estimated
//	                  smallest joins first; every join builds the smaller
//	                  side; semi and anti joins that drop
//	                  most rows as soon as they can, the others last, built
//	                  on the smaller side (right semi/anti); runtime filters
//	                  from each build side to the probe side's scans
//	                  (runtime_filter.go)
//
// Above the joins the builder goes on as for one table (build.go), with
// the joined batches as its "table": residual WHERE, GROUP BY, HAVING,
// ORDER BY, LIMIT.

// relation is one source of rows of a SELECT: a table of the cache, or a
// derived table (a subquery in FROM, a WITH name, or a subquery the
// planner turned into a join).
type relation struct {
	name   string          // what qualifies its columns: the alias, else the table's name
	table  string          // the cache's table; "" for a derived table
	info   cache.TableInfo // a table's
	plan   planNode        // a derived table's plan
	schema *arrow.Schema   // its columns
	node   ast.Node        // where the query names it, for errors
	hidden bool            // made by the planner; its columns are not found by unqualified names

	pushed []ast.ExprNode    // conjuncts over this relation alone: a table's scan takes them, a derived table is filtered by them
	source *derivedSource    // a derived table's SELECT as written, when pushed conjuncts may move into it (from_derived_push.go)
	need   map[int]bool      // columns read above its scan
	est    float64           // estimated rows out of its scan
	stats  *cache.TableStats // a table's, fetched once (from_estimate.go)
	// display are a derived table's column names as written when some
	// repeat (schema then has names of their own: uniqueNames); nil else.
	display []string
}

// fromNode is the FROM clause as a tree: a relation, or a join of two.
type fromNode struct {
	rel         int // index in builder.rels; -1 for a join
	kind        joinKind
	left, right *fromNode
	on          ast.ExprNode

	conds     []*conjunct // a region's conditions left after pushing (classifyTree)
	joinConds []*conjunct // an outer join's ON conditions over both sides
}

// bindFrom binds the FROM clause of s: its relations go to b.rels and its
// joins to a tree.
func (b *builder) bindFrom(s *ast.SelectStmt) (*fromNode, error) {
	return b.bindRefs(s.From.TableRefs)
}

func (b *builder) bindRefs(n ast.ResultSetNode) (*fromNode, error) {
	switch x := n.(type) {
	case *ast.Join:
		if x.Right == nil {
			return b.bindRefs(x.Left)
		}
		l, err := b.bindRefs(x.Left)
		if err != nil {
			return nil, err
		}
		r, err := b.bindRefs(x.Right)
		if err != nil {
			return nil, err
		}
		j := &fromNode{rel: -1, kind: joinInner, left: l, right: r}
		if x.On != nil {
			j.on = x.On.Expr
		}
		if x.NaturalJoin { // USING the columns both sides name
			if x.Using = b.naturalColumns(l, r); len(x.Using) == 0 {
				// PostgreSQL joins every pair; DuckDB refuses, as here.
				return nil, b.at(ErrInvalid, x, "NATURAL JOIN: no column name is on both sides (left: %s; right: %s); CROSS JOIN joins every pair",
					strings.Join(b.sideNames(l), ", "), strings.Join(b.sideNames(r), ", "))
			}
		}
		if len(x.Using) > 0 {
			on, err := b.usingCondition(l, r, x.Using, x.Tp == ast.RightJoin)
			if err != nil {
				return nil, err
			}
			j.on = on
		}
		switch {
		case x.StraightJoin: // FULL [OUTER] JOIN (parse_fulljoin.go)
			j.kind = joinFull
		case x.Tp == ast.LeftJoin:
			j.kind = joinLeft
		case x.Tp == ast.RightJoin: // a RIGHT JOIN b is b LEFT JOIN a
			j.kind, j.left, j.right = joinLeft, r, l
		}
		if j.kind == joinFull && len(x.Using) > 0 {
			return nil, b.at(ErrUnsupported, x, "FULL JOIN … USING (write ON a.k = b.k, and COALESCE(a.k, b.k) for the merged column)")
		}
		if (j.kind == joinLeft || j.kind == joinFull) && j.on == nil {
			return nil, b.at(ErrInvalid, x, "an outer join needs ON or USING")
		}
		return j, nil
	case *ast.TableSource:
		rel, err := b.bindSource(x)
		if err != nil {
			return nil, err
		}
		for _, other := range b.rels {
			if !other.hidden && strings.EqualFold(other.name, rel.name) {
				return nil, b.at(ErrInvalid, x, "table name %q is used twice in FROM (give one an alias)", rel.name)
			}
		}
		b.rels = append(b.rels, rel)
		return &fromNode{rel: len(b.rels) - 1}, nil
	}
	return nil, b.at(ErrUnsupported, n, "FROM %s", restore(n))
}

// bindSource makes the relation of one FROM item.
func (b *builder) bindSource(src *ast.TableSource) (*relation, error) {
	if src.Lateral {
		return nil, b.at(ErrUnsupported, src, "LATERAL")
	}
	switch x := src.Source.(type) {
	case *ast.TableName:
		if x.Schema.O == "" {
			if cte := b.cte(x.Name.O); cte != nil {
				name := x.Name.O
				if src.AsName.O != "" {
					name = src.AsName.O
				}
				if cte.plan != nil { // a set operation's result (setop.go)
					return planRelation(cte.plan, name, src), nil
				}
				if cte.setop != nil {
					return b.setOpCTE(cte, name, src) // cte_setop.go
				}
				if b.probing {
					return b.namesRelation(cte.query, name, src)
				}
				if h, err := b.heldCTE(cte, src); err != nil || h != nil {
					if err != nil {
						return nil, err
					}
					return planRelation(h, name, src), nil
				}
				q, err := cte.use(false)
				if err != nil {
					return nil, b.at(ErrExec, src, "planning WITH %s again: %v", cte.name, err)
				}
				ps := b.pushableSource(q, cte.text, cte.scope)
				rel, err := b.derivedIn(q, name, src, cte.scope)
				if rel != nil {
					rel.source = ps
				}
				return rel, err
			}
		}
		if rel, ok, err := b.infoRelation(x, src); ok { // infoschema.go
			return rel, err
		}
		table, err := b.lookupTable(x) // names.go
		if err != nil {
			return nil, err
		}
		info, err := b.c.Info(table)
		if errors.Is(err, cache.ErrNotFound) {
			return nil, b.at(ErrNoTable, x, "%q", x.Name.O)
		}
		if err != nil {
			return nil, err
		}
		name := table
		if src.AsName.O != "" {
			name = src.AsName.O
		}
		return &relation{name: name, table: table, info: info, schema: info.Schema, node: src,
			est: float64(info.Rows)}, nil
	case *ast.SelectStmt:
		if src.AsName.O == "" {
			src.AsName = b.unnamed()
		}
		if b.probing { // only its names (planning would rewrite the AST)
			return b.namesRelation(x, src.AsName.O, src)
		}
		ps := b.pushableSource(x, "", b.ctes)
		rel, err := b.derived(x, src.AsName.O, src)
		if rel != nil {
			rel.source = ps
		}
		return rel, err
	case *ast.SetOprStmt:
		if src.AsName.O == "" {
			src.AsName = b.unnamed()
		}
		if b.probing && x.SelectList != nil && len(x.SelectList.Selects) > 0 {
			if first, ok := x.SelectList.Selects[0].(*ast.SelectStmt); ok {
				return b.namesRelation(first, src.AsName.O, src)
			}
		}
		ps := b.pushableUnion(x, b.ctes)
		p, err := b.child().buildSetOpr(x)
		if err != nil {
			return nil, err
		}
		rel := planRelation(p, src.AsName.O, src)
		rel.source = ps
		return rel, nil
	}
	return nil, b.at(ErrUnsupported, src.Source, "FROM %s", restore(src.Source))
}

// derived plans a subquery of FROM (or a WITH name) as a relation.
func (b *builder) derived(s *ast.SelectStmt, name string, at ast.Node) (*relation, error) {
	return b.derivedIn(s, name, at, b.ctes)
}

// derivedIn is derived with the WITH names ctes in scope: a WITH query
// sees those defined before it, not itself (WITH is not recursive).
func (b *builder) derivedIn(s *ast.SelectStmt, name string, at ast.Node, ctes []namedQuery) (*relation, error) {
	if err := b.nest(at); err != nil {
		return nil, err
	}
	sub := b.child()
	sub.ctes = slices.Clip(ctes)
	p, err := sub.buildSelect(s)
	if err != nil {
		return nil, err
	}
	return planRelation(p, name, at), nil
}

// planRelation is a relation over a plan's batches. Columns named alike
// (SELECT 1 AS a, 2 AS a) get names of their own ("a:2"), so that every
// column can be named; * still shows the names as written.
func planRelation(p planNode, name string, at ast.Node) *relation {
	q, display := uniqueNames(p)
	return &relation{name: name, plan: q, schema: q.schema(), display: display, node: at, est: estimate(p)}
}

// uniqueNames renames the columns of p whose name (ignoring case) an
// earlier column has, with a pass-through projection, returning the names
// as they were; p itself and nil when no name repeats.
func uniqueNames(p planNode) (planNode, []string) {
	sch := p.schema()
	seen := map[string]int{}
	names := make([]string, sch.NumFields())
	renamed := false
	for i, f := range sch.Fields() {
		k := strings.ToLower(f.Name)
		seen[k]++
		names[i] = f.Name
		if seen[k] > 1 {
			names[i] = fmt.Sprintf("%s:%d", f.Name, seen[k])
			renamed = true
		}
	}
	if !renamed {
		return p, nil
	}
	exprs := make([]expr.Expr, sch.NumFields())
	display := make([]string, sch.NumFields())
	for i, f := range sch.Fields() {
		exprs[i] = expr.Column(i, names[i], f.Type)
		display[i] = f.Name
	}
	return &projectNode{in: p, exprs: exprs, names: names}, display
}

// namesRelation is a derived table as a probe (freeRefs) sees it: its
// column names, of unknown type, found without planning it. A name the
// SELECT list computes is its text, as the builder names it.
func (b *builder) namesRelation(s *ast.SelectStmt, name string, at ast.Node) (*relation, error) {
	if err := b.nest(at); err != nil {
		return nil, err
	}
	var fields []arrow.Field
	var inner *builder
	list, excl, err := starExcludes(s.Fields.Fields) // parse_star.go
	if err != nil {
		return nil, err
	}
	for _, f := range list {
		if f.WildCard == nil {
			n := f.AsName.O
			switch {
			case n != "":
			case isColumn(f.Expr):
				n = f.Expr.(*ast.ColumnNameExpr).Name.Name.O
			default:
				n = restore(f.Expr)
			}
			fields = append(fields, arrow.Field{Name: n, Type: arrow.Null, Nullable: true})
			continue
		}
		if inner == nil {
			inner = b.child()
			if s.With != nil {
				if err := inner.bindWith(s.With); err != nil {
					return nil, err
				}
			}
			if s.From != nil {
				if _, err := inner.bindFrom(s); err != nil {
					return nil, err
				}
			}
		}
		for _, r := range inner.rels {
			if r.hidden || (f.WildCard.Table.O != "" && !strings.EqualFold(f.WildCard.Table.O, r.name)) {
				continue
			}
			for _, fld := range r.schema.Fields() {
				if slices.ContainsFunc(excl[f], func(n string) bool { return strings.EqualFold(n, fld.Name) }) {
					continue
				}
				fields = append(fields, arrow.Field{Name: fld.Name, Type: arrow.Null, Nullable: true})
			}
		}
	}
	return &relation{name: name, schema: arrow.NewSchema(fields, nil), node: at, est: 1}, nil
}

// unnamedSubquery is the name of a subquery in FROM written without an
// alias, as DuckDB names it.
const unnamedSubquery = "unnamed_subquery"

// unnamed names a subquery in FROM that has no alias: unnamed_subquery,
// then unnamed_subquery_2, … (DuckDB lets them share the name; quiver
// refuses a name used twice, so the later ones are numbered).
func (b *builder) unnamed() ast.CIStr {
	name := unnamedSubquery
	for n := 2; slices.ContainsFunc(b.rels, func(r *relation) bool { return strings.EqualFold(r.name, name) }); n++ {
		name = fmt.Sprintf("%s_%d", unnamedSubquery, n)
	}
	return ast.NewCIStr(name)
}

// child returns a builder for a subquery of b's statement: same text,
// cache, options, parameters and tick count, and b's WITH names.
func (b *builder) child() *builder {
	if b.scalars == nil {
		b.scalars = &scalarMemo{}
	}
	return &builder{ctx: b.ctx, sql: b.sql, c: b.c, opts: b.opts, params: b.params, nparams: b.nparams,
		prepare: b.prepare, ctes: slices.Clip(b.ctes), ids: b.ids, probing: b.probing, depth: b.depth + 1,
		ticks: b.ticks, trace: b.trace, scalars: b.scalars}
}

// maxNesting bounds how deeply subqueries, derived tables and WITH
// queries nest: planning is linear in the statement, but each level costs
// a builder, and a hostile statement could nest thousands.
const maxNesting = 64

// nest refuses a subquery past maxNesting and checks for cancellation.
func (b *builder) nest(at ast.Node) error {
	if b.depth >= maxNesting {
		return b.at(ErrInvalid, at, "subqueries nest more than %d deep", maxNesting)
	}
	if b.ctx != nil {
		if err := b.ctx.Err(); err != nil {
			return cancelled(err)
		}
	}
	return nil
}

// newID numbers the relations the planner makes, unique in a statement.
func (b *builder) newID() int {
	if b.ids == nil {
		b.ids = new(int)
	}
	*b.ids++
	return *b.ids
}

// cte returns the WITH query of that name in scope, or nil.
func (b *builder) cte(name string) *namedQuery {
	for i := len(b.ctes) - 1; i >= 0; i-- {
		if strings.EqualFold(b.ctes[i].name, name) {
			return &b.ctes[i]
		}
	}
	return nil
}

// namedQuery is one WITH name, or a plan the planner names (a set
// operation's result, setop.go).
type namedQuery struct {
	name  string
	query *ast.SelectStmt
	setop *ast.SetOprStmt // instead of query, a WITH name's set operation (cte_setop.go)
	plan  planNode
	// Planning rewrites a query's AST in place (subqueries become joins,
	// DISTINCT a GROUP BY), so the first use plans query and every later
	// use a fresh parse of text, the query as written.
	text string
	used *bool
	// scope are the WITH names its query sees: those before it.
	scope []namedQuery
	// params are the numbers of its ? placeholders in walk order, given
	// back to the placeholders of a fresh parse (paramOrders).
	params []int
	// shared is what its uses share: how many there are, and its result
	// once computed when there are several (cte_held.go).
	shared *cteShared
}

// use returns the AST to plan for one more use of the name; a probe
// (freeRefs) never takes the original.
func (q *namedQuery) use(probe bool) (*ast.SelectStmt, error) {
	if !*q.used && !probe {
		*q.used = true
		return q.query, nil
	}
	return reparse(q.text, q.params)
}

// reparse parses a SELECT the planner restored to text (restoreSQL),
// numbering its ? placeholders as params says (the statement's numbers
// of the original's placeholders, in walk order).
func reparse(text string, params []int) (*ast.SelectStmt, error) {
	st, err := parseSQL(text)
	if err != nil {
		return nil, err
	}
	sel, ok := st.(*ast.SelectStmt)
	if !ok {
		return nil, fmt.Errorf("%T", st)
	}
	v := &paramVisitor{set: params}
	sel.Accept(v)
	if v.i != len(params) {
		return nil, fmt.Errorf("%d placeholders in the copy, %d in the query", v.i, len(params))
	}
	return sel, nil
}

// paramOrders returns the numbers of n's ? placeholders in walk order.
func paramOrders(n ast.Node) []int {
	v := &paramVisitor{}
	n.Accept(v)
	return v.got
}

// paramVisitor collects placeholders' numbers, or sets them from set.
type paramVisitor struct {
	set, got []int
	i        int
}

func (v *paramVisitor) Enter(n ast.Node) (ast.Node, bool) {
	if p, ok := n.(*driver.ParamMarkerExpr); ok {
		if v.set != nil && v.i < len(v.set) {
			p.Order = v.set[v.i]
		}
		v.got = append(v.got, p.Order)
		v.i++
	}
	return n, false
}

func (v *paramVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// bindWith adds the WITH clause's names to b's scope. A name may be used
// any number of times; each use is planned as a derived table of its own.
func (b *builder) bindWith(w *ast.WithClause) error {
	if w.IsRecursive {
		return b.at(ErrUnsupported, w, "WITH RECURSIVE")
	}
	for _, c := range w.CTEs {
		if u, ok := c.Query.Query.(*ast.SetOprStmt); ok {
			if err := b.bindWithSetOp(c, u); err != nil { // cte_setop.go
				return err
			}
			continue
		}
		sel, ok := c.Query.Query.(*ast.SelectStmt)
		if !ok {
			return b.at(ErrUnsupported, c.Query, "WITH %s AS (%T)", c.Name.O, c.Query.Query)
		}
		if err := b.nameCTEColumns(c, sel); err != nil {
			return err
		}
		b.ctes = append(b.ctes, namedQuery{name: c.Name.O, query: sel, text: pipesKeptSQL(sel), used: new(bool),
			scope: slices.Clip(b.ctes), params: paramOrders(sel), shared: &cteShared{}})
	}
	return nil
}

// nameCTEColumns gives sel's items the names of WITH c's column list.
func (b *builder) nameCTEColumns(c *ast.CommonTableExpression, sel *ast.SelectStmt) error {
	if len(c.ColNameList) == 0 {
		return nil
	}
	if len(c.ColNameList) != len(sel.Fields.Fields) {
		return b.at(ErrInvalid, c.Query, "WITH %s names %d columns, its query returns %d", c.Name.O, len(c.ColNameList), len(sel.Fields.Fields))
	}
	for i, f := range sel.Fields.Fields {
		if f.WildCard != nil {
			return b.at(ErrUnsupported, f, "a column list on WITH %s AS (SELECT * …)", c.Name.O)
		}
		f.AsName = c.ColNameList[i]
	}
	return nil
}

// usingCondition turns JOIN … USING (a, b) into ON l.a = r.a AND l.b = r.b,
// each column found on each side.
func (b *builder) usingCondition(l, r *fromNode, cols []*ast.ColumnName, right bool) (ast.ExprNode, error) {
	var on ast.ExprNode
	for _, c := range cols {
		lc, err := b.sideColumn(l, c)
		if err != nil {
			return nil, err
		}
		rc, err := b.sideColumn(r, c)
		if err != nil {
			return nil, err
		}
		eq := equality(qualified(b.rels[lc.rel].name, c.Name.O), qualified(b.rels[rc.rel].name, c.Name.O))
		on = and(on, eq)
		// The joined column is one column: the preserved side's (the
		// left's, the right's for RIGHT JOIN) answers its unqualified
		// name, and * shows it once.
		kept, merged := lc, rc
		if right {
			kept, merged = rc, lc
		}
		b.using = append(b.using, usingPair{kept: kept, merged: merged})
	}
	return on, nil
}

// usingPair is a column USING joined: merged is the other side's copy.
type usingPair struct{ kept, merged colRef }

// naturalColumns are the columns NATURAL JOIN joins on: the names both
// sides show (a column an earlier USING merged counts once), in the left
// side's order.
func (b *builder) naturalColumns(l, r *fromNode) []*ast.ColumnName {
	right := map[string]bool{}
	for _, name := range b.sideNames(r) {
		right[strings.ToLower(name)] = true
	}
	var cols []*ast.ColumnName
	seen := map[string]bool{}
	for _, name := range b.sideNames(l) {
		k := strings.ToLower(name)
		if right[k] && !seen[k] {
			seen[k] = true
			cols = append(cols, &ast.ColumnName{Name: ast.NewCIStr(name)})
		}
	}
	return cols
}

// sideNames are the column names a side of a join shows, as * does:
// not those of hidden relations, nor USING's merged copies.
func (b *builder) sideNames(side *fromNode) []string {
	var names []string
	side.walk(func(rel int) {
		r := b.rels[rel]
		if r.hidden {
			return
		}
		for c, f := range r.schema.Fields() {
			if !b.mergedByUsing(colRef{rel, c}) {
				names = append(names, f.Name)
			}
		}
	})
	return names
}

// sideColumn finds the one relation column of a side of a join that has
// the name (a copy an earlier USING merged does not count).
func (b *builder) sideColumn(side *fromNode, c *ast.ColumnName) (colRef, error) {
	var found []colRef
	side.walk(func(rel int) {
		if col, ok := columnByName(b.rels[rel].schema, c.Name.O); ok && !b.mergedByUsing(colRef{rel, col}) {
			found = append(found, colRef{rel, col})
		}
	})
	switch len(found) {
	case 0:
		return colRef{}, b.at(ErrInvalid, c, "USING (%s): no such column on that side of the join", c.Name.O)
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = b.rels[f.rel].name
	}
	return colRef{}, b.at(ErrInvalid, c, "USING (%s): the column is in %s", c.Name.O, strings.Join(names, " and "))
}

// mergedByUsing reports whether ref is the hidden copy of a USING column.
func (b *builder) mergedByUsing(ref colRef) bool {
	return slices.ContainsFunc(b.using, func(u usingPair) bool { return u.merged == ref })
}

// keptFor is the column a USING merged ref into (as merged, a column is
// in one pair). A kept column merged again by a later USING (a JOIN b
// USING (k) RIGHT JOIN c USING (k)) is followed to the last.
func (b *builder) keptFor(ref colRef) colRef {
	for range len(b.using) {
		i := slices.IndexFunc(b.using, func(u usingPair) bool { return u.merged == ref })
		if i < 0 {
			break
		}
		ref = b.using[i].kept
	}
	return ref
}

// walk calls fn with each relation of the tree, left to right.
func (n *fromNode) walk(fn func(rel int)) {
	if n.rel >= 0 {
		fn(n.rel)
		return
	}
	n.left.walk(fn)
	n.right.walk(fn)
}

// colRef is a column of a relation.
type colRef struct{ rel, col int }

// resolve finds the relation column a name refers to among b.rels, or
// fails naming the candidates.
func (b *builder) resolve(n *ast.ColumnNameExpr) (colRef, error) {
	ref, err := b.resolveName(n.Name)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return colRef{}, b.at(e.Kind, n, "%s", e.Msg)
		}
	}
	return ref, err
}

// resolveName is resolve without a position for its errors.
func (b *builder) resolveName(cn *ast.ColumnName) (colRef, error) {
	if strings.HasPrefix(cn.Name.L, sentinelPrefix) {
		return colRef{}, &Error{Kind: ErrInvalid, Msg: "NULLS FIRST/LAST only follows an ORDER BY item"}
	}
	var found []colRef
	qualified := cn.Table.O != ""
	for ri, r := range b.rels {
		if qualified {
			if !strings.EqualFold(r.name, cn.Table.O) {
				continue
			}
			if cn.Schema.O != "" && (r.table == "" || cache.FoldName(cn.Schema.O) != SchemaName || !strings.EqualFold(r.name, r.table)) {
				continue
			}
		} else if r.hidden {
			continue
		}
		if c, ok := columnByName(r.schema, cn.Name.O); ok {
			found = append(found, colRef{ri, c})
		}
	}
	if len(found) > 1 && !qualified { // a USING column: its merged copies step aside
		found = slices.DeleteFunc(found, b.mergedByUsing)
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		names := make([]string, len(found))
		for i, f := range found {
			names[i] = b.rels[f.rel].name + "." + b.rels[f.rel].schema.Field(f.col).Name
		}
		return colRef{}, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf("column %q is ambiguous: it could be %s", cn.Name.O, strings.Join(names, " or "))}
	}
	if qualified && !slices.ContainsFunc(b.rels, func(r *relation) bool { return strings.EqualFold(r.name, cn.Table.O) }) {
		return colRef{}, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf("column %s.%s: no table %q in FROM (tables: %s)", cn.Table.O, cn.Name.O, cn.Table.O, b.relNames())}
	}
	msg := fmt.Sprintf("no column %q in %s", cn.Name.O, b.relNames())
	if s := b.suggest(cn.Name.O); s != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", s)
	}
	return colRef{}, &Error{Kind: ErrInvalid, Msg: msg}
}

// relNames lists the relations a name may come from.
func (b *builder) relNames() string {
	var names []string
	for _, r := range b.rels {
		if !r.hidden {
			names = append(names, r.name)
		}
	}
	return strings.Join(names, ", ")
}

// suggest returns the qualified names of the columns closest to name (by
// edit distance, at most a third of its length), or "".
func (b *builder) suggest(name string) string {
	best, bestD := []string(nil), len(name)/3+1
	for _, r := range b.rels {
		if r.hidden {
			continue
		}
		for _, f := range r.schema.Fields() {
			d := editDistance(strings.ToLower(name), strings.ToLower(f.Name))
			switch {
			case d < bestD:
				best, bestD = []string{r.name + "." + f.Name}, d
			case d == bestD:
				best = append(best, r.name+"."+f.Name)
			}
		}
	}
	if len(best) > 3 {
		best = best[:3]
	}
	return strings.Join(best, " or ")
}

// editDistance is Levenshtein's distance between two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// columnByName finds a column by name: exactly, else case-insensitively
// when that is unambiguous.
func columnByName(s *arrow.Schema, name string) (int, bool) {
	found := -1
	for i, f := range s.Fields() {
		if f.Name == name {
			return i, true
		}
		if strings.EqualFold(f.Name, name) {
			if found >= 0 {
				found = -2
			} else if found == -1 {
				found = i
			}
		}
	}
	return found, found >= 0
}

// qualified is the column expression rel.col.
func qualified(rel, col string) *ast.ColumnNameExpr {
	return &ast.ColumnNameExpr{Name: &ast.ColumnName{Table: ast.NewCIStr(rel), Name: ast.NewCIStr(col)}}
}
