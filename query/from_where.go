package query

import (
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// relSet is a set of relations, by index in builder.rels.
type relSet uint64

// maxRelations bounds the relations of one SELECT (a relSet's bits).
const maxRelations = 64

func (s relSet) has(rel int) bool       { return s&(1<<rel) != 0 }
func (s relSet) subsetOf(o relSet) bool { return s&^o == 0 }
func (s relSet) single() (int, bool) {
	if s == 0 || s&(s-1) != 0 {
		return 0, false
	}
	for i := range maxRelations {
		if s.has(i) {
			return i, true
		}
	}
	return 0, false
}

// conjunct is one AND-ed term of WHERE or ON and the relations it reads.
type conjunct struct {
	e    ast.ExprNode
	rels relSet
}

// refsOf returns the relations an expression reads, with the outer
// columns of the subqueries in it that Apply evaluates (apply.go); those
// decorrelated into joins are gone from the expressions by then.
func (b *builder) refsOf(e ast.ExprNode) (relSet, error) {
	v := &refCollector{b: b}
	e.Accept(v)
	return v.rels, v.err
}

type refCollector struct {
	b    *builder
	rels relSet
	refs []colRef
	err  error
}

func (v *refCollector) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.SubqueryExpr:
		if sel, ok := x.Query.(*ast.SelectStmt); ok {
			free, _ := v.b.freeRefs(sel) // errors surface where it is planned
			for _, c := range free {
				if ref, err := v.b.resolve(c); err == nil {
					v.rels |= 1 << ref.rel
					v.refs = append(v.refs, ref)
				}
			}
		}
		return n, true
	case *ast.ColumnNameExpr:
		ref, err := v.b.resolve(x)
		if err != nil {
			if v.err == nil {
				v.err = err
			}
			return n, true
		}
		v.rels |= 1 << ref.rel
		v.refs = append(v.refs, ref)
	}
	return n, false
}

func (v *refCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// colRefsOf returns the relation columns an expression reads, ignoring
// names that do not resolve (the builder reports those where it plans
// the expression).
func (b *builder) colRefsOf(e ast.Node) []colRef {
	if e == nil {
		return nil
	}
	v := &refCollector{b: b}
	e.Accept(v)
	return v.refs
}

// classify sorts conjuncts: one over a single relation goes to it — a
// table's scan, or a filter over a derived table's rows before they are
// joined (relPart); the rest are returned.
func (b *builder) classify(terms []ast.ExprNode, pushable relSet) ([]*conjunct, error) {
	var rest []*conjunct
	for _, t := range terms {
		rels, err := b.refsOf(t)
		if err != nil {
			return nil, err
		}
		if rel, ok := rels.single(); ok && pushable.has(rel) && !hasSubquery(t) {
			b.rels[rel].pushed = append(b.rels[rel].pushed, t)
			continue
		}
		rest = append(rest, &conjunct{e: t, rels: rels})
	}
	return rest, nil
}

// equiKey reports whether a conjunct is an equality of a column of a
// relation in left with a column of a relation in right, and which.
func (b *builder) equiKey(e ast.ExprNode, left, right relSet) (l, r colRef, ok bool) {
	x, isBin := unparen(e).(*ast.BinaryOperationExpr)
	if !isBin || x.Op != opcode.EQ {
		return colRef{}, colRef{}, false
	}
	lc, lok := unparen(x.L).(*ast.ColumnNameExpr)
	rc, rok := unparen(x.R).(*ast.ColumnNameExpr)
	if !lok || !rok {
		return colRef{}, colRef{}, false
	}
	a, err1 := b.resolve(lc)
	c, err2 := b.resolve(rc)
	if err1 != nil || err2 != nil {
		return colRef{}, colRef{}, false
	}
	switch {
	case left.has(a.rel) && right.has(c.rel):
		return a, c, true
	case left.has(c.rel) && right.has(a.rel):
		return c, a, true
	}
	return colRef{}, colRef{}, false
}

// factorOr takes out of an OR the conjuncts every branch has:
// (a AND x) OR (a AND y) is a AND (x OR y). TPC-H Q19 so gets its join
// key out of the OR, where it can be a key.
func factorOr(e ast.ExprNode) []ast.ExprNode {
	branches := disjuncts(e, nil)
	if len(branches) < 2 {
		return []ast.ExprNode{e}
	}
	terms := make([][]ast.ExprNode, len(branches))
	for i, br := range branches {
		terms[i] = conjuncts(br, nil)
	}
	var common []ast.ExprNode
	for _, t := range terms[0] {
		text := restore(t)
		inAll := true
		for _, other := range terms[1:] {
			found := false
			for _, o := range other {
				if restore(o) == text {
					found = true
					break
				}
			}
			if !found {
				inAll = false
				break
			}
		}
		if inAll {
			common = append(common, t)
		}
	}
	if len(common) == 0 {
		return []ast.ExprNode{e}
	}
	var or ast.ExprNode
	for _, ts := range terms {
		var rest ast.ExprNode
		for _, t := range ts {
			if !containsText(common, restore(t)) {
				rest = and(rest, t)
			}
		}
		if rest == nil { // a branch that is only the common part: the OR is TRUE
			return common
		}
		if or == nil {
			or = &ast.ParenthesesExpr{Expr: rest}
		} else {
			or = &ast.BinaryOperationExpr{Op: opcode.LogicOr, L: or, R: &ast.ParenthesesExpr{Expr: rest}}
		}
	}
	return append(common, or)
}

func containsText(ns []ast.ExprNode, text string) bool {
	for _, n := range ns {
		if restore(n) == text {
			return true
		}
	}
	return false
}

// and is l AND r, either of which may be nil.
func and(l, r ast.ExprNode) ast.ExprNode {
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	}
	return &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: l, R: r}
}

