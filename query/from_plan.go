package query

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
)

// joinsFrom reports whether a SELECT goes through the relational planner
// (from_*.go) rather than the single-table path: FROM has more than one
// item, a derived table or a WITH name, or WHERE has a subquery.
func (b *builder) joinsFrom(s *ast.SelectStmt) bool {
	if s.From == nil || b.preset != nil {
		return false
	}
	refs := s.From.TableRefs
	if refs.Right != nil {
		return true
	}
	src, ok := refs.Left.(*ast.TableSource)
	if !ok {
		_, isJoin := refs.Left.(*ast.Join)
		return isJoin
	}
	if tn, ok := src.Source.(*ast.TableName); !ok || (tn.Schema.O == "" && b.cte(tn.Name.O) != nil) || isInfoSchema(tn) {
		return true
	}
	return s.Where != nil && hasSubquery(s.Where)
}

// planFrom plans FROM and WHERE of a query that joins: the joined part
// becomes the builder's table (b.joined, b.info, b.lay), and the
// conjuncts of WHERE no join or scan took are returned, for the filter
// above the joins, with the logical plan lowered.
func (b *builder) planFrom(s *ast.SelectStmt) (*logicalPlan, ast.ExprNode, error) {
	lp, err := b.bindLogical(s) // logical.go
	if err != nil {
		return nil, nil, err
	}
	if err := b.optimize(lp); err != nil {
		return nil, nil, err
	}
	top, left, pend, err := b.lowerLogical(lp)
	if err != nil {
		return nil, nil, err
	}
	if len(pend) > 0 {
		return nil, nil, b.at(ErrUnsupported, s, "the subquery %s: its outer columns are on the inner side of an outer join", pend[0].text)
	}
	b.joined = top
	b.info = cache.TableInfo{Schema: top.plan.schema()}
	all := make([]int, len(top.cols))
	for i := range all {
		all[i] = i
	}
	b.lay = newLayout(b.info.Schema, all)
	for i, c := range top.cols {
		if c.engine {
			b.lay.engine[top.find(c.colRef)] = i
		}
	}
	var where ast.ExprNode
	for _, c := range left {
		where = and(where, c.e)
	}
	return lp, where, nil
}

// flattenInner collects the items of a run of inner joins (relations,
// and outer joins taken whole) and their ON conditions.
func flattenInner(n *fromNode, leaves []*fromNode, ons []ast.ExprNode) ([]*fromNode, []ast.ExprNode) {
	if n.rel >= 0 || n.kind != joinInner {
		return append(leaves, n), ons
	}
	leaves, ons = flattenInner(n.left, leaves, ons)
	leaves, ons = flattenInner(n.right, leaves, ons)
	if n.on != nil {
		ons = append(ons, n.on)
	}
	return leaves, ons
}

// relsOf is the set of relations of a FROM tree.
func relsOf(n *fromNode) relSet {
	var s relSet
	n.walk(func(rel int) { s |= 1 << rel })
	return s
}

// splitTerms splits conditions into conjuncts, factoring common terms
// out of ORs.
func splitTerms(e ast.ExprNode) []ast.ExprNode {
	var out []ast.ExprNode
	if e == nil {
		return nil
	}
	for _, t := range conjuncts(e, nil) {
		out = append(out, factorOr(t)...)
	}
	return out
}

