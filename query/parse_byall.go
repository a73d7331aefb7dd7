package query

import (
	"regexp"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// GROUP BY ALL and ORDER BY ALL, DuckDB's shorthands:
//
//	SELECT k, s, sum(v) FROM t GROUP BY ALL   -- GROUP BY k, s
//	SELECT k, v FROM t ORDER BY ALL DESC      -- ORDER BY k DESC, v DESC
//
// GROUP BY ALL groups by every SELECT item that holds no aggregate or
// window call (none: one group, as a bare aggregate); ORDER BY ALL sorts
// by every SELECT item, left to right, each with the direction and NULLS
// order written after ALL. The grammar reads ALL there as a syntax error,
// so rewriteByAll makes it a sentinel name, "quiver$all", with the edit
// recorded; groupByAll and orderByAll replace it by SELECT positions
// once the SELECT list is known (the rules GROUP BY ALL and ORDER BY ALL,
// logical_select_rules.go).

const byAllSentinel = "quiver$all"

var byAll = regexp.MustCompile(`(?i)^(GROUP|ORDER)\s+BY\s+(ALL)\b`)

func rewriteByAll(text string, edits *[]textEdit) string {
	if !containsFold(text, "all") {
		return text
	}
	for i := 0; i < len(text); {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		if c := text[i] | 0x20; (c == 'g' || c == 'o') && (i == 0 || !isWordByte(text[i-1])) {
			if m := byAll.FindStringSubmatchIndex(text[i:]); m != nil {
				text = edit(text, i+m[4], m[5]-m[4], `"`+byAllSentinel+`"`, edits)
				i += m[4] + len(byAllSentinel) + 2
				continue
			}
		}
		i++
	}
	return text
}

// isByAll reports whether n is the sentinel GROUP BY ALL or ORDER BY ALL
// left.
func isByAll(n ast.ExprNode) bool {
	c, ok := n.(*ast.ColumnNameExpr)
	return ok && c.Name.Table.O == "" && c.Name.Name.L == byAllSentinel
}

// groupByAll returns the keys GROUP BY ALL stands for (keys is GROUP BY
// as written): the positions of the SELECT items without aggregate or
// window calls, none when every item has one (one group, as a bare
// aggregate). all is false when keys are not ALL.
func (b *builder) groupByAll(s *ast.SelectStmt, keys []*ast.ByItem) (items []*ast.ByItem, all bool, err error) {
	if len(keys) != 1 || !isByAll(keys[0].Expr) {
		return nil, false, nil
	}
	at := keys[0]
	for i, f := range s.Fields.Fields {
		if f.WildCard != nil {
			return nil, true, b.at(ErrUnsupported, at, "GROUP BY ALL with * in the SELECT list (name the columns)")
		}
		if hasAggregateExpr(f.Expr) || hasWindowExpr(f.Expr) {
			continue
		}
		p := &ast.PositionExpr{N: i + 1}
		p.SetOriginTextPosition(at.Expr.OriginTextPosition())
		items = append(items, &ast.ByItem{Expr: p})
	}
	return items, true, nil
}

// orderByAll returns ORDER BY's items (ob) with ALL [ASC|DESC] [NULLS
// FIRST|LAST] replaced by the positions of all n items of the SELECT
// list, each ordered so; ob itself when it does not start with ALL.
func orderByAll(ob []*ast.ByItem, n int) []*ast.ByItem {
	if len(ob) == 0 || !isByAll(ob[0].Expr) {
		return ob
	}
	all := ob[0]
	var nulls *ast.ByItem // the NULLS FIRST/LAST sentinel after ALL (parse.go)
	if len(ob) > 1 {
		if c, ok := ob[1].Expr.(*ast.ColumnNameExpr); ok && strings.HasPrefix(c.Name.Name.L, sentinelPrefix) && !isByAll(c) {
			nulls = ob[1]
		}
	}
	rest := ob[1:]
	if nulls != nil {
		rest = rest[1:]
	}
	items := make([]*ast.ByItem, 0, 2*n+len(rest))
	for i := range n {
		p := &ast.PositionExpr{N: i + 1}
		p.SetOriginTextPosition(all.Expr.OriginTextPosition())
		items = append(items, &ast.ByItem{Expr: p, Desc: all.Desc})
		if nulls != nil {
			items = append(items, nulls)
		}
	}
	return append(items, rest...)
}
