package cache

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/take"
)

// ScanOptions select what a scan reads.
type ScanOptions struct {
	// Columns are indices into the table's schema, in the order the
	// scan's batches hold them. nil reads every column; an empty non-nil
	// slice reads none: the scan then yields batches of rows only (for
	// count(*)), answered from row counts without touching a chunk.
	Columns []int
	// Filter, when set, skips the batches whose statistics prove it FALSE
	// or UNKNOWN on every row (see CanSkip). The batches that remain are
	// returned whole: rows are not filtered.
	Filter Predicate
	// Rows are conjuncts every returned row satisfies: the scan evaluates
	// them on each decoded batch and returns only the rows where all are
	// TRUE; batches left empty are not returned. Each must be
	// [RowFilterable]; Col fields index the table's schema, and the
	// columns they name need not be among Columns. They prune batches as
	// Filter does.
	Rows []Predicate
	// Concurrency is how many goroutines decode batches ahead of the
	// reader, which still gets them in table order; default the cache's.
	Concurrency int
	// Skip, when set, is asked just before each batch is decoded, with the
	// batch's statistics (one entry per table column): true skips the
	// batch. It serves what is learnt while the scan runs, such as a
	// top-k's threshold (a batch whose rows all sort after it cannot
	// contribute). It is called from the decoding goroutines, concurrently.
	Skip func(stats []ColumnStats) bool
}

// ScanMetrics say what a scan skipped and decoded so far.
type ScanMetrics struct {
	Batches         int   // in the table snapshot the scan reads
	Skipped         int   // proved empty by statistics, never decoded
	SkippedLate     int   // skipped by ScanOptions.Skip, never decoded
	SkippedLateRows int64 // rows in those
	Decoded         int   // batches whose chunks were decoded
	Rows            int64 // rows returned
	FilteredRows    int64 // rows of decoded batches the row filter dropped
	SkippedRows     int64 // rows in skipped batches
	CompressedBytes int64 // chunk bytes decoded
	DecodedBytes    int64 // Arrow buffer bytes produced
}

