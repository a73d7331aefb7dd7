package bench

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/shuffle"
)

// Spark's MapStatusesSerDeserBenchmark (core/benchmarks/
// MapStatusesSerDeserBenchmark-results.txt, JDK 17, AMD EPYC 7763; direct,
// not broadcast): 200,000 map statuses per row.
var sparkMapStatuses = map[int]sparkFigures{
	10:   {2.5, 75, 137},
	100:  {13.6, 156, 153},
	1000: {122.3, 573, 323},
}

type sparkFigures struct {
	mib          float64 // serialized size
	serMS, desMS float64 // best times
}

// ShuffleConfig configures RunShuffle.
type ShuffleConfig struct {
	Maps     int   // map statuses; 0 means 200,000 (Spark's)
	Blocks   []int // blocks per status; nil means 10, 100, 1,000
	Runs     int   // measurements per cell; 0 means 3
	Codec    codec.Setting
	Progress io.Writer
}

func (c ShuffleConfig) withDefaults() ShuffleConfig {
	if c.Maps == 0 {
		c.Maps = 200_000
	}
	if c.Blocks == nil {
		c.Blocks = []int{10, 100, 1000}
	}
	if c.Runs == 0 {
		c.Runs = 3
	}
	if c.Codec == (codec.Setting{}) {
		c.Codec = codec.Setting{Kind: codec.Zstd, Level: 1}
	}
	return c
}

// ShuffleRow is one blocks-per-status row of the report, per encoding.
type ShuffleRow struct {
	Blocks, Maps int
	Impl         string // "quiver", "gob+zstd"
	Bytes        int64
	Ser, Des     []time.Duration
	// Full: decode and build every MapStatus (Spark's deserialization
	// builds them all; quiver's decode leaves them to Status).
	Full []time.Duration
}

// ShuffleReport is RunShuffle's result.
type ShuffleReport struct {
	Config ShuffleConfig
	Rows   []ShuffleRow
}

// gobStatus is the straightforward peer: every status as a Go struct of
// its id, its location and its size bytes, gob-encoded, then zstd.
type gobStatus struct {
	MapID    int64
	Location string
	Sizes    []byte
}

// RunShuffle reproduces Spark's MapStatusesSerDeserBenchmark: Maps
// statuses of Blocks blocks each, sizes 1 + uniform [0, 1 GiB) from seed
// 912, every map on its own host ("node<i>.spark.apache.org:1000", as
// Spark's BlockManagerId("node<i>", "node<i>.spark.apache.org", 1000)),
// serialized and deserialized by package shuffle and by gob + the same
// zstd level, in the same run.
func RunShuffle(ctx context.Context, cfg ShuffleConfig, w io.Writer) (*ShuffleReport, error) {
	cfg = cfg.withDefaults()
	if cfg.Maps < 1 || cfg.Runs < 1 {
		return nil, fmt.Errorf("bench: shuffle: maps and runs must be positive")
	}
	zc, err := codec.New(cfg.Codec)
	if err != nil {
		return nil, err
	}
	progress := progressf(cfg.Progress)
	rep := &ShuffleReport{Config: cfg}
	for _, blocks := range cfg.Blocks {
		if blocks < 1 {
			return nil, fmt.Errorf("bench: shuffle: %d blocks per status", blocks)
		}
		progress("bench: shuffle: building %d statuses of %d blocks", cfg.Maps, blocks)
		statuses, gobs := shuffleStatuses(cfg.Maps, blocks)
		q := ShuffleRow{Blocks: blocks, Maps: cfg.Maps, Impl: "quiver"}
		g := ShuffleRow{Blocks: blocks, Maps: cfg.Maps, Impl: "gob+zstd"}
		for run := range cfg.Runs {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			progress("bench: shuffle: %d blocks: run %d of %d", blocks, run+1, cfg.Runs)
			var b []byte
			d, err := timed(func() (err error) {
				b, err = shuffle.AppendStatuses(nil, statuses, blocks, cfg.Codec)
				return err
			})
			if err != nil {
				return nil, err
			}
			q.Ser, q.Bytes = append(q.Ser, d), int64(len(b))
			var v *shuffle.Statuses
			if d, err = timed(func() (err error) { v, err = shuffle.DecodeStatuses(b, shuffle.DecodeLimits{}); return err }); err != nil {
				return nil, err
			}
			q.Des = append(q.Des, d)
			d, _ = timed(func() error {
				v, _ = shuffle.DecodeStatuses(b, shuffle.DecodeLimits{})
				for m := range v.Maps() {
					_ = v.Status(m)
				}
				return nil
			})
			q.Full = append(q.Full, d)
			if v.Maps() != cfg.Maps || v.Size(cfg.Maps-1, blocks-1) != statuses[cfg.Maps-1].Size(blocks-1) {
				return nil, fmt.Errorf("bench: shuffle: decoded statuses differ")
			}
			b, v = nil, nil

			var gb []byte
			var gobRaw int // the peer's decoded size, which its reader is given as quiver's is
			if d, err = timed(func() error {
				var buf bytes.Buffer
				if err := gob.NewEncoder(&buf).Encode(gobs); err != nil {
					return err
				}
				gobRaw = buf.Len()
				gb = zc.Compress(nil, buf.Bytes())
				return nil
			}); err != nil {
				return nil, err
			}
			g.Ser, g.Bytes = append(g.Ser, d), int64(len(gb))
			var back []gobStatus
			if d, err = timed(func() error {
				raw, err := zc.Decompress(nil, gb, gobRaw)
				if err != nil {
					return err
				}
				return gob.NewDecoder(bytes.NewReader(raw)).Decode(&back)
			}); err != nil {
				return nil, err
			}
			g.Des, g.Full = append(g.Des, d), append(g.Full, d)
			if len(back) != cfg.Maps {
				return nil, fmt.Errorf("bench: shuffle: gob decoded %d statuses", len(back))
			}
		}
		rep.Rows = append(rep.Rows, q, g)
	}
	return rep, rep.Write(w)
}

