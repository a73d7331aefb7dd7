package query

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/expr"
)

// Set operations. UNION ALL runs its inputs one after the other
// (unionNode); the rest are UNION ALL with an aggregate on top, so that
// NULLs compare equal as SQL's set operations want (GROUP BY groups
// NULLs together, a join key never matches one):
//
//	a UNION b      SELECT DISTINCT * FROM (a UNION ALL b)
//	a INTERSECT b  SELECT cols FROM (a, 1, 0 UNION ALL b, 0, 1)
//	               GROUP BY cols HAVING sum($l) > 0 AND sum($r) > 0
//	a EXCEPT b     … HAVING sum($l) > 0 AND sum($r) = 0
//
// Inputs line up by position; a column's type is its inputs' type when
// they agree, else their common engine type (expr.Coerce). INTERSECT
// ALL and EXCEPT ALL are refused. Runs of INTERSECT apply first (it
// binds tighter, as in standard SQL), then UNION and EXCEPT left to right.
// The statement is bound into a logical plan of SetOps over its SELECTs,
// rewritten into the forms above by a rule, and lowered from them
// (logical_setop.go); EXPLAIN FORMAT = 'logical' prints both stages.

// buildSetOpr plans a UNION, INTERSECT or EXCEPT statement.
func (b *builder) buildSetOpr(s *ast.SetOprStmt) (planNode, error) {
	if s.With != nil {
		if err := b.bindWith(s.With); err != nil {
			return nil, err
		}
		b.countWithUses(s.With, s) // cte_held.go
	}
	b.traced(s, s) // the statement's plan prints before its SELECTs'
	n, err := b.bindSetList(s.SelectList)
	if err != nil {
		return nil, err
	}
	if s.OrderBy != nil || s.Limit != nil {
		n = &setNode{kind: setSort, in: []*setNode{n}, orderBy: s.OrderBy, limit: s.Limit}
	}
	return b.planSetOp(s, n)
}

// setList plans a parenthesized set operation inside another.
func (b *builder) setList(l *ast.SetOprSelectList) (planNode, error) {
	b.traced(l, l)
	n, err := b.bindSetList(l)
	if err != nil {
		return nil, err
	}
	return b.planSetOp(l, n)
}

// planSetOp rewrites a set operation's logical plan (key: its statement
// or list) and lowers it, recording it for EXPLAIN FORMAT = 'logical'.
func (b *builder) planSetOp(key ast.Node, n *setNode) (planNode, error) {
	b.traceSetOp(key, n, "bound")
	n = ruleSetOpsAsUnionAll(n) // logical_setop.go
	b.traceSetOp(key, n, "after set operations as UNION ALL")
	return b.lowerSetOp(n)
}

// bindSetList plans a list's SELECTs and nested lists, left to right,
// and folds them into SetOps: runs of INTERSECT first (it binds tighter
// than UNION and EXCEPT, as in standard SQL), then the rest left to
// right; the list's own ORDER BY and LIMIT go above.
func (b *builder) bindSetList(l *ast.SetOprSelectList) (*setNode, error) {
	if l.With != nil {
		if err := b.bindWith(l.With); err != nil {
			return nil, err
		}
	}
	var inputs []*setNode
	var ops []ast.SetOprType
	for i, n := range l.Selects {
		if err := b.nest(n); err != nil {
			return nil, err
		}
		var p planNode
		var err error
		var op *ast.SetOprType
		switch x := n.(type) {
		case *ast.SelectStmt:
			op = x.AfterSetOperator
			p, err = b.child().buildSelect(x)
		case *ast.SetOprSelectList:
			op = x.AfterSetOperator
			p, err = b.child().setList(x)
		default:
			return nil, b.at(ErrUnsupported, n, "%T in a set operation", n)
		}
		if err != nil {
			return nil, err
		}
		if i > 0 {
			if op == nil {
				return nil, b.at(ErrInvalid, n, "a set operation without its operator")
			}
			ops = append(ops, *op)
		}
		inputs = append(inputs, &setNode{kind: setSelect, plan: p, text: setInputText(n), at: n})
	}
	// An error of a SetOp points at its right input; a run of INTERSECT
	// there, at the run's first.
	opr := func(op ast.SetOprType, l, r *setNode) *setNode {
		at := r
		for at.kind != setSelect {
			at = at.in[0]
		}
		return &setNode{kind: setOpr, op: op, in: []*setNode{l, r}, at: at.at}
	}
	stack := []*setNode{inputs[0]}
	var rest []ast.SetOprType
	for i, op := range ops {
		if op == ast.Intersect || op == ast.IntersectAll {
			last := len(stack) - 1
			stack[last] = opr(op, stack[last], inputs[i+1])
			continue
		}
		stack = append(stack, inputs[i+1])
		rest = append(rest, op)
	}
	acc := stack[0]
	for i, op := range rest {
		acc = opr(op, acc, stack[i+1])
	}
	if l.OrderBy != nil || l.Limit != nil {
		acc = &setNode{kind: setSort, in: []*setNode{acc}, orderBy: l.OrderBy, limit: l.Limit}
	}
	return acc, nil
}

