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
at 10; serialize and deserialize at least 5x Spark's rate per status.

Part b (--parts b): a GROUP BY of 10 million groups (x SF) and lineitem JOIN
orders at TPC-H SF, on 1 and 2 workers, in memory (GROUP BY also through the
hash exchange) and within --memory, which sends them to disk (a spilling GROUP
BY; a grace hash join, whose spill is a shuffle). Part c: a join whose build
side has one key on 30% of its rows (and one whose probe side has), against
the same join unskewed, within --memory with and without the grace join's
skew split. Target: the skewed join within 1.5x the unskewed one.`

func runBenchShuffle(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newBenchFlags("shuffle", benchShuffleAbout, 3, "measurements per cell; the table shows medians")
	maps := fs.Int("maps", 200_000, "map statuses per row")
	blocks := fs.String("blocks", "10,100,1000", "comma-separated blocks per status")
	zstd := fs.String("codec", "zstd:1", "codec of both encodings")
	parts := fs.String("parts", "a,b,c", "comma-separated parts: a (map statuses), b (GROUP BY and join on 1 and 2 workers, in memory and on disk), c (skewed join)")
	sf := fs.Float64("sf", 1, "scale factor of parts b and c")
	memory := fs.String("memory", "", "memory limit of parts b and c: bytes, or a number with KB, MB or GB (default 32 MB x SF)")
	dir := fs.String("dir", "", "folder for spill files (default: the system temp dir)")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *maps <= 0 {
		return fmt.Errorf("%w: --maps must be positive", errUsage)
	}
	ecfg := bench.ShuffleEngineConfig{SF: *sf, Runs: *fs.runs, Dir: *dir, Progress: fs.progress(stderr)}
	var runA bool
	for _, p := range strings.Split(*parts, ",") {
		switch strings.TrimSpace(p) {
		case "a":
			runA = true
		case "b":
			ecfg.GroupBy, ecfg.Join = true, true
		case "c":
			ecfg.Skew = true
		default:
			return fmt.Errorf("%w: --parts: unknown part %q (want a, b or c)", errUsage, p)
		}
	}
	if *memory != "" {
		mem, err := parseByteSize(*memory)
		if err != nil || mem <= 0 {
			return fmt.Errorf("%w: --memory: bad size %q", errUsage, *memory)
		}
		ecfg.Memory = mem
	}
	if *sf <= 0 {
		return fmt.Errorf("%w: --sf must be positive", errUsage)
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
	if runA {
		if _, err := bench.RunShuffle(ctx, cfg, stdout); err != nil {
			return err
		}
	}
	if ecfg.GroupBy || ecfg.Skew {
		_, err = bench.RunShuffleEngine(ctx, ecfg, stdout)
	}
	return err
}
