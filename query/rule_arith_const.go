package query

import (
	"context"
	"math/big"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
)

// The arithmetic rule's constants (rule_arith.go): evaluated exactly at
// plan time, and written back as literals.

// literal is the AST of the constant k in the column's terms: an int64,
// or a decimal at iso.scale digits (as the parser would have made them,
// without running it: a parser costs more than the rest of planning).
func (iso *isolated) literal(k *big.Rat) (ast.ExprNode, bool) {
	if !iso.decimal {
		if !k.IsInt() || !k.Num().IsInt64() {
			return nil, false
		}
		return ast.NewValueExpr(k.Num().Int64(), "", ""), true
	}
	if s, ok := ratScale(k); !ok || s > iso.scale {
		return nil, false
	}
	d := new(driver.MyDecimal)
	if err := d.FromString([]byte(k.FloatString(int(iso.scale)))); err != nil {
		return nil, false
	}
	return ast.NewValueExpr(d, "", ""), true
}

// ratScale is the number of decimal digits after the point of r (at
// most 38), when r is a terminating decimal: the least s with the
// denominator dividing 10^s (big.Rat keeps 1.50 as 3/2).
func ratScale(r *big.Rat) (int32, bool) {
	p := big.NewInt(1)
	ten, m := big.NewInt(10), new(big.Int)
	for s := int32(0); s <= 38; s++ {
		if m.Mod(p, r.Denom()).Sign() == 0 {
			return s, true
		}
		p.Mul(p, ten)
	}
	return 0, false
}

// arithNumber evaluates the compared constant n for iso's column.
func (b *builder) arithNumber(n ast.ExprNode, iso *isolated) (*big.Rat, bool) {
	c, ok := b.rawNumber(n)
	if !ok || !iso.fits(c) {
		return nil, false
	}
	return c, true
}

// rawNumber evaluates n, which must name no column and hold no ?
// placeholder, to an exact non-NULL integer or decimal.
func (b *builder) rawNumber(n ast.ExprNode) (*big.Rat, bool) {
	if hasColumnRef(n) || hasParam(n) {
		return nil, false
	}
	e, err := b.expr(n, tableScope{})
	if err != nil {
		return nil, false
	}
	one := array.NewRecordBatch(arrow.NewSchema(nil, nil), nil, 1)
	defer one.Release()
	arr, err := e.Eval(context.Background(), memory.DefaultAllocator, one)
	if err != nil {
		return nil, false
	}
	defer arr.Release()
	if arr.Len() != 1 || arr.IsNull(0) {
		return nil, false
	}
	switch a := arr.(type) {
	case *array.Int64:
		return new(big.Rat).SetInt64(a.Value(0)), true
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
		return new(big.Rat).SetFrac(a.Value(0).BigInt(), den), true
	}
	return nil, false
}

// hasParam reports a ? placeholder in n.
func hasParam(n ast.Node) bool {
	f := &paramFinder{}
	n.Accept(f)
	return f.found
}

type paramFinder struct{ found bool }

func (f *paramFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(ast.ParamMarkerExpr); ok {
		f.found = true
	}
	return n, f.found
}

func (f *paramFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