// lowerSetOp plans a set operation's rewritten logical plan, bottom up,
// left before right. UNION ALL runs its inputs one after the other
// (unionNode); Distinct and the counting Aggregate are a SELECT over it
// (overPlan).
func (b *builder) lowerSetOp(n *setNode) (planNode, error) {
	switch n.kind {
	case setSelect:
		return n.plan, nil
	case setSort:
		in, err := b.lowerSetOp(n.in[0])
		if err != nil {
			return nil, err
		}
		return b.overPlan(in, func(sel *ast.SelectStmt) { sel.OrderBy, sel.Limit = n.orderBy, n.limit })
	case setDistinct:
		in, err := b.lowerSetOp(n.in[0])
		if err != nil {
			return nil, err
		}
		return b.overPlan(in, func(sel *ast.SelectStmt) { sel.Distinct = true })
	case setCount:
		in, err := b.lowerSetOp(n.in[0])
		if err != nil {
			return nil, err
		}
		cols := in.schema().NumFields() - 2 // but $l and $r
		return b.overPlan(in, func(sel *ast.SelectStmt) {
			sel.Fields.Fields = sel.Fields.Fields[:cols]
			sel.GroupBy = &ast.GroupByClause{}
			for _, f := range sel.Fields.Fields {
				sel.GroupBy.Items = append(sel.GroupBy.Items, &ast.ByItem{Expr: f.Expr})
			}
			sel.Having = &ast.HavingClause{Expr: mustParseExpr(countCondition(n.op))}
		})
	case setUnionAll, setOpr:
		return b.lowerSetPair(n)
	}
	return nil, fmt.Errorf("query: a set operation's plan node of kind %d under UNION ALL's inputs", n.kind)
}

// lowerSetPair plans the two inputs of a UnionAll (tagged or not) or of a
// SetOp left as written (INTERSECT ALL, EXCEPT ALL: refused), checking
// that their columns line up.
func (b *builder) lowerSetPair(n *setNode) (planNode, error) {
	var plans [2]planNode
	for i, c := range n.in {
		in := c
		if c.kind == setTag {
			in = c.in[0]
		}
		p, err := b.lowerSetOp(in)
		if err != nil {
			return nil, err
		}
		plans[i] = p
	}
	l, r := plans[0], plans[1]
	if ln, rn := l.schema().NumFields(), r.schema().NumFields(); ln != rn {
		return nil, b.at(ErrInvalid, n.at, "%s: the inputs have %d and %d columns", n.op.String(), ln, rn)
	}
	if n.kind == setOpr {
		return nil, b.at(ErrUnsupported, n.at, "%s (INTERSECT ALL and EXCEPT ALL)", n.op.String())
	}
	for i, c := range n.in {
		if c.kind == setTag {
			plans[i] = tagged(plans[i], c.tags)
		}
	}
	return b.unionAll(plans[0], plans[1], n.at)
}

// tagged is p with two more columns, $l and $r, of the constants tags:
// which side of an INTERSECT or EXCEPT a row came from.
func tagged(p planNode, tags [2]int64) planNode {
	sch := p.schema()
	var exprs []expr.Expr
	var names []string
	for i, f := range sch.Fields() {
		exprs = append(exprs, expr.Column(i, f.Name, f.Type))
		names = append(names, f.Name)
	}
	l, _ := expr.Literal(tags[0])
	r, _ := expr.Literal(tags[1])
	return &projectNode{in: p, exprs: append(exprs, l, r), names: append(names, "$l", "$r")}
}

// unionAll lines up two plans' columns and concatenates them.
func (b *builder) unionAll(l, r planNode, at ast.Node) (planNode, error) {
	ls, rs := l.schema(), r.schema()
	fields := make([]arrow.Field, ls.NumFields())
	var lconv, rconv []int
	for i := range fields {
		lf, rf := ls.Field(i), rs.Field(i)
		fields[i] = arrow.Field{Name: lf.Name, Type: lf.Type, Nullable: lf.Nullable || rf.Nullable}
		if arrow.TypeEqual(lf.Type, rf.Type) {
			continue
		}
		let, lok := expr.EngineType(lf.Type)
		ret, rok := expr.EngineType(rf.Type)
		if !lok || !rok {
			return nil, b.at(ErrUnsupported, at, "column %d: %s and %s in one set operation", i+1, lf.Type, rf.Type)
		}
		t, err := expr.Coerce(let, ret)
		if err != nil {
			return nil, b.at(ErrInvalid, at, "column %d (%s): %s and %s have no common type", i+1, lf.Name, lf.Type, rf.Type)
		}
		fields[i].Type = t
		lconv, rconv = append(lconv, i), append(rconv, i)
	}
	var err error
	if l, err = castColumns(l, lconv, fields); err != nil {
		return nil, b.at(ErrInvalid, at, "%v", err)
	}
	if r, err = castColumns(r, rconv, fields); err != nil {
		return nil, b.at(ErrInvalid, at, "%v", err)
	}
	return &unionNode{inputs: []planNode{l, r}, out: arrow.NewSchema(fields, nil)}, nil
}

