package query

import (
	"context"
	"fmt"
	"io"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/spill"
)

// DefaultMemoryLimit is the per-query limit of Options left zero.
const DefaultMemoryLimit = 1 << 30

// Options configure an Engine. Zero fields take the defaults given.
type Options struct {
	// MemoryLimit bounds what one query's sorts and aggregates hold;
	// default DefaultMemoryLimit. A query that would pass it spills
	// (Spill) or, without a spill Manager, fails with ErrMemory.
	MemoryLimit int64
	// ScanConcurrency is the goroutines a scan decodes on; default the
	// cache's.
	ScanConcurrency int
	// Alloc allocates what operators compute; default the cache's
	// recycling allocator (cache.RecyclingAllocator), which reuses the
	// buffers of released batches.
	Alloc memory.Allocator
	// Workers is how many goroutines evaluate the filters and GROUP BY
	// below an aggregate, each with its own hash table, merged at the
	// end, and read both sides of a hash join and probe it; default
	// GOMAXPROCS.
	Workers int
	// Spill is where ORDER BY, GROUP BY and hash joins spill what passes
	// MemoryLimit: sorted runs merged back at the end, a join's sides
	// hash-partitioned and joined a partition at a time (a grace hash
	// join), so a query larger than memory still finishes. Its Config sets the codec, the folder
	// and the disk quota (a query passing it fails with an error matching
	// spill.ErrQuota). The Manager is shared by every query; the engine
	// removes a query's files when it ends, fails or is cancelled. nil:
	// nothing spills, and such a query fails with ErrMemory.
	Spill *spill.Manager
	// Exchange runs GROUP BY through a hash exchange: the workers send
	// each row's keys and arguments to the one goroutine that owns its
	// key's partition, so no table is merged at the end
	// (op_aggexchange.go). Not with Spill set. For measuring and testing
	// the exchange (quiver bench shuffle); by default the planner chooses
	// it for a GROUP BY of many groups (ExchangeGroups).
	Exchange bool
	// ExchangeGroups is the estimated number of groups from which the
	// planner sends a GROUP BY through the hash exchange on its own
	// (plan_exchange.go). 0: 2,000,000; negative: never.
	ExchangeGroups int
	// SortWorkers is how many workers an ORDER BY sorts on: each pulls
	// batches of its input, runs the filters and projections below the
	// sort and sorts (and spills) what it pulled, and their sorted rows
	// are merged into one stream (op_sort_gather.go); ties between
	// workers then come out in no fixed order. 0: 1, a serial sort,
	// stable (ties in input order); negative: Workers.
	SortWorkers int
	// SortByRanges makes an ORDER BY on several SortWorkers range-
	// partition its rows instead of merging them: bounds from a sample of
	// its first batches, each worker sorting one key range, the output
	// the ranges one after the other (op_sort_range.go); an input that
	// comes in key order is merged instead. Off by default: on the
	// shared 2 cores no run showed it reliably faster than the serial
	// sort or the merge (BENCHMARKS.md §16i).
	SortByRanges bool
	// GroupBySortSpill makes a GROUP BY past MemoryLimit spill its
	// tables as runs sorted by key and merge them (op_aggspill.go)
	// instead of hash-partitioning them through the shuffle and
	// aggregating one partition at a time (op_aggshuffle.go). For
	// measuring one against the other (quiver bench shuffle).
	GroupBySortSpill bool
	// ForceJoinSpill, with Spill set, makes every hash join a grace hash
	// join whatever its size, and treats a partition of more than 1024
	// build rows as too big for memory, so that partitioning, the
	// repartitioning of large partitions and the nested loop over a
	// partition that cannot be split all run: for testing that spilling
	// joins answer as joins in memory do. It is slow; never set it to
	// serve queries.
	ForceJoinSpill bool
	// BroadcastJoinBytes is the size of a hash join's build side under
	// which it is broadcast (one table of all of it, which every worker
	// probes); from it on, with more than one worker, both sides are
	// hash-partitioned by the key and each worker joins a partition
	// (plan_joinx.go, op_joinx.go), unless its one key is a dense
	// integer (the broadcast's dense index wins). The size is the
	// bytes its batches hold, whole buffers of sliced batches
	// included. Like Spark's
	// spark.sql.autoBroadcastJoinThreshold. 0: DefaultBroadcastJoinBytes
	// (10 MiB); negative: every hash join with keys is partitioned (for
	// testing and measuring the partitioned join).
	BroadcastJoinBytes int64
	// NoJoinSkewSplit turns off the grace hash join's skew split: a
	// partition too big for memory that its map statuses show skewed is
	// partitioned again, as the others are, instead of split by map
	// ranges (op_gracejoin_plan.go). For measuring what the split saves
	// (quiver bench shuffle).
	NoJoinSkewSplit bool
	// NoPruning keeps WHERE out of the scan: every batch is decoded and
	// the engine's filter evaluates all of WHERE (no row filter in the
	// scan), and a top-k sort does not skip batches (topk_prune.go). For
	// measuring what pruning and the row filter save, and for tests that
	// check they change no answer.
	NoPruning bool
	// MemoryLimitName and NoSpillName are how ErrMemory messages name
	// MemoryLimit and what turned spilling off, so that a server names
	// its own settings (quiver serve: "--query-memory", "--no-spill");
	// defaults "the query memory limit" and "Options.Spill is nil".
	MemoryLimitName, NoSpillName string
	// MaxExprNodes bounds the expression nodes of one statement, all its
	// expressions together (limits.go); default DefaultMaxExprNodes,
	// negative: no limit. A statement past it fails with ErrInvalid.
	MaxExprNodes int
	// MaxExprDepth bounds how deeply expressions nest; default
	// DefaultMaxExprDepth, negative: no limit.
	MaxExprDepth int
	// MaxJoinPairs bounds the pairs of rows a nested-loop join (a join
	// with no equality between its sides: CROSS JOIN, ON a < b) examines,
	// probe rows times build rows; default DefaultMaxJoinPairs, negative:
	// no limit. A query that would pass it fails with ErrInvalid naming
	// the limit, before the probe batch that would pass it is joined.
	// Hash joins are not bounded by it: their pairs have equal keys.
	MaxJoinPairs int64
	// Tables is where statements that change tables write (ddl.go):
	// default the cache itself (CacheTables); a server with a data
	// directory gives its store.Store.
	Tables TableWriter
	// Views holds the views CREATE VIEW makes (views.go); default an
	// empty set of the engine's own.
	Views *Views
	// TimeZone is the time zone of a query whose Session has not set one
	// (timezone.go); default UTC. quiver serve: --time-zone.
	TimeZone *time.Location
}