// classifyTree sorts the conditions of a region of inner joins (terms:
// WHERE's, for the top one) and of the outer joins in it: conjuncts over
// one table of the region go into its scan; an outer join's ON
// conjuncts over its inner side alone go into that side.
func (b *builder) classifyTree(n *fromNode, terms []ast.ExprNode, extra []int) error {
	leaves, ons := flattenInner(n, nil, nil)
	var pushable relSet
	for _, l := range leaves {
		if l.rel >= 0 {
			pushable |= 1 << l.rel
		}
	}
	for _, on := range ons {
		if hasSubquery(on) {
			return b.at(ErrUnsupported, on, "subqueries in ON")
		}
		terms = append(terms, splitTerms(on)...)
	}
	terms, down, err := b.preservedTerms(leaves, terms)
	if err != nil {
		return err
	}
	conds, err := b.classify(terms, pushable)
	if err != nil {
		return err
	}
	n.conds = conds
	for _, l := range leaves {
		if l.rel >= 0 {
			continue
		}
		if hasSubquery(l.on) {
			return b.at(ErrUnsupported, l.on, "subqueries in ON")
		}
		inner := relsOf(l.right)
		var own, innerTerms []ast.ExprNode
		for _, t := range splitTerms(l.on) {
			rs, err := b.refsOf(t)
			if err != nil {
				return err
			}
			if !rs.subsetOf(relsOf(l)) {
				return b.at(ErrInvalid, t, "ON %s reads a table outside its join (an outer join's ON sees only the two sides it joins)", restore(t))
			}
			if rs != 0 && rs.subsetOf(inner) && l.kind == joinLeft {
				innerTerms = append(innerTerms, t)
			} else {
				own = append(own, t)
			}
		}
		if err := b.classifyTree(l.left, down[l], nil); err != nil {
			return err
		}
		if err := b.classifyTree(l.right, innerTerms, nil); err != nil {
			return err
		}
		l.joinConds = nil
		for _, t := range own {
			rs, err := b.refsOf(t)
			if err != nil {
				return err
			}
			l.joinConds = append(l.joinConds, &conjunct{e: t, rels: rs})
		}
	}
	return nil
}

// preservedTerms takes out of terms those that read only the preserved
// (left) side of one of the region's LEFT JOINs: they filter that side
// before the join as well as after it, since its columns are never
// NULL-extended, and below the join they reach its scans. Terms with a
// subquery stay, for classify to decorrelate.
func (b *builder) preservedTerms(leaves []*fromNode, terms []ast.ExprNode) ([]ast.ExprNode, map[*fromNode][]ast.ExprNode, error) {
	var kept []ast.ExprNode
	down := map[*fromNode][]ast.ExprNode{}
next:
	for _, t := range terms {
		if !hasSubquery(t) {
			rs, err := b.refsOf(t)
			if err != nil {
				return nil, nil, err
			}
			for _, l := range leaves {
				if rs != 0 && l.rel < 0 && l.kind == joinLeft && rs.subsetOf(relsOf(l.left)) {
					down[l] = append(down[l], t)
					continue next
				}
			}
		}
		kept = append(kept, t)
	}
	return kept, down, nil
}

// markNeeded records the columns of each relation that anything above
// its scan reads.
func (b *builder) markNeeded(s *ast.SelectStmt, tree *fromNode, pend []*pendingJoin) {
	mark := func(n ast.Node) {
		for _, r := range b.colRefsOf(n) {
			b.rels[r.rel].need[r.col] = true
		}
	}
	for _, f := range s.Fields.Fields {
		if f.WildCard == nil {
			mark(f.Expr)
			continue
		}
		for _, r := range b.rels {
			if r.hidden || (f.WildCard.Table.O != "" && !strings.EqualFold(f.WildCard.Table.O, r.name)) {
				continue
			}
			for c := range r.schema.Fields() {
				r.need[c] = true
			}
		}
	}
	if s.GroupBy != nil {
		for _, it := range s.GroupBy.Items {
			mark(it.Expr)
		}
	}
	if s.Having != nil {
		mark(s.Having.Expr)
	}
	if s.OrderBy != nil {
		for _, it := range s.OrderBy.Items {
			mark(it.Expr)
		}
	}
	var walk func(n *fromNode)
	walk = func(n *fromNode) {
		for _, c := range n.conds {
			mark(c.e)
		}
		for _, c := range n.joinConds {
			mark(c.e)
		}
		if n.rel < 0 {
			walk(n.left)
			walk(n.right)
		}
	}
	walk(tree)
	for _, pj := range pend {
		for _, c := range pj.conds {
			mark(c)
		}
	}
}

