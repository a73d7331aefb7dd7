package query

import (
	"context"
	"time"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/expr"
)

// now(), current_timestamp and current_date are fixed once per query, as
// in DuckDB and PostgreSQL: the instant planning began, carried in the
// planning context so that subqueries (child builders) see the same one.
// current_date and localtimestamp are the session zone's date and
// wall-clock time (timezone.go).

type nowKey struct{}

// withNow records the query's start in ctx.
func withNow(ctx context.Context, t time.Time) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithValue(ctx, nowKey{}, t)
}

// queryStart is the instant the query began.
func (b *builder) queryStart() time.Time {
	if b.ctx != nil {
		if t, ok := b.ctx.Value(nowKey{}).(time.Time); ok {
			return t
		}
	}
	return time.Now()
}

// nowFuncs are the functions of the query's start: TIMESTAMP WITH TIME
// ZONE, except current_date (DATE) and localtimestamp (TIMESTAMP).
var nowFuncs = map[string]bool{
	"now": true, "current_timestamp": true, "transaction_timestamp": true, "get_current_timestamp": true,
	"localtimestamp": true, "current_date": true, "today": true,
}

// now plans one of nowFuncs.
func (b *builder) now(name string, x *ast.FuncCallExpr) (expr.Expr, error) {
	if len(x.Args) != 0 {
		return nil, b.at(ErrInvalid, x, "%s takes no arguments, got %d", x.FnName.O, len(x.Args))
	}
	us := b.queryStart().UnixMicro()
	// the date and the wall-clock time are the session zone's
	_, off := b.queryStart().In(b.zone()).Zone()
	local := us + int64(off)*1_000_000
	switch name {
	case "current_date", "today":
		return expr.DateLiteral(int32(floorDiv(local, 86_400_000_000))), nil
	case "localtimestamp":
		return expr.TimestampLiteral(local, false), nil
	}
	return expr.NowLiteral(us), nil
}

// floorDiv is a / b rounded toward minus infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
