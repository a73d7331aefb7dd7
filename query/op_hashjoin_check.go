package query

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/query/expr"
)

// check refuses a node the planner should not have made: keys that do
// not pair up, or are not of one engine type, a residual that is not
// boolean.
func (n *hashJoinNode) check() error {
	bad := func(format string, args ...any) error {
		return &Error{Kind: ErrInvalid, Msg: n.title() + ": " + fmt.Sprintf(format, args...)}
	}
	if n.kind < joinInner || n.kind > joinRightAnti {
		return bad("join kind %d", int(n.kind))
	}
	ps, bs := n.probe.schema(), n.build.schema()
	if len(n.probeKeys) != len(n.buildKeys) {
		return bad("%d probe keys, %d build keys", len(n.probeKeys), len(n.buildKeys))
	}
	for i, pk := range n.probeKeys {
		bk := n.buildKeys[i]
		if pk < 0 || pk >= ps.NumFields() || bk < 0 || bk >= bs.NumFields() {
			return bad("key %d: columns %d and %d of %d and %d", i, pk, bk, ps.NumFields(), bs.NumFields())
		}
		pt, bt := ps.Field(pk).Type, bs.Field(bk).Type
		et, ok := expr.EngineType(pt)
		if !ok || !arrow.TypeEqual(et, pt) || !keyTypesMatch(pt, bt) {
			return bad("key %d: %s = %s, not one engine type", i, pt, bt)
		}
	}
	if r := n.residual; r != nil && r.Type().ID() != arrow.BOOL && r.Type().ID() != arrow.NULL {
		return bad("residual %s is %s, not boolean", r, r.Type())
	}
	return nil
}

// title names the join in errors: its EXPLAIN line, short.
func (n *hashJoinNode) title() string {
	if len(n.probeKeys) == 0 {
		return "NestedLoopJoin " + n.kind.String()
	}
	ps, bs := n.probe.schema(), n.build.schema()
	keys := make([]string, len(n.probeKeys))
	for i := range n.probeKeys {
		p, b := "?", "?"
		if k := n.probeKeys[i]; k >= 0 && k < ps.NumFields() {
			p = ps.Field(k).Name
		}
		if i < len(n.buildKeys) && n.buildKeys[i] >= 0 && n.buildKeys[i] < bs.NumFields() {
			b = bs.Field(n.buildKeys[i]).Name
		}
		keys[i] = p + " = " + b
	}
	return clip("HashJoin " + n.kind.String() + " on " + strings.Join(keys, " AND "))
}

// residualBatch sets the schema of the batches the residual reads.
func (o *hashJoinOp) residualBatch() {
	fields := slices.Concat(o.n.probe.schema().Fields(), o.n.build.schema().Fields())
	o.resReads = make([]bool, len(fields))
	for _, c := range expr.Columns(o.n.residual) {
		if c >= 0 && c < len(fields) {
			o.resReads[c] = true
		}
	}
	for i := range fields {
		if !o.resReads[i] {
			fields[i] = arrow.Field{Name: fields[i].Name, Type: arrow.Null, Nullable: true}
		}
	}
	o.resSchema = arrow.NewSchema(fields, nil)
}

// keyTypesMatch reports whether two engine-typed key columns can be
// compared as hash keys: of one type, or decimals of one scale whatever
// their precisions (the keys are their unscaled values: equal values,
// equal keys; GROUP BY's hash table reads only the values).
func keyTypesMatch(a, b arrow.DataType) bool {
	if arrow.TypeEqual(a, b) {
		return true
	}
	da, ok1 := a.(*arrow.Decimal128Type)
	db, ok2 := b.(*arrow.Decimal128Type)
	return ok1 && ok2 && da.Scale == db.Scale
}
