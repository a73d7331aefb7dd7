package query

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/quiverdb/quiver/query/expr"
)

// Whole lists and structs as values (issue 15): compared (=, <>, <, <=,
// >, >=, IS [NOT] DISTINCT FROM), sorted, grouped, deduplicated, joined
// on, counted, count(DISTINCT …), min, max, first, last and any_value —
// each by the value's key, a BLOB whose byte order is DuckDB's order of
// lists and structs (package expr's nested_key.go, package sortkey's
// encoding): a comparison compares the keys, ORDER BY sorts by a hidden
// key, GROUP BY and DISTINCT group on the key and turn each group's key
// back into its value (expr.NestedValue), a join hashes the keys, and
// min and max take the least and greatest key and turn it back.

// nestedKeyOf plans n as the key of a list or struct; ok is false when n
// is neither (a value, planned as usual).
func (b *builder) nestedKeyOf(n ast.ExprNode, sc scope) (key expr.Expr, typ arrow.DataType, ok bool, err error) {
	e, ok, err := b.nestedOperand(n, sc)
	if !ok || err != nil {
		return nil, nil, ok, err
	}
	k, err := expr.NestedKey(e)
	if err != nil {
		return nil, nil, true, b.typeErr(n, err)
	}
	return k, e.Type(), true, nil
}

// nestedCompare plans x, a comparison, when a side is a list or struct:
// the two sides' keys compared (NULL when either is NULL, as =, < and
// the rest are; IS [NOT] DISTINCT FROM as on any value). ok is false
// when neither side is one.
func (b *builder) nestedCompare(x *ast.BinaryOperationExpr, sc scope) (expr.Expr, bool, error) {
	op, isCmp := cmpOps[x.Op]
	if !isCmp && x.Op != opcode.NullEQ {
		return nil, false, nil
	}
	l, lt, lok, err := b.nestedKeyOf(x.L, sc)
	if err != nil {
		return nil, true, err
	}
	r, rt, rok, err := b.nestedKeyOf(x.R, sc)
	if err != nil {
		return nil, true, err
	}
	if !lok && !rok {
		return nil, false, nil
	}
	if !lok || !rok {
		// with NULL: NULL, as any comparison (IS [NOT] DISTINCT FROM
		// NULL: IS [NOT] NULL)
		other, side := x.R, x.L
		if !lok {
			other, side = x.L, x.R
		}
		if v, isValue := unparen(other).(*driver.ValueExpr); isValue && v.GetValue() == nil {
			if isCmp {
				return expr.NullLiteral(arrow.FixedWidthTypes.Boolean), true, nil
			}
			operand, _, err := b.nestedOperand(side, sc)
			if err != nil {
				return nil, true, err
			}
			return expr.IsNull(operand), true, nil // <=> NULL (IS DISTINCT FROM is NOT (<=>): markDistinct)
		}
		return nil, true, b.at(ErrUnsupported, x, "%s: a list or struct compares only with another list or struct column or element (list literals are not supported)", restore(x))
	}
	if err := expr.NestedComparable(lt, rt); err != nil {
		return nil, true, b.typeErr(x, err)
	}
	w := wrap(b, x)
	if isCmp {
		return nestedResult(w(expr.Compare(op, l, r)))
	}
	return nestedResult(w(expr.NotDistinct(l, r)))
}

func nestedResult(e expr.Expr, err error) (expr.Expr, bool, error) { return e, true, err }

// nestedAggArg plans the argument of an aggregate over a whole list or
// struct: count, count(DISTINCT …) and approx_count_distinct count keys;
// min, max, first, last and any_value pick one and return it turned back
// (decode is the value's type then). Other aggregates are refused by
// name. ok is false when the argument is no list or struct.
func (b *builder) nestedAggArg(call *ast.AggregateFuncExpr, name string, sc scope) (arg expr.Expr, decode arrow.DataType, ok bool, err error) {
	if len(call.Args) != 1 {
		return nil, nil, false, nil
	}
	key, typ, ok, err := b.nestedKeyOf(call.Args[0], sc)
	if !ok || err != nil {
		return nil, nil, ok, err
	}
	switch name {
	case "count", "approx_count_distinct":
		return key, nil, true, nil
	case "min", "max", "first", "last", "any_value":
		if _, err := expr.NestedValue(key, typ); err != nil {
			return nil, nil, true, b.typeErr(call, err)
		}
		return key, typ, true, nil
	}
	return nil, nil, true, b.at(ErrUnsupported, call, "%s over a list or struct (%s is of type %s): count, count(DISTINCT), min, max, first, last and any_value take one", name, restore(call.Args[0]), typ)
}
