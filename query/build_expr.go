package query

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/quiverdb/quiver/query/expr"
)

// scope resolves what an expression can see: the columns of the scan, or
// after GROUP BY the keys and aggregates.
type scope interface {
	// column resolves a column reference.
	column(b *builder, n *ast.ColumnNameExpr) (expr.Expr, error)
	// aggregate resolves an aggregate call; scopes before GROUP BY refuse
	// them.
	aggregate(b *builder, n *ast.AggregateFuncExpr) (expr.Expr, error)
	// whole resolves a whole expression before it is taken apart (a GROUP
	// BY key used in SELECT); nil, nil when it does not apply.
	whole(b *builder, n ast.ExprNode) (expr.Expr, error)
	// stored resolves a bare column that the query returns as it is: in
	// its table's stored type, where column gives the engine type.
	stored(b *builder, n *ast.ColumnNameExpr) (expr.Expr, error)
}

// restoreSQL returns SQL text that parses back to the node (names
// quoted), for planning a query again.
func restoreSQL(n ast.Node) string {
	var sb strings.Builder
	if err := n.Restore(format.NewRestoreCtx(format.RestoreStringSingleQuotes|format.RestoreKeyWordLowercase|format.RestoreNameBackQuotes|format.RestoreStringWithoutCharset, &sb)); err != nil {
		return ""
	}
	return restoredFullJoin(sb.String()) // parse_fulljoin.go
}

// restore returns the SQL text of a node, normalized by the parser (used
// to name columns and to match SELECT expressions with GROUP BY keys).
func restore(n ast.Node) string {
	var sb strings.Builder
	if err := n.Restore(format.NewRestoreCtx(format.RestoreStringSingleQuotes|format.RestoreKeyWordLowercase|format.RestoreStringWithoutCharset, &sb)); err != nil {
		return fmt.Sprintf("%T", n)
	}
	return castText(subscriptText(unrewriteTypes(sb.String()))) // parse_types.go, parse_subscript.go, parse_cast.go
}

// at makes an error about node n, with its position.
func (b *builder) at(kind error, n ast.Node, format string, args ...any) error {
	e := &Error{Kind: kind, Msg: clip(fmt.Sprintf(format, args...))}
	if n != nil {
		if off := n.OriginTextPosition(); off > 0 {
			e.Line, e.Col = position(b.sql, off)
		}
	}
	return e
}

// typeErr wraps an expr construction error (a type mismatch) with the
// position of the node.
func (b *builder) typeErr(n ast.Node, err error) error {
	return b.at(ErrInvalid, n, "%s: %v", pipesText(restore(n)), err)
}

// output converts a query output (a SELECT item or an ORDER BY key) to an
// expression: a bare column is passed through in its stored type,
// anything else is an engine expression (b.expr). Computed values keep
// their engine types: int32 + 1 is an int64.
func (b *builder) output(n ast.ExprNode, sc scope) (expr.Expr, error) {
	if c, ok := unparen(n).(*ast.ColumnNameExpr); ok {
		b.allowNested = true // a list or struct column is returned as it is
		e, err := sc.stored(b, c)
		b.allowNested = false
		return e, err
	}
	if e, ok, err := b.nestedOutput(n, sc); ok { // build_nested.go
		return e, err
	}
	return b.expr(n, sc)
}

