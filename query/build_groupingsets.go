package query

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// Grouping sets (parse_groupingsets.go spells them for the grammar). A
// SELECT grouped by several sets of keys is the UNION ALL of one GROUP BY
// per set, each with the keys outside its set NULL in the SELECT list and
// HAVING, and GROUPING(k, …) a constant (bit i set when the i-th argument
// is not a key of the set):
//
//	SELECT a, b, sum(x), GROUPING(a, b) FROM t GROUP BY ROLLUP (a, b) ORDER BY 1, 2
//	  →  SELECT a, b, sum(x) …, 0 … GROUP BY a, b
//	     UNION ALL SELECT a, NULL AS b, sum(x) …, 1 … GROUP BY a
//	     UNION ALL SELECT NULL AS a, NULL AS b, sum(x) …, 3 …   (one row, as an aggregate without GROUP BY)
//	     ORDER BY 1, 2
//
// so FROM and WHERE are read once per set: DuckDB and Spark expand each
// row into its sets and group once, which is faster for many sets; this
// keeps quiver's GROUP BY (spilling, dense keys) unchanged. MySQL's GROUP
// BY … WITH ROLLUP is ROLLUP over its keys. Keys are matched by their
// text; a key may be written as a SELECT position or alias. ORDER BY
// must name output columns (by name, alias, position or the item's
// text), and window functions, QUALIFY and DISTINCT are refused with
// grouping sets, as are ? placeholders, TRY_CAST and QUALIFY (each set
// is planned from restored text: replannable).

// maxGroupingSets bounds the sets of one GROUP BY (CUBE of 8 keys is
// 256): each is a GROUP BY over FROM.
const maxGroupingSets = 256

// hasGroupingSets reports whether s's GROUP BY uses ROLLUP, CUBE or
// GROUPING SETS.
func hasGroupingSets(s *ast.SelectStmt) bool {
	if s.GroupBy == nil {
		return false
	}
	if s.GroupBy.Rollup {
		return true
	}
	for _, it := range s.GroupBy.Items {
		if isGroupingCall(it.Expr) {
			return true
		}
	}
	return false
}

func isGroupingCall(n ast.ExprNode) bool {
	f, ok := n.(*ast.FuncCallExpr)
	return ok && (f.FnName.L == rollupFunc || f.FnName.L == cubeFunc || f.FnName.L == groupingSetsFunc)
}

// buildGroupingSets plans s, grouped by grouping sets, as the UNION ALL
// of its sets' GROUP BYs.
func (b *builder) buildGroupingSets(s *ast.SelectStmt) (planNode, error) {
	if hasParam(s) {
		return nil, b.at(ErrUnsupported, s.GroupBy, "grouping sets with ? parameters")
	}
	if !b.replannable() { // from_derived_push.go
		return nil, b.at(ErrUnsupported, s.GroupBy, "grouping sets in a statement with TRY_CAST or QUALIFY")
	}
	if s.Distinct {
		return nil, b.at(ErrUnsupported, s.GroupBy, "SELECT DISTINCT with grouping sets")
	}
	if w := selectWindows(s); len(w) > 0 || len(s.WindowSpecs) > 0 || s.Having != nil && hasWindowExpr(s.Having.Expr) {
		return nil, b.at(ErrUnsupported, s.GroupBy, "window functions or QUALIFY with grouping sets (group in a subquery, then apply the window)")
	}
	for _, f := range s.Fields.Fields {
		if f.WildCard != nil {
			return nil, b.at(ErrUnsupported, f, "* with grouping sets (name the columns)")
		}
	}
	// Each set is planned from restored text: || regrouped and marked
	// first, as buildSelect does, or it reads back as concat(), which
	// skips NULLs.
	fixConcatPrecedence(s)
	markPipes(s)
	sets, err := b.groupingSets(s)
	if err != nil {
		return nil, err
	}
	all := map[string]bool{} // every key, by text
	for _, set := range sets {
		for _, k := range set {
			all[restore(k)] = true
		}
	}
	names := make([]string, len(s.Fields.Fields))
	for i, f := range s.Fields.Fields {
		names[i] = fieldName(f)
	}
	orderBy, err := b.groupingOrderBy(s, names)
	if err != nil {
		return nil, err
	}
	with, limit := s.With, s.Limit
	s.With, s.OrderBy, s.Limit = nil, nil, nil
	var text strings.Builder
	for i, set := range sets {
		branch, err := b.groupingBranch(s, set, all, names)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			text.WriteString(" UNION ALL ")
		}
		text.WriteString("(" + branch + ")")
	}
	if orderBy != "" {
		text.WriteString(" ORDER BY " + orderBy)
	}
	st, err := parseSQL(text.String())
	if err != nil {
		return nil, b.at(ErrInvalid, s.GroupBy, "grouping sets: %v", err)
	}
	u, ok := st.(*ast.SetOprStmt)
	if !ok {
		sel, isSel := st.(*ast.SelectStmt) // one set: a plain GROUP BY
		if !isSel {
			return nil, b.at(ErrInvalid, s.GroupBy, "grouping sets: %T", st)
		}
		sel.With, sel.Limit = with, limit
		return b.buildSelect(sel)
	}
	u.With, u.Limit = with, limit
	return b.buildSetOpr(u)
}

