package cache

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
)

// DefaultBudget is the budget of a cache whose Options leave it zero.
const DefaultBudget = 1 << 30

// Errors. Scan failures on stored bytes match ErrCorrupt and are a
// *ChunkError naming table, batch and column.
var (
	ErrNotFound = errors.New("cache: no such table")
	ErrBudget   = errors.New("cache: over budget")
	ErrCorrupt  = errors.New("cache: corrupt entry")
	ErrClosed   = errors.New("cache: scanner released")
)

// Options configure a Cache. Zero fields take the defaults given.
type Options struct {
	// Budget is the most compressed bytes the cache holds, summed over
	// its tables' column chunks; default DefaultBudget. Chunks of
	// restored tables (Restore) are read into it on first use and dropped
	// to make room, so those may be bigger than it (evict.go).
	Budget int64
	// Codec is the setting of tables whose TableOptions leave it zero;
	// default Auto.
	Codec CodecSetting
	// Concurrency is the default number of goroutines a Put encodes and a
	// Scan decodes on; default GOMAXPROCS.
	Concurrency int
	// Alloc allocates the buffers of the batches scans return; default a
	// recycling allocator over Go memory (recycle.go) that reuses the
	// buffers of released batches.
	Alloc memory.Allocator
}

// TableOptions configure one Put. Zero fields take the cache's defaults.
type TableOptions struct {
	Codec       CodecSetting
	Concurrency int
	// Plain turns the encodings off (every buffer goes to the codec as
	// it is), for measuring what they are worth.
	Plain bool
	// Encoded, when set, is called once per batch with its chunks, in
	// batch order, as soon as the batch and every one before it are
	// encoded: a durable store writes them while later batches encode
	// (package store). It is called with the put's lock held, so it must
	// only queue them; the chunks are the Change's and must not be
	// modified.
	Encoded func(batch int, chunks [][]byte)
	// Coalesce, for an Append of fewer rows than it, merges the new rows
	// with the table's trailing small batches into one batch of at most
	// Coalesce rows, replacing them (coalesce.go), so that many small
	// appends do not leave a batch each; 0: every Append adds its batches.
	Coalesce int
}

// Cache holds named tables as compressed batches within a budget. All
// methods are safe for concurrent use.
type Cache struct {
	opts Options

	mu     sync.RWMutex
	tables map[string]*table

	// used counts the chunk bytes of visible tables plus those reserved
	// by puts in progress; it never passes opts.Budget. Restored batches
	// count while their chunks are held (evict.go).
	used  atomic.Int64
	evict evictQueue
}

// New returns an empty cache.
func New(opts Options) (*Cache, error) {
	if opts.Budget < 0 {
		return nil, fmt.Errorf("cache: negative budget %d", opts.Budget)
	}
	if opts.Concurrency < 0 {
		return nil, fmt.Errorf("cache: negative concurrency %d", opts.Concurrency)
	}
	if opts.Budget == 0 {
		opts.Budget = DefaultBudget
	}
	if opts.Codec.IsZero() {
		opts.Codec = Auto
	}
	if !opts.Codec.Auto {
		if err := opts.Codec.Setting.Validate(); err != nil {
			return nil, fmt.Errorf("cache: default codec: %w", err)
		}
	}
	if opts.Concurrency == 0 {
		opts.Concurrency = runtime.GOMAXPROCS(0)
	}
	if opts.Alloc == nil {
		opts.Alloc = defaultRecycler
	}
	return &Cache{opts: opts, tables: map[string]*table{}}, nil
}

// Budget returns the cache's budget in compressed bytes.
func (c *Cache) Budget() int64 { return c.opts.Budget }

// Used returns the compressed bytes held by visible tables and reserved by
// puts in progress.
func (c *Cache) Used() int64 { return c.used.Load() }

// Tables returns the names of the tables held, sorted.
func (c *Cache) Tables() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	names := make([]string, 0, len(c.tables))
	for name := range c.tables {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Drop removes a table and returns whether it was there. Scans already
// started on it finish reading what they started with.
func (c *Cache) Drop(name string) bool {
	c.mu.Lock()
	t, ok := c.tables[name]
	delete(c.tables, name)
	c.mu.Unlock()
	if ok {
		c.used.Add(-t.held())
		c.forget(t)
	}
	return ok
}

// snapshot returns the table visible under name now.
func (c *Cache) snapshot(name string) (*table, error) {
	c.mu.RLock()
	t, ok := c.tables[name]
	c.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, name)
	}
	return t, nil
}

// Info returns a table's schema, size and per-column footprint.
func (c *Cache) Info(name string) (TableInfo, error) {
	t, err := c.snapshot(name)
	if err != nil {
		return TableInfo{}, err
	}
	return t.info(), nil
}

// TableInfo describes a cached table. Compressed counts the bytes the
// table's column chunks hold (what the budget counts); Decoded the bytes
// of the Arrow buffers a full scan produces, the same under every codec:
// it is the table's size for planning.
type TableInfo struct {
	Name       string
	Schema     *arrow.Schema
	Codec      CodecSetting // as set; Columns say what Auto chose
	Rows       int64
	Batches    int
	Compressed int64
	Decoded    int64
	Columns    []ColumnInfo
	// Generation is new with every Put, Append and Restore of the table
	// (never 0): a writer that keeps its own record of a table, like
	// package store, checks with it that no one else changed the table.
	Generation uint64
}

// ColumnInfo is one column's footprint and storage.
type ColumnInfo struct {
	Name  string
	Type  arrow.DataType
	Nulls int64
	// Distinct estimates the column's distinct non-null values; -1 when
	// unknown (see ColumnSummary, which Stats gives with the bounds).
	Distinct   int64
	Compressed int64
	Decoded    int64
	// Codec is the codec the column's chunks use (Auto's choice, or the
	// table's setting).
	Codec codec.Setting
	// Encoding says how values reach the codec: "plain", "delta", "for"
	// (with batch counts when they differ, e.g. "delta 610, plain 1"),
	// "lengths" for string offsets, "ipc" for types stored as Arrow IPC.
	Encoding string
	// Dictionary says what was done with dictionary-encoded input:
	// "kept" or "decoded"; empty for other columns.
	Dictionary string
}

// Ratio returns Decoded/Compressed, or 0 for an empty table.
func (t TableInfo) Ratio() float64 {
	if t.Compressed == 0 {
		return 0
	}
	return float64(t.Decoded) / float64(t.Compressed)
}
