package query

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/query/expr"
)

// A GROUP BY key of type NULL (GROUP BY NULL, or a column of Arrow type
// null) puts every row in one group, whose key is NULL. The aggregator
// keys on engine types that hold values, so such a key is grouped as an
// all-NULL BIGINT, and comes out as one (DuckDB types it INTEGER). It used
// to fail with "ORDER BY: agg: unsupported: key 0 of type null".

// nullKey returns k, or k as a BIGINT when it has type NULL.
func nullKey(k expr.Expr) expr.Expr {
	if k.Type().ID() != arrow.NULL {
		return k
	}
	c, err := expr.Cast(k, arrow.PrimitiveTypes.Int64)
	if err != nil {
		panic("query: CAST(NULL AS BIGINT) refused: " + err.Error()) // expr casts NULL to every type
	}
	return c
}

// hasTypedKey reports whether a bare column key of stored type t comes out
// in t (not a NULL-typed one: see nullKey).
func hasTypedKey(t arrow.DataType) bool {
	if t.ID() == arrow.DECIMAL256 { // past 38 digits it groups as a DOUBLE: not rounded back
		return expr.Decimal256Exact(t)
	}
	// a run-end encoded column groups and comes out as its values
	// (package expr's ree.go)
	return t.ID() != arrow.NULL && t.ID() != arrow.RUN_END_ENCODED
}
