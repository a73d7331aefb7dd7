package query

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/expr"
)

// Optimizer rule: HAVING's conjuncts over group keys alone move into
// WHERE, over one table.
//
//	SELECT grp, sum(qty) FROM orders GROUP BY grp HAVING grp > 'b' AND sum(qty) > 3
//	  →  … FROM orders WHERE grp > 'b' GROUP BY grp HAVING sum(qty) > 3
//
// A group's key is the value of every one of its rows, so keeping the
// groups whose key passes keeps the groups of the rows whose value passes:
// the same answer, filtered before the Aggregate, where the scan's
// statistics skip batches and fewer rows are grouped (DataFusion's and
// DuckDB's filter pushdown move these conjuncts too). Moved, then, is a
// top-level conjunct of HAVING whose every column is a GROUP BY key that
// is a bare column of the table (named, by position or by an item's
// alias) whose key is its value (keyIsValue), with no aggregate, window or subquery, and no volatile call
// (random(): in WHERE it would run once per row, not once per group).
// Not moved:
//
//   - anything without GROUP BY: an aggregate over no rows still returns
//     its one row, which HAVING false drops and WHERE false cannot;
//   - a conjunct over a key that is an expression (GROUP BY qty % 2):
//     WHERE would have to repeat it, which the lowering does not match;
//   - a QUALIFY (parse_qualify.go), which filters after the windows;
//   - in a SELECT that joins: its WHERE is bound into the join plan before
//     these rules run (logical_select_rules.go).
//
// It runs after aliases are substituted (a HAVING alias of a key is the
// key's column by then) and before arithmetic moves off columns, which
// then takes the moved conjuncts too.
func (b *builder) ruleHavingToWhere(sp *selectPlan) error {
	s := sp.sel
	if sp.from != nil || sp.table == "" || sp.qualifies || !sp.grouped || s.Having == nil {
		return nil
	}
	keys := b.keyColumns(sp)
	if len(keys) == 0 {
		return nil
	}
	var moved, kept []ast.ExprNode
	for _, c := range conjuncts(s.Having.Expr, nil) {
		if b.overKeysAlone(c, keys) {
			moved = append(moved, c)
		} else {
			kept = append(kept, c)
		}
	}
	if len(moved) == 0 {
		return nil
	}
	for _, c := range moved {
		s.Where = and(s.Where, c)
	}
	if len(kept) == 0 {
		s.Having = nil
	} else {
		var rest ast.ExprNode
		for _, c := range kept {
			rest = and(rest, c)
		}
		s.Having.Expr = rest
	}
	sp.bindFilters()
	sp.bindCalls()
	return nil
}

// keyColumns returns the table's columns that are GROUP BY keys as bare
// columns, as buildAggregate resolves them: a position or an alias names
// its item, and a name that is the table's column is that column.
func (b *builder) keyColumns(sp *selectPlan) map[int]bool {
	keys := map[int]bool{}
	for _, it := range sp.groupBy {
		node := it.Expr
		if p, ok := node.(*ast.PositionExpr); ok {
			if p.N < 1 || p.N > len(sp.items) {
				continue // buildAggregate reports it
			}
			node = sp.items[p.N-1].node
		} else if c, ok := node.(*ast.ColumnNameExpr); ok && b.colIndex(c.Name) == -1 {
			for _, item := range sp.items {
				if item.alias != "" && strings.EqualFold(item.alias, c.Name.Name.O) {
					node = item.node
				}
			}
		}
		if c, ok := unparen(node).(*ast.ColumnNameExpr); ok {
			if i := b.colIndex(c.Name); i >= 0 && keyIsValue(b.info.Schema.Field(i).Type) {
				keys[i] = true
			}
		}
	}
	return keys
}

// keyIsValue reports whether a group's key of a column of type t is the
// value of each of its rows, as a function of it sees it. Not so for the
// types grouped by an equality looser than the value's (intervals: '1
// day' and '24 hours' group together; floats: 0 and -0), or as another
// type (hasTypedKey: NULL, a wide DECIMAL), nor for nested values.
func keyIsValue(t arrow.DataType) bool {
	if !hasTypedKey(t) || arrow.IsNested(t.ID()) || arrow.IsFloating(t.ID()) {
		return false
	}
	switch t.ID() {
	case arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO, arrow.EXTENSION:
		return false
	case arrow.DICTIONARY: // grouped by its codes, each one value
		return keyIsValue(t.(*arrow.DictionaryType).ValueType)
	}
	return true
}

// overKeysAlone reports whether c names only the key columns keys, and
// at least one, with nothing that must stay above the Aggregate.
func (b *builder) overKeysAlone(c ast.ExprNode, keys map[int]bool) bool {
	if hasAggregateExpr(c) || hasWindowExpr(c) || hasSubquery(c) {
		return false
	}
	v := &keyOnlyVisitor{b: b, keys: keys, ok: true}
	c.Accept(v)
	return v.ok && v.columns > 0
}

// keyOnlyVisitor walks a conjunct: ok stays true while every column is a
// key and no call is volatile; columns counts the columns.
type keyOnlyVisitor struct {
	b       *builder
	keys    map[int]bool
	ok      bool
	columns int
}

func (v *keyOnlyVisitor) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.ColumnNameExpr:
		v.columns++
		if i := v.b.colIndex(x.Name); i < 0 || !v.keys[i] {
			v.ok = false
		}
	case *ast.FuncCallExpr:
		if expr.Volatile(x.FnName.L) {
			v.ok = false
		}
	case *ast.VariableExpr, *ast.DefaultExpr:
		v.ok = false
	}
	return n, !v.ok
}

func (v *keyOnlyVisitor) Leave(n ast.Node) (ast.Node, bool) { return n, v.ok }
