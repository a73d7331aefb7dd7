package bench

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/quiverdb/quiver/datagen/tpch"
	engine "github.com/quiverdb/quiver/query"
)

// QueryConfig configures RunQuery. Zero fields take the defaults given.
type QueryConfig struct {
	// SF is the TPC-H scale factor of lineitem; default 0.1 (issue 5's
	// measurement is SF 1). Below 1 a multiple of 0.001, above a whole
	// number (package tpch).
	SF float64
	// Runs is how many times each query is measured in each engine,
	// interleaved; the report gives medians. Default 5.
	Runs int
	// Goroutines is the GOMAXPROCS of the run, the cache's and the
	// engine's scan concurrency and DuckDB's threads; default 2.
	Goroutines int
	// Progress, when set, gets a line per phase.
	Progress io.Writer
}

func (c QueryConfig) withDefaults() QueryConfig {
	if c.SF == 0 {
		c.SF = 0.1
	}
	if c.Runs == 0 {
		c.Runs = 5
	}
	if c.Goroutines == 0 {
		c.Goroutines = 2
	}
	return c
}

// Validate reports a negative or otherwise unusable field.
func (c QueryConfig) Validate() error {
	if c.SF < 0 || math.IsNaN(c.SF) || c.Runs < 0 || c.Goroutines < 0 {
		return fmt.Errorf("bench: negative SF %v, Runs %d or Goroutines %d", c.SF, c.Runs, c.Goroutines)
	}
	return nil
}

// benchQuery is one measured query; sql may depend on the scale factor.
type benchQuery struct {
	label, sql string
}

// queries are issue 5's: Q1, Q6, counts over a range pruning can use and
// over ranges it cannot, a full-table count, and a top-100 by string.
// lineitem comes in order key order, so an l_orderkey range is clustered
// and pruning skips the batches outside it; l_shipdate is not sorted,
// so a week of shipdates touches every batch and pruning skips nothing.
func queries(sf float64) []benchQuery {
	// Order keys run to about 6,000,000 × SF (8 of every 32 are used);
	// take 1% of them in the middle.
	maxKey := int64(6_000_000 * sf)
	lo, hi := maxKey/2, maxKey/2+maxKey/100
	return []benchQuery{
		{"Q1", q1SQL},
		{"Q6", q6SQL},
		{"count(*)", "SELECT count(*) FROM lineitem"},
		{"count orderkey range", fmt.Sprintf("SELECT count(*) FROM lineitem WHERE l_orderkey BETWEEN %d AND %d", lo, hi)},
		// + 0e0 makes the sum a float, which query's arithmetic rule
		// (rule_arith.go) never moves off a column: the engine computes
		// it on every row and nothing prunes.
		{"count orderkey range, unpruned", fmt.Sprintf("SELECT count(*) FROM lineitem WHERE l_orderkey + 0e0 BETWEEN %d AND %d", lo, hi)},
		// + 0, which the rule moves: the same plan as the bare range.
		{"count orderkey range, written + 0", fmt.Sprintf("SELECT count(*) FROM lineitem WHERE l_orderkey + 0 BETWEEN %d AND %d", lo, hi)},
		// A HAVING on the GROUP BY key, which query's rule HAVING into
		// WHERE (rule_having.go) makes a range on the column, pruned; and
		// the plan before the rule, every row grouped and the groups
		// filtered after: HAVING max(l_orderkey), which is the key.
		{"group orderkey, HAVING on the key", fmt.Sprintf(havingSQL, "l_orderkey", lo, hi)},
		{"group orderkey, HAVING on max(key)", fmt.Sprintf(havingSQL, "max(l_orderkey)", lo, hi)},
		{"count shipdate week", "SELECT count(*) FROM lineitem WHERE l_shipdate BETWEEN DATE '1995-03-01' AND DATE '1995-03-07'"},
		{"top 100 comments", "SELECT l_comment, l_partkey FROM lineitem ORDER BY l_comment LIMIT 100"},
		// Issue 15's window query: a row number and a running sum per
		// supplier in ship date order (one sort serves both), summed so
		// the answer is one row both engines agree on.
		{windowLabel, windowSQL},
		// Issue 15's timestamp query: a filter on a timestamp (lineitem
		// has dates only: cast) and a date_trunc GROUP BY; and its
		// string-function filter. Each answers one row of numbers, so
		// both engines' text agrees.
		{timestampLabel, timestampSQL},
		{stringsLabel, stringsSQL},
		// Q1's aggregates by ROLLUP of its keys: three grouping sets,
		// which quiver plans as three GROUP BYs over lineitem
		// (build_groupingsets.go) where DuckDB groups once; summed to one
		// row.
		{"Q1's sums by ROLLUP of its keys", rollupSQL},
	}
}

const rollupSQL = `SELECT count(*), sum(q), sum(n) FROM (
  SELECT l_returnflag, l_linestatus, sum(l_quantity) AS q, count(*) AS n FROM lineitem
  WHERE l_shipdate <= DATE '1998-09-02' GROUP BY ROLLUP (l_returnflag, l_linestatus)) x`

// havingSQL groups lineitem by order key with a HAVING on %s between %d
// and %d, summed to one row both engines' text agrees on.
const havingSQL = `SELECT count(*), sum(q) FROM (
  SELECT l_orderkey, sum(l_quantity) AS q FROM lineitem
  GROUP BY l_orderkey HAVING %s BETWEEN %d AND %d) t`

// timestampLabel and stringsLabel name issue 15's other two queries,
// whose target is also at most 2× DuckDB.
const (
	timestampLabel = "timestamp filter, date_trunc group"
	stringsLabel   = "string functions filter"
)

