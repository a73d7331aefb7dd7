package bench

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// CacheConfig configures RunCache. Zero fields take the defaults given.
type CacheConfig struct {
	// Rows of the Comet relation; default datagen.DefaultCometRows. The wide
	// relations derive theirs from it unless they name their own (see
	// RelationSpec).
	Rows int
	// BatchRows per record of every relation; default datagen.DefaultCometBatch.
	BatchRows int
	// Runs is how many times each cell is measured, interleaved; the
	// report gives medians. Default 5.
	Runs int
	// Goroutines is the concurrency of Put and Scan and the GOMAXPROCS of
	// the whole measurement (see withProcs); default 1.
	Goroutines int
	// Codecs are the cache settings measured; default none, lz4, zstd:1,
	// zstd:3 and auto.
	Codecs []cache.CodecSetting
	// Relations measured, one after the other; default DefaultRelations.
	Relations []RelationSpec
	// Alloc allocates the records and arrow-go's streams; default a fresh
	// memory.GoAllocator.
	Alloc memory.Allocator
	// ReadAlloc allocates the batches reads decode, the cache's and
	// arrow-go's alike; default cache.RecyclingAllocator(), the cache's
	// own default, which reuses the buffers of released batches.
	ReadAlloc memory.Allocator
	// Progress, when set, gets a line per phase.
	Progress io.Writer
}

func (c CacheConfig) withDefaults() CacheConfig {
	if c.Rows == 0 {
		c.Rows = datagen.DefaultCometRows
	}
	if c.BatchRows == 0 {
		c.BatchRows = datagen.DefaultCometBatch
	}
	if c.Runs == 0 {
		c.Runs = 5
	}
	if c.Goroutines == 0 {
		c.Goroutines = 1
	}
	if c.Codecs == nil {
		c.Codecs = []cache.CodecSetting{
			cache.Fixed(codec.SettingNone), cache.Fixed(codec.SettingLZ4),
			cache.Fixed(codec.Setting{Kind: codec.Zstd, Level: 1}), cache.Fixed(codec.Setting{Kind: codec.Zstd, Level: 3}),
			cache.Auto,
		}
	}
	if c.Relations == nil {
		c.Relations = DefaultRelations
	}
	if c.Alloc == nil {
		c.Alloc = memory.NewGoAllocator()
	}
	if c.ReadAlloc == nil {
		c.ReadAlloc = cache.RecyclingAllocator()
	}
	return c
}

// Validate reports a negative or otherwise unusable field.
func (c CacheConfig) Validate() error {
	if c.Rows < 0 || c.BatchRows < 0 || c.Runs < 0 || c.Goroutines < 0 {
		return fmt.Errorf("bench: negative Rows %d, BatchRows %d, Runs %d or Goroutines %d", c.Rows, c.BatchRows, c.Runs, c.Goroutines)
	}
	seen := map[string]bool{}
	for _, s := range c.Codecs {
		if !s.Auto {
			if err := s.Setting.Validate(); err != nil {
				return err
			}
		}
		if seen[s.String()] {
			return fmt.Errorf("bench: codec %s listed twice", s)
		}
		seen[s.String()] = true
	}
	for _, r := range c.Relations {
		if r.Ints < 0 || r.Rows < 0 {
			return fmt.Errorf("bench: bad relation %+v", r)
		}
	}
	return nil
}

// RunCache reproduces Comet's cache benchmark: for each relation and
// each codec setting it times materializing the relation in a
// cache.Cache (Put), records its footprint, and times reads of 0, 1, 3
// and 6 columns and a selective filter (on the wide relations: 1 column
// and all), every read summing what it reads (sum.go). The same records
// kept uncompressed and arrow-go IPC streams are measured in the same run
// as peers, and every answer is checked against the uncompressed one.
// Each cell is measured cfg.Runs times, interleaved, after a warm-up pass;
// the tables and the targets go to out.
func RunCache(ctx context.Context, cfg CacheConfig, out io.Writer) (*CacheReport, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logf := progressf(cfg.Progress)
	var fixed []codec.Setting
	for _, s := range cfg.Codecs {
		if !s.Auto {
			fixed = append(fixed, s.Setting)
		}
	}
	// Auto picks among lz4 and zstd levels; warm those too.
	warmCodecs(append(fixed, codec.SettingLZ4, codec.Setting{Kind: codec.Zstd, Level: 1}))
	rep := &CacheReport{Config: cfg, LoadBefore: loadAverage()}
	for _, spec := range cfg.Relations {
		res, err := measureRelation(ctx, cfg, spec.withRows(cfg.Rows), logf)
		if err != nil {
			return nil, err
		}
		rep.Relations = append(rep.Relations, res)
	}
	rep.LoadAfter = loadAverage()
	rep.Targets = rep.targets()
	return rep, rep.Write(out)
}

// measureRelation builds one relation, measures every cell on it and
// releases it: relations are measured one after the other, so memory
// holds one relation's records and one copy of it at a time.
func measureRelation(ctx context.Context, cfg CacheConfig, spec RelationSpec, logf func(string, ...any)) (RelationResult, error) {
	start := time.Now()
	rel := buildRelation(cfg.Alloc, spec, cfg.BatchRows)
	defer release(rel.recs)
	if len(rel.recs) == 0 {
		return RelationResult{}, fmt.Errorf("bench: relation %s has no rows", spec)
	}
	logf("bench: %s: %s rows × %d columns in %d records, %.1f MB of Arrow buffers, built in %v",
		spec.Name(), commas(int64(spec.Rows)), rel.columns(), len(rel.recs), float64(rel.bytes)/1e6, time.Since(start).Round(time.Millisecond))

	// The budget is not what is measured: room for every setting's copy.
	c, err := cache.New(cache.Options{Budget: 1 << 62, Concurrency: cfg.Goroutines, Alloc: cfg.ReadAlloc})
	if err != nil {
		return RelationResult{}, err
	}
	cells := buildCacheCells(cfg, rel, c)
	defer func() {
		for _, cl := range cells {
			cl.h.drop()
		}
	}()
	err = withProcs(cfg.Goroutines, func() error {
		want, err := warmUpCache(ctx, rel, cells, logf)
		if err != nil {
			return err
		}
		for run := range cfg.Runs {
			logf("bench: %s: run %d of %d", spec.Name(), run+1, cfg.Runs)
			if err := measureCacheRun(ctx, rel, cells, want); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return RelationResult{}, err
	}
	return relationResult(rel, cells, cfg.Codecs), nil
}