// castColumns converts the columns at cols to fields' types: to the
// engine type first (a convertNode), then CAST where that differs.
func castColumns(p planNode, cols []int, fields []arrow.Field) (planNode, error) {
	if len(cols) == 0 {
		return p, nil
	}
	sch := p.schema()
	conv := &convertNode{in: p}
	at := map[int]int{}
	for _, c := range cols {
		f := sch.Field(c)
		et, _ := expr.EngineType(f.Type)
		if !arrow.TypeEqual(et, f.Type) {
			at[c] = sch.NumFields() + len(conv.cols)
			conv.cols = append(conv.cols, c)
			conv.fields = append(conv.fields, arrow.Field{Name: f.Name, Type: et, Nullable: f.Nullable})
		}
	}
	if len(conv.cols) > 0 {
		p = conv
	}
	in := p.schema()
	exprs := make([]expr.Expr, sch.NumFields())
	names := make([]string, sch.NumFields())
	for i, f := range sch.Fields() {
		names[i] = f.Name
		pos := i
		if q, ok := at[i]; ok {
			pos = q
		}
		exprs[i] = expr.Column(pos, f.Name, in.Field(pos).Type)
		if !arrow.TypeEqual(in.Field(pos).Type, fields[i].Type) && containsInt(cols, i) {
			e, err := expr.Cast(exprs[i], fields[i].Type)
			if err != nil {
				return nil, fmt.Errorf("column %d (%s): %v", i+1, f.Name, err)
			}
			exprs[i] = e
		}
	}
	return &projectNode{in: p, exprs: exprs, names: names}, nil
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// overPlan plans SELECT <every column> FROM (p), changed by edit (to add
// DISTINCT, GROUP BY, ORDER BY, LIMIT).
func (b *builder) overPlan(p planNode, edit func(*ast.SelectStmt)) (planNode, error) {
	p, display := uniqueNames(p) // SELECT 1 AS a UNION SELECT 2 AS a: both columns by name
	out, err := b.overUnique(p, edit)
	if err != nil || display == nil {
		return out, err
	}
	// The names as written again.
	sch := out.schema()
	exprs := make([]expr.Expr, sch.NumFields())
	names := make([]string, sch.NumFields())
	for i, f := range sch.Fields() {
		exprs[i] = expr.Column(i, f.Name, f.Type)
		names[i] = f.Name
		if i < len(display) {
			names[i] = display[i]
		}
	}
	return &projectNode{in: out, exprs: exprs, names: names}, nil
}

func (b *builder) overUnique(p planNode, edit func(*ast.SelectStmt)) (planNode, error) {
	name := fmt.Sprintf("$set%d", b.newID())
	sel := &ast.SelectStmt{Kind: ast.SelectStmtKindSelect, SelectStmtOpts: &ast.SelectStmtOpts{SQLCache: true}, Fields: &ast.FieldList{},
		From: &ast.TableRefsClause{TableRefs: &ast.Join{Left: &ast.TableSource{Source: &ast.TableName{Name: ast.NewCIStr(name)}}}}}
	for _, f := range p.schema().Fields() {
		sel.Fields.Fields = append(sel.Fields.Fields, &ast.SelectField{Expr: &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(f.Name)}}})
	}
	edit(sel)
	c := b.child()
	c.ctes = append(c.ctes, namedQuery{name: name, plan: p})
	return c.buildSelect(sel)
}

// mustParseExpr parses an expression the planner writes.
func mustParseExpr(text string) ast.ExprNode {
	st, err := parseSQL("SELECT " + text)
	if err != nil {
		panic(fmt.Sprintf("query: planner wrote bad SQL %q: %v", text, err))
	}
	return st.(*ast.SelectStmt).Fields.Fields[0].Expr
}

// unionNode returns its inputs' batches one input after the other, under
// one schema (the inputs' columns have its types).
type unionNode struct {
	inputs []planNode
	out    *arrow.Schema
}

func (n *unionNode) schema() *arrow.Schema { return n.out }

func (n *unionNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	op := &unionOp{out: n.out}
	for _, in := range n.inputs {
		o, err := in.open(ctx, rt, c)
		if err != nil {
			op.Close()
			return nil, err
		}
		op.inputs = append(op.inputs, o)
	}
	return op, nil
}

func (n *unionNode) explain(b *strings.Builder, depth int) {
	indent(b, depth)
	b.WriteString("UnionAll\n")
	for _, in := range n.inputs {
		in.explain(b, depth+1)
	}
}

type unionOp struct {
	inputs []operator
	cur    int
	out    *arrow.Schema
}

func (o *unionOp) Schema() *arrow.Schema { return o.out }

func (o *unionOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for o.cur < len(o.inputs) {
		rec, err := o.inputs[o.cur].Next(ctx)
		if err == io.EOF {
			o.inputs[o.cur].Close()
			o.cur++
			continue
		}
		if err != nil {
			return nil, err
		}
		out := array.NewRecordBatch(o.out, rec.Columns(), rec.NumRows())
		rec.Release()
		return out, nil
	}
	return nil, io.EOF
}

func (o *unionOp) Close() {
	for _, in := range o.inputs {
		in.Close()
	}
}