// groupingSets expands s's GROUP BY into its sets of key expressions:
// the product of its items' sets (a plain key is in every set).
func (b *builder) groupingSets(s *ast.SelectStmt) ([][]ast.ExprNode, error) {
	sets := [][]ast.ExprNode{nil}
	var plain []ast.ExprNode
	for _, it := range s.GroupBy.Items {
		var these [][]ast.ExprNode
		if isGroupingCall(it.Expr) {
			var err error
			if these, err = b.constructSets(s, it.Expr.(*ast.FuncCallExpr)); err != nil {
				return nil, err
			}
		} else {
			k, err := b.groupingKey(s, it.Expr)
			if err != nil {
				return nil, err
			}
			these = [][]ast.ExprNode{{k}}
			plain = append(plain, k)
		}
		var next [][]ast.ExprNode
		for _, a := range sets {
			for _, c := range these {
				next = append(next, append(append([]ast.ExprNode(nil), a...), c...))
				if len(next) > maxGroupingSets {
					return nil, b.at(ErrUnsupported, s.GroupBy, "more than %d grouping sets", maxGroupingSets)
				}
			}
		}
		sets = next
	}
	if s.GroupBy.Rollup { // MySQL's GROUP BY a, b WITH ROLLUP
		sets = rollupSets(plain)
	}
	return sets, nil
}

// constructSets expands one ROLLUP, CUBE or GROUPING SETS call.
func (b *builder) constructSets(s *ast.SelectStmt, f *ast.FuncCallExpr) ([][]ast.ExprNode, error) {
	var elems [][]ast.ExprNode // each argument: one key, or a row of keys
	var sets [][]ast.ExprNode
	for _, a := range f.Args {
		if f.FnName.L == groupingSetsFunc {
			if isGroupingCall(a) { // ROLLUP or CUBE among the sets
				inner, err := b.constructSets(s, a.(*ast.FuncCallExpr))
				if err != nil {
					return nil, err
				}
				sets = append(sets, inner...)
				continue
			}
		}
		keys, err := b.keyList(s, a)
		if err != nil {
			return nil, err
		}
		elems = append(elems, keys)
	}
	switch f.FnName.L {
	case groupingSetsFunc:
		return append(sets, elems...), nil
	case rollupFunc:
		var flat [][]ast.ExprNode
		for i := len(elems); i >= 0; i-- {
			var set []ast.ExprNode
			for _, e := range elems[:i] {
				set = append(set, e...)
			}
			flat = append(flat, set)
		}
		return flat, nil
	}
	if len(elems) > 8 {
		return nil, b.at(ErrUnsupported, f, "CUBE of more than 8 keys (%d sets)", 1<<len(elems))
	}
	for mask := (1 << len(elems)) - 1; mask >= 0; mask-- { // CUBE: every subset, largest first
		var set []ast.ExprNode
		for i, e := range elems {
			if mask&(1<<(len(elems)-1-i)) != 0 {
				set = append(set, e...)
			}
		}
		sets = append(sets, set)
	}
	return sets, nil
}

