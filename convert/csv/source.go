package csv

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/convert/internal/column"
)

// NewReader reads CSV from r as batches of opts.Convert.BatchRows rows.
// It reads the header and, without a schema, a sample to infer one,
// before it returns.
func NewReader(r io.Reader, opts Options) (*convert.Reader, error) {
	src, err := NewSource(r, opts)
	if err != nil {
		return nil, err
	}
	return convert.NewReader(src, opts.Convert)
}

// Source is CSV input for a convert.Reader. It hands the Reader one
// batch per chunk of input, parsed on Options.Concurrency goroutines
// and handed over in input order.
type Source struct {
	opts    Options
	schema  *arrow.Schema
	parsers []parser
	tok     tokenizer
	ctx     parseCtx // the chunk-independent part
	sp      *splitter

	// sequential
	state *state

	// parallel
	started bool
	order   chan *job
	jobs    chan *job
	free    chan *state
	quit    chan struct{}
	wg      sync.WaitGroup
	mu      sync.Mutex
	states  []*state // every state made, to release

	parseNanos atomic.Int64
	skipped    int64
	kept       []*ParseError
	failed     error
}

// state is a chunk's scratch: its fields and a builder per column, used
// in reuse mode (the batch a chunk gives shares their buffers, and is
// released before they are written again).
type state struct {
	f    fields
	cols []column.Builder
}

type job struct {
	ch   *chunk
	err  error
	res  result
	done chan struct{}
}

type result struct {
	st      *state
	rec     arrow.RecordBatch
	skipped int64
	errs    []*ParseError
	err     error
}

// NewSource reads the header and, without Options.Schema, samples the
// input to infer the schema.
func NewSource(r io.Reader, opts Options) (*Source, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	s := &Source{opts: opts, sp: newSplitter(r, opts.ChunkBytes, opts.MaxRecordBytes)}
	s.tok = tokenizer{comma: opts.Comma, special: newSpecial(opts.Comma), skip: opts.SkipMalformed}
	s.ctx = parseCtx{tokens: opts.NullTokens, stringsNull: !opts.StringsNeverNull, skip: opts.SkipMalformed}
	for _, t := range opts.NullTokens {
		s.ctx.emptyNull = s.ctx.emptyNull || t == ""
		s.ctx.maxTok = max(s.ctx.maxTok, len(t))
	}
	var names []string
	if !opts.NoHeader {
		var err error
		if names, err = s.header(); err != nil {
			return nil, err
		}
	}
	var types []arrow.DataType
	if opts.Schema != nil {
		if names != nil && len(names) != opts.Schema.NumFields() {
			return nil, fmt.Errorf("csv: %w: the header has %d fields, the schema %d", convert.ErrSchema, len(names), opts.Schema.NumFields())
		}
		s.schema = opts.Schema
	} else {
		var err error
		if types, err = s.infer(len(names)); err != nil {
			return nil, err
		}
		fields := make([]arrow.Field, len(types))
		for i, t := range types {
			name := fmt.Sprintf("c%d", i+1)
			if names != nil && names[i] != "" {
				name = names[i]
			}
			fields[i] = arrow.Field{Name: name, Type: t, Nullable: true}
		}
		s.schema = arrow.NewSchema(fields, nil)
	}
	for i, f := range s.schema.Fields() {
		p, err := parserFor(f.Type)
		if err != nil {
			return nil, fmt.Errorf("csv: column %d (%s): %w", i+1, f.Name, err)
		}
		s.parsers = append(s.parsers, p)
		s.tok.names = append(s.tok.names, f.Name)
	}
	s.ctx.names = s.tok.names
	return s, nil
}

