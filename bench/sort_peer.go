package bench

import "context"

// sortPeer is DuckDB sorting the same lineitem within the same memory
// limit (sort_duckdb.go, built with -tags duckdb; sort_noduckdb.go says
// it is missing otherwise).
type sortPeer interface {
	// run runs the query to the end without sending its rows to Go.
	run(ctx context.Context, sql string) error
	// count returns the rows the query returns.
	count(ctx context.Context, sql string) (int64, error)
	version() string
	close()
}
