package bench

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/extsort"
	engine "github.com/quiverdb/quiver/query"
	"github.com/quiverdb/quiver/sortkey"
	"github.com/quiverdb/quiver/spill"
)

// SortConfig configures RunSort. Zero fields take the defaults given.
type SortConfig struct {
	// SF is the TPC-H scale factor of lineitem; default 1 (DataFusion's
	// sort_tpch measurement). Below 1 a multiple of 0.001.
	SF float64
	// Memory is the sort's memory limit, and DuckDB's memory_limit;
	// default 200 MiB (sort_tpch's -m 200m).
	Memory int64
	// Codecs are the spill codecs measured; default none, lz4, zstd:1.
	Codecs []codec.Setting
	// Runs is how many times each query is measured per codec and in
	// DuckDB, interleaved; the report gives medians. Default 3.
	Runs int
	// Goroutines is GOMAXPROCS, the cache's scan goroutines and DuckDB's
	// threads; default 2.
	Goroutines int
	// Queries are the labels of sortQueries to run; default all.
	Queries []string
	// Dir is where spill files (and DuckDB's database and temporary
	// files) go; default the system temp dir.
	Dir string
	// Progress, when set, gets a line per phase.
	Progress io.Writer
}

// DefaultSortMemory is sort_tpch's memory limit.
const DefaultSortMemory = 200 << 20

func (c SortConfig) withDefaults() SortConfig {
	if c.SF == 0 {
		c.SF = 1
	}
	if c.Memory == 0 {
		c.Memory = DefaultSortMemory
	}
	if len(c.Codecs) == 0 {
		c.Codecs = []codec.Setting{{}, {Kind: codec.LZ4}, {Kind: codec.Zstd, Level: 1}}
	}
	if c.Runs == 0 {
		c.Runs = 3
	}
	if c.Goroutines == 0 {
		c.Goroutines = 2
	}
	if c.Dir == "" {
		c.Dir = os.TempDir()
	}
	return c
}

// Validate reports a negative or otherwise unusable field.
func (c SortConfig) Validate() error {
	if c.SF < 0 || math.IsNaN(c.SF) || c.Memory < 0 || c.Runs < 0 || c.Goroutines < 0 {
		return fmt.Errorf("bench: negative SF %v, Memory %d, Runs %d or Goroutines %d", c.SF, c.Memory, c.Runs, c.Goroutines)
	}
	for _, q := range c.Queries {
		if _, ok := sortQueryByLabel(q); !ok {
			return fmt.Errorf("bench: unknown sort query %q (want Q3, Q7 or Q10)", q)
		}
	}
	return nil
}

// sortQuery is one of DataFusion's sort_tpch queries: the lineitem
// columns it selects, in SELECT order, and its ORDER BY as positions in
// them.
type sortQuery struct {
	label, sql string
	cols       []int
	keys       []extsort.Key
	// dfSpilledMiB is what DataFusion spilled with zstd after #26960
	// (SF 1, 200 MiB), the bytes target's base.
	dfSpilledMiB float64
}

func allLineitem() []int {
	cols := make([]int, tpch.LineitemSchema.NumFields())
	for i := range cols {
		cols[i] = i
	}
	return cols
}

// sortQueries are sort_tpch's Q3, Q7 and Q10. lineitem's columns:
// 0 l_orderkey, 1 l_partkey, 2 l_suppkey, 3 l_linenumber, ..., 15
// l_comment.
var sortQueries = []sortQuery{
	{label: "Q3", sql: "SELECT l_comment, l_partkey FROM lineitem ORDER BY l_comment",
		cols: []int{15, 1}, keys: []extsort.Key{{Col: 0}}, dfSpilledMiB: 50.5},
	{label: "Q7", sql: "SELECT * FROM lineitem ORDER BY l_linenumber, l_suppkey, l_orderkey",
		cols: allLineitem(), keys: []extsort.Key{{Col: 3}, {Col: 2}, {Col: 0}}, dfSpilledMiB: 122.6},
	{label: "Q10", sql: "SELECT * FROM lineitem ORDER BY l_orderkey, l_suppkey, l_linenumber, l_comment",
		cols: allLineitem(), keys: []extsort.Key{{Col: 0}, {Col: 2}, {Col: 3}, {Col: 15}}, dfSpilledMiB: 169.2},
}

func sortQueryByLabel(label string) (sortQuery, bool) {
	for _, q := range sortQueries {
		if q.label == label {
			return q, true
		}
	}
	return sortQuery{}, false
}

