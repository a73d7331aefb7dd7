package query

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/expr"
)

// part is a plan being joined: its batches' columns are relation
// columns, as stored or, where a key or a residual needed one, also in
// their engine types (a copy the planner appended).
type part struct {
	plan planNode
	cols []partCol
	rels relSet
	est  float64
}

type partCol struct {
	colRef
	engine bool // the engine-typed copy
}

// find returns the position of a relation column as stored, or -1.
func (p *part) find(ref colRef) int {
	return slices.IndexFunc(p.cols, func(c partCol) bool { return c.colRef == ref && !c.engine })
}

// enginePos returns the position of a relation column in its engine
// type: the stored column when that is an engine type, else its copy, or
// -1.
func (p *part) enginePos(ref colRef) int {
	if i := slices.IndexFunc(p.cols, func(c partCol) bool { return c.colRef == ref && c.engine }); i >= 0 {
		return i
	}
	i := p.find(ref)
	if i < 0 {
		return -1
	}
	t := p.plan.schema().Field(i).Type
	if et, ok := expr.EngineType(t); ok && arrow.TypeEqual(et, t) {
		return i
	}
	return -1
}

// ensureEngine gives each column of refs an engine-typed position in p,
// appending one ToEngine step for those whose stored type is not one.
func (b *builder) ensureEngine(p *part, refs []colRef) error {
	var n *convertNode
	sch := p.plan.schema()
	for _, r := range refs {
		if p.enginePos(r) >= 0 || (n != nil && slices.ContainsFunc(p.cols[len(sch.Fields()):], func(c partCol) bool { return c.colRef == r })) {
			continue
		}
		i := p.find(r)
		if i < 0 {
			return fmt.Errorf("%w: planner: column %s.%s is not in the plan", ErrExec, b.rels[r.rel].name, b.rels[r.rel].schema.Field(r.col).Name)
		}
		f := sch.Field(i)
		et, ok := expr.EngineType(f.Type)
		if !ok && expr.IsNested(f.Type) {
			continue // read as stored, into (partScope.stored, build_nested.go)
		}
		if !ok {
			return &Error{Kind: ErrUnsupported, Msg: fmt.Sprintf("column %s.%s of type %s", b.rels[r.rel].name, f.Name, f.Type)}
		}
		if n == nil {
			n = &convertNode{in: p.plan}
		}
		n.cols = append(n.cols, i)
		n.fields = append(n.fields, arrow.Field{Name: f.Name, Type: et, Nullable: f.Nullable})
		p.cols = append(p.cols, partCol{colRef: r, engine: true})
	}
	if n != nil {
		p.plan = n
	}
	return nil
}

// partScope resolves column names to the columns of a part (or of two
// parts side by side, for a join's residual).
type partScope struct{ p *part }

func (s partScope) column(b *builder, n *ast.ColumnNameExpr) (expr.Expr, error) {
	ref, err := b.resolve(n)
	if err != nil {
		return nil, err
	}
	i := s.p.enginePos(ref)
	if t := b.rels[ref.rel].schema.Field(ref.col).Type; i < 0 && expr.IsNested(t) {
		return nil, b.nestedRefusal(n, restore(n), t)
	}
	if i < 0 {
		return nil, b.at(ErrExec, n, "planner: column %s has no engine-typed copy here", restore(n))
	}
	f := s.p.plan.schema().Field(i)
	return expr.Column(i, f.Name, f.Type), nil
}

func (s partScope) stored(b *builder, n *ast.ColumnNameExpr) (expr.Expr, error) {
	if b.allowNested { // a list or struct read into (build_nested.go)
		ref, err := b.resolve(n)
		if err != nil {
			return nil, err
		}
		if i := s.p.find(ref); i >= 0 {
			if f := s.p.plan.schema().Field(i); expr.IsNested(f.Type) {
				return expr.Column(i, f.Name, f.Type), nil
			}
		}
	}
	return s.column(b, n)
}

func (partScope) aggregate(b *builder, n *ast.AggregateFuncExpr) (expr.Expr, error) {
	return nil, b.at(ErrInvalid, n, "aggregate %s not allowed in WHERE or ON", restore(n))
}

