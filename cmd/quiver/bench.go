//go:build !nobench

package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/bench"
)

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		fmt.Fprintln(stdout, "Usage: quiver bench <benchmark> [flags]\n\nBenchmarks:\n  codecs   quiver's batch codec against arrow-go's ipc and each codec against copy()\n  cache    Comet's cache benchmark: materialize, footprint, projected reads and a filter per codec\n  convert  CSV, Parquet and per-type conversion into Arrow against arrow-go's readers and builders\n  query    TPC-H lineitem in the cache: Q1, Q6, counts, top-N (DuckDB peer with -tags duckdb)\n  tpch     the 22 TPC-H queries over the eight tables, per query and geometric mean (DuckDB peer with -tags duckdb)\n  serve    TPC-DS catalog_sales fetched from quiver's Flight SQL server per result codec, over loopback and a 20 MB/s link (arrow-go Flight peer)\n  spill    DataFusion's spill_io datasets as spill files per codec: bytes on disk, write and read MB/s (arrow-go IPC peer)\n  sort     DataFusion's sort_tpch Q3, Q7, Q10 on TPC-H lineitem through the external sort within a memory limit, per spill codec (DuckDB peer with -tags duckdb)\n  shuffle  Spark's MapStatusesSerDeserBenchmark: 200,000 map statuses serialized and deserialized (gob+zstd peer, Spark's figures beside)")
		return flag.ErrHelp
	}
	switch args[0] {
	case "codecs":
		return runBenchCodecs(ctx, args[1:], stdout, stderr)
	case "cache":
		return runBenchCache(ctx, args[1:], stdout, stderr)
	case "convert":
		return runBenchConvert(ctx, args[1:], stdout, stderr)
	case "query":
		return runBenchQuery(ctx, args[1:], stdout, stderr)
	case "tpch":
		return runBenchTPCH(ctx, args[1:], stdout, stderr)
	case "spill":
		return runBenchSpill(ctx, args[1:], stdout, stderr)
	case "serve":
		return runBenchServe(ctx, args[1:], stdout, stderr)
	case "sort":
		return runBenchSort(ctx, args[1:], stdout, stderr)
	case "shuffle":
		return runBenchShuffle(ctx, args[1:], stdout, stderr)
	}
	return fmt.Errorf("%w: unknown benchmark %q (want codecs, cache, convert, query, serve, shuffle, sort, spill or tpch)", errUsage, args[0])
}

const benchCodecsAbout = `Measures, side by side in one run on the same records, quiver's batch codec and
arrow-go's ipc writer/reader (encoded bytes, encode and decode MB/s), and each codec
alone against copy() of the same buffers, then prints the targets as ratios.`

func runBenchCodecs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newBenchFlags("codecs", benchCodecsAbout, 3, "measurements per cell; the table shows medians")
	rows := fs.Int("rows", 1_000_000, "rows of the Comet relation (the issue's measurement uses 5000000)")
	batchRows := fs.Int("batch-rows", 8192, "rows per record batch")
	codecs := fs.String("codecs", "none,lz4,zstd:1,zstd:3", "comma-separated quiver codec settings")
	goroutines := fs.String("goroutines", "1,2", "comma-separated concurrency levels")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *rows <= 0 || *batchRows <= 0 {
		return fmt.Errorf("%w: --rows and --batch-rows must be positive", errUsage)
	}
	cfg := bench.CodecsConfig{Rows: *rows, BatchRows: *batchRows, Runs: *fs.runs, Progress: fs.progress(stderr)}
	var err error
	if cfg.Codecs, err = parseCodecList(*codecs); err != nil {
		return err
	}
	for _, s := range strings.Split(*goroutines, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("%w: --goroutines: bad level %q", errUsage, s)
		}
		cfg.Goroutines = append(cfg.Goroutines, n)
	}
	_, err = bench.RunCodecs(ctx, cfg, stdout)
	return err
}