// RunSort measures quiver's external sort on DataFusion's sort_tpch
// queries over TPC-H lineitem at cfg.SF held in the cache (codec auto),
// within cfg.Memory, spilling with each of cfg.Codecs, and in the same run
// DuckDB with memory_limit set to the same bytes over the same rows in a
// database file (built with -tags duckdb; otherwise the report says the
// peer is missing). A warm-up pass checks quiver's output is in order and
// complete; then each query runs cfg.Runs times per codec and in DuckDB,
// back to back, and the report gives medians, spilled bytes and targets.
func RunSort(ctx context.Context, cfg SortConfig, out io.Writer) (*SortReport, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	logf := progressf(cfg.Progress)
	rep := &SortReport{Config: cfg, LoadBefore: loadAverage()}
	err := withProcs(cfg.Goroutines, func() error {
		c, info, err := loadLineitem(ctx, cfg.SF, cfg.Goroutines, logf)
		if err != nil {
			return err
		}
		rep.Rows = info.Rows

		start := time.Now()
		duck, err := newDuckSortPeer(ctx, cfg.SF, cfg.Goroutines, cfg.Memory, cfg.Dir)
		if err != nil {
			rep.PeerNote = err.Error()
			logf("bench: %v", err)
		} else {
			defer duck.close()
			rep.Peer = duck.version()
			logf("bench: %s loaded the same rows in %v", rep.Peer, time.Since(start).Round(time.Millisecond))
		}
		rep.Results, err = measureSorts(ctx, cfg, c, duck, info.Rows, logf)
		return err
	})
	if err != nil {
		return nil, err
	}
	rep.LoadAfter = loadAverage()
	rep.Targets = rep.targets()
	return rep, rep.Write(out)
}

