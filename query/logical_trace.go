package query

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// EXPLAIN FORMAT = 'logical' prints, before the physical plan, the
// logical plan of every SELECT of the statement (logical.go,
// logical_select.go) — the statement's own, its derived tables', its
// subqueries' — as bound and after each rule that changed it, so what
// each rewrite did can be read:
//
//	Logical plan of SELECT … FROM customer JOIN orders …
//	bound:
//	  Project: c_name, o_totalprice
//	    Inner join on o_custkey = c_custkey
//	      …
//	after push down predicates:
//	  …
//	Physical plan:
//	Limit 5
//	  …
//
// Plans print in the order their binding began: derived tables and WITH
// queries before the statement that reads them, the statement before the
// subqueries its rules decorrelate. A SELECT that joins shows the stages
// of FROM's rules first, under its operators above FROM as bound, then
// the stages of the rules above FROM (logical_select_rules.go), as they
// ran; one over a single table shows the latter, then its scan once the
// physical planning has pushed WHERE into it and chosen its columns.

// explainFormats are the EXPLAIN FORMAT values quiver prints: the
// physical plan alone (the default, under any of the parser's names for
// it) or the logical plans first.
var explainFormats = map[string]bool{"": false, "row": false, "brief": false, "traditional": false, "logical": true}

// maxTraceBytes bounds what a trace records: a statement of many nested
// subqueries (each stage prints its conditions, and a condition can be a
// whole subquery) could otherwise print its text once per level and
// stage. Past it, the stages left are not printed, and the trace says so.
// Each condition is also clipped to maxCondText bytes.
const (
	maxTraceBytes = 4 << 20
	maxCondText   = 500
)

// logicalTrace collects the logical plans of a statement's SELECTs; its
// builders share one.
type logicalTrace struct {
	plans []*tracedPlan
	byKey map[any]*tracedPlan // by the SELECT's *logicalPlan when it joins, else its *selectPlan
	bytes int                 // recorded so far
	cut   bool                // stages were left out past maxTraceBytes
}

// tracedPlan is one SELECT's logical plan at each stage of optimize and
// optimizeSelect.
type tracedPlan struct {
	sql    string
	depth  int // of subqueries around it: 0 is the statement's own SELECT
	stages []planStage
}

// planStage is the plan at one stage: the operators above FROM (upper,
// whose last line is depth-1 deep) over the FROM part (text).
type planStage struct {
	name  string
	upper string
	depth int
	text  string
}

// full is the whole plan of the stage.
func (st planStage) full() string { return st.upper + indentLines(st.text, st.depth) }

// traced finds, or begins, the trace of the SELECT s keyed by key; nil
// when nothing is to be recorded.
func (b *builder) traced(key any, s ast.Node) *tracedPlan {
	t := b.trace
	if t == nil || b.probing || b.preset != nil {
		return nil
	}
	if t.bytes >= maxTraceBytes {
		t.cut = true
		return nil
	}
	tp := t.byKey[key]
	if tp == nil {
		if t.byKey == nil {
			t.byKey = map[any]*tracedPlan{}
		}
		tp = &tracedPlan{sql: clipText(restore(s), 100), depth: b.depth}
		t.byKey[key] = tp
		t.plans = append(t.plans, tp)
	}
	return tp
}

// traceLogical records a joining SELECT's FROM and WHERE at a stage of
// optimize; traceSelect puts its operators above FROM over them once
// they are bound.
func (b *builder) traceLogical(lp *logicalPlan, stage string) {
	tp := b.traced(lp, lp.sel)
	if tp == nil {
		return
	}
	text := b.formatLogical(lp)
	lp.text = text
	b.trace.bytes += len(text)
	tp.stages = append(tp.stages, planStage{name: stage, text: text})
}

// traceSelect records a SELECT's whole plan at a stage of
// optimizeSelect. A joining SELECT's FROM stages, recorded before its
// operators above FROM were bound, get them as bound.
func (b *builder) traceSelect(sp *selectPlan, stage string) {
	var key any = sp
	if sp.from != nil {
		key = sp.from
	}
	tp := b.traced(key, sp.sel)
	if tp == nil {
		return
	}
	upper, depth := sp.formatUpper()
	if stage == "bound" && sp.from != nil && len(tp.stages) > 0 {
		for i := range tp.stages {
			tp.stages[i].upper, tp.stages[i].depth = upper, depth
			b.trace.bytes += len(upper)
		}
		return
	}
	text := b.formatSelectFrom(sp)
	b.trace.bytes += len(upper) + len(text)
	tp.stages = append(tp.stages, planStage{name: stage, upper: upper, depth: depth, text: text})
}

// traceScan records a SELECT over one table once the physical planning
// has pushed WHERE's conjuncts into its scan (splitWhere) and chosen the
// columns it decodes (planScan); where is what the Filter keeps.
func (b *builder) traceScan(sp *selectPlan, where ast.ExprNode) {
	if b.trace == nil || sp.table == "" {
		return
	}
	sp.where = nil
	if where != nil {
		sp.where = conjuncts(where, nil)
	}
	sp.scanRows, sp.scanEst, sp.pushed = b.rowsText, b.rowFilterEstimate(), true
	b.traceSelect(sp, "after push down predicates")
	sp.scanCols = sp.scanCols[:0]
	for _, f := range b.scan.fields {
		sp.scanCols = append(sp.scanCols, f.Name)
	}
	sp.pruned = true
	b.traceSelect(sp, "after prune columns")
}

// text prints the trace: each plan as bound and after each rule that
// changed it. A statement with no SELECT says so.
func (t *logicalTrace) text() string {
	if len(t.plans) == 0 {
		return "Logical plan: none (the statement has no SELECT)\n"
	}
	var sb strings.Builder
	for _, tp := range t.plans {
		sb.WriteString("Logical plan of " + tp.sql + "\n")
		prev := ""
		for _, st := range tp.stages {
			text := st.full()
			if text == prev {
				continue
			}
			prev = text
			sb.WriteString(st.name + ":\n")
			for _, l := range strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n") {
				sb.WriteString("  " + l)
			}
			sb.WriteString("\n")
		}
	}
	if t.cut {
		fmt.Fprintf(&sb, "(the stages after the first %d MiB of logical plans are left out)\n", maxTraceBytes>>20)
	}
	return sb.String()
}

// logicalExplainNode is the plan of an EXPLAIN FORMAT = 'logical': it
// prints the logical plans, then the physical plan.
type logicalExplainNode struct {
	planNode
	trace *logicalTrace
}

func (n *logicalExplainNode) explain(sb *strings.Builder, depth int) {
	sb.WriteString(n.trace.text())
	sb.WriteString("Physical plan:\n")
	n.planNode.explain(sb, depth)
}

// explainFormat reads EXPLAIN's FORMAT: whether it asks for the logical
// plans.
func (b *builder) explainFormat(ex *ast.ExplainStmt) (bool, error) {
	logical, ok := explainFormats[strings.ToLower(ex.Format)]
	if !ok {
		return false, b.at(ErrUnsupported, ex, "EXPLAIN FORMAT = '%s' (quiver prints the physical plan, or with FORMAT = 'logical' the logical plans before it)", ex.Format)
	}
	return logical, nil
}

// clipText shortens s to about n bytes, on a rune boundary, marking the
// cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutAt(s, n) + " …" // errors.go
}
