package query

import (
	"slices"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// The logical plan of a query's FROM and WHERE. A SELECT that joins
// (from_plan.go) is bound into relational operators — scans of tables
// and derived tables, inner and outer joins as written, a filter of
// WHERE's conjuncts above them — and then rewritten by the rules below,
// one pass each, in order. Each rule is a function of the plan to the
// plan, with its own before-and-after tests (logical_test.go);
// formatLogical prints a plan at any point, and EXPLAIN FORMAT =
// 'logical' prints it after binding and after every rule that changed it
// (logical_trace.go).
//
//	bind                 FROM becomes relations and a tree of joins, names
//	                     resolve to (relation, column); WHERE a filter
//	factor ORs           (a AND x) OR (a AND y) is a AND (x OR y); an OR
//	                     whose branches each restrict a table adds the OR
//	                     of those restrictions for that table's scan
//	decorrelate          subqueries in the filter become semi, anti and
//	                     null-aware anti joins, and scalar subqueries
//	                     grouped relations joined on their correlation
//	outer joins to inner a LEFT or FULL JOIN whose NULL rows the filter
//	                     rejects loses them (rule_outer.go)
//	infer filters        a.x = b.y AND a.x < 10 adds b.y < 10, for b's
//	                     scan; a LEFT JOIN's preserved side's filter
//	                     reaches its inner side (rule_infer.go)
//	push down predicates each conjunct goes as low as its columns allow:
//	                     into a table's scan, a derived table (lowering
//	                     moves it into its SELECT where that keeps the
//	                     rows: from_derived_push.go; else it filters the
//	                     derived rows), an outer join's side or ON, or
//	                     the join region whose relations it reads
//	prune columns        each scan decodes only the columns something
//	                     above it reads
//
// Lowering (from_join.go) then turns the optimized plan into operators.
// It also orders each region's inner joins (join_order.go: dynamic
// programming over the cache's estimates, greedy beyond 10 relations) and
// places the semi and anti joins (as soon as their relations are joined
// when they drop most rows, else last), because both choices are made on
// estimates of the planned parts.
//
// Above FROM and WHERE, every SELECT — joining or not, and one with no
// FROM — has its operators bound too (logical_select.go: Aggregate, a
// Filter for HAVING, Window, a Filter for QUALIFY, Project, Distinct,
// Sort or TopK, Limit), over this plan, over a Scan of its one table
// under a Filter, or over one row. Their rules (logical_select_rules.go:
// GROUP BY ALL, aliases substituted, ORDER BY ALL, DISTINCT as GROUP BY,
// HAVING into WHERE, move arithmetic off columns) run after this plan's, and buildSelect
// (build.go) plans every physical operator above WHERE from the
// selectPlan, not from the statement.
//
// What the logical plan does not yet cover: a query over one table does
// not go through bind and the rules of this file — its scan's row
// filter, pruning and columns are chosen by the physical planning
// (splitWhere reads the statement's WHERE; planScan) and only recorded
// in the plan afterwards; over a join, no rule moves anything across the
// operators above FROM (a HAVING conjunct over group keys moves into
// WHERE over one table only, rule_having.go; a LIMIT is not pushed into
// a join), and prune columns (markNeeded) reads the statement's SELECT
// list, GROUP BY, HAVING and ORDER BY as written, since it runs before
// the rules above FROM; aliases, HAVING into WHERE and moving arithmetic
// still edit the statement (logical_select.go).
//
// A set operation (UNION, INTERSECT, EXCEPT) is a tree of SetOps over
// its SELECTs, each with its own plan, rewritten into UNION ALL under a
// Distinct or a counting Aggregate (logical_setop.go).

// logicalPlan is FROM and WHERE as relational operators: a Filter (where)
// over the semi and anti joins decorrelation made (semi, innermost
// first), over the tree of joins and relations (tree) together with the
// relations of decorrelated scalar subqueries, which join the tree's top
// region (extra). Once predicates are pushed (pushed), the filter's
// conjuncts have moved into the scans (relation.pushed), the outer joins
// (fromNode.joinConds) and the regions of inner joins (fromNode.conds).
type logicalPlan struct {
	sel    *ast.SelectStmt
	tree   *fromNode
	where  []ast.ExprNode
	semi   []*pendingJoin
	extra  []int
	pushed bool // push down predicates ran
	pruned bool // prune columns ran: relation.need is set
	// text is the plan as formatLogical printed it last, for EXPLAIN
	// FORMAT = 'logical' (logical_trace.go): lowering consumes the plan.
	text string
}

// rule is one rewrite of a plan of type P: a logicalPlan's here, a
// selectPlan's (logical_select_rules.go).
type rule[P any] struct {
	name  string
	apply func(b *builder, p P) error
}

// runRules applies rules to p, in order, recording p with trace as bound
// and after each rule (when EXPLAIN asked for it).
func runRules[P any](b *builder, p P, rules []rule[P], trace func(P, string)) error {
	trace(p, "bound") // logical_trace.go
	for _, r := range rules {
		if err := r.apply(b, p); err != nil {
			return err
		}
		trace(p, "after "+r.name)
	}
	return nil
}

// logicalRules are the rewrites, in the order they run. (A function,
// not a variable: decorrelation plans subqueries, which optimize again.)
func logicalRules() []rule[*logicalPlan] {
	return []rule[*logicalPlan]{
		{"factor ORs", (*builder).ruleFactorOrs},
		{"decorrelate subqueries", (*builder).ruleDecorrelate},
		{"outer joins to inner", (*builder).ruleOuterToInner},
		{"infer filters through join keys", (*builder).ruleInferFilters},
		{"push down predicates", (*builder).rulePushDown},
		{"prune columns", (*builder).rulePruneColumns},
	}
}

// optimize runs every rule over lp, in order.
func (b *builder) optimize(lp *logicalPlan) error {
	return runRules(b, lp, logicalRules(), b.traceLogical)
}

// bindLogical binds FROM and WHERE of s into a logical plan: the FROM
// items become relations (b.rels) and a tree of joins, and WHERE's
// conjuncts the filter above them. SELECT-list aliases WHERE uses are
// replaced by their expressions first (build_alias.go).
func (b *builder) bindLogical(s *ast.SelectStmt) (*logicalPlan, error) {
	tree, err := b.bindFrom(s)
	if err != nil {
		return nil, err
	}
	if s.Fields != nil && hasAlias(s.Fields.Fields) {
		b.substituteLateral(s)
		s.Where = substituteAliases(s.Where, s.Fields.Fields, false, b.isFromColumn)
	}
	lp := &logicalPlan{sel: s, tree: tree}
	if s.Where != nil {
		lp.where = conjuncts(s.Where, nil)
		b.whereTerms = splitTerms(s.Where) // for narrowing decorrelated subqueries (magicSet)
	}
	return lp, nil
}

// ruleFactorOrs takes the conjuncts every branch of an OR has out of it
// (factorOr), and adds, after each OR, the OR of what its branches say
// of one table alone (impliedByOr), for that table's scan. The OR
// itself stays.
func (b *builder) ruleFactorOrs(lp *logicalPlan) error {
	var out []ast.ExprNode
	for _, t := range lp.where {
		for _, f := range factorOr(t) {
			out = append(out, f)
			out = append(out, b.impliedByOr(f)...) // it skips the conjuncts that hold subqueries
		}
	}
	lp.where = out
	return nil
}

// ruleDecorrelate replaces each conjunct of the filter that holds a
// subquery (from_subquery.go): EXISTS and IN become semi joins, NOT
// EXISTS anti joins, NOT IN null-aware anti joins, and a comparison with
// a correlated scalar subquery a grouped relation (extra) joined on its
// correlation keys, with the comparison over its value. What cannot be
// decorrelated stays in the filter, for Apply (apply.go).
func (b *builder) ruleDecorrelate(lp *logicalPlan) error {
	firstSub := len(b.rels)
	var out []ast.ExprNode
	for _, t := range lp.where {
		if !hasSubquery(t) {
			out = append(out, t)
			continue
		}
		repl, pj, err := b.subqueryConjunct(t)
		if err != nil {
			return err
		}
		out = append(out, repl...)
		if pj != nil {
			lp.semi = append(lp.semi, pj)
		}
	}
	lp.where = out
	if len(b.rels) > maxRelations {
		return b.at(ErrUnsupported, lp.sel, "%d relations in one SELECT (at most %d, subqueries included)", len(b.rels), maxRelations)
	}
	// The relations of scalar subqueries join the top region; those of
	// semi and anti joins are their build sides.
next:
	for ri := firstSub; ri < len(b.rels); ri++ {
		for _, pj := range lp.semi {
			if pj.rel == ri {
				continue next
			}
		}
		lp.extra = append(lp.extra, ri)
	}
	return nil
}

// ruleOuterToInner turns the outer joins whose NULL-extended rows the
// filter rejects into inner (or narrower outer) joins (rule_outer.go). A
// semi join's conditions reject NULLs as the filter's do: a row it keeps
// made them all TRUE (EXISTS (… WHERE l_orderkey = o_orderkey) drops the
// rows a LEFT JOIN gave a NULL o_orderkey). An anti join's do not: it
// keeps the rows they are not TRUE for, and NOT IN keeps every row when
// its subquery is empty.
func (b *builder) ruleOuterToInner(lp *logicalPlan) error {
	terms := slices.Clip(lp.where)
	for _, pj := range lp.semi {
		if pj.kind == joinSemi {
			terms = append(terms, pj.conds...)
		}
	}
	return b.outerToInner(lp.tree, terms)
}

// rulePushDown moves each conjunct of the filter, and of the joins' ON
// conditions, as low as its columns allow (classifyTree): into the scan
// of the one table it reads, into the preserved side of a LEFT JOIN when
// it reads only that side, into an outer join's inner side when it is
// that side's ON condition, else to the region of inner joins whose
// relations it reads, where lowering makes it a join key or residual.
func (b *builder) rulePushDown(lp *logicalPlan) error {
	if err := b.classifyTree(lp.tree, lp.where, lp.extra); err != nil {
		return err
	}
	lp.where, lp.pushed = nil, true
	return nil
}

// rulePruneColumns records, for each relation, the columns anything above
// its scan reads (markNeeded), so the scan decodes only those.
func (b *builder) rulePruneColumns(lp *logicalPlan) error {
	for _, r := range b.rels {
		r.need = map[int]bool{}
	}
	b.markNeeded(lp.sel, lp.tree, lp.semi)
	lp.pruned = true
	return nil
}