// keyList is one argument of a grouping construct as keys: a row (a, b)
// is both, quiver$set() none, anything else one key.
func (b *builder) keyList(s *ast.SelectStmt, a ast.ExprNode) ([]ast.ExprNode, error) {
	switch x := a.(type) {
	case *ast.RowExpr:
		var keys []ast.ExprNode
		for _, v := range x.Values {
			k, err := b.groupingKey(s, v)
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
		}
		return keys, nil
	case *ast.FuncCallExpr:
		if x.FnName.L == emptySetFunc {
			return nil, nil
		}
	case *ast.ParenthesesExpr:
		return b.keyList(s, x.Expr)
	}
	k, err := b.groupingKey(s, a)
	if err != nil {
		return nil, err
	}
	return []ast.ExprNode{k}, nil
}

// groupingKey is a key as the SELECT list's expression: a position or
// an item's alias stands for the item.
func (b *builder) groupingKey(s *ast.SelectStmt, k ast.ExprNode) (ast.ExprNode, error) {
	pos := 0
	switch x := unparen(k).(type) {
	case *ast.PositionExpr:
		pos = x.N
	case *driver.ValueExpr: // inside ROLLUP (…) an integer is a position too
		n, isInt := x.GetValue().(int64)
		if !isInt {
			return nil, b.at(ErrInvalid, k, "a constant grouping key (%s)", restore(k))
		}
		pos = int(n)
	case *ast.ColumnNameExpr:
		if x.Name.Table.L == "" {
			for _, f := range s.Fields.Fields {
				if f.AsName.L != "" && f.AsName.L == x.Name.Name.L {
					return f.Expr, nil
				}
			}
		}
	}
	if pos != 0 {
		if pos < 1 || pos > len(s.Fields.Fields) {
			return nil, b.at(ErrInvalid, k, "GROUP BY position %d is not in the SELECT list (1 to %d)", pos, len(s.Fields.Fields))
		}
		return s.Fields.Fields[pos-1].Expr, nil
	}
	if hasAggregateExpr(k) || hasWindowExpr(k) {
		return nil, b.at(ErrInvalid, k, "a grouping key cannot hold an aggregate or window call")
	}
	return k, nil
}

// rollupSets are ROLLUP's sets of keys: all, all but the last, …, none.
func rollupSets(keys []ast.ExprNode) [][]ast.ExprNode {
	var sets [][]ast.ExprNode
	for i := len(keys); i >= 0; i-- {
		sets = append(sets, keys[:i:i])
	}
	return sets
}

// groupingBranch is the text of s grouped by one set: keys not in it
// NULL in the SELECT list and HAVING (outside aggregate calls), GROUPING
// calls constants, every item named as the statement names it.
func (b *builder) groupingBranch(s *ast.SelectStmt, set []ast.ExprNode, all map[string]bool, names []string) (string, error) {
	in := map[string]bool{}
	for _, k := range set {
		in[restore(k)] = true
	}
	cp, err := reparse(restoreSQL(s), nil)
	if err != nil {
		return "", b.at(ErrInvalid, s.GroupBy, "grouping sets: %v", err)
	}
	cp.GroupBy = nil
	if len(set) > 0 {
		cp.GroupBy = &ast.GroupByClause{}
		seen := map[string]bool{}
		for _, k := range set {
			if t := restore(k); !seen[t] {
				seen[t] = true
				kc, err := reparse("SELECT "+restoreSQL(k), nil)
				if err != nil {
					return "", b.at(ErrInvalid, k, "grouping key: %v", err)
				}
				cp.GroupBy.Items = append(cp.GroupBy.Items, &ast.ByItem{Expr: kc.Fields.Fields[0].Expr})
			}
		}
	}
	v := &groupingMasker{b: b, in: in, all: all}
	for i, f := range cp.Fields.Fields {
		n, _ := f.Expr.Accept(v)
		f.Expr = n.(ast.ExprNode)
		f.AsName = ast.NewCIStr(names[i])
	}
	if cp.Having != nil {
		n, _ := cp.Having.Expr.Accept(v)
		cp.Having.Expr = n.(ast.ExprNode)
	}
	if v.err != nil {
		return "", v.err
	}
	if len(set) == 0 && !hasAggregate(cp) {
		return groupAll(cp)
	}
	return restoreSQL(cp), nil
}

