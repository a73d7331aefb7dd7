package bench

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/quiverdb/quiver/cache"
)

// The cells RunCache measures on one relation, and the order it measures
// them in.

// cellKind tells the cache's cells from the peers'.
type cellKind uint8

const (
	cellCache   cellKind = iota
	cellMemory           // the records, uncompressed
	cellArrowGo          // an arrow-go IPC stream
)

// cacheCell is one holder of a relation with every run's timings.
type cacheCell struct {
	name      string // "auto", "zstd:1", "uncompressed", "arrow-go lz4"
	kind      cellKind
	h         holder
	footprint int64
	choices   string // for the cache: what its columns use

	materialize []time.Duration   // every run, in order
	reads       [][]time.Duration // per query, every run
	decoded     []int             // per query: batches decoded…
	batches     []int             // …of the relation's
}

// buildCacheCells returns the cells in measuring order. The uncompressed
// records come first and auto right after them, so that the cells a
// target compares run back to back in every run (auto's reads against
// the records'; auto's own reads against each other), and load from other
// processes, which comes and goes over seconds, hits both alike.
func buildCacheCells(cfg CacheConfig, rel *relation, c *cache.Cache) []*cacheCell {
	cells := []*cacheCell{{name: "uncompressed", kind: cellMemory, h: &memHolder{rel: rel}}}
	rank := func(s cache.CodecSetting) int {
		if s.Auto {
			return 0
		}
		return 1
	}
	codecs := slices.SortedStableFunc(slices.Values(cfg.Codecs), func(a, b cache.CodecSetting) int { return rank(a) - rank(b) })
	for _, s := range codecs {
		cells = append(cells, &cacheCell{name: s.String(), kind: cellCache, h: newCacheHolder(rel, c, s, cfg.Goroutines)})
	}
	buf := new(bytes.Buffer) // one stream at a time: cells run one at a time
	for _, codec := range []string{"lz4", "zstd"} {
		cells = append(cells, &cacheCell{name: "arrow-go " + codec, kind: cellArrowGo, h: newArrowGoHolder(rel, codec, cfg.Goroutines, cfg.ReadAlloc, buf)})
	}
	for _, cl := range cells {
		cl.reads = make([][]time.Duration, len(rel.queries))
		cl.decoded = make([]int, len(rel.queries))
		cl.batches = make([]int, len(rel.queries))
	}
	return cells
}

// warmUpCache runs every cell once, untimed, and returns the answers of
// the uncompressed records, which every later read must equal. It also
// keeps what auto chose.
func warmUpCache(ctx context.Context, rel *relation, cells []*cacheCell, logf func(string, ...any)) ([]answer, error) {
	var want []answer
	for _, cl := range cells {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fp, err := cl.h.materialize(ctx)
		if err != nil {
			return nil, fmt.Errorf("bench: %s %s: %w", rel.spec.Name(), cl.name, err)
		}
		if h, ok := cl.h.(*cacheHolder); ok {
			cl.choices = h.choices()
		}
		for i := range rel.queries {
			q := &rel.queries[i]
			a, _, _, err := cl.h.read(ctx, q)
			if err != nil {
				return nil, fmt.Errorf("bench: %s %s: %w", rel.spec.Name(), cl.name, err)
			}
			if cl.kind == cellMemory {
				want = append(want, a)
			} else if err := checkAnswer(rel, cl, q, a, want[i]); err != nil {
				return nil, err
			}
		}
		cl.h.drop()
		logf("bench: warm-up %s %s: footprint %s bytes, answers checked", rel.spec.Name(), cl.name, commas(fp))
	}
	return want, nil
}

// measureCacheRun times every cell once: materialize, then each query,
// then drop, so one copy of the relation is held at a time.
func measureCacheRun(ctx context.Context, rel *relation, cells []*cacheCell, want []answer) error {
	for _, cl := range cells {
		if err := ctx.Err(); err != nil {
			return err
		}
		d, err := timed(func() error {
			var err error
			cl.footprint, err = cl.h.materialize(ctx)
			return err
		})
		if err != nil {
			return fmt.Errorf("bench: %s %s: %w", rel.spec.Name(), cl.name, err)
		}
		cl.materialize = append(cl.materialize, d)
		for i := range rel.queries {
			q := &rel.queries[i]
			var a answer
			d, err := timed(func() error {
				var err error
				a, cl.decoded[i], cl.batches[i], err = cl.h.read(ctx, q)
				return err
			})
			if err != nil {
				return fmt.Errorf("bench: %s %s: %w", rel.spec.Name(), cl.name, err)
			}
			if err := checkAnswer(rel, cl, q, a, want[i]); err != nil {
				return err
			}
			cl.reads[i] = append(cl.reads[i], d)
		}
		cl.h.drop()
	}
	return nil
}

// checkAnswer makes a wrong answer an error rather than a number.
func checkAnswer(rel *relation, cl *cacheCell, q *query, got, want answer) error {
	if got.equal(want) {
		return nil
	}
	return fmt.Errorf("bench: %s %s %s: wrong answer: %v; the uncompressed records give %v", rel.spec.Name(), cl.name, q.label, got, want)
}