func (partScope) whole(*builder, ast.ExprNode) (expr.Expr, error) { return nil, nil }

// relPart plans one relation: a table's scan with the conjuncts pushed
// into it (through the single-table builder: pruning, row filter), its
// columns read above as stored; a derived table's plan with them inside
// its SELECT, or filtering its rows.
func (b *builder) relPart(ri int) (*part, error) {
	r := b.rels[ri]
	if r.table == "" {
		p := &part{plan: r.plan, rels: 1 << ri, est: r.est}
		for c := range r.schema.Fields() {
			p.cols = append(p.cols, partCol{colRef: colRef{ri, c}})
		}
		pushed := r.pushed
		if q, rest, ok := b.pushIntoDerived(ri); ok { // conjuncts inside its SELECT (from_derived_push.go)
			p.plan, p.est, pushed = q, estimate(q), rest
		}
		conds := make([]*conjunct, len(pushed))
		for i, t := range pushed {
			conds[i] = &conjunct{e: t, rels: 1 << ri}
		}
		return b.filterPart(p, conds) // WHERE's conjuncts over it alone, before it is joined
	}
	cols := make([]int, 0, len(r.need))
	for c := range r.need {
		cols = append(cols, c)
	}
	slices.Sort(cols)
	if len(cols) == 0 { // only its rows count (a cross join's count(*))
		cols = []int{0}
	}
	sel := &ast.SelectStmt{Kind: ast.SelectStmtKindSelect, SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true}, Fields: &ast.FieldList{}}
	for _, c := range cols {
		name := r.schema.Field(c).Name
		sel.Fields.Fields = append(sel.Fields.Fields, &ast.SelectField{Expr: &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(name)}}})
	}
	for _, t := range r.pushed {
		sel.Where = and(sel.Where, t)
	}
	sub := b.child()
	sub.preset = r
	plan, err := sub.buildSelect(sel)
	if err != nil {
		return nil, err
	}
	p := &part{plan: plan, rels: 1 << ri, est: b.scanEstimate(r)}
	if s := findScan(plan); s != nil {
		s.estRows = p.est
	}
	for _, c := range cols {
		p.cols = append(p.cols, partCol{colRef: colRef{ri, c}})
	}
	return p, nil
}

// selectivity guesses the share of rows n conjuncts keep. (Estimates
// from column statistics are to come.)
func selectivity(n int) float64 {
	s := 1.0
	for range n {
		s *= 0.3
	}
	return s
}

// filterPart applies conjuncts over a part's columns.
func (b *builder) filterPart(p *part, conds []*conjunct) (*part, error) {
	if len(conds) == 0 {
		return p, nil
	}
	var pred ast.ExprNode
	var refs []colRef
	for _, c := range conds {
		pred = and(pred, c.e)
		refs = append(refs, b.colRefsOf(c.e)...)
	}
	if err := b.ensureEngine(p, refs); err != nil {
		return nil, err
	}
	e, err := b.expr(pred, partScope{p})
	if err != nil {
		return nil, err
	}
	return &part{plan: &filterNode{in: p.plan, pred: e, what: "Filter"}, cols: p.cols, rels: p.rels,
		est: p.est * selectivity(len(conds))}, nil
}

