package agg

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/spill"
)

// Defaults of SpillConfig fields left zero.
const (
	DefaultSpillBatchRows = 4096
	DefaultFanIn          = 64
)

// SpillConfig configures a Spiller.
type SpillConfig struct {
	// Manager holds the run files; required.
	Manager *spill.Manager
	// Owner names the run files (a query id, an operator); default
	// "groupby".
	Owner string
	// BatchRows is the rows of each batch of a run and the groups of each
	// merged batch; default DefaultSpillBatchRows.
	BatchRows int
	// ResultRows is the groups of each batch Finish's reader returns;
	// default BatchRows.
	ResultRows int
	// FanIn bounds the runs one merge reads at once; default
	// DefaultFanIn, at least 2. More runs than that, or than Budget has
	// read buffers for, are merged in several passes.
	FanIn int
	// Budget, when set, is charged for what spilling and merging hold
	// beside the aggregators' own tables: the sorted copy of a table
	// being spilled, the batches a merge reads, the groups it kept in
	// memory. nil: nothing is charged, and FanIn alone bounds a merge.
	Budget Budget
}

// Validate reports a field outside its documented range.
func (c SpillConfig) Validate() error {
	switch {
	case c.Manager == nil:
		return fmt.Errorf("%w: SpillConfig without a Manager", ErrInput)
	case c.BatchRows < 0 || c.ResultRows < 0:
		return fmt.Errorf("%w: %d rows per spill batch, %d per result batch", ErrInput, c.BatchRows, c.ResultRows)
	case c.FanIn < 0 || c.FanIn == 1:
		return fmt.Errorf("%w: fan-in %d (0 for the default, else at least 2)", ErrInput, c.FanIn)
	}
	return nil
}

// Budget is memory shared with others (a query's operators). Its method
// set is a subset of extsort.Budget's, so one value serves both.
type Budget interface {
	// Grow reserves n bytes whether they fit or not: what spilling
	// cannot do without.
	Grow(n int64)
	// Shrink gives n bytes back.
	Shrink(n int64)
	// Available is the bytes that still fit (negative when over).
	Available() int64
}

// SpillMetrics say what a Spiller did.
type SpillMetrics struct {
	// Runs is the tables spilled as sorted runs.
	Runs int
	// Files counts the spill files written: each run's file of partial
	// states and one per count(DISTINCT), and those merge passes wrote.
	Files int
	// Bytes is the bytes of those files on disk (compressed); Rows the
	// rows written to them.
	Bytes, Rows int64
	// Time is the time spent spilling tables: exporting, sorting and
	// writing them.
	Time time.Duration
	// MergePasses counts the merges that wrote a run (0: one final merge).
	MergePasses int
	// MergeTime is the time spent in merge passes that wrote a run; the
	// final merge runs as its reader is read.
	MergeTime time.Duration
	// KeptRows is the groups the final merge read from memory, not from
	// a file.
	KeptRows int64
}

func (m SpillMetrics) String() string {
	return fmt.Sprintf("%d runs, %d files, %d bytes, %d rows in %v; %d merge passes in %v; %d groups kept in memory",
		m.Runs, m.Files, m.Bytes, m.Rows, m.Time.Round(time.Microsecond), m.MergePasses, m.MergeTime.Round(time.Microsecond), m.KeptRows)
}

// Spiller takes a grouped aggregation past memory: Spill writes the groups
// of a HashAggregator as a run sorted by group key and empties it, and
// Finish merges the runs back by key, combining the partial states of
// equal keys, into the final groups. Spill is safe for concurrent use
// (parallel aggregators share one Spiller); one spill runs at a time.
// Close removes every file; it is safe to call more than once.
type Spiller struct {
	cfg   SpillConfig
	mem   memory.Allocator
	shape *shape
	merge *HashAggregator // combines partial states; never sees count(DISTINCT)
	// mergeHeld is what merge holds, as charged to the budget.
	mergeHeld int64
	mu        sync.Mutex // one Spill or Finish at a time
	runs      []*run
	// maxBytes is the largest batch written per file kind (main, then
	// each distinct): what a merge's cursor on such a file holds.
	maxBytes []int64
	// maxCursor is the most a merge's cursor on such a file held.
	maxCursor []int64
	reader    *mergeReader
	closed    bool

	mmu     sync.Mutex
	metrics SpillMetrics
}

// run is one sorted run: a file of the groups' partial states (main)
// and, per count(DISTINCT) state, a file of (keys, value) pairs. The run
// of groups kept in memory for the final merge holds batches instead.
type run struct {
	main     *spill.File
	distinct []*spill.File
	mem      [][]arrow.RecordBatch // per kind, when kept in memory
	memBytes int64                 // charged to the budget
}