// Scan starts reading a table. The scan reads the table as it is now: a
// Put or Drop of the same name while it runs does not change what it
// returns. The caller must Release the scanner.
func (c *Cache) Scan(ctx context.Context, name string, opts ScanOptions) (*Scanner, error) {
	t, err := c.snapshot(name)
	if err != nil {
		return nil, err
	}
	n := t.schema.NumFields()
	cols := opts.Columns
	if cols == nil {
		cols = make([]int, n)
		for i := range cols {
			cols[i] = i
		}
	}
	fields := make([]arrow.Field, len(cols))
	for i, col := range cols {
		if col < 0 || col >= n {
			return nil, fmt.Errorf("cache: table %q: column %d selected, the table has %d", name, col, n)
		}
		fields[i] = t.schema.Field(col)
	}
	if opts.Filter != nil {
		if err := checkPredicate(opts.Filter, n); err != nil {
			return nil, fmt.Errorf("cache: table %q: filter %s: %w", name, opts.Filter, err)
		}
	}
	var tests []rowTest
	if len(opts.Rows) > 0 {
		if tests, err = rowTests(t.schema, opts.Rows); err != nil {
			return nil, fmt.Errorf("cache: table %q: %w", name, err)
		}
		for _, f := range fields {
			if !take.Supported(f.Type) {
				return nil, fmt.Errorf("cache: table %q: column %q of type %s cannot be row-filtered", name, f.Name, f.Type)
			}
		}
		opts.Filter = withRows(opts.Filter, opts.Rows)
	}
	if opts.Concurrency < 0 {
		return nil, fmt.Errorf("cache: table %q: negative scan concurrency %d", name, opts.Concurrency)
	}
	s := &Scanner{t: t, cols: cols, tests: tests, skip: opts.Skip, mem: c.opts.Alloc, concurrency: opts.Concurrency}
	if s.concurrency == 0 {
		s.concurrency = c.opts.Concurrency
	}
	md := t.schema.Metadata()
	s.schema = arrow.NewSchema(fields, &md)
	s.refs.Store(1)
	s.metrics.Batches = len(t.entries)
	for i, e := range t.entries {
		if opts.Filter != nil && CanSkip(opts.Filter, e.stats) {
			s.metrics.Skipped++
			s.metrics.SkippedRows += e.rows
			continue
		}
		s.kept = append(s.kept, i)
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	if s.concurrency > 1 && (len(cols) > 0 || len(tests) > 0) && len(s.kept) > 1 {
		s.start()
	}
	return s, nil
}

// Scanner is a running scan. It is an array.RecordReader: Next, then
// RecordBatch (valid until the next call to Next), then Err at the end.
// Metrics may be read at any time from the goroutine calling Next.
type Scanner struct {
	refs        atomic.Int64
	t           *table
	cols        []int
	tests       []rowTest // the row filter (rowfilter.go)
	skip        func([]ColumnStats) bool
	schema      *arrow.Schema
	mem         memory.Allocator
	concurrency int
	kept        []int // entry indices not skipped, in order

	ctx    context.Context
	cancel context.CancelFunc

	pos     int               // next index into kept (serial scans)
	dec     *chunkDecoder     // serial scans
	order   chan chan decoded // parallel scans: one result per kept entry, in order
	workers sync.WaitGroup

	cur     arrow.RecordBatch
	err     error
	metrics ScanMetrics
}

var _ array.RecordReader = (*Scanner)(nil)

// decoded is one batch decoded by a worker.
type decoded struct {
	rec         arrow.RecordBatch // nil when the row filter left no row, or Skip skipped it
	skippedLate bool              // Skip skipped the batch, of lateRows rows
	lateRows    int64
	compressed  int64
	size        int64
	filtered    int64 // rows the row filter dropped
	err         error
}

// Schema is the schema of the batches: the selected columns.
func (s *Scanner) Schema() *arrow.Schema { return s.schema }

// Metrics returns what the scan skipped and decoded so far.
func (s *Scanner) Metrics() ScanMetrics { return s.metrics }

// RecordBatch returns the current batch.
func (s *Scanner) RecordBatch() arrow.RecordBatch { return s.cur }

// Record returns the current batch.
//
// Deprecated: use RecordBatch.
func (s *Scanner) Record() arrow.RecordBatch { return s.cur }

// Err returns the error that ended the scan, nil at the normal end.
func (s *Scanner) Err() error { return s.err }

// Retain adds a reference.
func (s *Scanner) Retain() { s.refs.Add(1) }

// Release drops a reference; the last one stops the decoding goroutines
// and releases the current batch and any decoded ahead.
func (s *Scanner) Release() {
	if s.refs.Add(-1) != 0 {
		return
	}
	s.stop()
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
}

// Next advances to the next batch. It returns false at the end, on error
// (see Err) and when ctx is cancelled.
func (s *Scanner) Next() bool {
	if s.cur != nil {
		s.cur.Release()
		s.cur = nil
	}
	for {
		d, ok := s.next()
		if !ok {
			return false
		}
		if d.rec != nil { // nil: the row filter left no row
			s.cur = d.rec
			s.metrics.Rows += d.rec.NumRows()
			return true
		}
	}
}

// next decodes, or takes from the workers, the next kept batch.
func (s *Scanner) next() (decoded, bool) {
	var d decoded
	if s.err != nil || s.refs.Load() <= 0 {
		return d, false
	}
	if err := s.ctx.Err(); err != nil {
		s.fail(fmt.Errorf("cache: scan of table %q stopped: %w", s.t.name, err))
		return d, false
	}
	switch {
	case s.order != nil:
		f, ok := <-s.order
		if !ok { // the end, or the producer stopped on cancellation
			if err := s.ctx.Err(); err != nil {
				s.fail(fmt.Errorf("cache: scan of table %q stopped: %w", s.t.name, err))
			}
			return d, false
		}
		select {
		case d = <-f:
		case <-s.ctx.Done():
			// Stop the workers, then release what one may have put in f:
			// f is off s.order, so stop's drain does not see it.
			s.fail(fmt.Errorf("cache: scan of table %q stopped: %w", s.t.name, s.ctx.Err()))
			select {
			case late := <-f:
				if late.rec != nil {
					late.rec.Release()
				}
			default:
			}
			return d, false
		}
	default:
		if s.pos >= len(s.kept) {
			return d, false
		}
		if s.dec == nil {
			s.dec = &chunkDecoder{mem: s.mem}
		}
		d = s.decodeEntry(s.dec, s.kept[s.pos])
		s.pos++
	}
	if d.err != nil {
		s.fail(d.err)
		return d, false
	}
	if d.skippedLate {
		s.metrics.SkippedLate++
		s.metrics.SkippedLateRows += d.lateRows
		return d, true
	}
	if len(s.cols) > 0 || len(s.tests) > 0 {
		s.metrics.Decoded++
		s.metrics.CompressedBytes += d.compressed
		s.metrics.DecodedBytes += d.size
	}
	s.metrics.FilteredRows += d.filtered
	return d, true
}

func (s *Scanner) fail(err error) {
	s.err = err
	s.stop()
}

// decodeEntry decodes the selected columns of entry i.
func (s *Scanner) decodeEntry(dec *chunkDecoder, i int) decoded {
	if e := s.t.entries[i]; s.skip != nil && s.skip(e.stats) {
		return decoded{skippedLate: true, lateRows: e.rows}
	}
	if len(s.tests) > 0 {
		return s.decodeFiltered(dec, i)
	}
	e := s.t.entries[i]
	var chunks [][]byte
	if len(s.cols) > 0 { // count(*) never reads a lazy entry
		var err error
		if chunks, err = e.chunkBytes(); err != nil {
			return decoded{err: s.loadError(i, err)}
		}
	}
	arrs := make([]arrow.Array, 0, len(s.cols))
	defer func() {
		for _, a := range arrs {
			a.Release()
		}
	}()
	var d decoded
	for _, col := range s.cols {
		f := s.t.schema.Field(col)
		arr, err := dec.decode(f.Type, chunks[col], e.decoded[col])
		if err != nil {
			return decoded{err: &ChunkError{Table: s.t.name, Batch: i, Column: f.Name, Err: err}}
		}
		arrs = append(arrs, arr)
		d.compressed += int64(len(chunks[col]))
		d.size += e.decoded[col]
	}
	d.rec = array.NewRecordBatch(s.schema, arrs, e.rows)
	return d
}

// start runs a producer that hands the kept entries to s.concurrency
// workers and queues a one-result channel per entry in s.order, in table
// order; the window of decoded-ahead batches is twice the workers.
func (s *Scanner) start() {
	s.order = make(chan chan decoded, 2*s.concurrency)
	type job struct {
		entry int
		out   chan decoded
	}
	jobs := make(chan job, s.concurrency)
	done := s.ctx.Done()
	s.workers.Add(1 + s.concurrency)
	go func() {
		defer s.workers.Done()
		defer close(s.order)
		defer close(jobs)
		for _, i := range s.kept {
			out := make(chan decoded, 1)
			select {
			case s.order <- out:
			case <-done:
				return
			}
			select {
			case jobs <- job{entry: i, out: out}:
			case <-done:
				return
			}
		}
	}()
	for range s.concurrency {
		go func() {
			defer s.workers.Done()
			dec := &chunkDecoder{mem: s.mem}
			for j := range jobs {
				select {
				case <-done:
					continue
				default:
				}
				j.out <- s.decodeEntry(dec, j.entry)
			}
		}()
	}
}

// stop cancels the goroutines, waits for them and releases the batches
// decoded ahead.
func (s *Scanner) stop() {
	s.cancel()
	if s.order == nil {
		return
	}
	s.workers.Wait()
	for out := range s.order {
		select {
		case d := <-out:
			if d.rec != nil {
				d.rec.Release()
			}
		default:
		}
	}
	s.order = nil
}

// checkPredicate checks that every column p names is one of n.
func checkPredicate(p Predicate, n int) error {
	check := func(col int) error {
		if col < 0 || col >= n {
			return fmt.Errorf("column %d, the table has %d", col, n)
		}
		return nil
	}
	switch p := p.(type) {
	case Cmp:
		return check(p.Col)
	case In:
		return check(p.Col)
	case Between:
		return check(p.Col)
	case IsNull:
		return check(p.Col)
	case IsNotNull:
		return check(p.Col)
	case Prefix:
		return check(p.Col)
	case Not:
		return checkPredicate(p.X, n)
	case And:
		for _, q := range p {
			if err := checkPredicate(q, n); err != nil {
				return err
			}
		}
		return nil
	case Or:
		for _, q := range p {
			if err := checkPredicate(q, n); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown predicate %T", p)
}