// header reads the first record as the column names.
func (s *Source) header() ([]string, error) {
	ch, err := s.sp.next()
	if err == io.EOF {
		return nil, &ParseError{Line: 1, Err: fmt.Errorf("%w: empty input, no header line", convert.ErrMalformed)}
	}
	if err != nil {
		return nil, err
	}
	s.sp.pending = append(s.sp.pending, ch)
	p, line := 0, ch.line
	for p < len(ch.data) && (ch.data[p] == '\n' || ch.data[p] == '\r' && p+1 < len(ch.data) && ch.data[p+1] == '\n') {
		if ch.data[p] == '\r' {
			p++
		}
		p, line = p+1, line+1
	}
	if p == len(ch.data) {
		return nil, &ParseError{Line: line, Err: fmt.Errorf("%w: empty input, no header line", convert.ErrMalformed)}
	}
	var f fields
	f.reset(s.opts.MaxColumns)
	end, next, perr := s.tok.record(ch.data, p, line, &f)
	if perr != nil {
		return nil, perr
	}
	if len(f.pos)/2 > s.opts.MaxColumns {
		return nil, &ParseError{Line: line, Err: fmt.Errorf("%w: more than %d columns (MaxColumns)", convert.ErrLimit, s.opts.MaxColumns)}
	}
	names := make([]string, len(f.pos)/2)
	for i := range names {
		names[i] = string(ch.data[f.pos[2*i]:f.pos[2*i+1]])
	}
	ch.data, ch.line = ch.data[end:], next
	return names, nil
}

// sampleBytes bounds the input read ahead for inference.
const sampleBytes = 16 << 20

// infer samples the first InferRows well-formed records (within the
// first sampleBytes of data, cut at a record end, so that the sample
// does not depend on how the input was chunked) and returns the column
// types. ncols is the header's field count, or 0 to take the first
// record's.
func (s *Source) infer(ncols int) ([]arrow.DataType, error) {
	var sample []byte
	line0 := int64(-1)
	tok := s.tok
	tok.skip = true
	var f fields
	eof, cut := false, false
	for i := 0; !cut || ncols == 0; i++ {
		if cut {
			break
		}
		if i < len(s.sp.pending) {
			ch := s.sp.pending[i]
			if line0 < 0 {
				line0 = ch.line
			}
			sample = append(sample, ch.data...)
		} else if !eof && len(sample) < sampleBytes {
			ch, err := s.sp.read()
			if err == io.EOF {
				eof = true
				continue
			}
			if err != nil {
				return nil, err
			}
			s.sp.pending = append(s.sp.pending, ch)
			if line0 < 0 {
				line0 = ch.line
			}
			sample = append(sample, ch.data...)
		} else {
			break
		}
		if len(sample) > sampleBytes {
			if end := lastRecordEnd(sample[:sampleBytes]); end > 0 {
				sample = sample[:end]
			}
			cut = true
		}
		if ncols == 0 {
			var err error
			if ncols, err = s.firstRecordFields(sample, line0); err != nil || ncols == 0 {
				if err != nil {
					return nil, err
				}
				if eof {
					break
				}
				continue
			}
		}
		f.reset(ncols)
		tok.tokenize(slices.Clone(sample), line0, &f)
		if f.rows >= s.opts.InferRows || cut {
			break
		}
	}
	if ncols == 0 {
		return nil, &ParseError{Line: max(line0, 1), Err: fmt.Errorf("%w: no records to infer the schema from", convert.ErrMalformed)}
	}
	data := slices.Clone(sample)
	f.reset(ncols)
	tok.tokenize(data, line0, &f)
	f.rows = min(f.rows, s.opts.InferRows)
	x := s.ctx
	x.data, x.f = data, &f
	return infer(&x, ncols, s.opts.InferDecimal), nil
}

// firstRecordFields counts the fields of the first record of sample (0
// when it has none yet).
func (s *Source) firstRecordFields(sample []byte, line int64) (int, error) {
	p := 0
	for p < len(sample) && (sample[p] == '\n' || sample[p] == '\r') {
		p++
	}
	if p == len(sample) {
		return 0, nil
	}
	var f fields
	f.reset(s.opts.MaxColumns)
	if _, _, perr := s.tok.record(slices.Clone(sample), p, line, &f); perr != nil {
		return 0, perr
	}
	if n := len(f.pos) / 2; n <= s.opts.MaxColumns {
		return n, nil
	}
	return 0, &ParseError{Line: line, Err: fmt.Errorf("%w: more than %d columns (MaxColumns)", convert.ErrLimit, s.opts.MaxColumns)}
}

