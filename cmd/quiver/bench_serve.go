//go:build !nobench

package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/quiverdb/quiver/bench"
)

const benchServeAbout = `Measures fetching a result shaped like TPC-DS catalog_sales (34 columns, its
types, value ranges and NULLs, generated in Go) from quiver's Flight SQL server,
started in-process over the cache, whole and as 8 numeric columns, with each
result codec (session option quiver.result.codec; auto is always measured over
loopback): bytes the client receives and fetch time (a) over loopback and (b)
through a TCP proxy in the same process that limits the link to --link-mbps each
way (Kyuubi's cross-subnet case). Peer in the same run: a plain arrow-go Flight
server streaming the same records from memory, uncompressed and with
ipc.WithZstd(). Every cell's values are checked once against the generated table.

The whole (34-column) result goes over the link at --link-rows rows, since
2,000,000 uncompressed rows (648 MB) would take over 30 s per fetch at 20 MB/s;
the numeric result goes over it at --rows. Targets: zstd:1 sends at most 0.25x
the bytes of none on the numeric columns; over the link a zstd:1 fetch takes at
most 0.35x none's time; over loopback auto is within 1.1x of the arrow-go peer
without compression and lz4 within 1.3x of none.`

func runBenchServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newBenchFlags("serve", benchServeAbout, 3, "measurements per cell; the tables show medians")
	rows := fs.Int64("rows", 2_000_000, "rows of catalog_sales")
	linkRows := fs.Int64("link-rows", 500_000, "rows of the whole result over the throttled link (at most --rows)")
	batchRows := fs.Int("batch-rows", 10_000, "rows per generated batch (the peer sends them as they are)")
	linkMBps := fs.Float64("link-mbps", 20, "the throttled link's rate in MB/s (10^6 bytes) each way")
	codecs := fs.String("codecs", strings.Join(bench.DefaultServeCodecs, ","), "comma-separated result codecs: none, lz4, zstd:N, auto")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *rows <= 0 || *linkRows <= 0 || *batchRows <= 0 || !(*linkMBps > 0) {
		return fmt.Errorf("%w: --rows, --link-rows, --batch-rows and --link-mbps must be positive", errUsage)
	}
	cfg := bench.ServeConfig{Rows: *rows, LinkRows: min(*linkRows, *rows), BatchRows: *batchRows, Runs: *fs.runs, LinkMBps: *linkMBps,
		Progress: fs.progress(stderr)}
	for _, s := range strings.Split(*codecs, ",") {
		cfg.Codecs = append(cfg.Codecs, strings.TrimSpace(s))
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	_, err := bench.RunServe(ctx, cfg, stdout)
	return err
}
