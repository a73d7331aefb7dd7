//go:build !nobench

package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/bench"
	"github.com/quiverdb/quiver/datagen/tpch"
)

const benchTPCHAbout = `Runs the 22 TPC-H queries (the spec's text with its validation parameters,
package tpch) in quiver's engine over the eight TPC-H tables generated at --sf
and held in the cache (codec auto), and in DuckDB over the same rows in its own
memory, with the same number of threads, back to back: a row per query with
quiver's and DuckDB's median ms and their ratio, and the geometric mean of the
ratios over the queries both engines answered. A query quiver refuses is listed
as "refused: <error>"; answers that differ are listed and fail the command.

DuckDB runs in a binary built with -tags duckdb (cgo); otherwise the report says
"DuckDB peer: build with -tags duckdb". Targets (issue 12): every query within
2x DuckDB's time, the geometric mean within 1.3x. Issue 12's measurement is
--sf 1.

With --query-memory (e.g. 100MiB) each quiver query may hold that much and
spills past it (ORDER BY and GROUP BY runs, hash joins' partitions: a grace
hash join) to --spill-dir; a second table shows each query's peak memory and
what it spilled. DuckDB runs without a limit.`

func runBenchTPCH(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newBenchFlags("tpch", benchTPCHAbout, 3, "measurements per query and engine, interleaved; the table shows medians")
	sf := fs.Float64("sf", 1, "TPC-H scale factor: below 1 a multiple of 0.001, above a whole number")
	goroutines := fs.Int("goroutines", 2, "GOMAXPROCS, scan goroutines and DuckDB threads")
	queries := fs.String("queries", "", "comma-separated query numbers, 1 to 22 (default all)")
	queryMemory := fs.String("query-memory", "", "quiver's memory limit per query, spilling past it (bytes, or a number with KB, MB, GB, KiB, MiB or GiB; default 1 GiB, no spilling)")
	spillDir := fs.String("spill-dir", "", "where --query-memory's spill files go (default: the system temp dir)")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *sf <= 0 || *goroutines <= 0 {
		return fmt.Errorf("%w: --sf and --goroutines must be positive", errUsage)
	}
	cfg := bench.TPCHConfig{SF: *sf, Runs: *fs.runs, Goroutines: *goroutines, SpillDir: *spillDir, Progress: fs.progress(stderr)}
	if *queryMemory != "" {
		n, err := parseByteSize(*queryMemory)
		if err != nil || n <= 0 {
			return fmt.Errorf("%w: --query-memory: %q is not a positive size", errUsage, *queryMemory)
		}
		cfg.QueryMemory = n
	}
	if *queries != "" {
		for _, s := range strings.Split(*queries, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || n < 1 || n > tpch.NumQueries {
				return fmt.Errorf("%w: --queries: %q is not a TPC-H query number (1 to %d)", errUsage, s, tpch.NumQueries)
			}
			cfg.Queries = append(cfg.Queries, n)
		}
	}
	_, err := bench.RunTPCH(ctx, cfg, stdout)
	return err
}
