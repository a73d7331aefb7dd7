package bench

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/quiverdb/quiver/datagen/tpch"
	engine "github.com/quiverdb/quiver/query"
	"github.com/quiverdb/quiver/spill"
)

// TPCHConfig configures RunTPCH. Zero fields take the defaults given.
type TPCHConfig struct {
	// SF is the TPC-H scale factor; default 1 (issue 12's measurement).
	// Below 1 a multiple of 0.001, above a whole number (package tpch).
	SF float64
	// Runs is how many times each query is measured in each engine,
	// interleaved; the report gives medians. Default 3.
	Runs int
	// Goroutines is the GOMAXPROCS of the run, the cache's and the
	// engine's scan concurrency and DuckDB's threads; default 2.
	Goroutines int
	// Queries are the query numbers to run, 1 to 22; default all.
	Queries []int
	// QueryMemory, when positive, is quiver's per-query memory limit
	// (query.Options.MemoryLimit), with spilling on: sorts, aggregates
	// and hash joins past it spill to files under SpillDir (default the
	// system temp dir), and the report shows what each query spilled.
	// DuckDB runs without a limit. 0: the engine's default, no spilling.
	QueryMemory int64
	SpillDir    string
	// Progress, when set, gets a line per phase.
	Progress io.Writer
}

func (c TPCHConfig) withDefaults() TPCHConfig {
	if c.SF == 0 {
		c.SF = 1
	}
	if c.Runs == 0 {
		c.Runs = 3
	}
	if c.Goroutines == 0 {
		c.Goroutines = 2
	}
	if len(c.Queries) == 0 {
		for n := 1; n <= tpch.NumQueries; n++ {
			c.Queries = append(c.Queries, n)
		}
	}
	return c
}

// Validate reports a negative field or a query number that is not a
// TPC-H query.
func (c TPCHConfig) Validate() error {
	if c.SF < 0 || math.IsNaN(c.SF) || c.Runs < 0 || c.Goroutines < 0 || c.QueryMemory < 0 {
		return fmt.Errorf("bench: negative SF %v, Runs %d, Goroutines %d or QueryMemory %d", c.SF, c.Runs, c.Goroutines, c.QueryMemory)
	}
	for _, n := range c.Queries {
		if n < 1 || n > tpch.NumQueries {
			return fmt.Errorf("bench: no TPC-H query %d (the queries are 1 to %d)", n, tpch.NumQueries)
		}
	}
	return nil
}

// RunTPCH measures the TPC-H queries (package tpch: the spec's text with
// its validation parameters) in quiver's engine over the eight tables at
// cfg.SF held in the cache (codec auto) and, in the same run, in DuckDB
// over the same rows in its own memory (built with -tags duckdb;
// otherwise the report says the peer is missing). A warm-up pass runs
// each query once in each engine: a query quiver refuses is reported as
// refused and not timed in quiver, and where both answer, their answers
// must agree (rows and first value), and at SF 1 match TPC-H's reference
// answers (tpch_answers.go). Then each query runs cfg.Runs times
// in each engine, back to back, and the report gives medians, ratios and
// their geometric mean over the queries both engines answered. Answers
// that differ are reported, and RunTPCH returns an error after writing
// the report.
func RunTPCH(ctx context.Context, cfg TPCHConfig, out io.Writer) (*TPCHReport, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logf := progressf(cfg.Progress)
	rep := &TPCHReport{Config: cfg, LoadBefore: loadAverage()}
	err := withProcs(cfg.Goroutines, func() error {
		c, infos, err := loadTPCH(ctx, cfg.SF, cfg.Goroutines, logf, tpch.Tables...)
		if err != nil {
			return err
		}
		for _, info := range infos {
			rep.Rows += info.Rows
			rep.Footprint += info.Compressed
		}
		opts := engine.Options{ScanConcurrency: cfg.Goroutines}
		if cfg.QueryMemory > 0 {
			m, err := spill.NewManager(spill.Config{Dir: cfg.SpillDir})
			if err != nil {
				return err
			}
			defer m.Close()
			opts.MemoryLimit, opts.Spill = cfg.QueryMemory, m
		}
		e := engine.New(c, opts)

		duck, peer, note := openDuckPeer(ctx, cfg.SF, cfg.Goroutines, logf, tpch.Tables...)
		if duck != nil {
			defer duck.close()
		}
		rep.Peer, rep.PeerNote = peer, note
		rep.Queries, err = measureTPCH(ctx, cfg, e, duck, logf)
		return err
	})
	if err != nil {
		return nil, err
	}
	rep.LoadAfter = loadAverage()
	rep.Targets = rep.targets()
	if err := rep.Write(out); err != nil {
		return nil, err
	}
	for _, q := range rep.Queries {
		if q.Differ != "" {
			return rep, fmt.Errorf("bench: Q%d: %s", q.N, q.Differ)
		}
	}
	return rep, nil
}

// measureTPCH warms up and checks every query, then times cfg.Runs
// interleaved runs of each in the engines that answer it.
func measureTPCH(ctx context.Context, cfg TPCHConfig, e *engine.Engine, duck duckPeer, logf func(string, ...any)) ([]TPCHResult, error) {
	res := make([]TPCHResult, len(cfg.Queries))
	for i, n := range cfg.Queries {
		r := &res[i]
		r.N, r.SQL = n, tpch.Query(n)
		var q QueryResult // runQuiver records pruning here; unused
		got, err := runQuiver(ctx, e, r.SQL, &q)
		if err != nil {
			r.Refused = err.Error()
		}
		r.Spill, r.PeakMemory = q.Spill, q.PeakMemory
		if duck != nil {
			want, err := duck.run(ctx, r.SQL)
			if err != nil {
				return nil, fmt.Errorf("bench: DuckDB: Q%d: %w", n, err)
			}
			r.Answer = want
			if r.Refused == "" && !sameDigest(got, want) {
				r.Differ = fmt.Sprintf("quiver answered %q, DuckDB %q", got, want)
			}
		} else {
			r.Answer = got // "" when quiver refused it
		}
		if ref, ok := tpchAnswersSF1[n]; ok && cfg.SF == 1 && r.Differ == "" {
			switch {
			case r.Refused == "" && !sameDigest(got, ref):
				r.Differ = fmt.Sprintf("quiver answered %q, TPC-H's reference answer is %q", got, ref)
			case duck != nil && !sameDigest(r.Answer, ref):
				r.Differ = fmt.Sprintf("DuckDB answered %q, TPC-H's reference answer is %q", r.Answer, ref)
			}
		}
		logf("bench: Q%d checked", n)
	}
	for run := range cfg.Runs {
		logf("bench: run %d of %d", run+1, cfg.Runs)
		for i := range res {
			r := &res[i]
			if r.Refused == "" {
				var q QueryResult
				d, err := timed(func() error { _, err := runQuiver(ctx, e, r.SQL, &q); return err })
				if err != nil {
					return nil, fmt.Errorf("bench: quiver: Q%d: %w", r.N, err)
				}
				r.Quiver = append(r.Quiver, d)
			}
			if duck == nil {
				continue
			}
			d, err := timed(func() error { _, err := duck.run(ctx, r.SQL); return err })
			if err != nil {
				return nil, fmt.Errorf("bench: DuckDB: Q%d: %w", r.N, err)
			}
			r.DuckDB = append(r.DuckDB, d)
		}
	}
	return res, nil
}
