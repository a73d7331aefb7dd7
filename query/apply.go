package query

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/quiverdb/quiver/query/expr"
)

// Apply: a correlated scalar subquery, EXISTS or IN (subquery) where the
// planner cannot turn it into a join — in the SELECT list, under OR,
// CASE or arithmetic, with outer columns in comparisons other than
// inner = outer, or an aggregate such as count whose value over no rows
// is not NULL — is evaluated for each distinct tuple of the outer values
// it reads: the subquery is planned from its text with those outer
// columns as ? parameters, and run once per tuple (SQL Server's Apply,
// SQLite's correlated subquery loop). A scalar subquery's value is NULL
// when it returns no row, and more than one row is an error; IN runs a
// query over the subquery's rows that gives its three-valued answer.
// This costs a query per distinct outer tuple, so it suits the small
// outer sides such subqueries usually have; decorrelating them into
// joins, as WHERE's are (from_subquery.go), is the faster way.
//
//	SELECT (SELECT count(*) FROM t x WHERE x.b < t.b) FROM t
//	  → per distinct t.b: SELECT count(*) FROM t AS x WHERE x.b < ?

// maxApplyRuns bounds the queries one Apply runs for one statement: past
// it the statement fails, naming the limit, rather than running for hours.
const maxApplyRuns = 100_000

// applyExpr is a correlated scalar subquery evaluated by Apply.
type applyExpr struct {
	e     *Engine     // runs the subquery
	sql   string      // the subquery, outer columns as ?
	args  []expr.Expr // the outer columns, in the order of the ?s
	typ   arrow.DataType
	text  string
	runs  atomic.Int64 // subquery runs so far, over every batch and worker
	limit int64
	// exists: the value is whether the subquery returns a row (EXISTS),
	// never NULL.
	exists bool
}

// applySubquery plans a correlated scalar subquery met in an expression,
// or the subquery of EXISTS (exists: its value is whether it returns a
// row).
func (b *builder) applySubquery(sq *ast.SubqueryExpr, sc scope, exists bool) (expr.Expr, error) {
	sel, text, outer, err := b.applyText(sq)
	if err != nil {
		return nil, err
	}
	if !exists && (len(sel.Fields.Fields) != 1 || sel.Fields.Fields[0].WildCard != nil) {
		return nil, b.at(ErrInvalid, sq, "a subquery used as a value returns one column")
	}
	a, schema, err := b.newApply(text, restore(sq), exprNodes(outer), sc)
	if err != nil {
		return nil, err
	}
	if exists {
		a.exists, a.typ, a.text = true, arrow.FixedWidthTypes.Boolean, "EXISTS "+a.text
		return a, nil
	}
	if schema.NumFields() != 1 {
		return nil, b.at(ErrInvalid, sq, "a subquery used as a value returns one column")
	}
	var known bool
	if a.typ, known = expr.EngineType(schema.Field(0).Type); !known {
		return nil, b.at(ErrUnsupported, sq, "a subquery value of type %v", schema.Field(0).Type)
	}
	return a, nil
}

