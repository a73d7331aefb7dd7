package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/datagen/tpch"
	engine "github.com/quiverdb/quiver/query"
	"github.com/quiverdb/quiver/spill"
)

// Parts (b) and (c) of quiver bench shuffle (issue 16): the engine's
// exchanges at a TPC-H scale, on 1 and 2 workers, in memory and within a
// memory limit that sends them to disk (a spilling GROUP BY, a grace hash
// join whose spill is a shuffle), and a join whose build side has one key
// holding 30% of its rows, with and without the grace join's skew split.

// ShuffleEngineConfig configures RunShuffleEngine. Zero fields take the
// defaults given.
type ShuffleEngineConfig struct {
	// SF scales everything: TPC-H's lineitem and orders, the GROUP BY's
	// 10 million groups (× SF) and the skewed join's 2 million build and
	// 4 million probe rows (× SF). Default 1.
	SF float64
	// Memory is the limit that sends the GROUP BY and the joins to disk;
	// default 32 MiB × SF (at least 1 MiB).
	Memory int64
	// Workers are the worker counts of part (b); default 1 and 2. Part
	// (c) runs on the last.
	Workers []int
	// GroupBy, Join and Skew select the measurements; all false means
	// all three.
	GroupBy, Join, Skew bool
	// Runs per cell; the report gives medians. Default 3.
	Runs int
	// Dir is where spill files go; default the system temp dir.
	Dir      string
	Progress io.Writer
}

func (c ShuffleEngineConfig) withDefaults() ShuffleEngineConfig {
	if c.SF == 0 {
		c.SF = 1
	}
	if c.Memory == 0 {
		c.Memory = max(int64(32<<20*c.SF), 1<<20)
	}
	if len(c.Workers) == 0 {
		c.Workers = []int{1, 2}
	}
	if !c.GroupBy && !c.Join && !c.Skew {
		c.GroupBy, c.Join, c.Skew = true, true, true
	}
	if c.Runs == 0 {
		c.Runs = 3
	}
	if c.Dir == "" {
		c.Dir = os.TempDir()
	}
	return c
}

// Validate reports a negative or otherwise unusable field.
func (c ShuffleEngineConfig) Validate() error {
	if c.SF < 0 || math.IsNaN(c.SF) || c.Memory < 0 || c.Runs < 0 {
		return fmt.Errorf("bench: shuffle: negative SF %v, Memory %d or Runs %d", c.SF, c.Memory, c.Runs)
	}
	for _, w := range c.Workers {
		if w < 1 {
			return fmt.Errorf("bench: shuffle: %d workers", w)
		}
	}
	return nil
}

// ShuffleCell is one measured configuration of one query.
type ShuffleCell struct {
	Part, Query, Data string // part "b" or "c"; the query's label; the data set
	Workers           int
	Mode              string // "memory", "exchange", "broadcast", "partitioned", "limit", "limit, no split"
	opts              engine.Options
	sql               string
	Times             []time.Duration
	Rows              int64  // rows out
	Check             string // the answer's first row, equal across a query's cells
	Spill             engine.SpillStats
	Shuffle           string // the grace join's plan: kept, coalesced and split partitions, repartition levels, fallbacks
	Peak              int64
}

// ShuffleEngineReport is RunShuffleEngine's result.
type ShuffleEngineReport struct {
	Config       ShuffleEngineConfig
	Cells        []ShuffleCell
	LoadBefore   string
	LoadAfter    string
	GroupRows    int64
	BuildRows    int64
	ProbeRows    int64
	SkewedTarget string
}

// RunShuffleEngine measures parts (b) and (c): see ShuffleEngineConfig.
func RunShuffleEngine(ctx context.Context, cfg ShuffleEngineConfig, out io.Writer) (*ShuffleEngineReport, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logf := progressf(cfg.Progress)
	rep := &ShuffleEngineReport{Config: cfg, LoadBefore: loadAverage()}
	procs := 0
	for _, w := range cfg.Workers {
		procs = max(procs, w)
	}
	err := withProcs(procs, func() error {
		c, err := cache.New(cache.Options{Budget: 1 << 62, Concurrency: procs})
		if err != nil {
			return err
		}
		if cfg.Join {
			if c, _, err = loadTPCH(ctx, cfg.SF, procs, logf, tpch.LineitemTable, tpch.OrdersTable); err != nil {
				return err
			}
		}
		m, err := spill.NewManager(spill.Config{Dir: cfg.Dir, Codec: codec.SettingLZ4})
		if err != nil {
			return err
		}
		defer m.Close()
		if err := rep.load(ctx, c, cfg, logf); err != nil {
			return err
		}
		rep.Cells = shuffleCells(cfg, m)
		return measureShuffleCells(ctx, cfg, c, rep.Cells, logf)
	})
	if err != nil {
		return nil, err
	}
	rep.LoadAfter = loadAverage()
	if err := rep.Write(out); err != nil {
		return nil, err
	}
	return rep, rep.check()
}