// Schema is the schema of the batches.
func (s *Source) Schema() *arrow.Schema { return s.schema }

// Skipped returns the errors of the first KeepErrors skipped records,
// in input order (skip mode).
func (s *Source) Skipped() []*ParseError { return s.kept }

// Stats reports bytes read, time reading (PullTime), time parsing
// (ConvertTime, summed over goroutines) and skipped records.
func (s *Source) Stats() convert.Stats {
	return convert.Stats{
		InputBytes:  s.sp.bytesRead.Load(),
		PullTime:    time.Duration(s.sp.readNanos.Load()),
		ConvertTime: time.Duration(s.parseNanos.Load()),
		SkippedRows: s.skipped,
	}
}

// Fill appends parsed chunks to c until it has a batch ready.
func (s *Source) Fill(c *convert.Coalescer) error {
	if s.failed != nil {
		return s.failed
	}
	for c.Ready() == 0 {
		res, err := s.next()
		if err != nil {
			if err != io.EOF {
				s.failed = err
			}
			return err
		}
		var aerr error
		if res.rec != nil {
			aerr = c.Append(res.rec)
			res.rec.Release()
		}
		s.recycle(res.st)
		s.skipped += res.skipped
		for _, e := range res.errs {
			if len(s.kept) < s.opts.KeepErrors {
				s.kept = append(s.kept, e)
			}
		}
		if res.err != nil {
			s.failed = res.err
			return res.err
		}
		if aerr != nil {
			s.failed = aerr
			return aerr
		}
	}
	return nil
}

// next returns the next chunk's result.
func (s *Source) next() (result, error) {
	if s.opts.Concurrency <= 1 {
		ch, err := s.sp.next()
		if err != nil {
			return result{}, err
		}
		if s.state == nil {
			s.state = s.newState()
		}
		return s.process(ch, s.state), nil
	}
	if !s.started {
		s.start()
	}
	j, ok := <-s.order
	if !ok {
		return result{}, io.EOF
	}
	if j.err != nil {
		return result{}, j.err
	}
	<-j.done
	return j.res, nil
}

func (s *Source) newState() *state {
	st := &state{}
	for _, f := range s.schema.Fields() {
		b, err := column.New(f.Type, s.opts.Convert.Alloc, 1)
		if err != nil {
			panic(err) // parserFor accepted the type
		}
		st.cols = append(st.cols, b)
	}
	s.mu.Lock()
	s.states = append(s.states, st)
	s.mu.Unlock()
	return st
}

func (s *Source) recycle(st *state) {
	if st == nil {
		return
	}
	for _, b := range st.cols {
		b.Reset()
	}
	if s.free != nil {
		s.free <- st
	}
}

// process tokenizes and parses one chunk into a batch.
func (s *Source) process(ch *chunk, st *state) result {
	t0 := time.Now()
	defer func() { s.parseNanos.Add(int64(time.Since(t0))) }()
	defer s.sp.put(ch)
	f := &st.f
	f.reset(len(s.parsers))
	s.tok.tokenize(ch.data, ch.line, f)
	x := s.ctx
	x.data, x.f = ch.data, f
	colErrs := s.parseAll(st, &x)
	res := result{st: st}
	if s.opts.SkipMalformed {
		if len(colErrs) > 0 {
			bad := make([]int, 0, len(colErrs))
			for _, e := range colErrs {
				bad = append(bad, e.row)
			}
			slices.Sort(bad)
			bad = slices.Compact(bad)
			f.drop(bad)
			for _, b := range st.cols {
				b.Reset()
			}
			if errs := s.parseAll(st, &x); len(errs) > 0 {
				panic(fmt.Sprintf("csv: rows still bad after dropping the bad rows: %v", errs[0].err))
			}
			res.skipped += int64(len(bad))
		}
		res.skipped += int64(len(f.errs))
		all := append(slices.Clone(f.errs), colErrs...)
		slices.SortFunc(all, func(a, b rowError) int {
			return cmp.Or(cmp.Compare(a.err.Line, b.err.Line), cmp.Compare(a.err.Column, b.err.Column))
		})
		for _, e := range all {
			if len(res.errs) == s.opts.KeepErrors {
				break
			}
			if len(res.errs) > 0 && res.errs[len(res.errs)-1].Line == e.err.Line {
				continue // one error per record
			}
			res.errs = append(res.errs, e.err)
		}
	} else {
		first := append(slices.Clone(f.errs), colErrs...)
		if len(first) > 0 {
			e := slices.MinFunc(first, func(a, b rowError) int {
				return cmp.Or(cmp.Compare(a.row, b.row), cmp.Compare(a.err.Column, b.err.Column))
			})
			f.rows = e.row
			for _, b := range st.cols {
				b.Truncate(e.row)
			}
			res.err = e.err
		}
	}
	if f.rows > 0 {
		arrs := make([]arrow.Array, len(st.cols))
		for i, b := range st.cols {
			data := b.Snapshot()
			arrs[i] = array.MakeFromData(data)
			data.Release()
		}
		res.rec = array.NewRecordBatch(s.schema, arrs, int64(f.rows))
		for _, a := range arrs {
			a.Release()
		}
	}
	return res
}