// expr converts an expression AST to an engine expression.
func (b *builder) expr(n ast.ExprNode, sc scope) (expr.Expr, error) {
	if err := b.tick(); err != nil {
		return nil, err
	}
	if e, err := sc.whole(b, n); e != nil || err != nil {
		return e, err
	}
	switch x := n.(type) {
	case *ast.ColumnNameExpr:
		return sc.column(b, x)
	case *ast.AggregateFuncExpr:
		return sc.aggregate(b, x)
	case *valueNode: // a subquery's value (from_subquery.go)
		return x.lit, nil
	case *driver.ValueExpr:
		return b.literal(x)
	case *ast.ParenthesesExpr:
		return b.expr(x.Expr, sc)
	case *ast.BinaryOperationExpr:
		return b.binary(x, sc)
	case *ast.UnaryOperationExpr:
		v, err := b.expr(x.V, sc)
		if err != nil {
			return nil, err
		}
		switch x.Op {
		case opcode.Not, opcode.Not2:
			return wrap(b, n)(expr.Not(v))
		case opcode.Minus:
			return wrap(b, n)(expr.Negate(v))
		case opcode.Plus:
			return v, nil
		}
		return nil, b.at(ErrUnsupported, n, "operator %s", x.Op)
	case *ast.IsTruthExpr: // x IS [NOT] TRUE / FALSE: never NULL
		v, err := b.expr(x.Expr, sc)
		if err != nil {
			return nil, err
		}
		if v.Type().ID() == arrow.NULL {
			v = expr.NullLiteral(arrow.FixedWidthTypes.Boolean)
		}
		if v.Type().ID() != arrow.BOOL {
			return nil, b.at(ErrInvalid, x, "IS [NOT] TRUE/FALSE tests a boolean, not %s", sqlTypeName(v.Type()))
		}
		lit, err := expr.Literal(x.True != 0)
		if err != nil {
			return nil, err
		}
		is, err := expr.NotDistinct(v, lit)
		if err != nil || !x.Not {
			return wrap(b, x)(is, err)
		}
		return wrap(b, x)(expr.Not(is))
	case *ast.IsNullExpr:
		v, nested, err := b.nestedOperand(x.Expr, sc) // l IS NULL: build_nested.go
		if !nested && err == nil {
			v, err = b.expr(x.Expr, sc)
		}
		if err != nil {
			return nil, err
		}
		if t := v.Type().ID(); t == arrow.SPARSE_UNION || t == arrow.DENSE_UNION {
			return wrap(b, x)(expr.UnionIsNull(v, x.Not)) // the member's NULL: package expr's union.go
		}
		if x.Not {
			return expr.IsNotNull(v), nil
		}
		return expr.IsNull(v), nil
	case *ast.BetweenExpr:
		v, lo, hi, err := b.expr3(x.Expr, x.Left, x.Right, sc)
		if err != nil {
			return nil, err
		}
		e, err := expr.Between(v, lo, hi)
		if err != nil {
			return nil, b.typeErr(n, err)
		}
		if x.Not {
			return wrap(b, n)(expr.Not(e))
		}
		return e, nil
	case *ast.PatternInExpr:
		return b.in(x, sc)
	case *ast.PatternLikeOrIlikeExpr:
		return b.like(x, sc)
	case *ast.FuncCastExpr:
		return b.cast(x, sc)
	case *ast.CaseExpr:
		return b.caseExpr(x, sc)
	case *ast.FuncCallExpr:
		return b.call(x, sc)
	case *ast.SubqueryExpr: // correlated: uncorrelated ones are values by now
		return b.applySubquery(x, sc, false) // apply.go
	case *ast.ExistsSubqueryExpr:
		sq, ok := unparen(x.Sel).(*ast.SubqueryExpr)
		if !ok {
			return nil, b.at(ErrUnsupported, n, "this EXISTS")
		}
		e, err := b.applySubquery(sq, sc, true)
		if err != nil || !x.Not {
			return e, err
		}
		return wrap(b, n)(expr.Not(e))
	case *ast.CompareSubqueryExpr:
		return nil, b.at(ErrUnsupported, n, "this subquery (a correlated subquery must be EXISTS, IN or a comparison that is a conjunct of WHERE)") // ANY/ALL were rewritten: rule_quantified.go
	case *ast.WindowFuncExpr:
		return nil, b.at(ErrInvalid, n, "window function %s is not allowed here (only in the SELECT list and ORDER BY)", x.Name)
	case *ast.RowExpr:
		return nil, b.at(ErrUnsupported, n, "row values")
	case *ast.DefaultExpr:
		return nil, b.at(ErrUnsupported, n, "DEFAULT")
	case *ast.VariableExpr:
		return nil, b.at(ErrUnsupported, n, "variables")
	case *driver.ParamMarkerExpr:
		return b.param(x)
	}
	return nil, b.at(ErrUnsupported, n, "expression %s", restore(n))
}