// DefaultMaxJoinPairs is the MaxJoinPairs of Options left zero: 100
// million pairs, about 6 s of work at the 17 million pairs a second a
// nested loop ran (a residual evaluated on every pair and half of them
// returned, 2 cores), and far past what the nested loops TPC-H needs
// examine (a scalar subquery's one row against every probe row). A larger
// cross product on purpose raises it; an accidental one fails in seconds.
const DefaultMaxJoinPairs = 100_000_000

// Engine answers SQL over the tables of a cache. It is safe for concurrent
// use; each query reads the tables as they are when it starts.
type Engine struct {
	c    *cache.Cache
	opts Options
	// joinSpill is when hash joins spill: from ForceJoinSpill, or a
	// test's.
	joinSpill joinSpillTuning
	// aggFanout, when set, is the first level's partitions of a GROUP BY
	// spilling through the shuffle (a test's: few, so that partitions are
	// partitioned again).
	aggFanout int
	// takenAtStart: a test's bytes counted in each query's tracker from
	// its start, as another operator's would be.
	takenAtStart int64
	// changes serializes statements that change tables (ddl.go).
	changes sync.Mutex
	views   *Views
}

// New returns an engine over c.
func New(c *cache.Cache, opts Options) *Engine {
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	if opts.Alloc == nil {
		opts.Alloc = cache.RecyclingAllocator()
	}
	if opts.Workers <= 0 {
		opts.Workers = goruntime.GOMAXPROCS(0)
	}
	switch {
	case opts.SortWorkers == 0:
		opts.SortWorkers = 1
	case opts.SortWorkers < 0:
		opts.SortWorkers = opts.Workers
	}
	if opts.MaxExprNodes == 0 {
		opts.MaxExprNodes = DefaultMaxExprNodes
	}
	if opts.MaxExprDepth == 0 {
		opts.MaxExprDepth = DefaultMaxExprDepth
	}
	if opts.MaxJoinPairs == 0 {
		opts.MaxJoinPairs = DefaultMaxJoinPairs
	}
	if opts.Tables == nil {
		opts.Tables = CacheTables(c)
	}
	if opts.Views == nil {
		opts.Views = &Views{}
	}
	e := &Engine{c: c, opts: opts, views: opts.Views}
	if opts.ForceJoinSpill {
		e.joinSpill = joinSpillTuning{force: true, maxRows: forcedMaxRows}
	}
	e.joinSpill.noSkewSplit = opts.NoJoinSkewSplit
	return e
}

