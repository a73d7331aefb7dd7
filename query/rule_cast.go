package query

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/quiverdb/quiver/query/expr"
)

// Part of the rule that moves arithmetic off columns (rule_arith.go): a
// date column cast to TIMESTAMP and compared with a constant is compared
// as a date, so pruning and the scan's row filter take it instead of the
// engine casting every row (DataFusion's unwrap_cast_in_comparison does
// the same):
//
//	CAST(d AS TIMESTAMP) >= TIMESTAMP '1995-01-01 00:00:00'  →  d >= DATE '1995-01-01'
//	CAST(d AS TIMESTAMP) <  TIMESTAMP '1996-07-01 12:00:00'  →  d <= DATE '1996-07-01'
//	CAST(d AS TIMESTAMP) BETWEEN TIMESTAMP a AND TIMESTAMP b →  d BETWEEN ⌈a⌉ AND ⌊b⌋
//
// A date cast to a timestamp without time zone is midnight of that day,
// whatever the session's zone, so with k's day D (k's date part) and k
// past midnight or not, each comparison has an exact date form:
//
//	>  k  →  d > D           <= k  →  d <= D
//	>= k  →  d >= D, or d > D when k is past midnight
//	<  k  →  d < D,  or d <= D when k is past midnight
//	=, <> k: d = D, d <> D only when k is midnight (else left alone)
//
// A constant that is a DATE is midnight of its day; a string is cast to
// a timestamp first, as the comparison would. A cast to TIMESTAMP WITH
// TIME ZONE depends on the session's zone and is left alone, as are NULL
// constants, ? placeholders and days the DATE literal cannot spell.

// dayMicros is a day in microseconds, the unit of quiver's timestamps.
const dayMicros = 86_400_000_000

// castConjunct rewrites one conjunct of WHERE, or returns nil.
func (b *builder) castConjunct(c ast.ExprNode) ast.ExprNode {
	switch x := unparen(c).(type) {
	case *ast.BinaryOperationExpr:
		if _, ok := cmpOps[x.Op]; !ok {
			return nil
		}
		if r := b.castCmp(x.L, x.Op, x.R); r != nil {
			return r
		}
		return b.castCmp(x.R, mirror[x.Op], x.L)
	case *ast.BetweenExpr:
		if x.Not {
			return nil // NOT BETWEEN is an OR: left alone
		}
		col, ok := b.castDateColumn(x.Expr)
		if !ok {
			return nil
		}
		lo, ok1 := b.timestampConstant(x.Left)
		hi, ok2 := b.timestampConstant(x.Right)
		if !ok1 || !ok2 {
			return nil
		}
		loDay, hiDay := floorDiv(lo, dayMicros), floorDiv(hi, dayMicros)
		if lo != loDay*dayMicros { // past midnight: the first whole day after
			loDay++
		}
		l, ok1 := dateLiteralAST(loDay)
		r, ok2 := dateLiteralAST(hiDay)
		if !ok1 || !ok2 {
			return nil
		}
		return &ast.BetweenExpr{Expr: col, Left: l, Right: r}
	}
	return nil
}

// castCmp rewrites CAST(d AS TIMESTAMP) op k, k constant, or returns nil.
func (b *builder) castCmp(e ast.ExprNode, op opcode.Op, k ast.ExprNode) ast.ExprNode {
	col, ok := b.castDateColumn(e)
	if !ok {
		return nil
	}
	us, ok := b.timestampConstant(k)
	if !ok {
		return nil
	}
	day := floorDiv(us, dayMicros)
	midnight := us == day*dayMicros
	switch op {
	case opcode.GE:
		if !midnight {
			op = opcode.GT
		}
	case opcode.LT:
		if !midnight {
			op = opcode.LE
		}
	case opcode.EQ, opcode.NE:
		if !midnight {
			return nil
		}
	case opcode.GT, opcode.LE:
	default:
		return nil // <=> and the like
	}
	lit, ok := dateLiteralAST(day)
	if !ok {
		return nil
	}
	return &ast.BinaryOperationExpr{Op: op, L: col, R: lit}
}

// castDateColumn returns the column of CAST(d AS TIMESTAMP), d a bare
// DATE column of the table, the cast without time zone.
func (b *builder) castDateColumn(e ast.ExprNode) (*ast.ColumnNameExpr, bool) {
	x, ok := unparen(e).(*ast.FuncCastExpr)
	if !ok {
		return nil, false
	}
	col, isCol := unparen(x.Expr).(*ast.ColumnNameExpr)
	if !isCol {
		return nil, false
	}
	if _, dt, ok := b.bareColumn(col); !ok || dt.ID() != arrow.DATE32 {
		return nil, false
	}
	// TIMESTAMP reads as DATETIME; with tzPrecision, as TIMESTAMPTZ (parse_types.go, build_expr.go's cast)
	switch x.Tp.GetType() {
	case mysql.TypeDatetime, mysql.TypeTimestamp:
		return col, x.Tp.GetDecimal() != tzPrecision
	}
	return nil, false
}

// timestampConstant evaluates n, which must name no column and hold no
// ? placeholder, to a timestamp without time zone in microseconds: a
// TIMESTAMP, a DATE (its midnight) or a string cast to TIMESTAMP.
func (b *builder) timestampConstant(n ast.ExprNode) (int64, bool) {
	if hasColumnRef(n) || hasParam(n) {
		return 0, false
	}
	e, err := b.expr(n, tableScope{})
	if err != nil {
		return 0, false
	}
	if e.Type().ID() == arrow.STRING {
		if e, err = expr.Cast(e, expr.TimestampType(false)); err != nil {
			return 0, false
		}
	}
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	arr, err := e.Eval(context.Background(), memory.DefaultAllocator, one)
	if err != nil {
		return 0, false
	}
	defer arr.Release()
	if arr.Len() != 1 || arr.IsNull(0) {
		return 0, false
	}
	switch a := arr.(type) {
	case *array.Date32:
		return int64(a.Value(0)) * dayMicros, true
	case *array.Timestamp:
		if !arrow.TypeEqual(a.DataType(), expr.TimestampType(false)) {
			return 0, false
		}
		return int64(a.Value(0)), true
	}
	return 0, false
}

// dateLiteralAST is DATE 'YYYY-MM-DD' for a day since the epoch, as the
// parser makes it; false for a day outside years 1 to 9999, which the
// literal cannot spell.
func dateLiteralAST(day int64) (ast.ExprNode, bool) {
	const first, last = -719_162, 2_932_896 // 0001-01-01 and 9999-12-31
	if day < first || day > last {
		return nil, false
	}
	text := arrow.Date32(int32(day)).FormattedString()
	if d, err := expr.ParseDate(text); err != nil || int64(d) != day {
		return nil, false
	}
	return &ast.FuncCallExpr{FnName: ast.NewCIStr(ast.DateLiteral), Args: []ast.ExprNode{ast.NewValueExpr(text, "", "")}}, true
}
