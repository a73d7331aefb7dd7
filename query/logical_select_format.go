package query

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// A SELECT's logical plan (logical_select.go) prints in formatLogical's
// style, its operators above FROM each over the next (formatUpper) and
// the FROM part under them (formatSelectFrom; planStage.full joins them):
//
//	Limit 10
//	  TopK 10 by sum(qty) DESC
//	    Project: grp, sum(qty)
//	      Filter: count(1)>2
//	        Aggregate by grp: sum(qty), count(1)
//	          Filter: qty*2>id
//	            Scan orders where id<50 columns [id, grp, qty] (~50 rows)
//
// The scan of one table lists the conjuncts it evaluates and its
// estimated rows once predicates are pushed, and the columns read above
// it once pruned, as a join's relations do (formatRelation).
//
// Keys given by position (GROUP BY 1, ORDER BY 2) print as the item they
// name.

// formatUpper prints the operators above FROM, the outermost first, and
// returns how deep the FROM part goes under them.
func (sp *selectPlan) formatUpper() (string, int) {
	var sb strings.Builder
	depth := 0
	put := func(text string) {
		line(&sb, depth, "%s", text)
		depth++
	}
	for _, l := range sp.sortLimitLines() {
		put(l)
	}
	if sp.distinct {
		put("Distinct")
	}
	items := make([]string, len(sp.items))
	for i, it := range sp.items {
		items[i] = clipText(restore(it.node), maxCondText)
		if it.alias != "" {
			items[i] += " AS " + it.alias
		}
	}
	put("Project: " + strings.Join(items, ", "))
	if sp.qualify != nil {
		put("Filter: " + conjunctText([]ast.ExprNode{sp.qualify}))
	}
	if len(sp.windows) > 0 {
		put("Window: " + distinctTexts(sp.windows))
	}
	if sp.having != nil {
		put("Filter: " + conjunctText([]ast.ExprNode{sp.having}))
	}
	if sp.aggregated() {
		text := "Aggregate"
		if len(sp.groupBy) > 0 {
			keys := make([]string, len(sp.groupBy))
			for i, it := range sp.groupBy {
				keys[i] = sp.keyText(it.Expr)
			}
			text += " by " + strings.Join(keys, ", ")
		}
		if len(sp.aggregates) > 0 {
			text += ": " + distinctTexts(sp.aggregates)
		}
		put(text)
	}
	return sb.String(), depth
}

// sortLimitLines prints LIMIT and ORDER BY, the outermost first: Limit
// over Sort, or over TopK when ORDER BY has a LIMIT.
func (sp *selectPlan) sortLimitLines() []string {
	var lines []string
	if l := sp.limit; l != nil {
		switch {
		case l.Count == nil:
			lines = append(lines, "Offset "+restore(l.Offset))
		case l.Offset == nil:
			lines = append(lines, "Limit "+restore(l.Count))
		default:
			lines = append(lines, "Limit "+restore(l.Count)+" offset "+restore(l.Offset))
		}
	}
	if len(sp.orderBy) > 0 {
		if k := sp.topK(); k != "" {
			lines = append(lines, "TopK "+k+" by "+sp.sortKeysText())
		} else {
			lines = append(lines, "Sort by "+sp.sortKeysText())
		}
	}
	return lines
}

// topK is the k of a TopK: LIMIT plus OFFSET when ORDER BY has a LIMIT
// ("" when not).
func (sp *selectPlan) topK() string {
	l := sp.limit
	if l == nil || l.Count == nil {
		return ""
	}
	if l.Offset == nil {
		return restore(l.Count)
	}
	n, ok1 := intLiteral(l.Count)
	m, ok2 := intLiteral(l.Offset)
	if ok1 && ok2 {
		return strconv.FormatInt(n+m, 10)
	}
	return restore(l.Count) + "+" + restore(l.Offset)
}

// sortKeysText is the ORDER BY keys, each with its direction, the NULLS
// FIRST/LAST sentinels folded into the key before them.
func (sp *selectPlan) sortKeysText() string {
	var keys []string
	for _, it := range sp.orderBy {
		if c, ok := it.Expr.(*ast.ColumnNameExpr); ok && strings.HasPrefix(c.Name.Name.L, sentinelPrefix) && !isByAll(c) && len(keys) > 0 {
			if c.Name.Name.L == nullsFirstSentinel {
				keys[len(keys)-1] += " NULLS FIRST"
			} else {
				keys[len(keys)-1] += " NULLS LAST"
			}
			continue
		}
		k := sp.keyText(it.Expr)
		if it.Desc {
			k += " DESC"
		}
		keys = append(keys, k)
	}
	return strings.Join(keys, ", ")
}

// keyText is a GROUP BY or ORDER BY key: the item a position names, ALL
// before it is expanded, else the expression.
func (sp *selectPlan) keyText(e ast.ExprNode) string {
	if p, ok := e.(*ast.PositionExpr); ok && p.P == nil && p.N >= 1 && p.N <= len(sp.items) {
		e = sp.items[p.N-1].node
	}
	if isByAll(e) {
		return "ALL"
	}
	return clipText(restore(e), maxCondText)
}

// distinctTexts is calls as SQL, each once.
func distinctTexts[T ast.Node](calls []T) string {
	seen := map[string]bool{}
	var out []string
	for _, c := range calls {
		t := clipText(restore(c), maxCondText)
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return strings.Join(out, ", ")
}

// formatSelectFrom prints the FROM part: a joining SELECT's logical plan
// as optimized (lowering consumes it: its text was kept);
// a table's scan under the filter of WHERE, with the conjuncts the scan
// evaluates and, once pruned, the columns it decodes; or the one row a
// SELECT without FROM reads.
func (b *builder) formatSelectFrom(sp *selectPlan) string {
	if sp.from != nil {
		return sp.from.text
	}
	var sb strings.Builder
	depth := 0
	if len(sp.where) > 0 {
		line(&sb, depth, "Filter: %s", conjunctText(sp.where))
		depth++
	}
	if sp.table == "" {
		line(&sb, depth, "Values: one row")
		return sb.String()
	}
	text := "Scan " + sp.table
	if sp.alias != "" && !strings.EqualFold(sp.alias, sp.table) {
		text += " AS " + sp.alias
	}
	if sp.scanRows != "" {
		text += " where " + clipText(sp.scanRows, maxCondText)
	}
	if sp.pruned {
		text += " columns [" + strings.Join(sp.scanCols, ", ") + "]"
	}
	if sp.pushed {
		text += fmt.Sprintf(" (~%.0f rows)", sp.scanEst)
	}
	line(&sb, depth, "%s", text)
	return sb.String()
}

// indentLines indents each line of text by depth steps.
func indentLines(text string, depth int) string {
	if depth == 0 || text == "" {
		return text
	}
	var sb strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n") {
		indent(&sb, depth)
		sb.WriteString(l)
	}
	sb.WriteString("\n")
	return sb.String()
}
