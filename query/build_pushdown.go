package query

import (
	"context"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/expr"
)

// Pushdown: the parts of WHERE that compare a bare column with constants
// become a cache.Predicate, which the scan uses to skip batches whose
// statistics prove no row can pass. The filter still runs on what the scan
// returns, so a pushed predicate only has to be implied by WHERE, never
// equal to it: a conjunct that cannot be pushed is dropped from an AND
// (weakening it), but not from under a NOT, nor a whole disjunct from an
// OR, which would strengthen it.

var pushCmp = map[opcode.Op]cache.Op{
	opcode.EQ: cache.Eq, opcode.NE: cache.Ne, opcode.LT: cache.Lt, opcode.LE: cache.Le, opcode.GT: cache.Gt, opcode.GE: cache.Ge,
}

// flipped is the operator with its operands swapped (5 < x is x > 5).
var flipped = map[cache.Op]cache.Op{cache.Eq: cache.Eq, cache.Ne: cache.Ne, cache.Lt: cache.Gt, cache.Le: cache.Ge, cache.Gt: cache.Lt, cache.Ge: cache.Le}

// pushdown returns the predicate implied by where that pruning can use,
// and its text for EXPLAIN, or nil.
func (b *builder) pushdown(where ast.ExprNode) (cache.Predicate, string) {
	p, _, text := b.prunable(where)
	return p, text
}

// prunable converts n; exact says the predicate is equivalent to n, not
// only implied by it.
func (b *builder) prunable(n ast.ExprNode) (cache.Predicate, bool, string) {
	if p, exact, text, ok := b.prunableNegated(n); ok { // build_pushdown_dict.go
		return p, exact, text
	}
	switch x := n.(type) {
	case *ast.ParenthesesExpr:
		return b.prunable(x.Expr)
	case *ast.BinaryOperationExpr:
		switch x.Op {
		case opcode.LogicAnd:
			return b.prunableAnd(x)
		case opcode.LogicOr:
			return b.prunableOr(x)
		}
		op, ok := pushCmp[x.Op]
		if !ok {
			return nil, false, ""
		}
		if col, dt, ok := b.bareColumn(x.L); ok {
			if v, ok := b.constant(x.R, dt); ok {
				return cache.Cmp{Col: col, Op: op, Val: v}, true, restore(x)
			}
		}
		if col, dt, ok := b.bareColumn(x.R); ok {
			if v, ok := b.constant(x.L, dt); ok {
				return cache.Cmp{Col: col, Op: flipped[op], Val: v}, true, restore(x)
			}
		}
	case *ast.UnaryOperationExpr:
		if isNot(x) {
			// NOT NOT e is e: a chain of NOTs is one or none.
			odd, inner := true, x.V
			for {
				u, ok := unparen(inner).(*ast.UnaryOperationExpr)
				if !ok || !isNot(u) {
					break
				}
				odd, inner = !odd, u.V
			}
			p, exact, text := b.prunable(inner)
			if !odd || p == nil {
				return p, exact, text
			}
			if exact {
				return cache.Not{X: p}, true, "NOT (" + text + ")"
			}
		}
	case *ast.BetweenExpr:
		col, dt, ok := b.bareColumn(x.Expr)
		if !ok || x.Not {
			break
		}
		lo, ok1 := b.constant(x.Left, dt)
		hi, ok2 := b.constant(x.Right, dt)
		if ok1 && ok2 {
			return cache.Between{Col: col, Lo: lo, Hi: hi}, true, restore(x)
		}
	case *ast.PatternInExpr:
		col, dt, ok := b.bareColumn(x.Expr)
		if !ok || x.Not || x.Sel != nil {
			break
		}
		vals := make([]cache.Value, len(x.List))
		for i, item := range x.List {
			if vals[i], ok = b.constant(item, dt); !ok {
				return nil, false, ""
			}
		}
		return cache.In{Col: col, Vals: vals}, true, restore(x)
	case *ast.IsNullExpr:
		if col, _, ok := b.bareColumn(x.Expr); ok {
			if x.Not {
				return cache.IsNotNull{Col: col}, true, restore(x)
			}
			return cache.IsNull{Col: col}, true, restore(x)
		}
	case *ast.PatternLikeOrIlikeExpr:
		col, dt, ok := b.bareColumn(x.Expr)
		pat, isLit := stringLiteral(x.Pattern)
		if !ok || x.Not || !x.IsLike || !isLit || (x.EscapeExplicit && x.Escape != '\\') || !isString(dt) {
			break
		}
		prefix, only := expr.LikePrefix(pat)
		if prefix == "" {
			break
		}
		// 'ab%c' implies a prefix 'ab' but says more: exact only for 'ab%'.
		return cache.Prefix{Col: col, P: []byte(prefix)}, only, restore(x)
	}
	return nil, false, ""
}

