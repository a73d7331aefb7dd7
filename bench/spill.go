package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// SpillConfig configures RunSpill.
type SpillConfig struct {
	Batches    int // per dataset; 0 means 50, as DataFusion's spill_io
	BatchRows  int // 0 means 8192
	Runs       int // interleaved runs per cell; 0 means 5
	Datasets   []string
	Codecs     []codec.Setting // quiver's; nil means none, lz4, zstd:1, zstd:3
	Dir        string          // where the files go; "" means os.TempDir()
	Goroutines int             // GOMAXPROCS during the cells; 0 means 1
	Progress   io.Writer
}

func (c SpillConfig) withDefaults() SpillConfig {
	if c.Batches == 0 {
		c.Batches = 50
	}
	if c.BatchRows == 0 {
		c.BatchRows = 8192
	}
	if c.Runs == 0 {
		c.Runs = 5
	}
	if c.Datasets == nil {
		c.Datasets = SpillDatasets
	}
	if c.Codecs == nil {
		c.Codecs = []codec.Setting{codec.SettingNone, codec.SettingLZ4, {Kind: codec.Zstd, Level: 1}, {Kind: codec.Zstd, Level: 3}}
	}
	if c.Goroutines == 0 {
		c.Goroutines = 1
	}
	return c
}

// Validate reports a setting RunSpill cannot use.
func (c SpillConfig) Validate() error {
	if c.Batches < 1 || c.BatchRows < 1 || c.Runs < 1 || c.Goroutines < 1 {
		return fmt.Errorf("bench: spill: batches, rows, runs and goroutines must be positive")
	}
	for _, s := range c.Codecs {
		if err := s.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// spillCell is one implementation × codec writing a dataset to a file and
// reading it back.
type spillCell struct {
	impl  string // "quiver" or "arrow-go"
	codec string
	bytes int64
	write []time.Duration
	read  []time.Duration
	// run writes recs, then reads them back calling check (nil when
	// timing) on each record, and returns the two times.
	run func(recs []arrow.RecordBatch, check func(int, arrow.RecordBatch) error) (w, r time.Duration, bytes int64, err error)
}

// RunSpill measures spill files of each dataset under each codec against
// arrow-go's IPC stream writer and reader on the same batches and disk,
// prints the report to out and returns it.
func RunSpill(ctx context.Context, cfg SpillConfig, out io.Writer) (*SpillReport, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(cfg.Dir, "quiver-bench-spill-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	rep := &SpillReport{Config: cfg, LoadBefore: loadAverage()}
	err = withProcs(cfg.Goroutines, func() error {
		for _, name := range cfg.Datasets {
			res, err := measureSpillDataset(ctx, cfg, name, dir)
			if err != nil {
				return err
			}
			rep.Datasets = append(rep.Datasets, res)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	rep.LoadAfter = loadAverage()
	rep.Targets = rep.targets()
	return rep, rep.Write(out)
}

func measureSpillDataset(ctx context.Context, cfg SpillConfig, name, dir string) (SpillDatasetResult, error) {
	mem := memory.DefaultAllocator
	recs, err := SpillDataset(mem, name, cfg.Batches, cfg.BatchRows)
	if err != nil {
		return SpillDatasetResult{}, err
	}
	defer release(recs)
	res := SpillDatasetResult{Name: name, Schema: recs[0].Schema().String(), ArrowBytes: ArrowBytes(recs)}
	for _, r := range recs {
		res.Rows += r.NumRows()
	}
	var cells []*spillCell
	for _, s := range cfg.Codecs {
		m, err := spill.NewManager(spill.Config{Dir: dir, Codec: s})
		if err != nil {
			return res, err
		}
		defer m.Close()
		cells = append(cells, quiverSpillCell(m, s))
	}
	for _, c := range arrowGoCodecs {
		cells = append(cells, arrowGoSpillCell(dir, name, c, mem))
	}
	// Warm-up: every cell writes and reads once, checking each record.
	for _, c := range cells {
		check := func(i int, got arrow.RecordBatch) error {
			if i >= len(recs) || !array.RecordEqual(got, recs[i]) {
				return fmt.Errorf("bench: spill %s %s %s: record %d read back differs", name, c.impl, c.codec, i)
			}
			return nil
		}
		if _, _, _, err := c.run(recs, check); err != nil {
			return res, err
		}
	}
	for run := range cfg.Runs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		for _, c := range cells {
			w, r, n, err := c.run(recs, nil)
			if err != nil {
				return res, err
			}
			c.write, c.read, c.bytes = append(c.write, w), append(c.read, r), n
		}
		if cfg.Progress != nil {
			fmt.Fprintf(cfg.Progress, "bench: spill %s: run %d of %d\n", name, run+1, cfg.Runs)
		}
	}
	for _, c := range cells {
		res.Cells = append(res.Cells, SpillResult{Impl: c.impl, Codec: c.codec, Bytes: c.bytes, Write: c.write, Read: c.read})
	}
	return res, nil
}

// quiverSpillCell writes through a spill.Manager and reads with its
// Reader.
func quiverSpillCell(m *spill.Manager, s codec.Setting) *spillCell {
	c := &spillCell{impl: "quiver", codec: s.String()}
	c.run = func(recs []arrow.RecordBatch, check func(int, arrow.RecordBatch) error) (time.Duration, time.Duration, int64, error) {
		var f *spill.File
		wt, err := timed(func() error {
			w, err := m.NewFile("bench")
			if err != nil {
				return err
			}
			for _, r := range recs {
				if err := w.Write(r); err != nil {
					return err
				}
			}
			f, err = w.Finish()
			return err
		})
		if err != nil {
			return 0, 0, 0, err
		}
		defer f.Remove()
		rt, err := timed(func() error {
			r, err := f.Open(memory.DefaultAllocator)
			if err != nil {
				return err
			}
			defer r.Release()
			for i := 0; r.Next(); i++ {
				if check != nil {
					if err := check(i, r.RecordBatch()); err != nil {
						return err
					}
				}
			}
			return r.Err()
		})
		return wt, rt, f.Bytes(), err
	}
	return c
}

// arrowGoSpillCell writes an arrow-go IPC stream to a file through a 1 MiB
// bufio.Writer (without it arrow-go makes a write call per buffer) and
// reads it back through a 1 MiB bufio.Reader: the best plain arrow-go
// does with the same disk.
func arrowGoSpillCell(dir, dataset, codecName string, mem memory.Allocator) *spillCell {
	c := &spillCell{impl: "arrow-go", codec: codecName}
	path := filepath.Join(dir, fmt.Sprintf("arrow-go-%s-%s.arrows", dataset, codecName))
	c.run = func(recs []arrow.RecordBatch, check func(int, arrow.RecordBatch) error) (time.Duration, time.Duration, int64, error) {
		a := &arrowGoIPC{recs: recs, codec: codecName, mem: mem}
		wt, err := timed(func() error {
			f, err := os.Create(path)
			if err != nil {
				return err
			}
			bw := bufio.NewWriterSize(f, 1<<20)
			w := ipc.NewWriter(bw, a.options()...)
			for i, r := range recs {
				if err := w.Write(r); err != nil {
					w.Close()
					f.Close()
					return fmt.Errorf("arrow-go write record %d: %w", i, err)
				}
			}
			return errors.Join(w.Close(), bw.Flush(), f.Close())
		})
		if err != nil {
			return 0, 0, 0, err
		}
		defer os.Remove(path)
		st, err := os.Stat(path)
		if err != nil {
			return 0, 0, 0, err
		}
		rt, err := timed(func() error {
			f, err := os.Open(path)
			if err != nil {
				return err
			}
			defer f.Close()
			r, err := ipc.NewReader(bufio.NewReaderSize(f, 1<<20), ipc.WithAllocator(mem))
			if err != nil {
				return err
			}
			defer r.Release()
			for i := 0; r.Next(); i++ {
				if check != nil {
					if err := check(i, r.RecordBatch()); err != nil {
						return err
					}
				}
			}
			return r.Err()
		})
		return wt, rt, st.Size(), err
	}
	return c
}
