package query

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query/expr"
)

// joinKind is what a join returns. The probe side is the one streamed
// through the join; the build side is held in a hash table.
type joinKind int

const (
	// joinInner returns the probe row joined with every build row whose
	// keys equal its keys and for which the residual is TRUE.
	joinInner joinKind = iota
	// joinLeft returns joinInner's rows and, for each probe row with no
	// such build row, the probe row with NULL build columns.
	joinLeft
	// joinRight returns joinInner's rows and, for each build row that
	// joined no probe row, NULL probe columns with the build row.
	joinRight
	// joinFull is joinLeft and joinRight together.
	joinFull
	// joinSemi returns each probe row (probe columns only) once when at
	// least one build row matches it (EXISTS, IN).
	joinSemi
	// joinAnti returns each probe row (probe columns only) that no build
	// row matches (NOT EXISTS). A probe row with a NULL key matches none.
	joinAnti
	// joinNullAwareAnti is NOT IN's rule for one key: an empty build
	// side returns every probe row; otherwise a probe row is returned
	// when its key is not NULL, no build key equals it and the build side
	// has no NULL key (x NOT IN (…, NULL) is never TRUE).
	joinNullAwareAnti
	// joinMark returns every probe row with one more column, a nullable
	// boolean named markName: TRUE when a build row matches it, else NULL
	// when its key is NULL or the build side has a NULL key (and is not
	// empty), else FALSE — the value of x IN (subquery).
	joinMark
	// joinSingle is joinLeft for a scalar subquery: a probe row that
	// matches more than one build row fails the query with ErrExec
	// ("more than one row returned by a subquery used as an expression").
	joinSingle
	// joinRightSemi returns each build row (build columns only) that at
	// least one probe row matches, once, after the probe side ends: a
	// semi join with the sides swapped, so that the smaller side is built
	// (EXISTS over a large subquery).
	joinRightSemi
	// joinRightAnti returns each build row (build columns only) that no
	// probe row matches, after the probe side ends (NOT EXISTS with the
	// sides swapped). A build row with a NULL key matches none.
	joinRightAnti
)

var joinKindNames = [...]string{"Inner", "Left", "Right", "Full", "Semi", "Anti", "NullAwareAnti", "Mark", "Single", "RightSemi", "RightAnti"}

func (k joinKind) String() string { return joinKindNames[k] }

// hashJoinNode joins probe with build on equal keys. Key columns are
// columns of each side in engine types (expr.EngineType), pairwise of
// identical types; a NULL key never equals anything. With no keys it is a
// nested-loop join (every pair, then the residual), which the planner
// uses for CROSS JOIN and conditions without an equality.
//
// Output columns: probe's then build's for joinInner, joinLeft,
// joinRight, joinFull and joinSingle (the side that may come out NULL
// has its fields made nullable); probe's only for joinSemi, joinAnti and
// joinNullAwareAnti; probe's and the mark for joinMark; build's only for
// joinRightSemi and joinRightAnti.
type hashJoinNode struct {
	probe, build         planNode
	kind                 joinKind
	probeKeys, buildKeys []int
	// residual, when not nil, is a boolean expression over the probe's
	// columns followed by the build's: a pair of rows with equal keys
	// joins only when it is TRUE.
	residual expr.Expr
	markName string // joinMark's column
	// estRows is the planner's estimate of the rows out, for EXPLAIN;
	// negative: none.
	estRows float64
	// filters carry the build side's key ranges to scans below the probe
	// side (runtime_filter.go).
	filters []*runtimeFilter
	// strategy is the planner's guess of broadcast or partitioned, and
	// why, for EXPLAIN (plan_joinx.go); run time decides by the build
	// side's actual size.
	strategy string
	// cached is schema's result for kind cachedKind: a plan's schema is
	// asked for at every level above it, and rebuilt each time it made
	// planning a join of 30 tables quadratic in schema builds (SQLite's
	// select5.test). Its sides never change once it is built; its kind
	// may (an outer join turned inner).
	cached     *arrow.Schema
	cachedKind joinKind
}

func (n *hashJoinNode) schema() *arrow.Schema {
	if n.cached == nil || n.cachedKind != n.kind {
		n.cached, n.cachedKind = n.buildSchema(), n.kind
	}
	return n.cached
}

func (n *hashJoinNode) buildSchema() *arrow.Schema {
	ps, bs := n.probe.schema(), n.build.schema()
	var fields []arrow.Field
	if n.kind == joinRightSemi || n.kind == joinRightAnti {
		return arrow.NewSchema(slices.Clone(bs.Fields()), nil)
	}
	nullProbe := n.kind == joinRight || n.kind == joinFull
	nullBuild := n.kind == joinLeft || n.kind == joinFull || n.kind == joinSingle
	for _, f := range ps.Fields() {
		f.Nullable = f.Nullable || nullProbe
		fields = append(fields, f)
	}
	switch n.kind {
	case joinSemi, joinAnti, joinNullAwareAnti:
	case joinMark:
		fields = append(fields, arrow.Field{Name: n.markName, Type: arrow.FixedWidthTypes.Boolean, Nullable: true})
	default:
		for _, f := range bs.Fields() {
			f.Nullable = f.Nullable || nullBuild
			fields = append(fields, f)
		}
	}
	return arrow.NewSchema(fields, nil)
}

func (n *hashJoinNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	return openHashJoin(ctx, rt, c, n) // op_hashjoin.go
}

func (n *hashJoinNode) explain(b *strings.Builder, depth int) {
	indent(b, depth)
	ps, bs := n.probe.schema(), n.build.schema()
	if len(n.probeKeys) == 0 {
		fmt.Fprintf(b, "NestedLoopJoin %s", n.kind)
	} else {
		keys := make([]string, len(n.probeKeys))
		for i := range n.probeKeys {
			keys[i] = ps.Field(n.probeKeys[i]).Name + " = " + bs.Field(n.buildKeys[i]).Name
		}
		fmt.Fprintf(b, "HashJoin %s on %s", n.kind, strings.Join(keys, " AND "))
	}
	if n.residual != nil {
		fmt.Fprintf(b, " and %s", n.residual)
	}
	if n.estRows >= 0 {
		fmt.Fprintf(b, " (~%.0f rows)", n.estRows)
	}
	if n.strategy != "" {
		fmt.Fprintf(b, " [%s]", n.strategy)
	}
	b.WriteString("\n")
	n.probe.explain(b, depth+1)
	indent(b, depth+1)
	b.WriteString("build:\n")
	n.build.explain(b, depth+2)
}
