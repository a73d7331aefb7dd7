package query

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// formatLogical prints a logical plan (logical.go), one operator a line,
// inputs indented under it:
//
//	Filter: o_totalprice > 100
//	  Semi join on l_orderkey = o_orderkey
//	    Inner join on o_custkey = c_custkey
//	      Scan customer where c_acctbal > 0 columns [c_custkey, c_name] (~1364 rows)
//	      Scan orders columns [o_orderkey, o_custkey, o_totalprice] (~15000 rows)
//	    Subquery quiver$sq1 [l_orderkey]
//
// A run of inner joins prints as one join of all its inputs: which pairs
// join first is decided when the plan is lowered (join_order.go). Before
// predicates are pushed it shows the ON conditions as written; after, the
// conditions sorted to it.
func (b *builder) formatLogical(lp *logicalPlan) string {
	var sb strings.Builder
	depth := 0
	if len(lp.where) > 0 {
		sb.WriteString("Filter: " + conjunctText(lp.where) + "\n")
		depth++
	}
	b.formatSemi(&sb, lp, len(lp.semi), depth)
	return sb.String()
}

// formatSemi prints the semi and anti joins semi[:n], the last one
// outermost, over the tree.
func (b *builder) formatSemi(sb *strings.Builder, lp *logicalPlan, n, depth int) {
	if n == 0 {
		b.formatRegion(sb, lp, lp.tree, lp.extra, depth)
		return
	}
	pj := lp.semi[n-1]
	line(sb, depth, "%s join on %s", pj.kind, conjunctText(pj.conds))
	b.formatSemi(sb, lp, n-1, depth+1)
	b.formatRelation(sb, lp, pj.rel, depth+1)
}

// formatRegion prints a run of inner joins (with extra relations joined
// to it) as one join of all its inputs, or its one input.
func (b *builder) formatRegion(sb *strings.Builder, lp *logicalPlan, n *fromNode, extra []int, depth int) {
	leaves, ons := flattenInner(n, nil, nil)
	conds := ons
	if lp.pushed {
		conds = nil
		for _, c := range n.conds {
			conds = append(conds, c.e)
		}
	}
	if len(leaves)+len(extra) > 1 {
		text := "Inner join"
		if len(conds) > 0 {
			text += " on " + conjunctText(conds)
		}
		line(sb, depth, "%s", text)
		depth++
	} else if len(conds) > 0 { // conditions over one derived table, or over none
		line(sb, depth, "Filter: %s", conjunctText(conds))
		depth++
	}
	for _, l := range leaves {
		if l.rel >= 0 {
			b.formatRelation(sb, lp, l.rel, depth)
			continue
		}
		on := []ast.ExprNode{l.on}
		if lp.pushed {
			on = on[:0]
			for _, c := range l.joinConds {
				on = append(on, c.e)
			}
		}
		text := l.kind.String() + " join"
		if len(on) > 0 && on[0] != nil {
			text += " on " + conjunctText(on)
		}
		line(sb, depth, "%s", text)
		b.formatRegion(sb, lp, l.left, nil, depth+1)
		b.formatRegion(sb, lp, l.right, nil, depth+1)
	}
	for _, ri := range extra {
		b.formatRelation(sb, lp, ri, depth)
	}
}

// formatRelation prints one relation: a scan of a table, with the
// conjuncts pushed into it, the columns it decodes and its estimated rows
// once those are known; a derived table (or a subquery's relation) with
// its columns.
func (b *builder) formatRelation(sb *strings.Builder, lp *logicalPlan, ri int, depth int) {
	r := b.rels[ri]
	var text string
	switch {
	case r.table == "" && r.hidden:
		text = "Subquery " + r.name + " [" + columnList(r.schema) + "]"
	case r.table == "":
		text = "Derived " + r.name + " [" + columnList(r.schema) + "]"
		if len(r.pushed) > 0 {
			text += " where " + conjunctText(r.pushed)
		}
	default:
		text = "Scan " + r.table
		if !strings.EqualFold(r.name, r.table) {
			text += " AS " + r.name
		}
		if len(r.pushed) > 0 {
			text += " where " + conjunctText(r.pushed)
		}
		if lp.pruned {
			cols := make([]int, 0, len(r.need))
			for c := range r.need {
				cols = append(cols, c)
			}
			slices.Sort(cols)
			names := make([]string, len(cols))
			for i, c := range cols {
				names[i] = r.schema.Field(c).Name
			}
			text += " columns [" + strings.Join(names, ", ") + "]"
		}
		if lp.pushed {
			text += fmt.Sprintf(" (~%.0f rows)", b.scanEstimate(r))
		}
	}
	line(sb, depth, "%s", text)
}

// conjunctText is conditions as SQL, AND-ed.
func conjunctText(es []ast.ExprNode) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = clipText(restore(e), maxCondText) // logical_trace.go
		if x, ok := unparen(e).(*ast.BinaryOperationExpr); ok && len(es) > 1 && (x.Op == opcode.LogicOr || x.Op == opcode.LogicXor) {
			parts[i] = "(" + parts[i] + ")"
		}
	}
	return strings.Join(parts, " AND ")
}

// line writes one operator of a plan at depth.
func line(sb *strings.Builder, depth int, format string, args ...any) {
	indent(sb, depth) // plan.go
	fmt.Fprintf(sb, format, args...)
	sb.WriteByte('\n')
}