// plan parses and plans one statement; explain reports an EXPLAIN.
// Cancelling ctx stops planning (see builder.tick).
func (e *Engine) plan(ctx context.Context, sql string, params []any) (planNode, bool, error) {
	return e.planStmt(ctx, sql, params, false)
}

func (e *Engine) planStmt(ctx context.Context, sql string, params []any, prepare bool) (planNode, bool, error) {
	if err := ctx.Err(); err != nil { // an already cancelled query is not even parsed
		return nil, false, cancelled(err)
	}
	stmt, err := parseSQL(sql)
	if err != nil {
		return nil, false, err
	}
	if err := e.checkLimits(sql, stmt); err != nil {
		return nil, false, err
	}
	if err := ctx.Err(); err != nil {
		return nil, false, cancelled(err)
	}
	nparams := numberParams(stmt, params, prepare)
	if len(params) > nparams {
		return nil, false, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf("%d parameters bound, the statement has %d", len(params), nparams)}
	}
	if text, ok, err := e.showText(stmt); ok { // show.go: SHOW TABLES, DESCRIBE t
		if err != nil {
			return nil, false, err
		}
		return e.planStmt(ctx, text, nil, prepare)
	}
	explain, analyze := false, false
	b := &builder{ctx: withNow(ctx, time.Now()), sql: sql, c: e.c, opts: e.opts, params: params, nparams: nparams, prepare: prepare}
	if ex, ok := stmt.(*ast.ExplainStmt); ok {
		explain, analyze, stmt = true, ex.Analyze, ex.Stmt
		logical, err := b.explainFormat(ex) // logical_trace.go
		if err != nil {
			return nil, false, err
		}
		if logical {
			b.trace = &logicalTrace{}
		}
	}
	if p, ok, err := e.planChange(b, stmt, params); ok { // ddl.go
		if explain {
			return nil, false, b.at(ErrUnsupported, stmt, "EXPLAIN %s", statementName(stmt))
		}
		return p, false, err
	}
	if err := e.views.bind(b, sql); err != nil { // views.go
		return nil, false, err
	}
	var p planNode
	switch s := stmt.(type) {
	case *ast.SelectStmt:
		p, err = b.buildSelect(s)
	case *ast.SetOprStmt:
		p, err = b.buildSetOpr(s) // setop.go
	default:
		return nil, false, b.at(ErrUnsupported, stmt, "%s statements (quiver answers SELECT)", statementName(stmt))
	}
	if err == nil && !explain {
		p = labelZone(p, b.zone()) // build_zone.go
	}
	if err == nil && b.trace != nil {
		p = &logicalExplainNode{planNode: p, trace: b.trace} // logical_trace.go
	}
	if err == nil && analyze {
		p = &analyzeRoot{in: p} // explain_analyze.go
	}
	return p, explain, err
}