// groupAll is the empty grouping set of a SELECT without aggregate
// calls: one row (as GROUP BY () would give, whatever FROM holds), its
// items over a one-row count of FROM and WHERE, HAVING its filter.
func groupAll(cp *ast.SelectStmt) (string, error) {
	inner := *cp
	inner.Fields = &ast.FieldList{Fields: []*ast.SelectField{{Expr: &ast.AggregateFuncExpr{F: ast.AggFuncCount,
		Args: []ast.ExprNode{ast.NewValueExpr(int64(1), "", "")}}, AsName: ast.NewCIStr("n")}}}
	inner.Having, inner.OrderBy, inner.Limit = nil, nil, nil
	var text strings.Builder
	text.WriteString("SELECT ")
	for i, f := range cp.Fields.Fields {
		if i > 0 {
			text.WriteString(", ")
		}
		text.WriteString(restoreSQL(f))
	}
	text.WriteString(" FROM (" + restoreSQL(&inner) + ") AS `grouping$all`")
	if cp.Having != nil {
		text.WriteString(" WHERE " + restoreSQL(cp.Having.Expr))
	}
	return text.String(), nil
}

// groupingMasker replaces, outside aggregate calls, the keys of all that
// are not in the set by NULL, and GROUPING(…) by its value for the set.
type groupingMasker struct {
	b       *builder
	in, all map[string]bool
	err     error
}

func (v *groupingMasker) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.AggregateFuncExpr, *ast.SubqueryExpr, *ast.ExistsSubqueryExpr:
		return n, true // an aggregate's argument is the rows' value
	case *ast.FuncCallExpr:
		if x.FnName.L == "grouping" || x.FnName.L == "grouping_id" {
			return n, true // replaced whole in Leave
		}
	}
	return n, false
}

func (v *groupingMasker) Leave(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && (f.FnName.L == "grouping" || f.FnName.L == "grouping_id") {
		if len(f.Args) == 0 {
			v.err = v.b.at(ErrInvalid, f, "%s() needs the grouping keys it tests", f.FnName.O)
			return n, false
		}
		bits := 0
		for _, a := range f.Args {
			t := restore(a)
			if !v.all[t] {
				v.err = v.b.at(ErrInvalid, a, "%s(%s): not a grouping key", f.FnName.O, t)
				return n, false
			}
			bits <<= 1
			if !v.in[t] {
				bits |= 1
			}
		}
		return ast.NewValueExpr(int64(bits), "", ""), true
	}
	e, ok := n.(ast.ExprNode)
	if !ok {
		return n, true
	}
	if t := restore(e); v.all[t] && !v.in[t] {
		return ast.NewValueExpr(nil, "", ""), true
	}
	return n, true
}

// groupingOrderBy is s's ORDER BY over the union's columns: each item an
// output column's name, an alias, a position, or an item's text (made
// its position).
func (b *builder) groupingOrderBy(s *ast.SelectStmt, names []string) (string, error) {
	if s.OrderBy == nil {
		return "", nil
	}
	var parts []string
	for _, it := range s.OrderBy.Items {
		pos := 0
		switch x := unparen(it.Expr).(type) {
		case *ast.PositionExpr:
			pos = x.N
		case *driver.ValueExpr:
			if n, ok := x.GetValue().(int64); ok {
				pos = int(n)
			}
		}
		if c, ok := it.Expr.(*ast.ColumnNameExpr); ok && strings.HasPrefix(c.Name.Name.L, sentinelPrefix) {
			parts = append(parts, c.Name.Name.O) // NULLS FIRST/LAST (parse.go's rewriteNulls)
			continue
		}
		if pos == 0 {
			t := restore(it.Expr)
			for i, f := range s.Fields.Fields {
				if strings.EqualFold(names[i], t) || restore(f.Expr) == t {
					pos = i + 1
					break
				}
			}
		}
		if pos < 1 || pos > len(names) {
			return "", b.at(ErrUnsupported, it.Expr, "ORDER BY %s with grouping sets (order by a column of the SELECT list)", restore(it.Expr))
		}
		part := fmt.Sprint(pos)
		if it.Desc {
			part += " DESC"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", "), nil
}
