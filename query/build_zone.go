package query

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/expr"
)

// How the planner puts the session's time zone (timezone.go) where an
// instant meets a wall-clock time. Casts go through expr.CastIn; the rest
// is here.

func isZoned(e expr.Expr) bool {
	t, ok := e.Type().(*arrow.TimestampType)
	return ok && t.TimeZone != ""
}

// isWallClock reports a TIMESTAMP without a zone or a DATE.
func isWallClock(e expr.Expr) bool {
	t, ok := e.Type().(*arrow.TimestampType)
	return ok && t.TimeZone == "" || e.Type().ID() == arrow.DATE32
}

// zoneMeet reads the TIMESTAMP or DATE side of a comparison (or a
// subtraction) with an instant as a time on the session's clocks, as
// DuckDB does: TIMESTAMP '2024-07-01 12:00' = TIMESTAMPTZ '… 10:00+00' in
// Europe/Berlin.
func (b *builder) zoneMeet(l, r expr.Expr) (expr.Expr, expr.Expr, error) {
	loc := b.zone()
	if loc == time.UTC {
		return l, r, nil
	}
	var err error
	switch {
	case isZoned(l) && isWallClock(r):
		r, err = expr.AtZone(r, loc)
	case isZoned(r) && isWallClock(l):
		l, err = expr.AtZone(l, loc)
	}
	return l, r, err
}

// zoneFuncs are the functions that read an instant's calendar fields:
// with a session zone, their TIMESTAMP WITH TIME ZONE arguments are read
// on its clocks first (a result that is a TIMESTAMP then goes back to an
// instant: date_trunc of an instant is an instant). date_part('epoch')
// and the epoch functions count from the instant itself and are not
// among them.
var zoneFuncs = map[string]bool{
	"date_part": true, "datepart": true, "date_trunc": true, "datetrunc": true, "date_diff": true, "datediff": true,
	"dayname": true, "monthname": true, "last_day": true, "strftime": true,
	"year": true, "month": true, "day": true, "hour": true, "minute": true, "second": true, "quarter": true,
	"dayofweek": true, "dayofyear": true, "dayofmonth": true, "week": true, "weekofyear": true, "yearweek": true,
	"isodow": true, "isoyear": true, "millisecond": true, "microsecond": true, "decade": true, "century": true,
	"millennium": true, "era": true, "weekday": true,
}

// zoneCall calls name(args) on the session's clocks when it is one of
// zoneFuncs and an argument is an instant; ok is false otherwise.
func (b *builder) zoneCall(name string, args []expr.Expr) (expr.Expr, bool, error) {
	loc := b.zone()
	if loc == time.UTC || !zoneFuncs[name] {
		return nil, false, nil
	}
	if name == "date_part" || name == "datepart" {
		if p, ok := expr.Inspect(args[0]).Value.(string); ok && (p == "epoch" || p == "EPOCH") {
			return nil, false, nil
		}
	}
	local := make([]expr.Expr, len(args))
	zoned := false
	for i, a := range args {
		local[i] = a
		if isZoned(a) {
			l, err := expr.LocalTime(a, loc)
			if err != nil {
				return nil, true, err
			}
			local[i], zoned = l, true
		}
	}
	if !zoned {
		return nil, false, nil
	}
	e, err := expr.Call(name, local...)
	if err != nil {
		return nil, true, err
	}
	if t, ok := e.Type().(*arrow.TimestampType); ok && t.TimeZone == "" {
		e, err = expr.AtZone(e, loc)
	}
	return e, true, err
}

// zoneInterval adds a constant interval to an instant on the session's
// clocks: months and days move the calendar (the same wall-clock time a
// day later, 23 or 25 hours across a DST change), the time part moves
// the instant, as in DuckDB (expr.AddIntervalIn). ok is false when the
// zone does not apply.
func (b *builder) zoneInterval(d expr.Expr, months, days int32, micros int64) (expr.Expr, bool, error) {
	loc := b.zone()
	if loc == time.UTC || !isZoned(d) || months == 0 && days == 0 {
		return nil, false, nil
	}
	if micros > math.MaxInt64/1000 || micros < math.MinInt64/1000 {
		return nil, false, nil // expr.AddIntervalTime reports it
	}
	e, err := expr.AddIntervalIn(d, expr.IntervalLiteral(months, days, micros*1000), false, loc)
	return e, true, err
}

// zoneIntervalValue is l op r for an instant plus or minus an INTERVAL
// value (INTERVAL + instant too) on the session's clocks; ok is false
// when the zone does not apply.
func (b *builder) zoneIntervalValue(op expr.ArithOp, l, r expr.Expr) (expr.Expr, bool, error) {
	loc := b.zone()
	isIv := func(e expr.Expr) bool { return e.Type().ID() == arrow.INTERVAL_MONTH_DAY_NANO }
	switch {
	case loc == time.UTC || op != expr.Add && op != expr.Sub:
		return nil, false, nil
	case isZoned(l) && isIv(r):
		e, err := expr.AddIntervalIn(l, r, op == expr.Sub, loc)
		return e, true, err
	case op == expr.Add && isIv(l) && isZoned(r):
		e, err := expr.AddIntervalIn(r, l, false, loc)
		return e, true, err
	}
	return nil, false, nil
}

// zoneLabelNode labels a query's TIMESTAMP WITH TIME ZONE results with
// the session's zone (the same instants), so a client shows them on its
// clocks, as DuckDB's Arrow results do.
type zoneLabelNode struct {
	in  planNode
	loc *time.Location
	out *arrow.Schema
}

// labelZone wraps p when the zone is not UTC and p returns instants.
func labelZone(p planNode, loc *time.Location) planNode {
	if loc == time.UTC || loc == nil {
		return p
	}
	s := p.schema()
	fields := s.Fields()
	changed := false
	for i, f := range fields {
		if t, ok := f.Type.(*arrow.TimestampType); ok && t.TimeZone != "" && t.TimeZone != loc.String() {
			fields[i].Type = &arrow.TimestampType{Unit: t.Unit, TimeZone: loc.String()}
			changed = true
		}
	}
	if !changed {
		return p
	}
	md := s.Metadata()
	return &zoneLabelNode{in: p, loc: loc, out: arrow.NewSchema(fields, &md)}
}

func (n *zoneLabelNode) schema() *arrow.Schema                  { return n.out }
func (n *zoneLabelNode) explain(sb *strings.Builder, depth int) { n.in.explain(sb, depth) }
func (n *zoneLabelNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	in, err := n.in.open(ctx, rt, c)
	if err != nil {
		return nil, err
	}
	return &zoneLabelOp{in: in, n: n}, nil
}

type zoneLabelOp struct {
	in operator
	n  *zoneLabelNode
}

func (o *zoneLabelOp) Schema() *arrow.Schema { return o.n.out }
func (o *zoneLabelOp) Close()                { o.in.Close() }
func (o *zoneLabelOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	rec, err := o.in.Next(ctx)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		cols[i] = expr.RelabelZone(c, o.n.loc)
		defer cols[i].Release()
	}
	return array.NewRecordBatch(o.n.out, cols, rec.NumRows()), nil
}
