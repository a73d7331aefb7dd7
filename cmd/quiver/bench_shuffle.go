//go:build !nobench

package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/quiverdb/quiver/bench"
	"github.com/quiverdb/quiver/codec"
)

const benchShuffleAbout = `Reproduces Spark's MapStatusesSerDeserBenchmark: 200,000 map statuses of 10, 100
and 1,000 blocks, sizes 1 + uniform [0, 1 GiB) from a fixed seed, each map on its
own host, serialized and deserialized by package shuffle (columnar, interned
locations, zstd) and, in the same run, by gob + the same zstd level. Spark's
published figures are printed beside them.

Targets (issue 16): bytes at most Spark's at 100 and 1,000 blocks and at most half
at 10; serialize and deserialize at least 5x Spark's rate per status.`

func runBenchShuffle(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newBenchFlags("shuffle", benchShuffleAbout, 3, "measurements per cell; the table shows medians")
	maps := fs.Int("maps", 200_000, "map statuses per row")
	blocks := fs.String("blocks", "10,100,1000", "comma-separated blocks per status")
	zstd := fs.String("codec", "zstd:1", "codec of both encodings")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *maps <= 0 {
		return fmt.Errorf("%w: --maps must be positive", errUsage)
	}
	cfg := bench.ShuffleConfig{Maps: *maps, Runs: *fs.runs, Progress: fs.progress(stderr)}
	var err error
	if cfg.Codec, err = codec.ParseSetting(*zstd); err != nil {
		return fmt.Errorf("%w: --codec: %v", errUsage, err)
	}
	for _, s := range strings.Split(*blocks, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return fmt.Errorf("%w: --blocks: bad count %q", errUsage, s)
		}
		cfg.Blocks = append(cfg.Blocks, n)
	}
	_, err = bench.RunShuffle(ctx, cfg, stdout)
	return err
}
