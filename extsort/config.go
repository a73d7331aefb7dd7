package extsort

import (
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/spill"
)

// Errors match these sentinels with errors.Is (spill errors, such as
// spill.ErrQuota, come through wrapped and match their own).
var (
	// ErrMemory: the rows do not fit in memory and there is no spill
	// Manager to spill them to (a *MemoryError says how much was held
	// and needed), or one batch alone is larger than the whole limit.
	ErrMemory = errors.New("extsort: memory limit passed")
	// ErrInput: a batch does not match the sorter's schema, or a key
	// names a column that does not exist or cannot be ordered.
	ErrInput = errors.New("extsort: bad input")
	// ErrTooLarge: one output batch would hold more string bytes than its
	// offsets can address (2 GiB for utf8 and binary); lower BatchRows.
	ErrTooLarge = errors.New("extsort: output batch too large")
)

// Key is one ORDER BY key: a column of the input, its direction and where
// its NULLs go. The zero value orders column 0 ASC NULLS LAST.
type Key struct {
	Col        int
	Desc       bool
	NullsFirst bool
}

// Defaults of Config fields left zero.
const (
	DefaultMemoryLimit  = 256 << 20
	DefaultBatchRows    = 8192
	DefaultMaxOpenFiles = 64
)

// Config configures a Sorter. Zero fields take the defaults given.
type Config struct {
	// Keys are the ORDER BY keys, first to last; at least one.
	Keys []Key
	// MemoryLimit bounds what the sorter holds: buffered batches, their
	// keys and sort items, and the read buffers of a merge. Default
	// DefaultMemoryLimit. Ignored when Budget is set.
	MemoryLimit int64
	// Budget, when set, is where the sorter accounts its memory instead
	// of its own MemoryLimit: a query shares one among its operators.
	Budget Budget
	// Spill is where sorted runs go when the input passes memory. nil:
	// the sort never spills and fails with ErrMemory instead.
	Spill *spill.Manager
	// Owner names the sort's spill files (a query id); default "sort".
	Owner string
	// Mem allocates the sorted batches; default memory.DefaultAllocator.
	Mem memory.Allocator
	// BatchRows is the rows of each output batch and of each batch of a
	// spilled run; default DefaultBatchRows.
	BatchRows int
	// Workers is how many goroutines gather the columns of a sorted batch;
	// default GOMAXPROCS. (Runs are also written, and read ahead, on
	// goroutines of their own.)
	Workers int
	// MaxOpenFiles bounds the runs one merge reads at once (its fan-in);
	// default DefaultMaxOpenFiles, at least 2. More runs than that, or
	// than the memory limit has read buffers for, are merged in several
	// passes.
	MaxOpenFiles int
	// Limit, when positive, keeps only the first Limit rows (ORDER BY …
	// LIMIT k): a top-k that holds O(k) rows and spills only when k rows
	// do not fit in memory. Zero or negative: every row.
	Limit int64
}

// Validate reports a field outside its documented range.
func (c Config) Validate() error {
	switch {
	case len(c.Keys) == 0:
		return fmt.Errorf("%w: no sort keys", ErrInput)
	case c.MemoryLimit < 0:
		return fmt.Errorf("extsort: MemoryLimit %d is negative", c.MemoryLimit)
	case c.BatchRows < 0:
		return fmt.Errorf("extsort: BatchRows %d is negative", c.BatchRows)
	case c.Workers < 0:
		return fmt.Errorf("extsort: Workers %d is negative", c.Workers)
	case c.MaxOpenFiles < 0 || c.MaxOpenFiles == 1:
		return fmt.Errorf("extsort: MaxOpenFiles %d: a merge needs at least 2", c.MaxOpenFiles)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.MemoryLimit == 0 {
		c.MemoryLimit = DefaultMemoryLimit
	}
	if c.Budget == nil {
		c.Budget = NewBudget(c.MemoryLimit)
	}
	if c.Owner == "" {
		c.Owner = "sort"
	}
	if c.Mem == nil {
		c.Mem = memory.DefaultAllocator
	}
	if c.BatchRows == 0 {
		c.BatchRows = DefaultBatchRows
	}
	if c.MaxOpenFiles == 0 {
		c.MaxOpenFiles = DefaultMaxOpenFiles
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	return c
}

// Budget is memory shared by whoever holds it: the sorter asks before it
// buffers more, and spills when the answer is no.
type Budget interface {
	// TryGrow reserves n bytes if they fit and reports whether it did.
	TryGrow(n int64) bool
	// Grow reserves n bytes whether they fit or not: what the sort cannot
	// do without (one batch being written, the read buffers of a merge).
	Grow(n int64)
	// Shrink gives n bytes back.
	Shrink(n int64)
	// Available is the bytes that still fit (negative when over).
	Available() int64
}

// NewBudget returns a Budget of limit bytes, safe for concurrent use.
func NewBudget(limit int64) Budget { return &budget{limit: limit} }

type budget struct {
	limit int64
	used  atomic.Int64
}

func (b *budget) TryGrow(n int64) bool {
	if b.used.Add(n) > b.limit {
		b.used.Add(-n)
		return false
	}
	return true
}

func (b *budget) Grow(n int64)     { b.used.Add(n) }
func (b *budget) Shrink(n int64)   { b.used.Add(-n) }
func (b *budget) Available() int64 { return b.limit - b.used.Load() }