// joinParts joins two parts by kind on the conditions: those that are
// equalities of a column of each side with the same engine type are
// keys, the rest the residual. For an inner join the smaller estimated
// side is built.
func (b *builder) joinParts(probe, build *part, kind joinKind, conds []ast.ExprNode) (*part, error) {
	if kind == joinInner && build.est > probe.est {
		probe, build = build, probe
	}
	// EXISTS and NOT EXISTS over a subquery much larger than the rows
	// they test build the tested rows instead (right semi and anti).
	if (kind == joinSemi || kind == joinAnti) && build.est > 2*probe.est && b.hasEquiKey(conds, probe, build) {
		probe, build = build, probe
		kind = map[joinKind]joinKind{joinSemi: joinRightSemi, joinAnti: joinRightAnti}[kind]
	}
	// A LEFT JOIN whose preserved side is much smaller builds that side
	// instead, as a RIGHT JOIN (the unmatched build rows come out after
	// the probe side): a hash table of the many rows would cost more than
	// the join.
	if kind == joinLeft && build.est > 2*probe.est && b.hasEquiKey(conds, probe, build) {
		probe, build, kind = build, probe, joinRight
	}
	var pk, bk []colRef
	var residual []ast.ExprNode
	var refs []colRef
	for _, c := range conds {
		l, r, ok := b.equiKey(c, probe.rels, build.rels)
		if ok {
			lt, lok := b.engineType(l)
			rt, rok := b.engineType(r)
			if lok && rok && keyTypesMatch(lt, rt) {
				pk, bk = append(pk, l), append(bk, r)
				continue
			}
		}
		residual = append(residual, c)
		refs = append(refs, b.colRefsOf(c)...)
	}
	var pRefs, bRefs []colRef
	for _, r := range refs {
		if probe.rels.has(r.rel) {
			pRefs = append(pRefs, r)
		} else {
			bRefs = append(bRefs, r)
		}
	}
	if err := b.ensureEngine(probe, append(pk, pRefs...)); err != nil {
		return nil, err
	}
	if err := b.ensureEngine(build, append(bk, bRefs...)); err != nil {
		return nil, err
	}
	// Equalities of expressions, one over each side: keys computed by a
	// projection under the join (join_exprkeys.go).
	residual, xkeys, err := b.exprKeys(probe, build, residual)
	if err != nil {
		return nil, err
	}
	if kind == joinNullAwareAnti && len(pk) == 0 && len(xkeys) == 0 {
		// NOT IN's NULL rules are applied to keys; a condition the join
		// evaluates as a residual would lose them.
		return nil, &Error{Kind: ErrUnsupported, Msg: "NOT IN (subquery) unless the tested value and the subquery's values compare with = (of types with a common type; or write NOT EXISTS)"}
	}
	var xProbe, xBuild []int
	if len(xkeys) > 0 {
		pe, be := make([]expr.Expr, len(xkeys)), make([]expr.Expr, len(xkeys))
		for i, k := range xkeys {
			pe[i], be[i] = k.probe, k.build
		}
		xProbe, xBuild = withKeyColumns(probe, pe), withKeyColumns(build, be)
	}
	n := &hashJoinNode{probe: probe.plan, build: build.plan, kind: kind}
	for i := range pk {
		n.probeKeys = append(n.probeKeys, probe.enginePos(pk[i]))
		n.buildKeys = append(n.buildKeys, build.enginePos(bk[i]))
	}
	n.probeKeys = append(n.probeKeys, xProbe...)
	n.buildKeys = append(n.buildKeys, xBuild...)
	both := &part{cols: append(slices.Clip(probe.cols), build.cols...), rels: probe.rels | build.rels}
	both.plan = &schemaOnly{arrow.NewSchema(append(slices.Clip(probe.plan.schema().Fields()), build.plan.schema().Fields()...), nil)}
	if len(residual) > 0 {
		var pred ast.ExprNode
		for _, c := range residual {
			pred = and(pred, c)
		}
		e, err := b.expr(pred, partScope{both})
		if err != nil {
			return nil, err
		}
		n.residual = e
	}
	out := &part{plan: n, rels: probe.rels | build.rels}
	switch kind {
	case joinSemi, joinAnti, joinNullAwareAnti:
		out.cols = probe.cols
		out.rels = probe.rels
		out.est = max(1, probe.est*semiShare(b, probe, build, pk, bk, kind == joinSemi))
	case joinRightSemi, joinRightAnti:
		out.cols = build.cols
		out.rels = build.rels
		out.est = max(1, build.est*semiShare(b, build, probe, bk, pk, kind == joinRightSemi))
	case joinLeft:
		out.cols = both.cols
		out.est = probe.est
	case joinRight:
		out.cols = both.cols
		out.est = max(build.est, joinEstimate(b, probe, build, pk, bk))
	default:
		out.cols = both.cols
		out.est = joinEstimate(b, probe, build, pk, bk)
	}
	switch {
	case len(pk) == 0 && len(xkeys) == 0 && kind == joinInner:
		out.est = probe.est * build.est * selectivity(len(residual))
	case len(pk) == 0 && kind == joinInner: // expression keys: no distinct counts to go by
		out.est = max(probe.est, build.est) * selectivity(len(residual))
	}
	if len(xkeys) > 0 {
		withoutKeyColumns(out)
	}
	n.estRows = out.est
	n.strategy = b.planStrategy(n, build.est) // plan_joinx.go
	if !b.opts.NoPruning {
		linkRuntimeFilters(n, b.statsOfTable) // runtime_filter.go
	}
	return out, nil
}

