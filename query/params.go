package query

import (
	"fmt"
	"math"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/quiverdb/quiver/query/expr"
)

// Decimal is a decimal parameter: Unscaled × 10^-Scale of type
// decimal(Precision, Scale).
type Decimal struct {
	Unscaled  decimal128.Num
	Precision int32
	Scale     int32
}

// numberParams numbers the ? placeholders of a statement in the order
// they appear (the parser leaves them all 0) and returns how many there
// are. Bound strings are also stored in the placeholders themselves, so
// the places that take only a string literal (a LIKE pattern) take a
// string parameter too; with prepare set, every placeholder there reads
// as the empty string, so a statement can be planned before binding.
func numberParams(stmt ast.Node, params []any, prepare bool) int {
	v := paramNumberer{params: params, prepare: prepare}
	stmt.Accept(&v)
	return v.n
}

type paramNumberer struct {
	params  []any
	prepare bool
	n       int
}

func (v *paramNumberer) Enter(n ast.Node) (ast.Node, bool) {
	if p, ok := n.(*driver.ParamMarkerExpr); ok {
		p.Order = v.n
		v.n++
		switch {
		case p.Order < len(v.params):
			switch s := v.params[p.Order].(type) {
			case string:
				p.SetValue(s)
			case []byte:
				p.SetValue(string(s))
			}
		case v.prepare:
			p.SetValue("")
		}
	}
	return n, false
}

func (v *paramNumberer) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// param turns the placeholder into a literal of its bound value. The
// placeholders are numbered in the order they appear in the text.
func (b *builder) param(x *driver.ParamMarkerExpr) (expr.Expr, error) {
	if b.prepare {
		return expr.NullLiteral(arrow.Null), nil
	}
	if b.params == nil {
		return nil, b.at(ErrInvalid, x, "parameter %d is not bound (the statement has %d; bind them through a prepared statement)", x.Order+1, b.nparams)
	}
	if x.Order < 0 || x.Order >= len(b.params) {
		return nil, b.at(ErrInvalid, x, "parameter %d is not bound: %d of %d bound", x.Order+1, len(b.params), b.nparams)
	}
	e, err := paramLiteral(b.params[x.Order])
	if err != nil {
		return nil, b.at(ErrInvalid, x, "parameter %d: %v", x.Order+1, err)
	}
	return e, nil
}

// paramLiteral converts one bound Go value. The accepted types are the
// ones Params documents.
func paramLiteral(v any) (expr.Expr, error) {
	switch x := v.(type) {
	case nil:
		return expr.NullLiteral(arrow.Null), nil
	case bool, int64, float64, string:
		return expr.Literal(x)
	case int:
		return expr.Literal(int64(x))
	case int8:
		return expr.Literal(int64(x))
	case int16:
		return expr.Literal(int64(x))
	case int32:
		return expr.Literal(int64(x))
	case uint8:
		return expr.Literal(int64(x))
	case uint16:
		return expr.Literal(int64(x))
	case uint32:
		return expr.Literal(int64(x))
	case uint64:
		if x > math.MaxInt64 { // as a uint64 column computes: decimal(20,0)
			return expr.DecimalLiteral(decimal128.FromU64(x), 20, 0), nil
		}
		return expr.Literal(int64(x))
	case float32:
		return expr.Literal(float64(x))
	case []byte:
		return expr.Literal(string(x))
	case arrow.Date32:
		return expr.DateLiteral(int32(x)), nil
	case time.Time: // an instant: TIMESTAMP WITH TIME ZONE (microseconds)
		return expr.TimestampLiteral(x.UnixMicro(), true), nil
	case Decimal:
		if x.Precision < 1 || x.Precision > 38 || x.Scale < 0 || x.Scale > x.Precision {
			return nil, fmt.Errorf("decimal(%d, %d) is out of range", x.Precision, x.Scale)
		}
		return expr.DecimalLiteral(x.Unscaled, x.Precision, x.Scale), nil
	}
	return nil, fmt.Errorf("values of Go type %T cannot be bound", v)
}