// applyIn plans x [NOT] IN (subquery) where WHERE's semi joins do not
// take it (in SELECT, under OR or CASE): Apply runs, per distinct tuple
// of x and the subquery's outer columns, a query over the subquery's rows
// that gives IN's three-valued answer: FALSE over no rows, TRUE when a
// row equals x, else NULL when x or a row is NULL, else FALSE.
func (b *builder) applyIn(x *ast.PatternInExpr, sc scope) (expr.Expr, error) {
	sq, ok := unparen(x.Sel).(*ast.SubqueryExpr)
	if !ok {
		return nil, b.at(ErrUnsupported, x, "IN (this subquery)")
	}
	_, text, outer, err := b.applyText(sq)
	if err != nil {
		return nil, err
	}
	_, schema, err := b.newApply(text, restore(sq), exprNodes(outer), sc)
	if err != nil {
		return nil, err
	}
	if schema.NumFields() != 1 {
		return nil, b.at(ErrInvalid, sq, "IN (subquery) needs a subquery of one column; this one has %d", schema.NumFields())
	}
	col := "q.`" + strings.ReplaceAll(schema.Field(0).Name, "`", "``") + "`"
	with, err := b.withPrefix(sq)
	if err != nil {
		return nil, err
	}
	inner := strings.TrimPrefix(text, with)
	wrapper := with + "SELECT CASE WHEN count(*) = 0 THEN FALSE WHEN sum(CASE WHEN " + col + " = ? THEN 1 ELSE 0 END) > 0 THEN TRUE " +
		"WHEN ? IS NULL OR count(*) > count(" + col + ") THEN NULL ELSE FALSE END FROM (" + inner + ") AS q"
	args := append([]ast.ExprNode{x.Expr, x.Expr}, exprNodes(outer)...)
	a, _, err := b.newApply(wrapper, restore(x.Expr)+" IN "+restore(sq), args, sc)
	if err != nil {
		return nil, err
	}
	a.typ = arrow.FixedWidthTypes.Boolean
	if x.Not {
		a.text = restore(x.Expr) + " NOT IN " + restore(sq)
		return wrap(b, x)(expr.Not(a))
	}
	return a, nil
}

func exprNodes(cols []*ast.ColumnNameExpr) []ast.ExprNode {
	out := make([]ast.ExprNode, len(cols))
	for i, c := range cols {
		out[i] = c
	}
	return out
}

// applyText is a subquery's text for Apply, prefixed by the statement's
// WITH clause, with its outer columns as ?, and those columns in the
// order of the ?s (the order the parser numbers them in: a walk of the
// statement, which is the text's order).
func (b *builder) applyText(sq *ast.SubqueryExpr) (*ast.SelectStmt, string, []*ast.ColumnNameExpr, error) {
	sel, ok := sq.Query.(*ast.SelectStmt)
	if !ok {
		return nil, "", nil, b.at(ErrUnsupported, sq, "set operations in a subquery used as a value")
	}
	if b.nparams > 0 {
		return nil, "", nil, b.at(ErrUnsupported, sq, "a correlated subquery used as a value in a statement with ? parameters")
	}
	free, err := b.freeRefs(sel)
	if err != nil {
		return nil, "", nil, err
	}
	isFree := map[*ast.ColumnNameExpr]bool{}
	for _, c := range free {
		isFree[c] = true
	}
	r := &paramReplacer{free: isFree}
	sel.Accept(r)
	text := restoreSQL(sel)
	sel.Accept(&paramRestorer{r})
	if text == "" {
		return nil, "", nil, b.at(ErrUnsupported, sq, "this subquery (its text could not be rebuilt)")
	}
	prefix, err := b.withPrefix(sq)
	if err != nil {
		return nil, "", nil, err
	}
	return sel, prefix + text, r.order, nil
}

// newApply makes the Apply of sql, whose ?s take the values of args
// (expressions of the outer query, planned in sc), and plans sql once
// with sample values for its result's schema.
func (b *builder) newApply(sql, text string, args []ast.ExprNode, sc scope) (*applyExpr, *arrow.Schema, error) {
	a := &applyExpr{e: New(b.c, b.opts), sql: sql, text: text, limit: maxApplyRuns}
	samples := make([]any, len(args))
	for i, n := range args {
		arg, err := b.expr(n, sc)
		if err != nil {
			return nil, nil, err
		}
		a.args = append(a.args, arg)
		if samples[i], err = sampleParam(arg.Type()); err != nil {
			return nil, nil, b.at(ErrUnsupported, n, "%s of type %v read by a subquery evaluated per row", restore(n), arg.Type())
		}
	}
	schema, err := a.e.SchemaContext(b.context(), sql, samples...)
	if err != nil {
		return nil, nil, err
	}
	return a, schema, nil
}

// context is the builder's context, or Background before planning.
func (b *builder) context() context.Context {
	if b.ctx == nil {
		return context.Background()
	}
	return b.ctx
}