// semiShare guesses the share of tested's rows a semi join (semi) or an
// anti join keeps against other: the share of tested's key tuples other
// has (all of them when other has as many), its complement for an anti
// join, never below 1/10.
func semiShare(b *builder, tested, other *part, tk, ok []colRef, semi bool) float64 {
	share := 0.5
	if len(tk) > 0 {
		share = min(1, b.keyDistinct(other, ok)/b.keyDistinct(tested, tk))
	}
	if !semi {
		share = 1 - share
	}
	return max(0.1, share)
}

// semiShare is semiShare for a pending join of WHERE with its keys.
func (b *builder) semiShare(p, build *part, pj *pendingJoin) float64 {
	var pk, bk []colRef
	for _, c := range pj.conds {
		if l, r, ok := b.equiKey(c, p.rels, build.rels); ok {
			pk, bk = append(pk, l), append(bk, r)
		}
	}
	return semiShare(b, p, build, pk, bk, pj.kind == joinSemi)
}

// joinEstimate guesses an equi-join's rows. When one side is a single
// relation whose keys are unique in it (a primary key; from the
// distinct counts), each row of the other side finds at most one match,
// as often as that side's filters kept its rows: |A|·|B|/rows(B) (when
// both look unique, the smaller relation is taken for the primary key).
// Otherwise |A|·|B| / max(V(A), V(B)), V the distinct key tuples of a
// side (from_estimate.go).
func joinEstimate(b *builder, probe, build *part, pk, bk []colRef) float64 {
	pu, pBase := b.uniqueKeys(probe, pk)
	bu, bBase := b.uniqueKeys(build, bk)
	switch {
	case bu && (!pu || bBase <= pBase):
		return max(1, probe.est*min(1, build.est/bBase))
	case pu:
		return max(1, build.est*min(1, probe.est/pBase))
	}
	domain := max(1, b.keyDistinct(probe, pk), b.keyDistinct(build, bk))
	return max(1, probe.est*build.est/domain)
}

// uniqueKeys reports whether a part is one relation whose key columns
// hold distinct tuples (their distinct counts multiply to nearly its
// rows), and its rows before filters.
func (b *builder) uniqueKeys(p *part, keys []colRef) (bool, float64) {
	rel, ok := p.rels.single()
	if !ok || len(keys) == 0 {
		return false, 0
	}
	base := max(1, b.baseRows(rel))
	v := 1.0
	for _, k := range keys {
		if k.rel != rel {
			return false, 0
		}
		v *= b.distinct(k)
	}
	return v >= 0.9*base, base
}

// keyDistinct estimates the distinct tuples of key columns in a part:
// the product of their distinct counts, at most the part's rows.
func (b *builder) keyDistinct(p *part, keys []colRef) float64 {
	v := 1.0
	for _, k := range keys {
		v *= b.distinct(k)
	}
	return max(1, min(v, p.est))
}

// baseRows is a relation's rows before any filter.
func (b *builder) baseRows(rel int) float64 {
	r := b.rels[rel]
	if r.table != "" {
		return float64(r.info.Rows)
	}
	return r.est
}

// engineType is a relation column's engine type.
func (b *builder) engineType(r colRef) (arrow.DataType, bool) {
	return expr.EngineType(b.rels[r.rel].schema.Field(r.col).Type)
}

// schemaOnly stands for the batches of a join's two sides side by side
// while its residual is planned; it never runs.
type schemaOnly struct{ s *arrow.Schema }

func (n *schemaOnly) schema() *arrow.Schema { return n.s }
func (n *schemaOnly) open(context.Context, *runtime, *cache.Cache) (operator, error) {
	return nil, fmt.Errorf("%w: planner: a schema-only node ran", ErrExec)
}
func (n *schemaOnly) explain(*strings.Builder, int) {}