// lowerLogical turns an optimized logical plan (logical.go) into
// operators: the top region of inner joins with the relations joining
// it and the semi and anti joins over it, ordered by estimates
// (planRegion, joinRegion). It returns the joined part, the conditions no
// join applied and the semi or anti joins no region could place.
func (b *builder) lowerLogical(lp *logicalPlan) (*part, []*conjunct, []*pendingJoin, error) {
	if !lp.pushed || !lp.pruned {
		return nil, nil, nil, b.at(ErrExec, lp.sel, "internal: a logical plan lowered before its predicates were pushed and its columns pruned")
	}
	return b.planRegion(lp.tree, lp.extra, lp.semi)
}

// planRegion plans a region of inner joins: its relations, its outer
// joins, and extra relations (of scalar subqueries), joined greedily.
func (b *builder) planRegion(n *fromNode, extra []int, pend []*pendingJoin) (*part, []*conjunct, []*pendingJoin, error) {
	leaves, _ := flattenInner(n, nil, nil)
	var parts []*part
	for _, l := range leaves {
		var p *part
		var err error
		if l.rel >= 0 {
			p, err = b.relPart(l.rel)
		} else {
			p, err = b.planOuterJoin(l)
		}
		if err != nil {
			return nil, nil, nil, err
		}
		parts = append(parts, p)
	}
	for _, ri := range extra {
		p, err := b.relPart(ri)
		if err != nil {
			return nil, nil, nil, err
		}
		parts = append(parts, p)
	}
	return b.joinRegion(parts, n.conds, pend)
}

// planOuterJoin plans l LEFT JOIN r ON … (the left side is probed,
// every row of it kept) or l FULL JOIN r ON … (every row of both kept).
func (b *builder) planOuterJoin(n *fromNode) (*part, error) {
	side := func(m *fromNode) (*part, error) {
		p, left, _, err := b.planRegion(m, nil, nil)
		if err != nil {
			return nil, err
		}
		return b.filterPart(p, left)
	}
	lp, err := side(n.left)
	if err != nil {
		return nil, err
	}
	rp, err := side(n.right)
	if err != nil {
		return nil, err
	}
	conds := make([]ast.ExprNode, len(n.joinConds))
	for i, c := range n.joinConds {
		conds[i] = c.e
	}
	return b.joinParts(lp, rp, n.kind, conds)
}

// joinedStar expands * (every column of the FROM items, in order) or
// t.* (t's) over joined relations.
func (b *builder) joinedStar(f *ast.SelectField) ([]selectItem, error) {
	var items []selectItem
	q := f.WildCard.Table.O
	found := false
	item := func(ref colRef) selectItem {
		r := b.rels[ref.rel]
		name := r.schema.Field(ref.col).Name
		shown := name
		if r.display != nil {
			shown = r.display[ref.col]
		}
		return selectItem{node: qualified(r.name, name), name: shown}
	}
	// A USING column shows once, where the left side has it, with the
	// preserved side's value: a RIGHT JOIN's shows the right's copy there
	// (shownEarly), as DuckDB and PostgreSQL do.
	shownEarly := map[colRef]bool{}
	for ri, r := range b.rels {
		if r.hidden || (q != "" && !strings.EqualFold(q, r.name)) {
			continue
		}
		found = true
		for i := range r.schema.Fields() {
			ref := colRef{ri, i}
			if q == "" && shownEarly[ref] {
				continue
			}
			if q == "" && b.mergedByUsing(ref) {
				if kept := b.keptFor(ref); !shownEarly[kept] && (kept.rel > ri || kept.rel == ri && kept.col > i) {
					items = append(items, item(kept))
					shownEarly[kept] = true
				}
				continue
			}
			items = append(items, item(ref))
		}
	}
	if !found {
		return nil, b.at(ErrInvalid, f, "%s.* names no table of the FROM clause (tables: %s)", q, b.relNames())
	}
	return items, nil
}