// withPrefix is the statement's WITH clause, for a subquery planned on
// its own that may name its queries.
func (b *builder) withPrefix(at ast.Node) (string, error) {
	if len(b.ctes) == 0 {
		return "", nil
	}
	parts := make([]string, len(b.ctes))
	for i, c := range b.ctes {
		if len(c.params) > 0 {
			return "", b.at(ErrUnsupported, at, "a correlated subquery used as a value beside WITH queries with ? parameters")
		}
		parts[i] = fmt.Sprintf("`%s` AS (%s)", strings.ReplaceAll(c.name, "`", "``"), c.text)
	}
	return "WITH " + strings.Join(parts, ", ") + " ", nil
}

// sampleParam is a value of an engine type, for planning the subquery
// before any outer row is known.
func sampleParam(t arrow.DataType) (any, error) {
	switch dt := t.(type) {
	case *arrow.Int64Type:
		return int64(0), nil
	case *arrow.Float64Type:
		return float64(0), nil
	case *arrow.StringType:
		return "", nil
	case *arrow.BooleanType:
		return false, nil
	case *arrow.Date32Type:
		return arrow.Date32(0), nil
	case *arrow.Decimal128Type:
		return Decimal{Precision: dt.Precision, Scale: dt.Scale}, nil
	case *arrow.NullType:
		return nil, nil
	}
	return nil, fmt.Errorf("no parameter of type %v", t)
}

// paramOf is row i of an engine-typed array as a parameter.
func paramOf(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case *array.Int64:
		return x.Value(i)
	case *array.Float64:
		return x.Value(i)
	case *array.String:
		return x.Value(i)
	case *array.Boolean:
		return x.Value(i)
	case *array.Date32:
		return x.Value(i)
	case *array.Decimal128:
		dt := x.DataType().(*arrow.Decimal128Type)
		return Decimal{Unscaled: x.Value(i), Precision: dt.Precision, Scale: dt.Scale}
	}
	return nil
}

func (a *applyExpr) Type() arrow.DataType { return a.typ }
func (a *applyExpr) String() string       { return a.text }

// Eval runs the subquery for each distinct outer tuple of the batch.
func (a *applyExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	n := int(batch.NumRows())
	args := make([]arrow.Array, len(a.args))
	defer func() { releaseAll(args) }()
	for i, e := range a.args {
		arr, err := e.Eval(ctx, mem, batch)
		if err != nil {
			return nil, err
		}
		args[i] = arr
	}
	if n == 0 {
		return array.MakeArrayOfNull(mem, a.typ, 0), nil
	}
	memo := map[string]arrow.Array{} // value per outer tuple: one row of typ
	defer func() {
		for _, v := range memo {
			v.Release()
		}
	}()
	vals := make([]arrow.Array, n)
	params := make([]any, len(args))
	var key []byte
	for r := range n {
		key = key[:0]
		for i, arg := range args {
			params[i] = paramOf(arg, r)
			key = appendParamKey(key, params[i])
		}
		v, ok := memo[string(key)] // no copy: the compiler reads the map with the bytes
		if !ok {
			var err error
			if v, err = a.run(ctx, mem, params); err != nil {
				return nil, err
			}
			memo[string(key)] = v
		}
		vals[r] = v
	}
	out, err := array.Concatenate(vals, mem)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: a.text, Err: err}
	}
	return out, nil
}

// outerMemKey carries, in the context a subquery runs with, the memory
// tracker of the query whose Apply runs it: what the subquery holds
// counts against that query's limit (and shows in its peak), instead of
// each run having a limit of its own beside the query's.
type outerMemKey struct{}

