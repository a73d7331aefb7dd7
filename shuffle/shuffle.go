package shuffle

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// ErrClosed: the Shuffle was closed (its query ended, failed or was
// cancelled) and its files are gone.
var ErrClosed = errors.New("shuffle: closed")

// Config configures a Shuffle.
type Config struct {
	Maps, Partitions int
	Writer           WriterOptions
	Status           StatusConfig
	// StatusCodec serializes the statuses. The zero value is none.
	StatusCodec codec.Setting
}

// Shuffle is one exchange of one query in one process: Maps map tasks
// each write a MapOutput of Partitions blocks (NewMapWriter, then
// FinishMap, which registers its MapStatus), and reduce tasks read
// ranges of partitions from ranges of maps (Read), as the adaptive
// decisions plan them from Statuses. Close — called by the query when it
// ends or fails, and by the context when it is cancelled — aborts the
// writers still open and removes every file. Safe for concurrent use;
// each MapWriter belongs to its task's goroutine.
type Shuffle struct {
	m        *spill.Manager
	id       string
	schema   *arrow.Schema
	cfg      Config
	statuses *ShuffleStatuses
	stop     func() bool

	mu      sync.Mutex
	closed  bool
	outputs []*MapOutput
	writers map[*MapWriter]struct{}
}

// New starts a shuffle whose files live under m. id names its files
// (a query id and an operator). When ctx is cancelled the shuffle closes.
func New(ctx context.Context, m *spill.Manager, id string, schema *arrow.Schema, cfg Config) (*Shuffle, error) {
	if err := cfg.Status.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Writer.Validate(); err != nil {
		return nil, err
	}
	st, err := NewShuffleStatuses(cfg.Maps, cfg.Partitions, cfg.StatusCodec)
	if err != nil {
		return nil, err
	}
	s := &Shuffle{m: m, id: id, schema: schema, cfg: cfg, statuses: st,
		outputs: make([]*MapOutput, cfg.Maps), writers: make(map[*MapWriter]struct{})}
	s.stop = context.AfterFunc(ctx, func() { _ = s.Close() })
	return s, nil
}

// Statuses returns the registered map statuses.
func (s *Shuffle) Statuses() *ShuffleStatuses { return s.statuses }

// AddMap adds a map task to the shuffle and returns its number, for map
// stages whose tasks are cut as the input comes (the engine's grace hash
// join starts a new map output every so many bytes a writer has written,
// so that a skewed partition can be split by map ranges), whose count is
// not known when the shuffle starts: Config.Maps is the tasks it starts
// with.
func (s *Shuffle) AddMap() (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, ErrClosed
	}
	s.outputs = append(s.outputs, nil)
	return s.statuses.AddMap(), nil
}

// NewMapWriter starts map task m's output.
func (s *Shuffle) NewMapWriter(m int) (*MapWriter, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m < 0 || m >= len(s.outputs) {
		return nil, fmt.Errorf("shuffle %s: map %d of %d", s.id, m, len(s.outputs))
	}
	if s.closed {
		return nil, ErrClosed
	}
	w, err := NewMapWriter(s.m, fmt.Sprintf("%s-map%d", s.id, m), s.schema, s.cfg.Partitions, s.cfg.Writer)
	if err != nil {
		return nil, err
	}
	s.writers[w] = struct{}{}
	w.onDone = func() {
		s.mu.Lock()
		delete(s.writers, w)
		s.mu.Unlock()
	}
	return w, nil
}

// FinishMap finishes map task m's writer and registers its output and
// status (its location is the file's path). A map run again replaces its
// earlier output, which is removed.
func (s *Shuffle) FinishMap(m int, w *MapWriter) (*MapStatus, error) {
	out, err := w.Finish()
	if err != nil {
		return nil, err
	}
	st := NewMapStatus(out.Path(), int64(m), out.Sizes(), s.cfg.Status)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = out.Remove() // Close ran while the writer finished
		return nil, ErrClosed
	}
	if old := s.outputs[m]; old != nil {
		_ = old.Remove() // replaced by a retry; readers of it see an error
	}
	s.outputs[m] = out
	if err := s.statuses.Register(m, st); err != nil {
		return nil, err
	}
	return st, nil
}

// Output returns map task m's output, nil until it has finished.
func (s *Shuffle) Output(m int) *MapOutput {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m < 0 || m >= len(s.outputs) {
		return nil
	}
	return s.outputs[m]
}

// Read returns a reader of partitions [parts.Start, parts.End) of maps
// [maps.Start, maps.End): partition after partition, map after map,
// skipping the blocks whose status says they are empty (they are not
// read at all). Every map in the range must have finished.
func (s *Shuffle) Read(ctx context.Context, parts PartitionRange, maps MapRange, opts ReadOptions) (*BlockReader, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if parts.Start < 0 || parts.End > s.cfg.Partitions || maps.Start < 0 || maps.End > len(s.outputs) {
		return nil, fmt.Errorf("shuffle %s: partitions %d..%d of %d, maps %d..%d of %d", s.id, parts.Start, parts.End, s.cfg.Partitions, maps.Start, maps.End, len(s.outputs))
	}
	var blocks []Block
	for p := parts.Start; p < parts.End; p++ {
		for m := maps.Start; m < maps.End; m++ {
			out := s.outputs[m]
			if out == nil {
				return nil, fmt.Errorf("shuffle %s: map %d has no output", s.id, m)
			}
			if out.sizes[p] > 0 {
				blocks = append(blocks, Block{Output: out, Partition: p})
			}
		}
	}
	if len(blocks) == 0 {
		if parts.Start >= parts.End || maps.Start >= maps.End {
			return nil, fmt.Errorf("shuffle %s: empty range: partitions %d..%d, maps %d..%d", s.id, parts.Start, parts.End, maps.Start, maps.End)
		}
		// Every block is empty: one of them gives the reader its schema
		// and is skipped without a read.
		blocks = append(blocks, Block{Output: s.outputs[maps.Start], Partition: parts.Start})
	}
	return ReadBlocks(ctx, blocks, opts)
}

// Close aborts the writers still open and removes every map output file.
// Readers still open fail or read on as the operating system allows
// (Unix keeps an open file). It is idempotent.
func (s *Shuffle) Close() error {
	s.stop()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	writers := make([]*MapWriter, 0, len(s.writers))
	for w := range s.writers {
		writers = append(writers, w)
	}
	outputs := s.outputs
	s.mu.Unlock()
	for _, w := range writers {
		w.Abort() // waits for a Write in progress
	}
	var errs []error
	for _, o := range outputs {
		if o != nil {
			errs = append(errs, o.Remove())
		}
	}
	return errors.Join(errs...)
}