// joinRegion joins parts greedily (see the loop), each join with every
// condition whose relations it then has. A pending semi or anti
// join is applied as soon as its outer relations are joined. It returns
// the conditions no join applied (those over a single derived part, or
// over no relation at all).
func (b *builder) joinRegion(parts []*part, conds []*conjunct, pend []*pendingJoin) (*part, []*conjunct, []*pendingJoin, error) {
	applied := make([]bool, len(conds))
	var err error
	// A semi or anti join that keeps most rows waits until the inner
	// joins are done (it then tests fewer rows); one that drops most goes
	// in as soon as its relations are joined (the joins after it see
	// fewer rows) — unless its subquery is larger than the rows it tests:
	// then it waits too, for the inner joins to shrink those rows, which
	// it then builds (a right semi or anti join) and filters the
	// subquery's scan by (TPC-H Q21's NOT EXISTS over lineitem).
	applyPending := func(p *part, all bool) (*part, error) {
		for i := 0; i < len(pend); i++ {
			pj := pend[i]
			if !pj.outer.subsetOf(p.rels) {
				continue
			}
			build, err := b.relPart(pj.rel)
			if err != nil {
				return nil, err
			}
			if !all && (b.semiShare(p, build, pj) >= 0.5 || build.est > p.est) {
				continue
			}
			if p, err = b.joinParts(p, build, pj.kind, pj.conds); err != nil {
				return nil, err
			}
			pend = slices.Delete(pend, i, i+1)
			i--
		}
		return p, nil
	}
	for i, p := range parts {
		if parts[i], err = applyPending(p, false); err != nil {
			return nil, nil, nil, err
		}
	}
	if len(parts) == 0 {
		return nil, conds, pend, nil
	}
	// joinPair joins two parts with every condition whose relations they
	// then have, and the pending joins that can go in.
	joinPair := func(x, y *part) (*part, error) {
		var on []ast.ExprNode
		both := x.rels | y.rels
		for i, c := range conds {
			if !applied[i] && c.rels != 0 && c.rels.subsetOf(both) {
				on = append(on, c.e)
				applied[i] = true
			}
		}
		j, err := b.joinParts(x, y, joinInner, on)
		if err != nil {
			return nil, err
		}
		return applyPending(j, false)
	}
	var cur *part
	if tree, ok := b.dpOrder(parts, conds, applied); ok { // join_order.go
		var build func(t *joinTree) (*part, error)
		build = func(t *joinTree) (*part, error) {
			if t.leaf >= 0 {
				return parts[t.leaf], nil
			}
			x, err := build(t.left)
			if err != nil {
				return nil, err
			}
			y, err := build(t.right)
			if err != nil {
				return nil, err
			}
			return joinPair(x, y)
		}
		if cur, err = build(tree); err != nil {
			return nil, nil, nil, err
		}
	} else {
		if cur, err = b.greedyOrder(parts, conds, applied, joinPair); err != nil {
			return nil, nil, nil, err
		}
	}
	if cur, err = applyPending(cur, true); err != nil {
		return nil, nil, nil, err
	}
	var left []*conjunct
	for i, c := range conds {
		if !applied[i] {
			left = append(left, c)
		}
	}
	return cur, left, pend, nil
}

// greedyOrder joins parts by greedy operator ordering, for regions too
// large for dpOrder or not connected: of every two parts an equality
// connects, join the pair whose join is estimated smallest (then the
// pair of smaller parts), until one part is left; parts that nothing
// connects are joined last, smallest first, as cross joins.
func (b *builder) greedyOrder(parts []*part, conds []*conjunct, applied []bool, joinPair func(x, y *part) (*part, error)) (*part, error) {
	rest := slices.Clone(parts)
	for len(rest) > 1 {
		bi, bj, _ := pickPair(len(rest), func(i, j int) (float64, bool) {
			return b.pairEstimate(rest[i], rest[j], conds, applied)
		}, func(i, j int) float64 { return rest[i].est + rest[j].est })
		if bi < 0 { // nothing connected: the two smallest
			slices.SortStableFunc(rest, func(x, y *part) int { return cmp.Compare(x.est, y.est) })
			bi, bj = 0, 1
		}
		x, y := rest[bi], rest[bj]
		rest = slices.Delete(rest, bj, bj+1)
		j, err := joinPair(x, y)
		if err != nil {
			return nil, err
		}
		rest[bi] = j
	}
	return rest[0], nil
}