func (s *Source) parseAll(st *state, x *parseCtx) []rowError {
	var errs []rowError
	for i, p := range s.parsers {
		errs = append(errs, p(st.cols[i], x, i)...)
	}
	return errs
}

// drop removes rows (sorted) from f.
func (f *fields) drop(rows []int) {
	w, k := 0, 0
	for r := range f.rows {
		if k < len(rows) && rows[k] == r {
			k++
			continue
		}
		copy(f.pos[2*w*f.ncols:], f.pos[2*r*f.ncols:2*(r+1)*f.ncols])
		f.lines[w] = f.lines[r]
		w++
	}
	f.rows = w
	f.pos, f.lines = f.pos[:2*w*f.ncols], f.lines[:w]
}

// start runs the pipeline: one goroutine cuts chunks and queues them in
// input order; Concurrency goroutines parse them; next takes results in
// that order. At most cap(order) chunks are in flight, and states are
// bounded to match, so memory stays bounded whatever the input.
func (s *Source) start() {
	s.started = true
	n := s.opts.Concurrency
	s.order = make(chan *job, 2*n)
	s.jobs = make(chan *job, n)
	s.free = make(chan *state, 2*n+4)
	s.quit = make(chan struct{})
	for range 2*n + 4 {
		s.free <- nil // a token: nil means make a new state
	}
	s.wg.Add(1 + n)
	go s.split()
	for range n {
		go s.work()
	}
}

func (s *Source) split() {
	defer s.wg.Done()
	defer close(s.jobs)
	defer close(s.order)
	for {
		ch, err := s.sp.next()
		if err == io.EOF {
			return
		}
		j := &job{ch: ch, err: err, done: make(chan struct{})}
		select {
		case s.order <- j:
		case <-s.quit:
			return
		}
		if err != nil {
			return
		}
		select {
		case s.jobs <- j:
		case <-s.quit:
			return
		}
	}
}

func (s *Source) work() {
	defer s.wg.Done()
	for {
		var j *job
		select {
		case <-s.quit:
			return
		case jj, ok := <-s.jobs:
			if !ok {
				return
			}
			j = jj
		}
		var st *state
		select {
		case <-s.quit:
			return
		case st = <-s.free:
		}
		if st == nil {
			st = s.newState()
		}
		j.res = s.process(j.ch, st)
		close(j.done)
	}
}

// Release stops the goroutines and frees every buffer.
func (s *Source) Release() {
	if s.started {
		close(s.quit)
		s.wg.Wait()
		for j := range s.order {
			select {
			case <-j.done:
				if j.res.rec != nil {
					j.res.rec.Release()
				}
			default:
			}
		}
		s.started = false
	}
	s.mu.Lock()
	for _, st := range s.states {
		for _, b := range st.cols {
			b.Release()
		}
	}
	s.states = nil
	s.mu.Unlock()
}
