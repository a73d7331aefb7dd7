//go:build !duckdb

package bench

import (
	"context"
	"errors"
)

// Without the duckdb tag there is no DuckDB: RunSort measures quiver
// alone and says why in the report.
func newDuckSortPeer(context.Context, float64, int, int64, string) (sortPeer, error) {
	return nil, errors.New(ErrNoDuckDB)
}
