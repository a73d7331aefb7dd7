package query

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/expr"
)

// layout is what the batches hold at one point of a plan below its
// projection or aggregate: for each table column the query reads, the
// position of its array in the table's stored type and, once an
// expression has asked for it, of its array in its engine type. For a
// column whose stored type is an engine type both are the same array.
//
//	scan:     [a int32, b utf8, c decimal64(7,2)]        stored  a→0 b→1 c→2
//	convert:  [a, b, c, a int64, c decimal(7,2)]          engine  a→3 b→1 c→4
//	filter keeping what is read above it, say a and c's engine array:
//	          [a, c decimal(7,2)]                         stored  a→0, engine c→1
//
// Expressions ask for engine arrays (engine), which queues their
// conversion for the next convertNode (flush); columns a query returns as
// they are ask for stored arrays (stored), which costs nothing.
type layout struct {
	table   *arrow.Schema
	fields  []arrow.Field
	stored  map[int]int // table column → position
	engine  map[int]int // table column → position (past len(fields) while pending)
	pending []int       // table columns the next convertNode converts, in position order
}

func newLayout(table *arrow.Schema, cols []int) *layout {
	l := &layout{table: table, stored: map[int]int{}, engine: map[int]int{}}
	for i, c := range cols {
		f := table.Field(c)
		l.fields = append(l.fields, f)
		l.stored[c] = i
		if et, ok := expr.EngineType(f.Type); ok && arrow.TypeEqual(et, f.Type) {
			l.engine[c] = i
		}
	}
	return l
}

// storedRef reads table column c as stored. The planner only asks for
// columns the scan decodes and the filter keeps: anything else is a bug
// of ours.
func (l *layout) storedRef(c int) expr.Expr {
	p, ok := l.stored[c]
	if !ok {
		panic(fmt.Sprintf("query: table column %d is not in the batch (layout %v)", c, l.stored))
	}
	return expr.Column(p, l.fields[p].Name, l.fields[p].Type)
}

// engineRef reads table column c in its engine type, queueing its
// conversion when no earlier step converted it. The caller has checked
// that the column has an engine type.
func (l *layout) engineRef(c int) expr.Expr {
	f := l.table.Field(c)
	et, _ := expr.EngineType(f.Type)
	p, ok := l.engine[c]
	if !ok {
		if _, ok := l.stored[c]; !ok {
			panic(fmt.Sprintf("query: table column %d is not in the batch (layout %v)", c, l.stored))
		}
		p = len(l.fields) + len(l.pending)
		l.engine[c] = p
		l.pending = append(l.pending, c)
	}
	return expr.Column(p, f.Name, et)
}

// flush puts the conversions queued since the last flush on top of in.
func (l *layout) flush(in planNode) planNode {
	if len(l.pending) == 0 {
		return in
	}
	n := &convertNode{in: in}
	for _, c := range l.pending {
		f := l.table.Field(c)
		et, _ := expr.EngineType(f.Type)
		n.cols = append(n.cols, l.stored[c])
		n.fields = append(n.fields, arrow.Field{Name: f.Name, Type: et, Nullable: f.Nullable})
	}
	l.fields = append(l.fields, n.fields...)
	l.pending = nil
	return n
}

// use says how the clauses above a filter read a table column.
type use uint8

const (
	useStored use = 1 << iota // passed through as it is
	useEngine                 // read by an expression
)

// keep narrows the layout to what is read above a filter: for each table
// column in need, its stored array where it is passed through, its engine
// array where an expression reads it (the stored one when no conversion
// was made below the filter: it is converted above). It returns the
// positions kept, ascending, or nil when that is all of them. The filter
// then gathers only these.
func (l *layout) keep(need map[int]use) []int {
	if len(l.pending) > 0 {
		panic("query: layout narrowed with conversions pending")
	}
	pos := []int{} // not nil: nil would mean "every column"
	for c, u := range need {
		pe, converted := l.engine[c]
		if u&useStored != 0 || (u&useEngine != 0 && !converted) {
			pos = append(pos, l.stored[c])
		}
		if u&useEngine != 0 && converted {
			pos = append(pos, pe)
		}
	}
	slices.Sort(pos)
	pos = slices.Compact(pos)
	if len(pos) == len(l.fields) {
		return nil
	}
	at := make(map[int]int, len(pos))
	fields := make([]arrow.Field, len(pos))
	for i, p := range pos {
		at[p] = i
		fields[i] = l.fields[p]
	}
	remap := func(m map[int]int) map[int]int {
		out := map[int]int{}
		for c, p := range m {
			if i, ok := at[p]; ok {
				out[c] = i
			}
		}
		return out
	}
	l.fields, l.stored, l.engine = fields, remap(l.stored), remap(l.engine)
	return pos
}

// readAbove returns the table columns the clauses after WHERE read and
// how: passed through (a bare column as a SELECT item or an ORDER BY key
// of a query without GROUP BY or aggregates) or read by an expression.
// The rule for "passed through" is b.output's, so the builder never asks
// above a filter for a stored array the filter dropped; an engine array
// it did not keep is made again above it (keep keeps the stored one).
func (b *builder) readAbove(sp *selectPlan) map[int]use {
	need := map[int]use{}
	grouped := sp.aggregated()
	visit := func(n ast.ExprNode, passable bool) {
		if n == nil {
			return
		}
		if c, ok := unparen(n).(*ast.ColumnNameExpr); ok && passable && !grouped {
			if i := b.colIndex(c.Name); i >= 0 {
				need[i] |= useStored
			}
			return
		}
		used := map[int]bool{}
		n.Accept(&columnCollector{b: b, used: used})
		for i := range used {
			need[i] |= useEngine
		}
	}
	for _, it := range sp.items {
		visit(it.node, true)
	}
	for _, it := range sp.groupBy {
		visit(it.Expr, false)
		// a dictionary column key is grouped as stored (build_dictkey.go)
		if c, ok := unparen(it.Expr).(*ast.ColumnNameExpr); ok {
			if i := b.colIndex(c.Name); i >= 0 {
				if _, ok := groupsByCodes(b.info.Schema.Field(i).Type); ok {
					need[i] |= useStored
				}
			}
		}
	}
	visit(sp.having, false)
	visit(sp.qualify, false)
	for _, it := range sp.orderBy {
		visit(it.Expr, true)
	}
	return need
}

// unparen strips parentheses: (a) is the column a.
func unparen(n ast.ExprNode) ast.ExprNode {
	for {
		p, ok := n.(*ast.ParenthesesExpr)
		if !ok {
			return n
		}
		n = p.Expr
	}
}

// nullable reports whether e can be NULL over batches of schema in: a
// column passed through, in its stored type or restored to it, is as
// nullable as its field; a computed value may always be NULL.
func nullable(e expr.Expr, in *arrow.Schema) bool {
	n := expr.Inspect(e)
	switch n.Kind {
	case expr.KindColumn:
		return n.Column < 0 || n.Column >= in.NumFields() || in.Field(n.Column).Nullable
	case expr.KindStored:
		return nullable(n.Args[0], in)
	}
	return true
}