// measureSorts warms up and checks every query and codec, then times
// cfg.Runs interleaved runs.
func measureSorts(ctx context.Context, cfg SortConfig, c *cache.Cache, duck sortPeer, rows int64, logf func(string, ...any)) ([]SortResult, error) {
	var res []SortResult
	for _, q := range sortQueries {
		if len(cfg.Queries) > 0 && !contains(cfg.Queries, q.label) {
			continue
		}
		for _, cd := range cfg.Codecs {
			res = append(res, SortResult{Query: q.label, SQL: q.sql, Codec: cd.String(), q: q, codec: cd})
			if cd.String() == targetCodec {
				// The same sort through the query engine's ORDER BY.
				res = append(res, SortResult{Query: q.label, SQL: q.sql, Codec: cd.String() + " (SQL)", q: q, codec: cd, viaSQL: true})
				if cfg.Goroutines > 1 { // and on every goroutine, gathered
					res = append(res, SortResult{Query: q.label, SQL: q.sql, Codec: fmt.Sprintf("%s (SQL, %d sort workers)", cd, cfg.Goroutines),
						q: q, codec: cd, viaSQL: true, sortWorkers: cfg.Goroutines})
				}
			}
		}
		if duck != nil {
			res = append(res, SortResult{Query: q.label, SQL: q.sql, Codec: "DuckDB", q: q, duck: true})
		}
	}
	for i := range res {
		r := &res[i]
		if r.duck {
			n, err := duck.count(ctx, r.q.sql)
			if err != nil {
				// DuckDB may not sort within a small limit (it says Out
				// of Memory): the report says so, the bench goes on.
				r.Failed = fmt.Sprintf("DuckDB failed: %s", strings.SplitN(err.Error(), "\n", 2)[0])
				logf("bench: %s: %s", r.Query, r.Failed)
				continue
			}
			if n != rows {
				return nil, fmt.Errorf("bench: DuckDB: %s: %d rows, lineitem has %d", r.Query, n, rows)
			}
			continue
		}
		logf("bench: warm-up %s with %s", r.Query, r.Codec)
		if err := runQuiverOne(ctx, cfg, c, r, true); err != nil {
			return nil, fmt.Errorf("bench: %s with %s: %w", r.Query, r.Codec, err)
		}
		if r.Rows != rows {
			return nil, fmt.Errorf("bench: %s with %s: %d rows out, lineitem has %d", r.Query, r.Codec, r.Rows, rows)
		}
	}
	for run := range cfg.Runs {
		logf("bench: run %d of %d", run+1, cfg.Runs)
		for i := range res {
			r := &res[i]
			if r.Failed != "" {
				continue
			}
			var d time.Duration
			var err error
			if r.duck {
				d, err = timed(func() error { return duck.run(ctx, r.q.sql) })
				if err != nil {
					r.Failed, r.Times = fmt.Sprintf("DuckDB failed: %s", strings.SplitN(err.Error(), "\n", 2)[0]), nil
					logf("bench: %s: %s", r.Query, r.Failed)
					continue
				}
			} else {
				d, err = timed(func() error { return runQuiverOne(ctx, cfg, c, r, false) })
			}
			if err != nil {
				return nil, fmt.Errorf("bench: %s with %s: %w", r.Query, r.Codec, err)
			}
			r.Times = append(r.Times, d)
		}
	}
	return res, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// spillConfig is the spill Manager's configuration of a run: r's codec,
// compressing a batch's buffers on cfg.Goroutines goroutines, which keeps
// the run writer up with the sort gathering the next batch (at SF 1,
// Q10 with zstd:1 takes 2.8 s this way, 3.6 s on one goroutine).
func spillConfig(cfg SortConfig, r *SortResult) spill.Config {
	return spill.Config{Dir: cfg.Dir, Codec: r.codec, Concurrency: cfg.Goroutines}
}

// runQuiverOne runs r's sort directly or through the query engine.
func runQuiverOne(ctx context.Context, cfg SortConfig, c *cache.Cache, r *SortResult, check bool) error {
	if r.viaSQL {
		return runQuiverSQL(ctx, cfg, c, r)
	}
	return runQuiverSort(ctx, cfg, c, r, check)
}

// runQuiverSQL runs r's query through the query engine within cfg.Memory,
// spilling with r's codec, and reads its rows to the end.
func runQuiverSQL(ctx context.Context, cfg SortConfig, c *cache.Cache, r *SortResult) error {
	m, err := spill.NewManager(spillConfig(cfg, r))
	if err != nil {
		return err
	}
	defer m.Close()
	e := engine.New(c, engine.Options{MemoryLimit: cfg.Memory, Spill: m, ScanConcurrency: cfg.Goroutines, Workers: cfg.Goroutines, SortWorkers: r.sortWorkers})
	res, err := e.Query(ctx, r.q.sql)
	if err != nil {
		return err
	}
	defer res.Release()
	var rows int64
	for res.Next() {
		rows += res.RecordBatch().NumRows()
	}
	if err := res.Err(); err != nil {
		return err
	}
	st := res.Stats()
	r.Rows = rows
	r.Metrics = extsort.Metrics{InputRows: rows, OutputRows: rows, SpillFiles: int(st.Spill.Files), SpilledBytes: st.Spill.Bytes,
		SpilledRows: st.Spill.Rows, SpillTime: st.Spill.Time, PeakMemory: st.PeakMemory, Runs: -1, MergePasses: -1, RowsKept: -1}
	if st := m.Stats(); st.Files != 0 {
		return fmt.Errorf("%d spill files left after the query", st.Files)
	}
	return nil
}

// runQuiverSort scans the query's columns from the cache into an external
// sort spilling with r's codec to a fresh Manager, and reads the sorted
// output to the end. check verifies the output is in key order.
func runQuiverSort(ctx context.Context, cfg SortConfig, c *cache.Cache, r *SortResult, check bool) error {
	m, err := spill.NewManager(spillConfig(cfg, r))
	if err != nil {
		return err
	}
	defer m.Close()
	scan, err := c.Scan(ctx, tpch.LineitemTable, cache.ScanOptions{Columns: r.q.cols, Concurrency: cfg.Goroutines})
	if err != nil {
		return err
	}
	defer scan.Release()
	s, err := extsort.New(scan.Schema(), extsort.Config{
		Keys: r.q.keys, MemoryLimit: cfg.Memory, Spill: m, Owner: "sort-" + r.q.label, Mem: cache.RecyclingAllocator(),
	})
	if err != nil {
		return err
	}
	defer s.Close()
	for scan.Next() {
		if err := s.Add(ctx, scan.RecordBatch()); err != nil {
			return err
		}
	}
	if err := scan.Err(); err != nil {
		return err
	}
	out, err := s.Finish(ctx)
	if err != nil {
		return err
	}
	defer out.Release()
	var ck *orderCheck
	if check {
		if ck, err = newOrderCheck(scan.Schema(), r.q.keys); err != nil {
			return err
		}
	}
	var rows int64
	for out.Next() {
		rec := out.RecordBatch()
		rows += rec.NumRows()
		if ck != nil {
			if err := ck.add(rec); err != nil {
				return err
			}
		}
	}
	if err := out.Err(); err != nil {
		return err
	}
	out.Release()
	out.Retain() // balanced by the deferred Release; the files are gone now
	r.Rows = rows
	r.Metrics = s.Metrics()
	if st := m.Stats(); st.Files != 0 {
		return fmt.Errorf("%d spill files left after the sort", st.Files)
	}
	return nil
}

// orderCheck verifies batches come in key order, across batch ends, by
// comparing consecutive normalized keys.
type orderCheck struct {
	enc  *sortkey.Encoder
	cols []int
	rows sortkey.Rows
	last []byte
	n    int64
}

func newOrderCheck(schema *arrow.Schema, keys []extsort.Key) (*orderCheck, error) {
	fields := make([]sortkey.SortField, len(keys))
	cols := make([]int, len(keys))
	for i, k := range keys {
		fields[i] = sortkey.SortField{Type: schema.Field(k.Col).Type, Desc: k.Desc, NullsFirst: k.NullsFirst}
		cols[i] = k.Col
	}
	enc, err := sortkey.NewEncoder(fields)
	return &orderCheck{enc: enc, cols: cols}, err
}

func (o *orderCheck) add(rec arrow.RecordBatch) error {
	cols := make([]arrow.Array, len(o.cols))
	for i, c := range o.cols {
		cols[i] = rec.Column(c)
	}
	o.rows.Reset()
	if err := o.enc.Encode(&o.rows, cols); err != nil {
		return err
	}
	for i := range o.rows.Len() {
		k := o.rows.Row(i)
		if o.last != nil && string(k) < string(o.last) {
			return fmt.Errorf("output row %d sorts before row %d", o.n, o.n-1)
		}
		o.last = append(o.last[:0], k...)
		o.n++
	}
	return nil
}

var _ array.RecordReader = (*cache.Scanner)(nil)