// NewSpiller returns a Spiller for aggregators of h's keys, arguments and
// specs (h itself is not kept).
func NewSpiller(h *HashAggregator, cfg SpillConfig) (*Spiller, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if h.released {
		return nil, errReleased
	}
	if cfg.Owner == "" {
		cfg.Owner = "groupby"
	}
	if cfg.BatchRows == 0 {
		cfg.BatchRows = DefaultSpillBatchRows
	}
	if cfg.ResultRows == 0 {
		cfg.ResultRows = cfg.BatchRows
	}
	if cfg.FanIn == 0 {
		cfg.FanIn = DefaultFanIn
	}
	sh, err := newShape(h)
	if err != nil {
		return nil, err
	}
	m, err := NewHashAggregator(h.keyTypes, h.argTypes, sh.mergeSpecs, Options{Mem: h.mem})
	if err != nil {
		return nil, err
	}
	return &Spiller{cfg: cfg, mem: h.mem, shape: sh, merge: m,
		maxBytes: make([]int64, 1+len(sh.distinct)), maxCursor: make([]int64, 1+len(sh.distinct))}, nil
}

// Runs is the number of runs spilled and not yet merged away.
func (s *Spiller) Runs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.runs)
}

// Metrics returns what the Spiller has done so far. It is safe to call
// at any time from any goroutine.
func (s *Spiller) Metrics() SpillMetrics {
	s.mmu.Lock()
	defer s.mmu.Unlock()
	return s.metrics
}

func (s *Spiller) addMetrics(f func(*SpillMetrics)) {
	s.mmu.Lock()
	f(&s.metrics)
	s.mmu.Unlock()
}

var errSpillerClosed = errors.New("agg: Spiller used after Close")

// Spill writes h's groups as a sorted run and resets h (keeping its
// memory for the groups to come). h must have the keys, arguments and
// specs the Spiller was made for. On error h is unchanged and nothing
// of the run is left on disk.
func (s *Spiller) Spill(ctx context.Context, h *HashAggregator) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errSpillerClosed
	}
	if err := s.shape.check(h); err != nil {
		return err
	}
	if len(s.shape.keyTypes) > 0 && h.Groups() == 0 {
		return nil
	}
	start := time.Now()
	r, err := s.writeRun(ctx, func(emit emitFunc) error { return s.sortTable(ctx, h, emit) })
	if err != nil {
		return err
	}
	s.runs = append(s.runs, r)
	s.addMetrics(func(m *SpillMetrics) { m.Runs++; m.Time += time.Since(start) })
	return h.Reset()
}

// writeRun writes what produce emits into the files of a new run.
func (s *Spiller) writeRun(ctx context.Context, produce func(emitFunc) error) (*run, error) {
	ws := make([]*spill.Writer, 1+len(s.shape.distinct))
	abort := func() {
		for _, w := range ws {
			if w != nil {
				w.Abort()
			}
		}
	}
	for i := range ws {
		var err error
		if ws[i], err = s.cfg.Manager.NewFile(s.cfg.Owner); err != nil {
			abort()
			return nil, fmt.Errorf("agg: spilling: %w", err)
		}
	}
	err := produce(func(kind int, rec arrow.RecordBatch) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := ws[kind].Write(rec); err != nil {
			return fmt.Errorf("agg: spilling %d groups: %w", rec.NumRows(), err)
		}
		s.maxBytes[kind] = max(s.maxBytes[kind], recordBytes(rec))
		return nil
	})
	if err != nil {
		abort()
		return nil, err
	}
	r := &run{}
	var files []*spill.File
	for i, w := range ws {
		f, err := w.Finish()
		if err != nil {
			abort()
			for _, f := range files {
				f.Remove()
			}
			return nil, fmt.Errorf("agg: spilling: %w", err)
		}
		files = append(files, f)
		if i == 0 {
			r.main = f
		} else {
			r.distinct = append(r.distinct, f)
		}
	}
	s.addMetrics(func(m *SpillMetrics) {
		for _, f := range files {
			m.Files++
			m.Bytes += f.Bytes()
			m.Rows += f.Rows()
		}
	})
	return r, nil
}

// emitFunc takes one sorted batch of a run: kind 0 the partial states,
// 1+d the pairs of distinct state d. The caller keeps rec.
type emitFunc func(kind int, rec arrow.RecordBatch) error

// Close removes every run file and releases what the Spiller and a
// reader Finish returned hold.
func (s *Spiller) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if s.reader != nil {
		s.reader.close()
	}
	for _, r := range s.runs {
		s.dropRun(r)
	}
	s.runs = nil
	s.merge.Release()
	s.chargeMerge()
}

// dropRun removes a run's files or releases its batches.
func (s *Spiller) dropRun(r *run) {
	if r.main != nil {
		r.main.Remove()
	}
	for _, f := range r.distinct {
		f.Remove()
	}
	for _, recs := range r.mem {
		for _, rec := range recs {
			rec.Release()
		}
	}
	r.mem = nil
	s.shrink(r.memBytes)
	r.memBytes = 0
}

func (s *Spiller) grow(n int64) {
	if s.cfg.Budget != nil && n != 0 {
		s.cfg.Budget.Grow(n)
	}
}

func (s *Spiller) shrink(n int64) {
	if s.cfg.Budget != nil && n != 0 {
		s.cfg.Budget.Shrink(n)
	}
}
