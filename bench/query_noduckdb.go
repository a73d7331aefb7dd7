//go:build !duckdb

package bench

import (
	"context"
	"errors"
)

// Without the duckdb tag there is no DuckDB: RunQuery measures quiver
// alone and says why in the report.
func newDuckPeer(context.Context, float64, int, ...string) (duckPeer, error) {
	return nil, errors.New(ErrNoDuckDB)
}
