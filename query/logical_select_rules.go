package query

import (
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// The rewrites of a SELECT's operators above FROM (logical_select.go),
// in the order they run, after FROM is bound and its own rules
// (logical.go) have run:
//
//	GROUP BY ALL         the Aggregate's ALL becomes the items without
//	                     aggregate or window calls (parse_byall.go)
//	aliases substituted  an alias HAVING, WHERE (one table) or a later
//	                     item names is its item's expression
//	                     (build_alias.go)
//	ORDER BY ALL         the Sort's ALL becomes every item, left to right
//	DISTINCT as GROUP BY a Distinct over a Project with no aggregates
//	                     becomes an Aggregate keyed by the items
//	HAVING into WHERE    HAVING's conjuncts over bare group keys alone
//	                     filter the rows, over one table (rule_having.go)
//	move arithmetic      qty + 1 < 10 becomes qty < 9 in WHERE over one
//	off columns          table, for the scan's pruning (rule_arith.go)
//
// GROUP BY ALL, ORDER BY ALL and DISTINCT as GROUP BY rewrite the
// operators alone; the other three edit the statement and bind what they
// changed again from it (logical_select.go says why). Over one table, pushing
// WHERE's conjuncts into the scan and choosing its columns are done by
// the physical planning (splitWhere, planScan) and recorded after it, as
// "push down predicates" and "prune columns".

// selectRules are the rewrites of a SELECT's operators, in the order
// they run (rule, runRules: logical.go).
func selectRules() []rule[*selectPlan] {
	return []rule[*selectPlan]{
		{"GROUP BY ALL", (*builder).ruleGroupByAll},
		{"aliases substituted", (*builder).ruleAliases},
		{"ORDER BY ALL", (*builder).ruleOrderByAll},
		{"DISTINCT as GROUP BY", (*builder).ruleDistinct},
		{"HAVING into WHERE", (*builder).ruleHavingToWhere},
		{"move arithmetic off columns", (*builder).ruleMoveArith},
	}
}

// optimizeSelect runs every rule over sp, in order.
func (b *builder) optimizeSelect(sp *selectPlan) error {
	return runRules(b, sp, selectRules(), b.traceSelect)
}

// ruleGroupByAll expands GROUP BY ALL into the positions of the items
// without aggregate or window calls; with none, the Aggregate has no
// keys (one group).
func (b *builder) ruleGroupByAll(sp *selectPlan) error {
	keys, all, err := b.groupByAll(sp.sel, sp.groupBy) // parse_byall.go
	if err != nil || !all {
		return err
	}
	sp.groupBy, sp.grouped = keys, len(keys) > 0
	return nil
}

// ruleAliases replaces the aliases HAVING names, and over one table
// those WHERE and later SELECT items name, by their items' expressions
// (a joining SELECT's WHERE and items had theirs when FROM was bound).
func (b *builder) ruleAliases(sp *selectPlan) error {
	s := sp.sel
	if s.Fields == nil || !hasAlias(s.Fields.Fields) {
		return nil
	}
	b.substituteClauseAliases(s, sp.from == nil)
	if err := b.bindItems(sp); err != nil {
		return err
	}
	sp.bindFilters()
	sp.bindCalls()
	return nil
}

// ruleOrderByAll expands ORDER BY ALL into the positions of every item.
func (b *builder) ruleOrderByAll(sp *selectPlan) error {
	sp.orderBy = orderByAll(sp.orderBy, len(sp.items)) // parse_byall.go
	return nil
}

// ruleDistinct makes SELECT DISTINCT a, b a GROUP BY a, b: an Aggregate
// keyed by the items, with no aggregate calls (checkSupported refuses
// DISTINCT with GROUP BY or aggregates), under the Project.
func (b *builder) ruleDistinct(sp *selectPlan) error {
	if !sp.distinct {
		return nil
	}
	if calls := findWindows(sp.orderBy, sp.items, nil); len(calls) > 0 {
		return b.at(ErrUnsupported, calls[0], "SELECT DISTINCT with window functions")
	}
	sp.groupBy = nil
	for _, it := range sp.items {
		sp.groupBy = append(sp.groupBy, &ast.ByItem{Expr: it.node})
	}
	sp.grouped, sp.distinct = true, false
	return nil
}

// ruleMoveArith moves arithmetic with constants off the columns of WHERE
// over one table (a joining SELECT's conjuncts are pushed into its scans
// as they are).
func (b *builder) ruleMoveArith(sp *selectPlan) error {
	if sp.from != nil {
		return nil
	}
	sp.sel.Where = b.moveArith(sp.sel.Where)
	sp.bindFilters()
	return nil
}