// equality is l = r.
func equality(l, r ast.ExprNode) ast.ExprNode {
	return &ast.BinaryOperationExpr{Op: opcode.EQ, L: l, R: r}
}

// hasSubquery reports a subquery anywhere in n.
func hasSubquery(n ast.Node) bool {
	f := &subqueryFinder{}
	n.Accept(f)
	return f.found
}

type subqueryFinder struct{ found bool }

func (f *subqueryFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.SubqueryExpr); ok {
		f.found = true
		return n, true
	}
	return n, false
}

func (f *subqueryFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// impliedByOr returns, for an OR whose every branch restricts a table on
// its own, the OR of those restrictions, one per such table: (n1.x = 'A'
// AND n2.x = 'B') OR (n1.x = 'B' AND n2.x = 'A') implies n1.x = 'A' OR
// n1.x = 'B' and the same of n2, which the scans of n1 and n2 can apply
// (TPC-H Q7, Q19). The OR itself stays.
func (b *builder) impliedByOr(e ast.ExprNode) []ast.ExprNode {
	branches := disjuncts(e, nil)
	if len(branches) < 2 {
		return nil
	}
	// per branch: table → its conjuncts over that table alone
	per := make([]map[int][]ast.ExprNode, len(branches))
	for i, br := range branches {
		per[i] = map[int][]ast.ExprNode{}
		for _, t := range conjuncts(br, nil) {
			rs, err := b.refsOf(t)
			if err != nil || hasSubquery(t) {
				continue
			}
			if rel, ok := rs.single(); ok && b.rels[rel].table != "" {
				per[i][rel] = append(per[i][rel], t)
			}
		}
	}
	rels := make([]int, 0, len(per[0]))
	for rel := range per[0] {
		rels = append(rels, rel)
	}
	slices.Sort(rels)
	var out []ast.ExprNode
	for _, rel := range rels {
		var or ast.ExprNode
		for _, m := range per {
			ts, ok := m[rel]
			if !ok {
				or = nil
				break
			}
			var branch ast.ExprNode
			for _, t := range ts {
				branch = and(branch, t)
			}
			if or == nil {
				or = &ast.ParenthesesExpr{Expr: branch}
			} else {
				or = &ast.BinaryOperationExpr{Op: opcode.LogicOr, L: or, R: &ast.ParenthesesExpr{Expr: branch}}
			}
		}
		if or != nil {
			out = append(out, or)
		}
	}
	return out
}