// run runs the subquery for one outer tuple: its value as one row of typ.
func (a *applyExpr) run(ctx context.Context, mem memory.Allocator, params []any) (arrow.Array, error) {
	if a.runs.Add(1) > a.limit {
		return nil, &Error{Kind: ErrExec, Msg: fmt.Sprintf("%s: a correlated subquery used as a value runs once per distinct outer row, and this one would run more than %d times (rewrite it as a join)", a.text, a.limit)}
	}
	if m, ok := mem.(*evalMem); ok {
		ctx = context.WithValue(ctx, outerMemKey{}, m.mt)
	}
	res, err := a.e.Query(ctx, a.sql, params...)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	if a.exists {
		found := false
		for !found && res.Next() {
			found = res.RecordBatch().NumRows() > 0
		}
		if err := res.Err(); err != nil {
			return nil, err
		}
		bb := array.NewBooleanBuilder(mem)
		defer bb.Release()
		bb.Append(found)
		return bb.NewArray(), nil
	}
	var val arrow.Array
	for res.Next() {
		rec := res.RecordBatch()
		switch {
		case rec.NumRows() == 0:
			continue
		case rec.NumRows() > 1 || val != nil:
			if val != nil {
				val.Release()
			}
			return nil, &Error{Kind: ErrExec, Msg: "more than one row returned by a subquery used as an expression: " + a.text}
		}
		col, err := expr.ToEngine(ctx, mem, rec.Column(0))
		if err != nil {
			return nil, err
		}
		val = col
	}
	if err := res.Err(); err != nil {
		if val != nil {
			val.Release()
		}
		return nil, err
	}
	if val == nil {
		return array.MakeArrayOfNull(mem, a.typ, 1), nil
	}
	if !arrow.TypeEqual(val.DataType(), a.typ) {
		t := val.DataType()
		val.Release()
		return nil, &Error{Kind: ErrExec, Msg: fmt.Sprintf("%s: the subquery's value is %v for these outer values, %v for others", a.text, t, a.typ)}
	}
	return val, nil
}

// paramReplacer swaps each outer column of a subquery for a ? (in walk
// order, the order the parser numbers ?s in), remembering them;
// paramRestorer puts them back.
type paramReplacer struct {
	free  map[*ast.ColumnNameExpr]bool
	order []*ast.ColumnNameExpr
	marks map[*driver.ParamMarkerExpr]*ast.ColumnNameExpr
}

func (v *paramReplacer) Enter(n ast.Node) (ast.Node, bool) { return n, false }
func (v *paramReplacer) Leave(n ast.Node) (ast.Node, bool) {
	c, ok := n.(*ast.ColumnNameExpr)
	if !ok || !v.free[c] {
		return n, true
	}
	m := &driver.ParamMarkerExpr{Order: len(v.order)}
	if v.marks == nil {
		v.marks = map[*driver.ParamMarkerExpr]*ast.ColumnNameExpr{}
	}
	v.marks[m] = c
	v.order = append(v.order, c)
	return m, true
}

type paramRestorer struct{ r *paramReplacer }

func (v *paramRestorer) Enter(n ast.Node) (ast.Node, bool) { return n, false }
func (v *paramRestorer) Leave(n ast.Node) (ast.Node, bool) {
	if m, ok := n.(*driver.ParamMarkerExpr); ok {
		if c, ok := v.r.marks[m]; ok {
			return c, true
		}
	}
	return n, true
}

// appendParamKey appends a parameter to a memo key: a kind byte, then its
// value, so that values of different kinds never share a key (1 ≠ '1').
func appendParamKey(key []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(key, 'n')
	case int64:
		return binary.LittleEndian.AppendUint64(append(key, 'i'), uint64(x))
	case float64:
		return binary.LittleEndian.AppendUint64(append(key, 'f'), math.Float64bits(x))
	case bool:
		if x {
			return append(key, 't')
		}
		return append(key, 'b')
	case arrow.Date32:
		return binary.LittleEndian.AppendUint32(append(key, 'd'), uint32(x))
	case string:
		key = binary.LittleEndian.AppendUint32(append(key, 's'), uint32(len(x)))
		return append(key, x...)
	case Decimal:
		key = binary.LittleEndian.AppendUint64(append(key, 'm', byte(x.Scale)), x.Unscaled.LowBits())
		return binary.LittleEndian.AppendUint64(key, uint64(x.Unscaled.HighBits()))
	}
	return fmt.Appendf(append(key, '?'), "%T:%v|", v, v)
}