const timestampSQL = `SELECT count(*), sum(q) FROM (
  SELECT date_trunc('month', ts) AS m, sum(l_quantity) AS q
  FROM (SELECT CAST(l_shipdate AS TIMESTAMP) AS ts, l_quantity FROM lineitem) t
  WHERE ts >= TIMESTAMP '1995-01-01 00:00:00' AND ts < TIMESTAMP '1996-07-01 00:00:00'
  GROUP BY date_trunc('month', ts)) x`

const stringsSQL = `SELECT count(*) FROM lineitem
WHERE lower(l_comment) LIKE '%carefully%' AND length(l_shipinstruct) > 11 AND upper(l_shipmode) <> 'MAIL'`

const q1SQL = `SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
  avg(l_quantity) AS avg_qty, avg(l_extendedprice) AS avg_price, avg(l_discount) AS avg_disc, count(*) AS count_order
FROM lineitem WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus`

// windowLabel names the window query, whose target is issue 15's (at
// most 2× DuckDB, as Q1's and Q6's).
const windowLabel = "window row_number, running sum"

const windowSQL = `SELECT max(rn), sum(running) FROM (
  SELECT row_number() OVER (PARTITION BY l_suppkey ORDER BY l_shipdate, l_orderkey, l_linenumber) AS rn,
    sum(l_extendedprice) OVER (PARTITION BY l_suppkey ORDER BY l_shipdate, l_orderkey, l_linenumber) AS running FROM lineitem) x`

const q6SQL = `SELECT sum(l_extendedprice * l_discount) AS revenue FROM lineitem
WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1994-01-01' + INTERVAL '1' YEAR
  AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND l_quantity < 24`

// RunQuery measures quiver's engine on TPC-H lineitem at cfg.SF held in
// the cache (codec auto) and, in the same run, DuckDB on the same rows
// loaded into its own memory (built with -tags duckdb; otherwise the
// report says the peer is missing). After a warm-up pass that checks the
// engines agree on every answer's rows, each query runs cfg.Runs times in
// each engine, back to back, and the report gives medians, per-run
// ratios and the targets.
func RunQuery(ctx context.Context, cfg QueryConfig, out io.Writer) (*QueryReport, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logf := progressf(cfg.Progress)
	rep := &QueryReport{Config: cfg, LoadBefore: loadAverage()}
	err := withProcs(cfg.Goroutines, func() error {
		c, info, err := loadLineitem(ctx, cfg.SF, cfg.Goroutines, logf)
		if err != nil {
			return err
		}
		rep.Rows, rep.Batches, rep.Footprint = info.Rows, info.Batches, info.Compressed
		e := engine.New(c, engine.Options{ScanConcurrency: cfg.Goroutines})

		duck, peer, note := openDuckPeer(ctx, cfg.SF, cfg.Goroutines, logf, tpch.LineitemTable)
		if duck != nil {
			defer duck.close()
		}
		rep.Peer, rep.PeerNote = peer, note
		rep.Queries, err = measureQueries(ctx, cfg, e, duck, logf)
		return err
	})
	if err != nil {
		return nil, err
	}
	rep.LoadAfter = loadAverage()
	rep.Targets = rep.targets()
	return rep, rep.Write(out)
}

// measureQueries warms up and checks every query, then times cfg.Runs
// interleaved runs of each.
func measureQueries(ctx context.Context, cfg QueryConfig, e *engine.Engine, duck duckPeer, logf func(string, ...any)) ([]QueryResult, error) {
	qs := queries(cfg.SF)
	res := make([]QueryResult, len(qs))
	for i, q := range qs {
		res[i] = QueryResult{Label: q.label, SQL: q.sql}
		got, err := runQuiver(ctx, e, q.sql, &res[i])
		if err != nil {
			return nil, fmt.Errorf("bench: quiver: %s: %w", q.label, err)
		}
		if duck != nil {
			want, err := duck.run(ctx, q.sql)
			if err != nil {
				return nil, fmt.Errorf("bench: DuckDB: %s: %w", q.label, err)
			}
			if got != want {
				return nil, fmt.Errorf("bench: %s: quiver answered %q, DuckDB %q", q.label, got, want)
			}
		}
		res[i].Answer = got
	}
	for run := range cfg.Runs {
		logf("bench: run %d of %d", run+1, cfg.Runs)
		for i, q := range qs {
			d, err := timed(func() error { _, err := runQuiver(ctx, e, q.sql, &res[i]); return err })
			if err != nil {
				return nil, err
			}
			res[i].Quiver = append(res[i].Quiver, d)
			if duck == nil {
				continue
			}
			d, err = timed(func() error { _, err := duck.run(ctx, q.sql); return err })
			if err != nil {
				return nil, err
			}
			res[i].DuckDB = append(res[i].DuckDB, d)
		}
	}
	return res, nil
}

// runQuiver runs sql to the end and returns its answer's digest (see
// digest); it records the scan's pruning in r.
func runQuiver(ctx context.Context, e *engine.Engine, sql string, r *QueryResult) (string, error) {
	res, err := e.Query(ctx, sql)
	if err != nil {
		return "", err
	}
	defer res.Release()
	var d digest
	for res.Next() {
		rec := res.RecordBatch()
		d.rows += rec.NumRows()
		if rec.NumRows() > 0 && rec.NumCols() > 0 && d.first == "" {
			d.first = firstValue(rec.Column(0))
		}
	}
	if err := res.Err(); err != nil {
		return "", err
	}
	st := res.Stats()
	r.Spill, r.PeakMemory = st.Spill, st.PeakMemory
	m := st.Scan
	// Skipped counts what pruning proved empty up front and what the scan
	// skipped while running (a top-k's threshold).
	r.Decoded, r.Skipped, r.Batches = m.Decoded, m.Skipped+m.SkippedLate, m.Batches
	return d.String(), nil
}