// wrap turns a construction error into a positioned ErrInvalid.
func wrap(b *builder, n ast.Node) func(expr.Expr, error) (expr.Expr, error) {
	return func(e expr.Expr, err error) (expr.Expr, error) {
		if err != nil {
			return nil, b.typeErr(n, err)
		}
		return e, nil
	}
}

func (b *builder) expr3(x, y, z ast.ExprNode, sc scope) (expr.Expr, expr.Expr, expr.Expr, error) {
	ex, err := b.expr(x, sc)
	if err != nil {
		return nil, nil, nil, err
	}
	ey, err := b.expr(y, sc)
	if err != nil {
		return nil, nil, nil, err
	}
	ez, err := b.expr(z, sc)
	if err != nil {
		return nil, nil, nil, err
	}
	return ex, ey, ez, nil
}

var arithOps = map[opcode.Op]expr.ArithOp{
	opcode.Plus: expr.Add, opcode.Minus: expr.Sub, opcode.Mul: expr.Mul, opcode.Div: expr.Div, opcode.Mod: expr.Mod,
	opcode.IntDiv: expr.Div, // a DIV b: integers divided, truncated toward zero
}

var cmpOps = map[opcode.Op]expr.CmpOp{
	opcode.EQ: expr.Eq, opcode.NE: expr.Ne, opcode.LT: expr.Lt, opcode.LE: expr.Le, opcode.GT: expr.Gt, opcode.GE: expr.Ge,
}

func (b *builder) binary(x *ast.BinaryOperationExpr, sc scope) (expr.Expr, error) {
	if e, ok, err := b.nestedCompare(x, sc); ok { // lists and structs: build_nestedkey.go
		return e, err
	}
	l, err := b.expr(x.L, sc)
	if err != nil {
		return nil, err
	}
	r, err := b.expr(x.R, sc)
	if err != nil {
		return nil, err
	}
	w := wrap(b, x)
	switch x.Op {
	case opcode.LogicAnd:
		return w(expr.And(l, r))
	case opcode.LogicOr:
		return w(expr.Or(l, r))
	}
	if op, ok := arithOps[x.Op]; ok {
		if e, ok, err := b.zoneIntervalValue(op, l, r); ok { // build_zone.go
			return w(e, err)
		}
		if op == expr.Sub {
			if l, r, err = b.zoneMeet(l, r); err != nil {
				return nil, b.typeErr(x, err)
			}
		}
		if op == expr.Div && l.Type().ID() == arrow.INT64 && r.Type().ID() == arrow.INT64 {
			// DuckDB's / of integers is a DOUBLE (7 / 2 = 3.5); MySQL's DIV
			// divides integers
			if l, err = expr.Cast(l, arrow.PrimitiveTypes.Float64); err == nil {
				r, err = expr.Cast(r, arrow.PrimitiveTypes.Float64)
			}
			if err != nil {
				return nil, b.typeErr(x, err)
			}
		}
		return w(expr.Arith(op, l, r))
	}
	if op, ok := cmpOps[x.Op]; ok {
		if l, r, err = b.zoneMeet(l, r); err != nil {
			return nil, b.typeErr(x, err)
		}
		return w(expr.Compare(op, l, r))
	}
	if x.Op == opcode.NullEQ { // <=>, IS NOT DISTINCT FROM (IS DISTINCT FROM is NOT (<=>): markDistinct)
		return w(expr.NotDistinct(l, r))
	}
	return nil, b.at(ErrUnsupported, x, "operator %s", x.Op)
}

func (b *builder) in(x *ast.PatternInExpr, sc scope) (expr.Expr, error) {
	if x.Sel != nil {
		return b.applyIn(x, sc) // apply.go
	}
	v, err := b.expr(x.Expr, sc)
	if err != nil {
		return nil, err
	}
	list := make([]expr.Expr, len(x.List))
	for i, item := range x.List {
		if list[i], err = b.expr(item, sc); err != nil {
			return nil, err
		}
	}
	e, err := expr.In(v, list)
	if err != nil {
		return nil, b.typeErr(x, err)
	}
	if x.Not {
		return wrap(b, x)(expr.Not(e))
	}
	return e, nil
}

