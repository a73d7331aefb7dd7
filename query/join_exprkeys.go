package query

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/quiverdb/quiver/query/expr"
)

// Expression join keys. An equality whose sides are a column of one
// input each, of one engine type, is a key as it stands (joinParts). An
// equality of an expression over one input with an expression over the
// other — a.id = b.qty + 1, lower(a.s) = lower(b.s), or two columns whose
// types compare only through a cast (an integer and a decimal) — would
// otherwise be a residual over every pair of rows: a nested loop, refused
// past the join pair limit. Instead each input computes its side, cast to
// the comparison's common type (expr.Compare), as one more column (a
// projection under the join), and the join hashes those: equal keys
// exactly when the equality is TRUE, NULL on either side matching nothing,
// as for column keys. The computed columns are projected away above the
// join, so nothing past it sees them.

// exprKey is one equality made a key: the expressions each input computes.
type exprKey struct {
	probe, build expr.Expr
}

// exprKeys takes out of conds the equalities exprKeys can make keys of
// (each side over the columns of one input, both of a type the join can
// hash) and returns the rest; probe's and build's columns must already be
// in the engine types the expressions read (ensureEngine).
func (b *builder) exprKeys(probe, build *part, conds []ast.ExprNode) (rest []ast.ExprNode, keys []exprKey, err error) {
	for _, c := range conds {
		k, ok, err := b.exprKey(probe, build, c)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			keys = append(keys, k)
		} else {
			rest = append(rest, c)
		}
	}
	return rest, keys, nil
}

// exprKey makes one condition a key, when it is an equality of an
// expression over each input.
func (b *builder) exprKey(probe, build *part, c ast.ExprNode) (exprKey, bool, error) {
	l, r, ok := b.equalityOver(c, probe.rels, build.rels)
	if !ok {
		return exprKey{}, false, nil
	}
	if err := b.ensureEngine(probe, b.colRefsOf(l)); err != nil {
		return exprKey{}, false, err
	}
	if err := b.ensureEngine(build, b.colRefsOf(r)); err != nil {
		return exprKey{}, false, err
	}
	if lk, lt, ok, err := b.nestedKeyOf(l, partScope{probe}); ok || err != nil {
		// lists or structs: their keys (build_nestedkey.go), equal
		// exactly when the values are
		rk, rt, rok, rerr := b.nestedKeyOf(r, partScope{build})
		if err != nil || rerr != nil || !rok || expr.NestedComparable(lt, rt) != nil {
			return exprKey{}, false, nil // the residual reports it
		}
		return exprKey{probe: lk, build: rk}, true, nil
	}
	le, err := b.expr(l, partScope{probe})
	if err != nil {
		return exprKey{}, false, err
	}
	re, err := b.expr(r, partScope{build})
	if err != nil {
		return exprKey{}, false, err
	}
	cmp, err := expr.Compare(expr.Eq, le, re)
	if err != nil {
		return exprKey{}, false, nil // the residual reports it
	}
	n := expr.Inspect(cmp)
	if n.Kind != expr.KindCompare || len(n.Args) != 2 {
		return exprKey{}, false, nil // folded: no key to hash
	}
	pk, bk := n.Args[0], n.Args[1]
	et, known := expr.EngineType(pk.Type())
	if !known || !arrow.TypeEqual(et, pk.Type()) || !keyTypesMatch(pk.Type(), bk.Type()) {
		return exprKey{}, false, nil
	}
	return exprKey{probe: pk, build: bk}, true, nil
}

// equalityOver returns the sides of c, an equality of an expression over
// the relations of x with one over y's (in that order), or false.
func (b *builder) equalityOver(c ast.ExprNode, x, y relSet) (l, r ast.ExprNode, ok bool) {
	e, ok := unparen(c).(*ast.BinaryOperationExpr)
	if !ok || e.Op != opcode.EQ {
		return nil, nil, false
	}
	over := func(n ast.ExprNode, rels relSet) bool {
		refs := b.colRefsOf(n)
		for _, r := range refs {
			if r.rel < 0 || !rels.has(r.rel) {
				return false
			}
		}
		return len(refs) > 0 && !hasSubquery(n)
	}
	switch {
	case over(e.L, x) && over(e.R, y):
		return e.L, e.R, true
	case over(e.R, x) && over(e.L, y):
		return e.R, e.L, true
	}
	return nil, nil, false
}

// withKeyColumns appends a computed column per expression to a part's
// plan (a projection passing its columns through) and returns their
// positions. The parts' new columns have no relation column: they stand
// for nothing a name can reach, and joinParts projects them away.
func withKeyColumns(p *part, keys []expr.Expr) []int {
	in := p.plan.schema()
	exprs := make([]expr.Expr, 0, in.NumFields()+len(keys))
	names := make([]string, 0, cap(exprs))
	for i, f := range in.Fields() {
		exprs = append(exprs, expr.Column(i, f.Name, f.Type))
		names = append(names, f.Name)
	}
	pos := make([]int, len(keys))
	added := 0
	for i, k := range keys {
		if n := expr.Inspect(k); n.Kind == expr.KindColumn {
			pos[i] = n.Column // a column as it is: nothing to compute
			continue
		}
		pos[i] = len(exprs)
		added++
		exprs = append(exprs, k)
		names = append(names, k.String())
		p.cols = append(p.cols, partCol{colRef: colRef{rel: -1, col: -1 - i}})
	}
	if added > 0 {
		p.plan = &projectNode{in: p.plan, exprs: exprs, names: names}
	}
	return pos
}

// withoutKeyColumns projects the computed key columns out of a join's
// output part.
func withoutKeyColumns(p *part) {
	in := p.plan.schema()
	var exprs []expr.Expr
	var names []string
	var cols []partCol
	for i, c := range p.cols {
		if c.rel < 0 {
			continue
		}
		f := in.Field(i)
		exprs = append(exprs, expr.Column(i, f.Name, f.Type))
		names = append(names, f.Name)
		cols = append(cols, c)
	}
	if len(cols) == len(p.cols) {
		return
	}
	p.plan = &projectNode{in: p.plan, exprs: exprs, names: names}
	p.cols = cols
}