func isString(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY, arrow.STRING_VIEW, arrow.BINARY_VIEW:
		return true
	}
	return false
}

// bareColumn resolves n when it is a column of the table, returning its
// table index and stored type (a dictionary's value type: its statistics
// and row filter compare values).
func (b *builder) bareColumn(n ast.ExprNode) (int, arrow.DataType, bool) {
	c, ok := n.(*ast.ColumnNameExpr)
	if !ok || !b.qualifies(c.Name) {
		return 0, nil, false
	}
	i := b.columnIndex(c.Name.Name.O)
	if i < 0 {
		return 0, nil, false
	}
	dt := b.info.Schema.Field(i).Type
	if d, ok := dt.(*arrow.DictionaryType); ok {
		dt = d.ValueType // its statistics and row filter compare values
	}
	return i, dt, true
}

// constant evaluates n, which must not name a column, to the statistics
// value of a column of type dt; false when it cannot be done exactly.
func (b *builder) constant(n ast.ExprNode, dt arrow.DataType) (cache.Value, bool) {
	if hasColumnRef(n) {
		return cache.Value{}, false
	}
	e, err := b.expr(n, tableScope{})
	if err != nil {
		return cache.Value{}, false
	}
	// A string compared with a date (timestamp) column is a date
	// (timestamp).
	if e.Type().ID() == arrow.STRING && (dt.ID() == arrow.DATE32 || dt.ID() == arrow.DATE64) {
		if e, err = expr.Cast(e, arrow.FixedWidthTypes.Date32); err != nil {
			return cache.Value{}, false
		}
	}
	if e.Type().ID() == arrow.STRING && (dt.ID() == arrow.TIME32 || dt.ID() == arrow.TIME64) {
		if e, err = expr.Cast(e, expr.TimeType()); err != nil {
			return cache.Value{}, false
		}
	}
	if e.Type().ID() == arrow.STRING && dt.ID() == arrow.TIMESTAMP {
		if e, err = expr.Cast(e, expr.TimestampType(dt.(*arrow.TimestampType).TimeZone != "")); err != nil {
			return cache.Value{}, false
		}
	}
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	arr, err := e.Eval(context.Background(), memory.DefaultAllocator, one)
	if err != nil {
		return cache.Value{}, false
	}
	defer arr.Release()
	if arr.Len() != 1 {
		return cache.Value{}, false
	}
	if arr.IsNull(0) {
		return cache.Value{}, true // NULL: comparisons with it are never TRUE
	}
	return statValue(arr, dt)
}

// hasColumnRef reports any column reference in n.
func hasColumnRef(n ast.Node) bool {
	f := &refFinder{}
	n.Accept(f)
	return f.found
}

type refFinder struct{ found bool }

func (f *refFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.ColumnNameExpr); ok {
		f.found = true
	}
	return n, f.found
}

