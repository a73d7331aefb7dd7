//go:build !nobench

package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/bench"
)

const benchSortAbout = `Measures quiver's external sort on DataFusion's sort_tpch queries over TPC-H
lineitem held in the cache: Q3 (l_comment, l_partkey ORDER BY l_comment), Q7
(all 16 columns ORDER BY l_linenumber, l_suppkey, l_orderkey) and Q10 (all
columns ORDER BY l_orderkey, l_suppkey, l_linenumber, l_comment), within a
memory limit, spilling with each codec: time, spilled bytes, files, runs.

Peer in the same run: DuckDB with memory_limit set to the same bytes over the
same rows in a database file, in a binary built with -tags duckdb (cgo);
otherwise the report says "DuckDB peer: build with -tags duckdb". Targets
(issue 7, at SF 1 and 200 MiB): spilled bytes with zstd:1 at most 0.75x what
DataFusion spilled with zstd (Q3 50.5, Q7 122.6, Q10 169.2 MiB) and time
within 1.5x DuckDB's.`

func runBenchSort(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newBenchFlags("sort", benchSortAbout, 3, "measurements per query and codec, interleaved; the tables show medians")
	sf := fs.Float64("sf", 1, "TPC-H scale factor (CI runs 0.01)")
	memory := fs.String("memory", "200MB", "memory limit of the sort and of DuckDB: bytes, or a number with KB, MB or GB (powers of 1024, as DataFusion's -m)")
	codecs := fs.String("codecs", "none,lz4,zstd:1", "comma-separated spill codec settings")
	queries := fs.String("queries", "Q3,Q7,Q10", "comma-separated sort_tpch queries")
	goroutines := fs.Int("goroutines", 2, "GOMAXPROCS, scan goroutines and DuckDB threads")
	dir := fs.String("dir", "", "folder for spill files and DuckDB's database (default: the system temp dir)")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	mem, err := parseByteSize(*memory)
	if err != nil {
		return fmt.Errorf("%w: --memory: %v", errUsage, err)
	}
	if *sf <= 0 || *goroutines <= 0 || mem <= 0 {
		return fmt.Errorf("%w: --sf, --memory and --goroutines must be positive", errUsage)
	}
	cfg := bench.SortConfig{SF: *sf, Memory: mem, Runs: *fs.runs, Goroutines: *goroutines, Dir: *dir, Progress: fs.progress(stderr)}
	if cfg.Codecs, err = parseCodecList(*codecs); err != nil {
		return err
	}
	for _, q := range strings.Split(*queries, ",") {
		cfg.Queries = append(cfg.Queries, strings.ToUpper(strings.TrimSpace(q)))
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	_, err = bench.RunSort(ctx, cfg, stdout)
	return err
}

// parseByteSize reads "209715200", "200MB", "200MiB", "1.5GB": KB, MB and
// GB (and KiB, MiB, GiB) are powers of 1024.
func parseByteSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return int64(v * float64(mult)), nil
}
