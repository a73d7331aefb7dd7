package query

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/quiverdb/quiver/query/expr"
)

// maxInterval bounds an INTERVAL's count, whatever its unit: YEAR counts
// twelve months, and months and days are int32 (expr.AddInterval).
const maxInterval = math.MaxInt32 / 12

// intervalValue reads the count of INTERVAL n unit: an integer constant
// (or a string holding one, INTERVAL '90' DAY) within ±maxInterval. An
// integer past that range says so; it used to be "not an integer
// constant" (issue 14).
func (b *builder) intervalValue(n ast.ExprNode, unit string) (int64, error) {
	v, ok := intLiteral(n)
	switch {
	case ok && v >= -maxInterval && v <= maxInterval:
		return v, nil
	case ok || integerOutOfRange(n):
		return 0, b.at(ErrInvalid, n, "INTERVAL %s %s is out of range: the count must be between %d and %d", restore(n), unit, -maxInterval, maxInterval)
	}
	return 0, b.at(ErrUnsupported, n, "INTERVAL %s %s: the count must be an integer constant", restore(n), unit)
}

// integerOutOfRange reports an integer constant too large for int64:
// 18446744073709551615, '99999999999999999999', or one negated.
func integerOutOfRange(n ast.ExprNode) bool {
	if u, ok := n.(*ast.UnaryOperationExpr); ok && u.Op == opcode.Minus {
		return integerOutOfRange(u.V)
	}
	v, ok := n.(*driver.ValueExpr)
	if !ok {
		return false
	}
	switch x := v.GetValue().(type) {
	case uint64:
		return true // intLiteral takes those that fit
	case string:
		_, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return errors.Is(err, strconv.ErrRange)
	case *driver.MyDecimal:
		s := x.String()
		return !strings.Contains(s, ".")
	}
	return false
}

// intervalLiteral plans a standalone INTERVAL literal, which reaches the
// planner as qv$iv(n, 'UNIT') or qv$iv('text') (parse_types.go): INTERVAL
// '1' DAY, INTERVAL 3 HOUR, INTERVAL '1 day 2 hours' (expr.ParseInterval
// says what text it takes).
func (b *builder) intervalLiteral(x *ast.FuncCallExpr) (expr.Expr, error) {
	if len(x.Args) == 1 {
		s, ok := stringLiteral(x.Args[0])
		if !ok {
			return nil, b.at(ErrUnsupported, x, "INTERVAL %s: the interval must be a string constant ('1 day 2 hours') or a count and a unit (INTERVAL 3 HOUR)", restore(x.Args[0]))
		}
		v, err := expr.ParseInterval(s)
		if err != nil {
			return nil, b.at(ErrInvalid, x, "INTERVAL: %v", err)
		}
		return expr.IntervalLiteral(v.Months, v.Days, v.Nanoseconds), nil
	}
	unit, _ := stringLiteral(x.Args[1])
	n, err := b.intervalValue(x.Args[0], unit)
	if err != nil {
		return nil, err
	}
	v, err := expr.ParseInterval(fmt.Sprintf("%d %s", n, unit))
	if err != nil {
		return nil, b.at(ErrInvalid, x, "INTERVAL: %v", err)
	}
	return expr.IntervalLiteral(v.Months, v.Days, v.Nanoseconds), nil
}