// dpOrder is the cheapest join order of a region of three to
// maxDPParts parts that equalities connect (join_order.go), from the
// same estimates the greedy order uses.
func (b *builder) dpOrder(parts []*part, conds []*conjunct, applied []bool) (*joinTree, bool) {
	if len(parts) < 3 || len(parts) > maxDPParts {
		return nil, false
	}
	leafRows := make([]float64, len(parts))
	for i, p := range parts {
		leafRows[i] = p.est
	}
	relsOf := func(s regionSet) relSet {
		var r relSet
		for i, p := range parts {
			if s&(1<<i) != 0 {
				r |= p.rels
			}
		}
		return r
	}
	size := func(l, r regionSet, lRows, rRows float64) (float64, bool) {
		x, y := &part{rels: relsOf(l), est: lRows}, &part{rels: relsOf(r), est: rRows}
		return b.pairEstimate(x, y, conds, applied)
	}
	tree, cost, ok := dpJoinOrder(leafRows, size)
	if !ok {
		return nil, false
	}
	if g, ok := greedyCost(leafRows, size); ok && cost > dpGain*g {
		return nil, false // not clearly better: greedyOrder joins them
	}
	return tree, true
}

// pairEstimate is the rows joining x and y is estimated to return, and
// whether an unapplied equality connects them: their column keys'
// estimate, or else, when an equality of an expression over each connects
// them (a key join_exprkeys.go makes), the smaller side's rows (as if the
// larger side's expression were unique: no distinct counts to say more).
func (b *builder) pairEstimate(x, y *part, conds []*conjunct, applied []bool) (float64, bool) {
	if keys := b.joinKeys(x, y, conds, applied); len(keys.l) > 0 {
		return joinEstimate(b, x, y, keys.l, keys.r), true
	}
	for i, c := range conds {
		if applied[i] || !c.rels.subsetOf(x.rels|y.rels) {
			continue
		}
		if _, _, ok := b.equalityOver(c.e, x.rels, y.rels); ok {
			return min(x.est, y.est), true
		}
	}
	return 0, false
}

// hasEquiKey reports an equality of a column of each part among conds.
func (b *builder) hasEquiKey(conds []ast.ExprNode, x, y *part) bool {
	for _, c := range conds {
		if _, _, ok := b.equiKey(c, x.rels, y.rels); ok {
			return true
		}
	}
	return false
}

// keyPairs are the columns of equalities between two parts.
type keyPairs struct{ l, r []colRef }

// joinKeys returns the unapplied equalities between a column of a and
// one of p.
func (b *builder) joinKeys(a, p *part, conds []*conjunct, applied []bool) keyPairs {
	var k keyPairs
	for i, c := range conds {
		if applied[i] || !c.rels.subsetOf(a.rels|p.rels) {
			continue
		}
		if l, r, ok := b.equiKey(c.e, a.rels, p.rels); ok {
			k.l, k.r = append(k.l, l), append(k.r, r)
		}
	}
	return k
}

// estimate guesses the rows a plan returns, for ordering joins.
func estimate(p planNode) float64 {
	switch n := p.(type) {
	case *scanNode:
		if n.noTable() {
			return 1
		}
		return float64(n.info.Rows)
	case *hashJoinNode:
		return n.estRows
	case *filterNode:
		return estimate(n.in) * selectivity(1)
	case *aggregateNode:
		if len(n.keys) == 0 {
			return 1
		}
		return max(1, estimate(n.in)/10)
	case *limitNode:
		if n.limit >= 0 {
			return min(float64(n.limit), estimate(n.in))
		}
		return estimate(n.in)
	case *projectNode:
		return estimate(n.in)
	case *sortNode:
		return estimate(n.in)
	case *heldNode:
		return float64(max(n.rows(), 1))
	case *convertNode:
		return estimate(n.in)
	}
	return 1000
}