// load puts the generated tables in the cache: grp (k, v), two rows
// of each of GroupRows keys, in a scrambled order; build_u (k unique),
// build_s (30% of rows k = 0, the rest unique), probe_u (k uniform over
// the build's keys) and probe_s (30% k = 0).
func (r *ShuffleEngineReport) load(ctx context.Context, c *cache.Cache, cfg ShuffleEngineConfig, logf func(string, ...any)) error {
	start := time.Now()
	if cfg.GroupBy {
		n := int64(10_000_000 * cfg.SF)
		r.GroupRows = n
		// i * a prime mod n visits every key once per n rows.
		if err := putPairs(ctx, c, "grp", 2*n, func(i int64) (int64, int64) { return i * 7_919 % n, i }); err != nil {
			return err
		}
	}
	if cfg.Skew {
		b, p := int64(2_000_000*cfg.SF), int64(4_000_000*cfg.SF)
		r.BuildRows, r.ProbeRows = b, p
		key := func(i int64) int64 { return i * 7_919 % b }
		hot := func(i int64) bool { return splitmix(uint64(i))%10 < 3 } // 30%
		if err := putPairs(ctx, c, "build_u", b, func(i int64) (int64, int64) { return key(i), i }); err != nil {
			return err
		}
		if err := putPairs(ctx, c, "build_s", b, func(i int64) (int64, int64) {
			if hot(i) {
				return 0, i
			}
			return key(i), i
		}); err != nil {
			return err
		}
		uniform := func(i int64) int64 { return int64(splitmix(uint64(i)+1<<40) % uint64(b)) }
		if err := putPairs(ctx, c, "probe_u", p, func(i int64) (int64, int64) { return uniform(i), i }); err != nil {
			return err
		}
		if err := putPairs(ctx, c, "probe_s", p, func(i int64) (int64, int64) {
			if hot(i + 1<<41) {
				return 0, i
			}
			return uniform(i), i
		}); err != nil {
			return err
		}
	}
	logf("bench: shuffle: generated tables in %v", time.Since(start).Round(time.Millisecond))
	return nil
}

// splitmix is SplitMix64's finalizer: a fixed, seedless pseudo-random
// function of i.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

var pairSchema = arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)

// putPairs puts a table of rows (k, v) = gen(i) in the cache, generated
// batch by batch as the cache encodes them.
func putPairs(ctx context.Context, c *cache.Cache, name string, rows int64, gen func(int64) (int64, int64)) error {
	r := &pairReader{rows: rows, gen: gen}
	r.refs.Store(1)
	defer r.Release()
	_, err := c.Put(ctx, name, r, cache.TableOptions{})
	return err
}

// pairReader is an array.RecordReader of generated (k, v) batches.
type pairReader struct {
	refs atomic.Int64
	rows int64
	at   int64
	gen  func(int64) (int64, int64)
	cur  arrow.RecordBatch
}

func (r *pairReader) Retain() { r.refs.Add(1) }
func (r *pairReader) Release() {
	if r.refs.Add(-1) == 0 && r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}
func (r *pairReader) Schema() *arrow.Schema { return pairSchema }
func (r *pairReader) Err() error            { return nil }

func (r *pairReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.at >= r.rows {
		return false
	}
	const batch = 1 << 16
	n := min(batch, r.rows-r.at)
	ks, vs := make([]int64, n), make([]int64, n)
	for i := range ks {
		ks[i], vs[i] = r.gen(r.at + int64(i))
	}
	r.at += n
	k, v := array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, int(n), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(ks))}, nil, 0, 0)),
		array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, int(n), []*memory.Buffer{nil, memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(vs))}, nil, 0, 0))
	r.cur = array.NewRecordBatch(pairSchema, []arrow.Array{k, v}, n)
	k.Release()
	v.Release()
	return true
}