// shuffleStatuses builds Spark's benchmark statuses.
func shuffleStatuses(maps, blocks int) ([]*shuffle.MapStatus, []gobStatus) {
	rng := rand.New(rand.NewPCG(912, 0))
	sizes := make([]int64, blocks)
	st := make([]*shuffle.MapStatus, maps)
	gobs := make([]gobStatus, maps)
	for i := range st {
		for j := range sizes {
			sizes[j] = 1 + int64(rng.Float64()*(1<<30))
		}
		loc := fmt.Sprintf("node%d.spark.apache.org:1000", i)
		st[i] = shuffle.NewMapStatus(loc, int64(i), sizes, shuffle.StatusConfig{})
		b := make([]byte, blocks)
		for j := range b {
			b[j] = shuffle.CompressSize(sizes[j])
		}
		gobs[i] = gobStatus{MapID: int64(i), Location: loc, Sizes: b}
	}
	return st, gobs
}

// Write prints the report's table and the targets.
func (r *ShuffleReport) Write(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "\nMap statuses (Spark's MapStatusesSerDeserBenchmark): %d statuses per row, sizes 1 + uniform [0, 1 GiB) (seed 912), a host per map, %s; median of %d runs.\n", r.Config.Maps, r.Config.Codec, r.Config.Runs)
	fmt.Fprintf(&b, "Spark: its published results (JDK 17, AMD EPYC 7763, direct), scaled to %d statuses when fewer were run.\n\n", r.Config.Maps)
	b.WriteString("| blocks | encoding | MiB      | B/status | serialize ms | deserialize ms | + every status ms |\n")
	b.WriteString("|-------:|----------|---------:|---------:|-------------:|---------------:|------------------:|\n")
	scale := float64(r.Config.Maps) / 200_000
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %6d | %-8s | %8.2f | %8.2f | %12.1f | %14.1f | %17.1f |\n", row.Blocks, row.Impl,
			float64(row.Bytes)/(1<<20), float64(row.Bytes)/float64(row.Maps), ms(median(row.Ser)), ms(median(row.Des)), ms(median(row.Full)))
		if row.Impl == "quiver" {
			if s, ok := sparkMapStatuses[row.Blocks]; ok {
				fmt.Fprintf(&b, "| %6d | %-8s | %8.2f | %8.2f | %12.1f | %14s | %17.1f |\n", row.Blocks, "Spark",
					s.mib*scale, s.mib*(1<<20)/200_000, s.serMS*scale, "", s.desMS*scale)
			}
		}
	}
	b.WriteString("\nTargets (issue 16): bytes ≤ Spark's at 100 and 1,000 blocks, ≤ 0.5× at 10; serialize and deserialize (every status built) ≥ 5× Spark's rate per status.\n\n")
	for _, row := range r.Rows {
		s, ok := sparkMapStatuses[row.Blocks]
		if row.Impl != "quiver" || !ok {
			continue
		}
		per := float64(row.Bytes) / float64(row.Maps) / (s.mib * (1 << 20) / 200_000)
		limit := 1.0
		if row.Blocks == 10 {
			limit = 0.5
		}
		ser := s.serMS * scale / ms(median(row.Ser))
		des := s.desMS * scale / ms(median(row.Full))
		fmt.Fprintf(&b, "  %4d blocks: bytes %.2f× Spark's (target ≤ %.1f: %s); serialize %.1f× Spark's rate (≥ 5: %s); deserialize %.1f× (≥ 5: %s)\n",
			row.Blocks, per, limit, pass(per <= limit), ser, pass(ser >= 5), des, pass(des >= 5))
	}
	_, err := w.Write(b.Bytes())
	return err
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func pass(ok bool) string {
	if ok {
		return "met"
	}
	return "missed"
}