func statementName(n ast.StmtNode) string {
	name := fmt.Sprintf("%T", n)
	name = strings.TrimPrefix(name, "*ast.")
	return strings.TrimSuffix(name, "Stmt")
}

// Explain returns the plan of a SELECT: its operators, which columns the
// scan decodes, the predicate pushed into pruning and how many batches
// pruning skips now (computed from statistics alone).
func (e *Engine) Explain(ctx context.Context, sql string, params ...any) (string, error) {
	p, _, err := e.plan(ctx, sql, params)
	if err != nil {
		return "", err
	}
	return e.explain(ctx, p)
}

func (e *Engine) explain(ctx context.Context, p planNode) (string, error) {
	if a, ok := p.(*analyzeRoot); ok {
		return e.analyze(ctx, a)
	}
	if s := findScan(p); s != nil && !s.noTable() {
		// A scan of no columns and no row filter touches no chunk: it
		// only runs pruning, which the row filter's conjuncts join.
		prune := s.pushed
		if len(s.rows) > 0 {
			prune = append(cache.And{}, s.rows...)
			if s.pushed != nil {
				prune = append(prune.(cache.And), s.pushed)
			}
		}
		cs, err := e.c.Scan(ctx, s.table, cache.ScanOptions{Columns: []int{}, Filter: prune})
		if err == nil {
			for cs.Next() {
			}
			m := cs.Metrics()
			cs.Release()
			s.batches, s.skipped, s.explained = m.Batches, m.Skipped, true
		}
	}
	var b strings.Builder
	p.explain(&b, 0)
	return b.String(), nil
}

func findScan(p planNode) *scanNode {
	switch n := p.(type) {
	case *scanNode:
		return n
	case *filterNode:
		return findScan(n.in)
	case *convertNode:
		return findScan(n.in)
	case *projectNode:
		return findScan(n.in)
	case *aggregateNode:
		return findScan(n.in)
	case *sortNode:
		return findScan(n.in)
	case *limitNode:
		return findScan(n.in)
	case *analyzeNode:
		return findScan(n.in)
	case *analyzeRoot:
		return findScan(n.in)
	case *zoneLabelNode:
		return findScan(n.in)
	case *logicalExplainNode:
		return findScan(n.planNode)
	}
	return nil
}

// Query runs one statement: a SELECT, EXPLAIN SELECT or EXPLAIN ANALYZE
// SELECT (one utf8 column, "plan", a row per line; ANALYZE runs the query
// first). The Result streams batches; the caller must
// Release it. Cancelling ctx stops the query within a batch.
//
// params bind the statement's ? placeholders in the order they appear.
// A parameter is nil (NULL), bool, a Go integer (as BIGINT; a uint64
// past it as DECIMAL(20,0), as uint64 columns compute), float32 or
// float64 (DOUBLE), string or []byte (VARCHAR), arrow.Date32 (DATE),
// time.Time (TIMESTAMP WITH TIME ZONE, to the microsecond) or Decimal.
func (e *Engine) Query(ctx context.Context, sql string, params ...any) (*Result, error) {
	p, explain, err := e.plan(ctx, sql, params)
	if err != nil {
		return nil, err
	}
	if explain {
		text, err := e.explain(ctx, p)
		if err != nil {
			return nil, err
		}
		return explainResult(e.opts.Alloc, text), nil
	}
	return e.run(ctx, p)
}