func (b *builder) like(x *ast.PatternLikeOrIlikeExpr, sc scope) (expr.Expr, error) {
	if x.EscapeExplicit && x.Escape != '\\' {
		return nil, b.at(ErrUnsupported, x, "LIKE … ESCAPE other than backslash")
	}
	pat, ok := stringLiteral(x.Pattern)
	if !ok {
		return nil, b.at(ErrUnsupported, x.Pattern, "LIKE with a pattern that is not a string literal")
	}
	v, err := b.expr(x.Expr, sc)
	if err != nil {
		return nil, err
	}
	if !x.IsLike {
		// ILIKE is LIKE over lower-cased text, as in DuckDB; the node is
		// then not a LIKE over a bare column, so nothing prunes by it.
		if v, err = expr.Call("lower", v); err != nil {
			return nil, b.typeErr(x, err)
		}
		pat = strings.ToLower(pat)
	}
	return wrap(b, x)(expr.Like(v, pat, x.Not))
}

// stringLiteral returns the text of a string literal.
func stringLiteral(n ast.ExprNode) (string, bool) {
	v, ok := n.(*driver.ValueExpr)
	if p, isParam := n.(*driver.ParamMarkerExpr); isParam {
		v, ok = &p.ValueExpr, true // a bound string (see numberParams)
	}
	if !ok {
		return "", false
	}
	switch s := v.GetValue().(type) {
	case string:
		return s, true
	case []byte:
		return string(s), true
	}
	return "", false
}

// intLiteral returns the value of an integer literal (or a string literal
// holding one, as in INTERVAL '90' DAY).
func intLiteral(n ast.ExprNode) (int64, bool) {
	v, ok := n.(*driver.ValueExpr)
	if !ok {
		if u, ok := n.(*ast.UnaryOperationExpr); ok && u.Op == opcode.Minus {
			i, ok := intLiteral(u.V)
			return -i, ok
		}
		return 0, false
	}
	switch x := v.GetValue().(type) {
	case int64:
		return x, true
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x), true
		}
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return i, err == nil
	}
	return 0, false
}

func (b *builder) literal(x *driver.ValueExpr) (expr.Expr, error) {
	switch v := x.GetValue().(type) {
	case nil:
		return expr.NullLiteral(arrow.Null), nil
	case int64:
		// TRUE and FALSE arrive as 1 and 0 with a flag (MySQL has no
		// boolean type).
		if mysql.HasIsBooleanFlag(x.GetType().GetFlag()) {
			return wrap(b, x)(expr.Literal(v != 0))
		}
		return wrap(b, x)(expr.Literal(v))
	case float64, string, bool:
		return wrap(b, x)(expr.Literal(v))
	case []byte:
		return wrap(b, x)(expr.Literal(string(v)))
	case uint64:
		if v <= math.MaxInt64 {
			return wrap(b, x)(expr.Literal(int64(v)))
		}
		return decimalLiteral(b, x, strconv.FormatUint(v, 10))
	case *driver.MyDecimal:
		return decimalLiteral(b, x, v.String())
	case driver.BinaryLiteral: // x'0AFF', 0x0AFF: a BLOB
		return expr.BinaryLiteral(v), nil
	}
	return nil, b.at(ErrUnsupported, x, "literal %s", restore(x))
}