func (f *refFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// statValue converts the single value of arr (an engine type) to the
// statistics Value of a column of type dt, when that is exact.
func statValue(arr arrow.Array, dt arrow.DataType) (cache.Value, bool) {
	switch a := arr.(type) {
	case *array.Int64:
		v := a.Value(0)
		switch dt.ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
			return cache.Int(v), true
		case arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
			if v >= 0 {
				return cache.Uint(uint64(v)), true
			}
		case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
			if f := float64(v); int64(f) == v {
				return cache.Float(f), true
			}
		case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128:
			return decimalStat(new(big.Int).SetInt64(v), 0, dt)
		}
	case *array.Float64:
		switch dt.ID() {
		case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
			return cache.Float(a.Value(0)), true
		}
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		switch dt.ID() {
		case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128:
			return decimalStat(a.Value(0).BigInt(), scale, dt)
		case arrow.UINT64: // 18446744073709551615 is a decimal(20,0) literal
			if v := a.Value(0); scale == 0 && v.HighBits() == 0 {
				return cache.Uint(v.LowBits()), true
			}
		}
	case *array.String:
		if isString(dt) {
			return cache.String(a.Value(0)), true
		}
	case *array.Date32:
		// Not for a date64 column: the engine reads it as its day, rounded
		// down, while its statistics and the row filter see milliseconds,
		// and a value past midnight equals its day's DATE literal in the
		// one but not the other (TestDate64OffMidnight).
		if dt.ID() == arrow.DATE32 {
			return cache.Int(int64(a.Value(0))), true
		}
	case *array.Boolean:
		if dt.ID() == arrow.BOOL {
			return cache.Bool(a.Value(0)), true
		}
	case *array.Timestamp:
		if t, ok := dt.(*arrow.TimestampType); ok {
			return timestampStat(int64(a.Value(0)), t.Unit)
		}
	case *array.Time64:
		switch t := dt.(type) {
		case *arrow.Time64Type:
			return timestampStat(int64(a.Value(0)), t.Unit)
		case *arrow.Time32Type:
			return timestampStat(int64(a.Value(0)), t.Unit)
		}
	}
	return cache.Value{}, false
}

// timestampStat is the engine's microseconds us in the unit of a
// timestamp column, whose statistics and stored values the cache
// compares: only when exact (a literal between two seconds is not pushed
// to a column of seconds; the Filter compares it). Never for nanoseconds:
// the engine reads them rounded down to microseconds, so 1001 ns equals
// the literal 1 µs there but not in the stored values (as date64 off
// midnight: TestDate64OffMidnight, TestTimestampPushdown).
func timestampStat(us int64, unit arrow.TimeUnit) (cache.Value, bool) {
	switch unit {
	case arrow.Microsecond:
		return cache.Int(us), true
	case arrow.Nanosecond:
		return cache.Value{}, false
	}
	per := int64(1000)
	if unit == arrow.Second {
		per = 1_000_000
	}
	if us%per != 0 {
		return cache.Value{}, false
	}
	return cache.Int(us / per), true
}

// decimalStat rescales the unscaled value u of scale s to the column's
// scale, when that is exact.
func decimalStat(u *big.Int, s int32, dt arrow.DataType) (cache.Value, bool) {
	colScale := dt.(arrow.DecimalType).GetScale()
	switch {
	case colScale > s:
		u = new(big.Int).Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(colScale-s)), nil))
	case colScale < s:
		q, r := new(big.Int).QuoRem(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s-colScale)), nil), new(big.Int))
		if r.Sign() != 0 {
			return cache.Value{}, false
		}
		u = q
	}
	if dt.ID() != arrow.DECIMAL128 {
		if !u.IsInt64() {
			return cache.Value{}, false
		}
		return cache.DecimalInt(u.Int64()), true
	}
	if u.BitLen() > 127 {
		return cache.Value{}, false
	}
	return cache.Decimal128(decimal128.FromBigInt(u)), true
}

func isNot(u *ast.UnaryOperationExpr) bool { return u.Op == opcode.Not || u.Op == opcode.Not2 }

// prunableAnd converts a chain of ANDs as one n-ary conjunction (a nested
// one would join its text once per level, quadratic in a long chain):
// what it can of it, exact when every conjunct is.
func (b *builder) prunableAnd(x *ast.BinaryOperationExpr) (cache.Predicate, bool, string) {
	var ps cache.And
	var texts []string
	exact := true
	for _, c := range conjuncts(x, nil) {
		p, e, t := b.prunable(c)
		if p == nil {
			exact = false
			continue
		}
		ps, texts, exact = append(ps, p), append(texts, t), exact && e
	}
	switch len(ps) {
	case 0:
		return nil, false, ""
	case 1:
		return ps[0], false, texts[0] // a conjunct was dropped
	}
	return ps, exact, strings.Join(texts, " AND ")
}

// prunableOr converts a chain of ORs as one n-ary disjunction, which
// needs every disjunct.
func (b *builder) prunableOr(x *ast.BinaryOperationExpr) (cache.Predicate, bool, string) {
	var ps cache.Or
	var texts []string
	exact := true
	for _, c := range disjuncts(x, nil) {
		p, e, t := b.prunable(c)
		if p == nil {
			return nil, false, ""
		}
		ps, texts, exact = append(ps, p), append(texts, t), exact && e
	}
	return ps, exact, "(" + strings.Join(texts, " OR ") + ")"
}
