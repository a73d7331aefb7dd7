package query

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// EXPLAIN FORMAT = 'logical' prints, before the physical plan, the
// logical plan of every SELECT of the statement that joins (logical.go)
// — the statement's own, its derived tables', its subqueries' — as bound
// and after each rule that changed it, so what each rewrite did can be
// read:
//
//	Logical plan of SELECT … FROM customer JOIN orders …
//	bound:
//	  Inner join on o_custkey = c_custkey
//	    …
//	after push down predicates:
//	  …
//	Physical plan:
//	Limit 5
//	  …
//
// Plans print in the order their binding began: derived tables and WITH
// queries before the statement that reads them, the statement before the
// subqueries its rules decorrelate.

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
	byLP  map[*logicalPlan]*tracedPlan
	bytes int  // recorded so far
	cut   bool // stages were left out past maxTraceBytes
}

// tracedPlan is one SELECT's logical plan at each stage of optimize.
type tracedPlan struct {
	sql    string
	depth  int // of subqueries around it: 0 is the statement's own SELECT
	stages []planStage
}

type planStage struct{ name, text string }

// traceLogical records lp at a stage of optimize.
func (b *builder) traceLogical(lp *logicalPlan, stage string) {
	t := b.trace
	if t == nil || b.probing {
		return
	}
	if t.bytes >= maxTraceBytes {
		t.cut = true
		return
	}
	tp := t.byLP[lp]
	if tp == nil {
		if t.byLP == nil {
			t.byLP = map[*logicalPlan]*tracedPlan{}
		}
		tp = &tracedPlan{sql: clipText(restore(lp.sel), 100), depth: b.depth}
		t.byLP[lp] = tp
		t.plans = append(t.plans, tp)
	}
	text := b.formatLogical(lp)
	t.bytes += len(text)
	tp.stages = append(tp.stages, planStage{stage, text})
}

// text prints the trace: each plan as bound and after each rule that
// changed it. A statement none of whose SELECTs joins says so.
func (t *logicalTrace) text() string {
	if len(t.plans) == 0 {
		return "Logical plan: none (no SELECT of this statement joins; a query over one table is planned directly)\n"
	}
	var sb strings.Builder
	for _, tp := range t.plans {
		sb.WriteString("Logical plan of " + tp.sql + "\n")
		prev := ""
		for _, st := range tp.stages {
			if st.text == prev {
				continue
			}
			prev = st.text
			sb.WriteString(st.name + ":\n")
			for _, l := range strings.SplitAfter(strings.TrimSuffix(st.text, "\n"), "\n") {
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
