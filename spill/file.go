package spill

import (
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
)

// File is a finished spill file. It lives in memory next to the bytes on
// disk and knows where each batch lies, so a Reader reads each batch with
// one call. It may be opened any number of times, also concurrently
// (merge passes); Remove deletes it.
type File struct {
	m       *Manager
	owner   string
	path    string
	plan    *plan
	size    int64
	schemaN int64
	batches []extent
	rows    int64
	// maxBatch is the largest in-memory size of a spill record written:
	// the reader's limits let an honest batch decode whatever its
	// compression ratio.
	maxBatch int64

	mu      sync.Mutex
	removed bool
}

// Path returns the file's path.
func (f *File) Path() string { return f.path }

// Owner returns the owner given to NewFile.
func (f *File) Owner() string { return f.owner }

// Bytes returns the file's size on disk.
func (f *File) Bytes() int64 { return f.size }

// Rows returns the rows written to the file.
func (f *File) Rows() int64 { return f.rows }

// Batches returns the record batches written to the file.
func (f *File) Batches() int { return len(f.batches) }

// Schema returns the schema of the records written (and read back): the
// caller's, not the file's own (see doc.go).
func (f *File) Schema() *arrow.Schema { return f.plan.schema }

// Remove deletes the file and gives its bytes back to the quota. Readers
// must be released first. Removing twice is not an error.
func (f *File) Remove() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.removed {
		return nil
	}
	f.removed = true
	if f.m.closed.Load() {
		return nil // Close removed it with its folder
	}
	err := f.m.fs.Remove(f.path)
	if err != nil && !errors.Is(err, errNotExist) {
		f.removed = false
		return fmt.Errorf("spill: removing %s: %w", f.path, err)
	}
	f.m.release(f.size)
	f.m.dropFile()
	return nil
}

// Open returns a Reader of the file's records, allocated from mem (nil
// means memory.DefaultAllocator). Opening checks the file's size and its
// schema message; each batch is checked as it is read.
func (f *File) Open(mem memory.Allocator) (*Reader, error) { return f.open(mem, false) }

func (f *File) open(mem memory.Allocator, skipVerify bool) (*Reader, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	f.mu.Lock()
	removed := f.removed
	f.mu.Unlock()
	if removed {
		return nil, fmt.Errorf("spill: open of removed file %s", f.path)
	}
	if f.m.closed.Load() {
		return nil, ErrClosed
	}
	h, err := f.m.fs.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("spill: opening %s: %w", f.path, err)
	}
	r := &Reader{f: f, h: h, mem: mem, skipVerify: skipVerify}
	r.refs.Store(1)
	if err := r.open(); err != nil {
		r.Release()
		return nil, err
	}
	return r, nil
}

// readOptions bound decoding by what this file's writer produced: no
// message body is longer than the longest batch written, and no batch
// decodes to more than twice the largest spill record written (its
// buffers as they were in memory; the slack covers alignment), however
// well it compressed. Similar strings compress past the batch layer's
// default 8x ratio; a corrupt length that claims more is refused before
// anything is allocated for it.
func (f *File) readOptions(mem memory.Allocator) batch.ReadOptions {
	lim := batch.DefaultLimits
	lim.MaxBody = f.schemaN
	for _, e := range f.batches {
		lim.MaxBody = max(lim.MaxBody, e.n)
	}
	lim.RatioFloor = 2*f.maxBatch + 1<<20
	lim.MaxUncompressed = lim.RatioFloor
	return batch.ReadOptions{Alloc: mem, Concurrency: f.m.cfg.Concurrency, Limits: lim}
}