// decimalLiteral makes a decimal(p, s) literal of text such as "0.05":
// p the digits written (at least s+1), s those after the point.
func decimalLiteral(b *builder, n ast.Node, text string) (expr.Expr, error) {
	neg := strings.HasPrefix(text, "-")
	text = strings.TrimPrefix(text, "-")
	intPart, frac, _ := strings.Cut(text, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	scale := int32(len(frac))
	prec := max(int32(len(digits)), scale+1)
	if prec > 38 {
		return nil, b.at(ErrInvalid, n, "decimal literal %s has more than 38 digits", text)
	}
	u, ok := new(big.Int).SetString(intPart+frac, 10)
	if !ok {
		return nil, b.at(ErrInvalid, n, "bad decimal literal %s", text)
	}
	if neg {
		u.Neg(u)
	}
	return expr.DecimalLiteral(decimal128.FromBigInt(u), prec, scale), nil
}

func (b *builder) cast(x *ast.FuncCastExpr, sc scope) (expr.Expr, error) {
	v, err := b.expr(x.Expr, sc)
	if err != nil {
		return nil, err
	}
	var to arrow.DataType
	tp := x.Tp
	switch tp.GetType() {
	case mysql.TypeLonglong, mysql.TypeLong, mysql.TypeInt24, mysql.TypeShort, mysql.TypeTiny:
		to = arrow.PrimitiveTypes.Int64
	case mysql.TypeDouble, mysql.TypeFloat:
		to = arrow.PrimitiveTypes.Float64
	case mysql.TypeNewDecimal:
		p, s := tp.GetFlen(), tp.GetDecimal()
		if p <= 0 {
			p = 10
		}
		if s < 0 {
			s = 0
		}
		if p > 38 || s > p {
			return nil, b.at(ErrInvalid, x, "DECIMAL(%d, %d): precision is 1 to 38 and scale at most the precision", p, s)
		}
		to = &arrow.Decimal128Type{Precision: int32(p), Scale: int32(s)}
	case mysql.TypeDate:
		to = arrow.FixedWidthTypes.Date32
	case mysql.TypeDatetime, mysql.TypeTimestamp: // CAST(x AS TIMESTAMP) reads as DATETIME: parse_types.go
		to = expr.TimestampType(tp.GetDecimal() == tzPrecision)
	case mysql.TypeDuration:
		to = expr.TimeType()
	case mysql.TypeJSON: // CAST(x AS INTERVAL) (parse_types.go)
		to = expr.IntervalType()
	case mysql.TypeYear: // CAST(x AS BLOB) (parse_types.go)
		to = expr.BinaryType()
	case mysql.TypeVarString, mysql.TypeString, mysql.TypeVarchar:
		to = arrow.BinaryTypes.String
	default:
		return nil, b.at(ErrUnsupported, x, "CAST to %s", tp.String())
	}
	// in the session's zone where a wall-clock time meets an instant
	return wrap(b, x)(expr.CastIn(v, to, b.zone(), isTryCast(b.sql, x.OriginTextPosition())))
}

func (b *builder) caseExpr(x *ast.CaseExpr, sc scope) (expr.Expr, error) {
	var subject expr.Expr
	if x.Value != nil {
		var err error
		if subject, err = b.expr(x.Value, sc); err != nil {
			return nil, err
		}
	}
	whens := make([]expr.When, len(x.WhenClauses))
	for i, w := range x.WhenClauses {
		cond, err := b.expr(w.Expr, sc)
		if err != nil {
			return nil, err
		}
		if subject != nil { // simple CASE: subject = value
			if cond, err = expr.Compare(expr.Eq, subject, cond); err != nil {
				return nil, b.typeErr(w, err)
			}
		}
		then, err := b.expr(w.Result, sc)
		if err != nil {
			return nil, err
		}
		whens[i] = expr.When{Cond: cond, Then: then}
	}
	var elseExpr expr.Expr
	if x.ElseClause != nil {
		var err error
		if elseExpr, err = b.expr(x.ElseClause, sc); err != nil {
			return nil, err
		}
	}
	return wrap(b, x)(expr.Case(whens, elseExpr))
}

func (b *builder) call(x *ast.FuncCallExpr, sc scope) (expr.Expr, error) {
	name := x.FnName.L
	switch {
	case strings.HasSuffix(name, "timestampliteral"): // the parser's internal name for TIMESTAMP '…'
		name = "timestampliteral"
	case strings.HasSuffix(name, "timeliteral"): // and for TIME '…'
		name = "timeliteral"
	case strings.HasSuffix(name, "dateliteral"): // and for DATE '…'
		name = "dateliteral"
	}
	switch name {
	case "timeliteral":
		s, ok := stringLiteral(x.Args[0])
		if !ok {
			return nil, b.at(ErrInvalid, x, "TIME needs a string literal")
		}
		us, err := expr.ParseTime(s)
		if err != nil {
			return nil, b.at(ErrInvalid, x, "TIME '%s': %v", s, err)
		}
		return expr.TimeLiteral(us), nil
	case "timestampliteral":
		s, ok := stringLiteral(x.Args[0])
		if !ok {
			return nil, b.at(ErrInvalid, x, "TIMESTAMP needs a string literal")
		}
		us, _, err := expr.ParseTimestamp(s, false)
		if err != nil {
			return nil, b.at(ErrInvalid, x, "TIMESTAMP '%s': %v", s, err)
		}
		return expr.TimestampLiteral(us, false), nil
	case "dateliteral":
		s, ok := stringLiteral(x.Args[0])
		if !ok {
			return nil, b.at(ErrInvalid, x, "DATE needs a string literal")
		}
		days, err := expr.ParseDate(s)
		if err != nil {
			return nil, b.at(ErrInvalid, x, "DATE '%s': %v", s, err)
		}
		return expr.DateLiteral(days), nil
	case "date_add", "date_sub", "adddate", "subdate":
		return b.interval(x, sc, name == "date_sub" || name == "subdate")
	case intervalFunc: // a standalone INTERVAL literal (parse_types.go)
		return b.intervalLiteral(x)
	case castFunc, tryCastFunc: // x::T, CAST(x AS INT) and the like (parse_cast.go)
		return b.castByName(x, sc)
	case "if": // DuckDB's if(cond, a, b): CASE WHEN cond THEN a ELSE b END
		if len(x.Args) != 3 {
			return nil, b.at(ErrInvalid, x, "%s takes a condition and two values", x.FnName.O)
		}
		var args [3]expr.Expr
		for i, a := range x.Args {
			var err error
			if args[i], err = b.expr(a, sc); err != nil {
				return nil, err
			}
		}
		return wrap(b, x)(expr.Case([]expr.When{{Cond: args[0], Then: args[1]}}, args[2]))
	case pipesFunc: // a || b (build_concat.go)
		return b.concat(x, sc)
	case "concat":
		if isPipes(x) { // not marked: planned outside a SELECT's pass
			return b.concat(x, sc)
		}
	}
	if e, ok, err := b.nestedCall(x, sc, false); ok { // l[i], s.f, len(l): build_nested.go
		return e, err
	}
	return b.callFunc(name, x, sc) // build_funcs.go
}

// interval is date ± INTERVAL n unit, for units MICROSECOND, SECOND,
// MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER and YEAR with a constant n. A
// date plus a time unit is a timestamp.
func (b *builder) interval(x *ast.FuncCallExpr, sc scope, subtract bool) (expr.Expr, error) {
	if len(x.Args) != 3 {
		return nil, b.at(ErrUnsupported, x, "%s without an INTERVAL", x.FnName.O)
	}
	unit, ok := x.Args[2].(*ast.TimeUnitExpr)
	if !ok {
		return nil, b.at(ErrUnsupported, x, "%s without an INTERVAL unit", x.FnName.O)
	}
	n, err := b.intervalValue(x.Args[1], unit.Unit.String()) // build_interval.go
	if err != nil {
		return nil, err
	}
	if subtract {
		n = -n
	}
	var months, days, micros int64
	switch strings.ToUpper(unit.Unit.String()) {
	case "MICROSECOND":
		micros = n
	case "SECOND":
		micros = n * 1_000_000
	case "MINUTE":
		micros = n * 60_000_000
	case "HOUR":
		micros = n * 3_600_000_000
	case "DAY":
		days = n
	case "WEEK":
		days = 7 * n
	case "MONTH":
		months = n
	case "QUARTER":
		months = 3 * n
	case "YEAR":
		months = 12 * n
	default:
		return nil, b.at(ErrUnsupported, unit, "INTERVAL unit %s", unit.Unit)
	}
	d, err := b.expr(x.Args[0], sc)
	if err != nil {
		return nil, err
	}
	if e, ok, err := b.zoneInterval(d, int32(months), int32(days), micros); ok { // build_zone.go
		return wrap(b, x)(e, err)
	}
	return wrap(b, x)(expr.AddIntervalTime(d, int32(months), int32(days), micros))
}