func (r *pairReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns RecordBatch().
//
// Deprecated: use RecordBatch (kept for array.RecordReader).
func (r *pairReader) Record() arrow.RecordBatch { return r.cur }

// shuffleCells lists the configurations measured.
func shuffleCells(cfg ShuffleEngineConfig, m *spill.Manager) []ShuffleCell {
	var cells []ShuffleCell
	add := func(part, query, data, sql string, workers int, mode string) {
		// Per-worker tables unless the mode is the exchange: the planner
		// would choose the exchange itself for these many groups.
		o := engine.Options{Workers: workers, ScanConcurrency: workers, ExchangeGroups: -1}
		switch mode {
		case "exchange":
			o.Exchange = true
		case "limit":
			o.MemoryLimit, o.Spill = cfg.Memory, m
		case "limit, sorted runs":
			o.MemoryLimit, o.Spill, o.GroupBySortSpill = cfg.Memory, m, true
		case "limit, no split":
			o.MemoryLimit, o.Spill, o.NoJoinSkewSplit = cfg.Memory, m, true
		case "broadcast": // one table of the whole build side, whatever its size
			o.BroadcastJoinBytes = math.MaxInt64
		case "partitioned": // both sides partitioned by key, a table per worker
			o.BroadcastJoinBytes = -1
		}
		cells = append(cells, ShuffleCell{Part: part, Query: query, Data: data, Workers: workers, Mode: mode, opts: o, sql: sql})
	}
	for _, w := range cfg.Workers {
		if cfg.GroupBy {
			sql := "SELECT k, sum(v) AS s, count(*) AS n FROM grp GROUP BY k"
			for _, mode := range groupByModes {
				add("b", "GROUP BY", "grp", sql, w, mode)
			}
		}
		if cfg.Join {
			sql := "SELECT count(*), sum(l_extendedprice), sum(o_totalprice) FROM lineitem JOIN orders ON l_orderkey = o_orderkey"
			modes := []string{"broadcast", "partitioned", "limit"}
			if w == 1 {
				modes = []string{"broadcast", "limit"} // one worker broadcasts
			}
			for _, mode := range modes {
				add("b", "lineitem ⋈ orders", "TPC-H", sql, w, mode)
			}
		}
	}
	if cfg.Skew {
		w := cfg.Workers[len(cfg.Workers)-1]
		for _, d := range []struct{ data, probe, build string }{
			{"unskewed", "probe_u", "build_u"},
			{"build 30% one key", "probe_u", "build_s"},
			{"probe 30% one key", "probe_s", "build_u"},
		} {
			sql := fmt.Sprintf("SELECT count(*), sum(p.v), sum(b.v) FROM %s p JOIN %s b ON p.k = b.k", d.probe, d.build)
			for _, mode := range []string{"memory", "limit", "limit, no split"} {
				add("c", "skew join", d.data, sql, w, mode)
			}
		}
	}
	return cells
}

// measureShuffleCells warms up each cell (its answer, and EXPLAIN
// ANALYZE's account of the shuffle), then times cfg.Runs interleaved runs.
func measureShuffleCells(ctx context.Context, cfg ShuffleEngineConfig, c *cache.Cache, cells []ShuffleCell, logf func(string, ...any)) error {
	for i := range cells {
		cl := &cells[i]
		logf("bench: shuffle: warm-up %s on %s, %d workers, %s", cl.Query, cl.Data, cl.Workers, cl.Mode)
		e := engine.New(c, cl.opts)
		if err := runShuffleCell(ctx, e, cl, true); err != nil {
			return fmt.Errorf("bench: shuffle: %s on %s, %s: %w", cl.Query, cl.Data, cl.Mode, err)
		}
		if strings.HasPrefix(cl.Mode, "limit") && cl.Spill.Files == 0 {
			logf("bench: shuffle: %s on %s did not spill within %d bytes", cl.Query, cl.Data, cfg.Memory)
		}
		if cl.Part == "c" && strings.HasPrefix(cl.Mode, "limit") {
			text, err := explainAnalyze(ctx, e, cl.sql)
			if err != nil {
				return err
			}
			cl.Shuffle = graceLine(text)
		}
	}
	for run := range cfg.Runs {
		logf("bench: shuffle: run %d of %d", run+1, cfg.Runs)
		for i := range cells {
			cl := &cells[i]
			e := engine.New(c, cl.opts)
			d, err := timed(func() error { return runShuffleCell(ctx, e, cl, false) })
			if err != nil {
				return err
			}
			cl.Times = append(cl.Times, d)
		}
	}
	return nil
}

// graceSummary picks the grace join's plan out of EXPLAIN ANALYZE.
var graceSummary = regexp.MustCompile(`kept (\d+) partitions in memory \((\d+) probe rows joined unspilled\); skipped (\d+) empty blocks, (\d+) partitions; ` +
	`coalesced (\d+) partitions into (\d+); (\d+) skewed partitions split into (\d+) map ranges; (\d+) repartition levels, (\d+) nested-loop fallbacks`)

// graceLine is graceSummary's numbers, short, for the report's table.
func graceLine(text string) string {
	m := graceSummary.FindStringSubmatch(text)
	if m == nil {
		return ""
	}
	return fmt.Sprintf("kept %s (%s probe rows), coalesced %s into %s, split %s into %s, %s levels, %s fallbacks", m[1], m[2], m[5], m[6], m[7], m[8], m[9], m[10])
}

// runShuffleCell runs a cell's query to the end; first records its rows,
// first row, spill and peak memory.
func runShuffleCell(ctx context.Context, e *engine.Engine, cl *ShuffleCell, first bool) error {
	r, err := e.Query(ctx, cl.sql)
	if err != nil {
		return err
	}
	defer r.Release()
	var rows int64
	check := ""
	for r.Next() {
		rec := r.RecordBatch()
		if rows == 0 && rec.NumRows() > 0 && first {
			var b strings.Builder
			for j, col := range rec.Columns() {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(col.ValueStr(0))
			}
			check = b.String()
		}
		rows += rec.NumRows()
	}
	if err := r.Err(); err != nil {
		return err
	}
	if first {
		st := r.Stats()
		cl.Rows, cl.Spill, cl.Peak = rows, st.Spill, st.PeakMemory
		if cl.Part == "c" || cl.Query != "GROUP BY" {
			cl.Check = check // one row: the counts and sums
		}
	}
	return nil
}

func explainAnalyze(ctx context.Context, e *engine.Engine, sql string) (string, error) {
	r, err := e.Query(ctx, "EXPLAIN ANALYZE "+sql)
	if err != nil {
		return "", err
	}
	defer r.Release()
	var b strings.Builder
	for r.Next() {
		rec := r.RecordBatch()
		for i := range int(rec.NumRows()) {
			b.WriteString(rec.Column(0).ValueStr(i))
			b.WriteByte('\n')
		}
	}
	return b.String(), r.Err()
}

// check fails when a query's cells answered differently.
func (r *ShuffleEngineReport) check() error {
	for i, a := range r.Cells {
		for _, b := range r.Cells[:i] {
			same := a.Query == b.Query && a.Data == b.Data
			if same && (a.Rows != b.Rows || a.Check != b.Check) {
				return fmt.Errorf("bench: shuffle: %s on %s: %d rows (%s) with %d workers, %s; %d rows (%s) with %d workers, %s",
					a.Query, a.Data, a.Rows, a.Check, a.Workers, a.Mode, b.Rows, b.Check, b.Workers, b.Mode)
			}
		}
	}
	return nil
}

// cell returns the median time of the cell of query on data in mode.
func (r *ShuffleEngineReport) cell(query, data, mode string) time.Duration {
	for _, c := range r.Cells {
		if c.Query == query && c.Data == data && c.Mode == mode {
			return median(c.Times)
		}
	}
	return 0
}

// Write prints the report's tables and part (c)'s target.
func (r *ShuffleEngineReport) Write(w io.Writer) error {
	var b bytes.Buffer
	cfg := r.Config
	fmt.Fprintf(&b, "\nThe engine's exchanges (issue 16 parts b and c) at SF %v: memory limit %.1f MiB (lz4 spill); median of %d runs. Load average before: %s; after: %s.\n",
		cfg.SF, float64(cfg.Memory)/(1<<20), cfg.Runs, r.LoadBefore, r.LoadAfter)
	if r.GroupRows > 0 {
		fmt.Fprintf(&b, "GROUP BY: %s groups, two rows each (%s rows). ", commas(r.GroupRows), commas(2*r.GroupRows))
	}
	if r.BuildRows > 0 {
		fmt.Fprintf(&b, "Skew join: %s build rows (k unique, or 30%% k = 0), %s probe rows (k uniform over the build's, or 30%% k = 0).", commas(r.BuildRows), commas(r.ProbeRows))
	}
	b.WriteString("\n\n| part | query | data | workers | mode | median ms | spread | rows out | spilled MiB | spill files | peak MiB | grace join |\n")
	b.WriteString("|------|-------|------|--------:|------|----------:|-------:|---------:|------------:|------------:|---------:|------------|\n")
	for _, c := range r.Cells {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %s | %.1f | %.2f | %s | %.1f | %d | %.1f | %s |\n",
			c.Part, c.Query, c.Data, c.Workers, c.Mode, ms(median(c.Times)), spread(c.Times), commas(c.Rows),
			float64(c.Spill.Bytes)/(1<<20), c.Spill.Files, float64(c.Peak)/(1<<20), c.Shuffle)
	}
	if r.BuildRows > 0 {
		const q = "skew join"
		base := r.cell(q, "unskewed", "limit")
		split := r.cell(q, "build 30% one key", "limit")
		nosplit := r.cell(q, "build 30% one key", "limit, no split")
		if base > 0 {
			ratio := float64(split) / float64(base)
			fmt.Fprintf(&b, "\nTarget (issue 16): the skewed join within 1.5× the unskewed one, within the memory limit: %.2f× (%s); without the split %.2f×.\n",
				ratio, pass(ratio <= 1.5), float64(nosplit)/float64(base))
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// groupByModes are the modes the GROUP BY of part (b) runs in.
var groupByModes = []string{"memory", "exchange", "limit", "limit, sorted runs"}
