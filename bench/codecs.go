package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// CodecsConfig configures RunCodecs. Zero fields take the defaults given.
type CodecsConfig struct {
	// Rows of the Comet relation; default datagen.DefaultCometRows.
	Rows int
	// BatchRows per record; default datagen.DefaultCometBatch.
	BatchRows int
	// Runs is how many times each cell is measured, interleaved; the
	// report gives medians. Default 5.
	Runs int
	// Goroutines lists the concurrency levels; default 1 and 2. Each cell
	// runs with GOMAXPROCS set to its level (see withProcs).
	Goroutines []int
	// Codecs are quiver's settings; default none, lz4, zstd:1, zstd:3.
	// arrow-go always runs none, lz4 and its only zstd.
	Codecs []codec.Setting
	// Alloc is the allocator both sides use for records, buffers and
	// streams; default a fresh memory.GoAllocator.
	Alloc memory.Allocator
	// Progress, when set, gets a line per phase.
	Progress io.Writer
}

func (c CodecsConfig) withDefaults() CodecsConfig {
	if c.Rows == 0 {
		c.Rows = datagen.DefaultCometRows
	}
	if c.BatchRows == 0 {
		c.BatchRows = datagen.DefaultCometBatch
	}
	if c.Runs == 0 {
		c.Runs = 5
	}
	if c.Goroutines == nil {
		c.Goroutines = []int{1, 2}
	}
	if c.Codecs == nil {
		c.Codecs = []codec.Setting{codec.SettingNone, codec.SettingLZ4, {Kind: codec.Zstd, Level: 1}, {Kind: codec.Zstd, Level: 3}}
	}
	if c.Alloc == nil {
		c.Alloc = memory.NewGoAllocator()
	}
	return c
}

// Validate reports a negative or otherwise unusable field.
func (c CodecsConfig) Validate() error {
	if c.Rows < 0 || c.BatchRows < 0 || c.Runs < 0 {
		return fmt.Errorf("bench: negative Rows %d, BatchRows %d or Runs %d", c.Rows, c.BatchRows, c.Runs)
	}
	for _, g := range c.Goroutines {
		if g < 1 {
			return fmt.Errorf("bench: goroutines %d < 1", g)
		}
	}
	for _, s := range c.Codecs {
		if err := s.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// ErrNoCref is what the C comparisons return in a binary built without
// the cref tag.
var ErrNoCref = errors.New("build with -tags cref to compare against C")

// CSpeed is a C library's median decode speed over a set of frames
// (DecodeSpeedsC). MB/s counts decoded bytes.
type CSpeed struct {
	Name   string // the C entry point, e.g. "C LZ4F_decompress"
	Bytes  int64
	Median time.Duration
	MBps   float64
}

// RunCodecs measures, in one process on the same records, quiver's batch
// codec against arrow-go's IPC writer and reader, and each codec alone
// against copy() (and against C with -tags cref). Every cell is measured
// cfg.Runs times, interleaved, after a warm-up pass that checks every
// output against the input. The tables and targets go to out.
func RunCodecs(ctx context.Context, cfg CodecsConfig, out io.Writer) (*CodecsReport, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logf := progressf(cfg.Progress)
	warmCodecs(cfg.Codecs)
	start := time.Now()
	recs := datagen.CometRecords(cfg.Alloc, cfg.Rows, cfg.BatchRows)
	defer release(recs)
	if len(recs) == 0 {
		return nil, errors.New("bench: no rows to measure")
	}
	rep := &CodecsReport{Config: cfg, Rows: cfg.Rows, Records: len(recs), ArrowBytes: ArrowBytes(recs), CVersions: cVersions(), LoadBefore: loadAverage()}
	bufs := recordBuffers(recs)
	rep.Buffers = len(bufs)
	logf("bench: %d rows, %d records, %d buffers, %.1f MB of Arrow buffers, built in %v",
		cfg.Rows, len(recs), len(bufs), float64(rep.ArrowBytes)/1e6, time.Since(start).Round(time.Millisecond))

	ipcCells, alone := buildCells(cfg, recs, bufs)
	if err := warmUp(ctx, ipcCells, alone, recs, logf); err != nil {
		return nil, err
	}
	cCells, note := buildCCells(alone, bufs)
	rep.CNote = note
	defer func() {
		for _, c := range cCells {
			c.dec.Close()
		}
	}()
	for run := range cfg.Runs {
		logf("bench: run %d of %d", run+1, cfg.Runs)
		if err := measureRun(ctx, ipcCells, alone, cCells); err != nil {
			return nil, err
		}
	}
	rep.LoadAfter = loadAverage()
	rep.fill(ipcCells, alone, cCells)
	return rep, rep.Write(out)
}