// run opens the operators of plan p as a running query.
func (e *Engine) run(ctx context.Context, p planNode) (*Result, error) {
	r := &Result{ctx: ctx, mt: &memTracker{limit: e.opts.MemoryLimit, names: e.memNames()}}
	if outer, ok := ctx.Value(outerMemKey{}).(*memTracker); ok {
		r.mt = outer // a subquery Apply runs: it counts against its query's limit (apply.go)
	} else if e.takenAtStart > 0 {
		r.taken = e.takenAtStart
		r.mt.force(r.taken)
	}
	rt := &runtime{mem: e.opts.Alloc, mt: r.mt, workers: e.opts.Workers, sortWorkers: e.opts.SortWorkers, sortByRanges: e.opts.SortByRanges, exchange: e.opts.Exchange, sortSpill: e.opts.GroupBySortSpill, spill: e.opts.Spill, spills: &r.spills,
		maxJoinPairs: max(e.opts.MaxJoinPairs, 0), joinSpill: e.joinSpill, aggFanout: e.aggFanout,
		broadcastBytes: e.opts.broadcastBytes()}
	if s := findScan(p); s != nil {
		prev := s.onDone // EXPLAIN ANALYZE's, per scan
		s.onDone = func(m cache.ScanMetrics) {
			r.scan.Store(&m)
			if prev != nil {
				prev(m)
			}
		}
	}
	var err error
	r.root, err = p.open(ctx, rt, e.c)
	if err != nil {
		return nil, err
	}
	r.schema = p.schema()
	r.refs.Store(1)
	return r, nil
}

// Result is a running query: an array.RecordReader over its batches.
type Result struct {
	refs   atomic.Int64
	ctx    context.Context
	root   operator
	schema *arrow.Schema
	mt     *memTracker
	fixed  []arrow.RecordBatch // EXPLAIN output

	cur      arrow.RecordBatch
	err      error
	rows     int64
	scan     atomic.Pointer[cache.ScanMetrics]
	spills   spillRegistry
	once     sync.Once
	finished bool
	taken    int64 // Engine.takenAtStart's, given back at close
}

var _ array.RecordReader = (*Result)(nil)

// Stats say what a query did so far.
type Stats struct {
	Rows       int64             // rows returned
	PeakMemory int64             // most bytes its sorts and aggregates held at once
	Scan       cache.ScanMetrics // of its table scan, once the scan ended
	Spill      SpillStats        // what its sorts, aggregates and joins spilled so far
}

func (r *Result) Stats() Stats {
	s := Stats{Rows: r.rows}
	if r.mt != nil {
		s.PeakMemory = r.mt.peak.Load()
	}
	if m := r.scan.Load(); m != nil {
		s.Scan = *m
	}
	s.Spill = r.spills.total()
	return s
}

func (r *Result) Schema() *arrow.Schema          { return r.schema }
func (r *Result) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns the current batch.
//
// Deprecated: use RecordBatch.
func (r *Result) Record() arrow.RecordBatch { return r.cur }
func (r *Result) Err() error                { return r.err }
func (r *Result) Retain()                   { r.refs.Add(1) }

func (r *Result) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.finished {
		return false
	}
	if r.fixed != nil {
		if len(r.fixed) == 0 {
			r.finished = true
			return false
		}
		r.cur, r.fixed = r.fixed[0], r.fixed[1:]
		return true
	}
	if err := r.ctx.Err(); err != nil {
		r.err = cancelled(err)
		r.close()
		return false
	}
	rec, err := r.root.Next(r.ctx)
	if err == io.EOF {
		r.finished = true
		r.close()
		return false
	}
	if err != nil {
		if r.ctx.Err() != nil {
			err = cancelled(r.ctx.Err())
		}
		r.err = err
		r.close()
		return false
	}
	r.rows += rec.NumRows()
	r.cur = rec
	return true
}

func (r *Result) close() {
	r.once.Do(func() {
		if r.root != nil {
			r.root.Close()
		}
		if r.taken > 0 {
			r.mt.shrink(r.taken)
		}
	})
}

func (r *Result) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for _, rec := range r.fixed {
		rec.Release()
	}
	r.fixed = nil
	r.close()
}

// explainResult is the plan text as a one-column result.
// explainSchema is the schema of every EXPLAIN result.
var explainSchema = arrow.NewSchema([]arrow.Field{{Name: "plan", Type: arrow.BinaryTypes.String}}, nil)

func explainResult(mem memory.Allocator, text string) *Result {
	schema := explainSchema
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.Append(line)
	}
	col := b.NewArray()
	defer col.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(col.Len()))
	r := &Result{ctx: context.Background(), schema: schema, fixed: []arrow.RecordBatch{rec}}
	r.refs.Store(1)
	return r
}
