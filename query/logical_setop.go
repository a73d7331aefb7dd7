package query

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// The logical plan of a set operation (UNION, INTERSECT, EXCEPT): a tree
// of SetOp nodes over its SELECTs, each of which has a logical plan of
// its own (logical_select.go), with ORDER BY and LIMIT above. Binding
// folds the list as SQL reads it: runs of INTERSECT first (it binds
// tighter), then UNION and EXCEPT left to right. One rule rewrites every
// SetOp into UNION ALL and an operator above it (setop.go says why):
//
//	bound:                        after set operations as UNION ALL:
//	  SetOp INTERSECT               Aggregate by every column: keep sum($l) > 0 AND sum($r) > 0
//	    Input: select a from t        UnionAll
//	    Input: select b from u          Project: *, 1 AS $l, 0 AS $r
//	                                      Input: select a from t
//	                                    Project: *, 0 AS $l, 1 AS $r
//	                                      Input: select b from u
//
// UNION becomes a Distinct over the UnionAll. INTERSECT ALL and EXCEPT
// ALL stay SetOps, which lowering refuses. Lowering (setop.go) plans
// the rewritten tree, bottom up, left before right.

// setKind is what a setNode is.
type setKind uint8

const (
	setSelect   setKind = iota // one SELECT or a parenthesized set operation, planned
	setOpr                     // a set operation as written
	setUnionAll                // the inputs one after the other
	setDistinct                // each row of its input once
	setCount                   // the rows of its tagged input by how many each side had
	setTag                     // its input with the columns $l and $r
	setSort                    // ORDER BY and LIMIT over its input
)

// setNode is one operator of a set operation's logical plan.
type setNode struct {
	kind setKind
	// op: a setOpr's operator, and the one the forms it was rewritten
	// into came from (their errors name it; a setCount's condition).
	op   ast.SetOprType
	in   []*setNode
	at   ast.Node // where an error points: the input right of op
	plan planNode // setSelect's
	text string   // setSelect's SQL, clipped
	// tags: a setTag's $l and $r.
	tags [2]int64
	// orderBy and limit: a setSort's.
	orderBy *ast.OrderByClause
	limit   *ast.Limit
}

// ruleSetOpsAsUnionAll rewrites every SetOp under n but INTERSECT ALL
// and EXCEPT ALL into UNION ALL and the operator above it.
func ruleSetOpsAsUnionAll(n *setNode) *setNode {
	for i, c := range n.in {
		n.in[i] = ruleSetOpsAsUnionAll(c)
	}
	if n.kind != setOpr {
		return n
	}
	l, r := n.in[0], n.in[1]
	union := func(in ...*setNode) *setNode {
		return &setNode{kind: setUnionAll, op: n.op, in: in, at: n.at}
	}
	switch n.op {
	case ast.UnionAll:
		return union(l, r)
	case ast.Union:
		return &setNode{kind: setDistinct, op: n.op, in: []*setNode{union(l, r)}, at: n.at}
	case ast.Intersect, ast.Except:
		tag := func(in *setNode, lv, rv int64) *setNode {
			return &setNode{kind: setTag, op: n.op, in: []*setNode{in}, at: n.at, tags: [2]int64{lv, rv}}
		}
		return &setNode{kind: setCount, op: n.op, in: []*setNode{union(tag(l, 1, 0), tag(r, 0, 1))}, at: n.at}
	}
	return n
}

// countCondition is a setCount's HAVING: the rows of both sides
// (INTERSECT) or of the left side alone (EXCEPT).
func countCondition(op ast.SetOprType) string {
	if op == ast.Except {
		return "sum(`$l`) > 0 AND sum(`$r`) = 0"
	}
	return "sum(`$l`) > 0 AND sum(`$r`) > 0"
}

// formatSetOp prints a set operation's logical plan, each operator over
// its inputs.
func formatSetOp(n *setNode) string {
	var sb strings.Builder
	var walk func(n *setNode, depth int)
	walk = func(n *setNode, depth int) {
		switch n.kind {
		case setSelect:
			line(&sb, depth, "%s", n.text)
		case setOpr:
			line(&sb, depth, "SetOp %s", n.op.String())
		case setUnionAll:
			line(&sb, depth, "UnionAll")
		case setDistinct:
			line(&sb, depth, "Distinct")
		case setCount:
			line(&sb, depth, "Aggregate by every column: keep %s", strings.ReplaceAll(countCondition(n.op), "`", ""))
		case setTag:
			line(&sb, depth, "Project: *, %d AS $l, %d AS $r", n.tags[0], n.tags[1])
		case setSort:
			sp := &selectPlan{limit: n.limit}
			if n.orderBy != nil {
				sp.orderBy = n.orderBy.Items
			}
			for _, l := range sp.sortLimitLines() {
				line(&sb, depth, "%s", l)
				depth++
			}
			depth--
		}
		for _, c := range n.in {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return sb.String()
}

// setInputText names an input of a set operation in its plan: its SQL
// (a parenthesized set operation's in parentheses), whose own logical
// plan is printed apart.
func setInputText(n ast.Node) string {
	if _, ok := n.(*ast.SetOprSelectList); ok {
		return "Input: (" + clipText(restore(n), 100) + ")"
	}
	return "Input: " + clipText(restore(n), 100)
}

// traceSetOp records a set operation's plan at a stage; key is its
// statement or list.
func (b *builder) traceSetOp(key ast.Node, n *setNode, stage string) {
	tp := b.traced(key, key)
	if tp == nil {
		return
	}
	text := formatSetOp(n)
	b.trace.bytes += len(text)
	tp.stages = append(tp.stages, planStage{name: stage, text: text})
}
