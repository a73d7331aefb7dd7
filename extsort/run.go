package extsort

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/spill"
)

// run is a sorted run on disk: a spill file of BatchRows-row batches in
// key order, and what a merge needs to know to budget for reading it.
type run struct {
	file          *spill.File
	rows          int64
	maxBatchBytes int64 // the largest batch, in memory
	maxKeyBytes   int64 // the keys of the batch with the most key bytes
}

// readBytes is what a merge holds for this run: its current batch and
// keys, the batch before it until the output batch that refers to its
// last rows is built, and the next one, read ahead.
func (r *run) readBytes() int64 { return 3*r.maxBatchBytes + 2*r.maxKeyBytes }

// runWriter writes one run on a goroutine of its own, so that encoding,
// compressing and writing one batch overlaps gathering the next: write
// hands a batch over (one may wait in between) and returns.
type runWriter struct {
	s    *Sorter
	w    *spill.Writer
	run  *run
	ch   chan pendingBatch
	done chan struct{}

	mu        sync.Mutex
	err       error         // the first write error
	spillTime time.Duration // the writer goroutine's until done
}

type pendingBatch struct {
	rec      arrow.RecordBatch
	keyBytes int64
}

func (s *Sorter) newRun() (*runWriter, error) {
	start := time.Now()
	w, err := s.cfg.Spill.NewFile(s.cfg.Owner)
	s.metrics.SpillTime += time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("extsort: starting a run: %w", err)
	}
	rw := &runWriter{s: s, w: w, run: &run{}, ch: make(chan pendingBatch, 1), done: make(chan struct{})}
	go rw.loop()
	return rw, nil
}

func (rw *runWriter) loop() {
	defer close(rw.done)
	for p := range rw.ch {
		if rw.failed() == nil {
			start := time.Now()
			err := rw.w.Write(p.rec)
			rw.spillTime += time.Since(start)
			if err != nil {
				rw.mu.Lock()
				rw.err = fmt.Errorf("extsort: writing run batch of %d rows: %w", p.rec.NumRows(), err)
				rw.mu.Unlock()
			} else {
				rw.run.rows += p.rec.NumRows()
				rw.run.maxBatchBytes = max(rw.run.maxBatchBytes, arrowsize.Record(p.rec))
				rw.run.maxKeyBytes = max(rw.run.maxKeyBytes, p.keyBytes)
			}
		}
		p.rec.Release()
	}
}

func (rw *runWriter) failed() error {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	return rw.err
}

// write takes rec (and the caller's reference to it) for the run;
// keyBytes is what its keys take in memory. It fails with the error of an
// earlier batch, if any.
func (rw *runWriter) write(rec arrow.RecordBatch, keyBytes int64) error {
	if err := rw.failed(); err != nil {
		rec.Release()
		return err
	}
	rw.ch <- pendingBatch{rec, keyBytes}
	return nil
}

// wait stops the goroutine once it has written what it was given.
func (rw *runWriter) wait() {
	close(rw.ch)
	<-rw.done
	rw.s.metrics.SpillTime += rw.spillTime
}

func (rw *runWriter) finish() (*run, error) {
	rw.wait()
	if err := rw.failed(); err != nil {
		rw.w.Abort()
		return nil, err
	}
	start := time.Now()
	f, err := rw.w.Finish()
	m := rw.s.metrics
	m.SpillTime += time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("extsort: finishing a run: %w", err)
	}
	rw.run.file = f
	m.SpillFiles++
	m.SpilledBytes += f.Bytes()
	m.SpilledRows += rw.run.rows
	return rw.run, nil
}

func (rw *runWriter) abort() {
	rw.wait()
	rw.w.Abort()
}

// spillBuffer sorts the buffer and writes it as runs (two, unless the
// scratch of one sort of all of it fits), then drops it.
func (s *Sorter) spillBuffer(ctx context.Context) error {
	for len(s.buf.batches) > 0 {
		if err := s.spillOldest(ctx); err != nil {
			return err
		}
	}
	return nil
}

// spillBatches sorts the buffer's first n batches and writes them as a run
// (their first Limit rows with a Limit: no later row of the run can be
// among the first Limit of the whole sort), then drops them.
func (s *Sorter) spillBatches(ctx context.Context, n int) error {
	pool := s.buf.shared // the whole buffer's shares: one sort at a time
	old := s.buf.split(n)
	defer func() {
		s.acct.shrink(old.bytes)
		old.release()
	}()
	sc, err := s.sortBatches(old.batches, s.cfg.Limit, pool)
	if err != nil {
		return err
	}
	defer s.drop(sc)
	rw, err := s.newRun()
	if err != nil {
		return err
	}
	c := chunks{items: sc.items, n: s.runBatchRows(old)}
	for c.next() {
		if err := ctx.Err(); err != nil {
			rw.abort()
			return err
		}
		rec, err := c.g.Record(s.cfg.Mem, s.schema, old.batches, s.cfg.Workers)
		if err != nil {
			rw.abort()
			return err
		}
		if err := rw.write(rec, sc.keyBytes(c.g.segs)); err != nil {
			rw.abort()
			return err
		}
	}
	r, err := rw.finish()
	if err != nil {
		return err
	}
	s.runs = append(s.runs, r)
	s.metrics.Runs++
	return nil
}

// runBatchRows is the rows of each batch of a run written from b: BatchRows,
// fewer when batches that large would leave a merge within the memory
// limit room for fewer than mergeTarget runs (a merge holds about four
// batches' worth per run: see run.readBytes).
func (s *Sorter) runBatchRows(b buffer) int {
	const mergeTarget = 32
	if b.rows == 0 {
		return s.cfg.BatchRows
	}
	memory := s.acct.used + s.acct.b.Available()
	rows := memory / (4 * mergeTarget) / max((b.bytes-b.shared)/b.rows, 1)
	return int(min(max(rows, minRunBatchRows), int64(s.cfg.BatchRows)))
}

// minRunBatchRows bounds how small runBatchRows makes batches: smaller,
// their headers and per-batch compression cost more than the fan-in saves.
const minRunBatchRows = 64

// removeRuns deletes the runs' files. Errors are dropped: a file that
// cannot be removed now goes with the Manager's folder.
func (s *Sorter) removeRuns(runs []*run) {
	for _, r := range runs {
		if r != nil && r.file != nil {
			_ = r.file.Remove()
		}
	}
}
