//go:build !nobench

package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/quiverdb/quiver/bench"
)

const benchSpillAbout = `Measures quiver's spill files on DataFusion's spill_io datasets (q2, q16, q20:
partial aggregates of TPC-H queries; wide: 15 lineitem columns as sort-tpch Q10
spills them), 50 batches of 8192 rows each from fixed seeds: per codec, bytes on
disk and write and read MB/s of the batches' Arrow bytes.

Peer in the same run, on the same batches and disk: arrow-go's IPC stream writer
and reader (no compression, WithLZ4, WithZstd) through 1 MiB buffered files.
Targets (issue 7): on the string datasets q16 and wide, quiver zstd:3 writes at
most 0.7x the bytes of arrow-go zstd and writes and reads at least as fast.`

func runBenchSpill(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newBenchFlags("spill", benchSpillAbout, 5, "measurements per cell, interleaved; the tables show medians")
	batches := fs.Int("batches", 50, "batches per dataset")
	rows := fs.Int("batch-rows", 8192, "rows per batch")
	codecs := fs.String("codecs", "none,lz4,zstd:1,zstd:3", "comma-separated quiver codec settings")
	datasets := fs.String("datasets", strings.Join(bench.SpillDatasets, ","), "comma-separated datasets")
	dir := fs.String("dir", "", "folder for the files (default: the system temp dir)")
	goroutines := fs.Int("goroutines", 1, "GOMAXPROCS during the measurements")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *batches <= 0 || *rows <= 0 || *goroutines <= 0 {
		return fmt.Errorf("%w: --batches, --batch-rows and --goroutines must be positive", errUsage)
	}
	cfg := bench.SpillConfig{Batches: *batches, BatchRows: *rows, Runs: *fs.runs, Dir: *dir, Goroutines: *goroutines, Progress: fs.progress(stderr)}
	var err error
	if cfg.Codecs, err = parseCodecList(*codecs); err != nil {
		return err
	}
	for _, d := range strings.Split(*datasets, ",") {
		d = strings.TrimSpace(d)
		if !slices.Contains(bench.SpillDatasets, d) {
			return fmt.Errorf("%w: --datasets: unknown dataset %q (want %s)", errUsage, d, strings.Join(bench.SpillDatasets, ", "))
		}
		cfg.Datasets = append(cfg.Datasets, d)
	}
	_, err = bench.RunSpill(ctx, cfg, stdout)
	return err
}
