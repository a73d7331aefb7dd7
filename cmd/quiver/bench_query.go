//go:build !nobench

package main

import (
	"context"
	"fmt"
	"io"

	"github.com/quiverdb/quiver/bench"
)

const benchQueryAbout = `Measures quiver's query engine on TPC-H lineitem held in the cache (codec auto):
Q1, Q6, count(*) over an l_orderkey range (clustered: pruning skips the batches
outside it), the same count with the predicate written so it cannot prune
(l_orderkey + 0e0, a float sum) and written l_orderkey + 0 (which the
planner moves off the column, so it prunes as the bare range does), a
GROUP BY l_orderkey with HAVING on the key over that range (which the
planner moves into WHERE, so it prunes) and with HAVING on max(l_orderkey)
(the same groups, every row grouped first), a count over a week of l_shipdate (lineitem is not sorted by shipdate, so pruning
skips nothing), a full-table count(*) (answered from row counts) and
SELECT l_comment, l_partkey ... ORDER BY l_comment LIMIT 100.

Peer in the same run: DuckDB over the same rows in memory, in a binary built
with -tags duckdb (cgo); otherwise the report says "DuckDB peer: build with
-tags duckdb". Targets: Q1 and Q6 within 2x DuckDB's time, and the pruned count
at least 10x faster than the unpruned one. Issue 5's measurement is --sf 1.`

func runBenchQuery(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newBenchFlags("query", benchQueryAbout, 5, "measurements per query and engine, interleaved; the tables show medians")
	sf := fs.Float64("sf", 0.1, "TPC-H scale factor (issue 5's measurement uses 1)")
	goroutines := fs.Int("goroutines", 2, "GOMAXPROCS, scan goroutines and DuckDB threads")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *sf <= 0 || *goroutines <= 0 {
		return fmt.Errorf("%w: --sf and --goroutines must be positive", errUsage)
	}
	cfg := bench.QueryConfig{SF: *sf, Runs: *fs.runs, Goroutines: *goroutines, Progress: fs.progress(stderr)}
	_, err := bench.RunQuery(ctx, cfg, stdout)
	return err
}
