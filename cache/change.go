package cache

import (
	"context"
	"fmt"
	"maps"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// A Change is a Put or Append whose batches are encoded and counted
// against the budget but not yet visible: a durable store writes its
// Image to disk, then commits it, so a client is told of success only
// once the table is both stored and served. A Change must end with Commit
// or Abort; it is used by one goroutine.
type Change struct {
	c   *Cache
	b   *builder
	old *table // the table appended to or compacted; nil for a Put
	// compact is the span a compaction replaces (compact.go); nil else.
	compact *compaction
	// replaced counts old's trailing batches the change replaces (a
	// coalescing Append: coalesce.go).
	replaced int
	done     bool
	result   *table
}

// generations numbers table snapshots (TableInfo.Generation).
var generations atomic.Uint64

// PreparePut encodes what Put(ctx, name, r, opts) would store, without
// making it visible. A name that clashes with a table held fails before
// r is read (ErrNameClash).
func (c *Cache) PreparePut(ctx context.Context, name string, r array.RecordReader, opts TableOptions) (*Change, error) {
	c.mu.RLock()
	err := c.checkNameLocked(name) // fail before reading r, and again at the swap
	c.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	b, err := c.newBuilder(name, r.Schema(), opts)
	if err != nil {
		return nil, err
	}
	if err := b.run(ctx, r); err != nil {
		b.abort()
		return nil, err
	}
	return &Change{c: c, b: b}, nil
}

// PrepareAppend encodes what Append(ctx, name, r, opts) would add, without
// making it visible.
func (c *Cache) PrepareAppend(ctx context.Context, name string, r array.RecordReader, opts TableOptions) (*Change, error) {
	old, err := c.snapshot(name)
	if err != nil {
		return nil, err
	}
	if !r.Schema().Equal(old.input) {
		return nil, fmt.Errorf("%w: append to table %q: batches have schema %s, the table's is %s", ErrSchema, name, r.Schema(), old.input)
	}
	if !opts.Codec.IsZero() && opts.Codec != old.setting {
		return nil, fmt.Errorf("cache: append to table %q: codec %s differs from the table's %s", name, opts.Codec, old.setting)
	}
	opts.Codec = old.setting
	opts.Plain = false
	replaced := 0
	if opts.Coalesce > 0 && coalescable(old) {
		cr, k, err := c.coalesce(ctx, old, r, opts.Coalesce) // coalesce.go
		if err != nil {
			return nil, err
		}
		defer cr.Release()
		r, replaced = cr, k
	}
	b, err := c.newBuilder(name, old.input, opts)
	if err != nil {
		return nil, err
	}
	b.encodings = old.encodings
	b.out = old.schema
	b.columns = make([]columnState, len(old.columns))
	copy(b.columns, old.columns)
	if err := b.run(ctx, r); err != nil {
		b.abort()
		return nil, err
	}
	return &Change{c: c, b: b, old: old, replaced: replaced}, nil
}

// Replaced is how many of the table's last batches the change replaces
// with its own (a coalescing Append; 0 otherwise): a writer drops them
// from its record of the table.
func (ch *Change) Replaced() int { return ch.replaced }

// Appending reports whether the change appends to a table (else it puts
// one, replacing any of its name, or compacts one).
func (ch *Change) Appending() bool { return ch.old != nil && ch.compact == nil }

// Base returns the Generation of the table an Append adds to or a
// compaction read (0 for a Put): a writer checks it is the snapshot it
// recorded.
func (ch *Change) Base() uint64 {
	if ch.old == nil {
		return 0
	}
	return ch.old.gen
}

// Image returns the change's table decisions and its new batches: every
// batch of a Put, the added ones of an Append, the merged ones of a
// compaction. Its chunks alias the cache's and must not be modified.
func (ch *Change) Image() Image {
	if ch.compact != nil { // the table it makes is known at Commit only
		return ch.old.image(ch.b.names, ch.b.entries)
	}
	return ch.table().image(ch.b.names, ch.b.entries)
}

// table is the snapshot the change makes visible.
func (ch *Change) table() *table {
	if ch.result != nil {
		return ch.result
	}
	t := ch.b.table()
	if old := ch.old; old != nil {
		merged := &table{
			name: old.name, input: old.input, schema: old.schema, setting: old.setting,
			encodings: old.encodings, columns: make([]columnState, len(old.columns)),
		}
		copy(merged.columns, old.columns)
		for i := range merged.columns {
			merged.columns[i].encodings = maps.Clone(old.columns[i].encodings)
			if s := old.columns[i].sketch; s != nil { // unknown stays unknown
				s = s.Clone()
				s.Merge(ch.b.sketches[i])
				merged.columns[i].sketch = s
			}
		}
		keep := len(old.entries) - ch.replaced
		merged.entries = append(merged.entries, old.entries[:keep]...)
		merged.rows, merged.compressed, merged.decoded = old.rows, old.compressed, old.decoded
		for _, e := range old.entries[keep:] {
			merged.remove(e) // coalesce.go
		}
		for i, e := range t.entries {
			merged.add(e, ch.b.names[i])
		}
		t = merged
	}
	t.gen = generations.Add(1)
	ch.result = t
	return t
}

// Sources gives, after Image and before Commit, where each new batch's chunks can be
// read again (loads[i] for Image().Batches[i]: a store's chunk file, just
// written): once committed, the batches count against the budget as
// restored ones do and give way to make room, read again when needed
// (evict.go).
func (ch *Change) Sources(loads []func() ([][]byte, error)) error {
	if ch.done {
		panic("cache: Sources after Commit or Abort")
	}
	entries := ch.b.entries
	if len(loads) != len(entries) {
		return fmt.Errorf("cache: table %q: %d sources for %d new batches", ch.b.name, len(loads), len(entries))
	}
	for i, e := range entries {
		if e.lazy != nil {
			continue
		}
		l := &lazyChunks{c: ch.c, load: loads[i], chunks: e.chunks, lens: make([]int64, len(e.chunks))}
		for c, chunk := range e.chunks {
			l.lens[c] = int64(len(chunk))
			l.size += l.lens[c]
		}
		e.lazy, e.chunks = l, nil
	}
	return nil
}

// Commit makes the change visible. An Append whose table was put,
// appended to or dropped since PrepareAppend fails with ErrConflict, and
// a Put whose name now clashes with another table's ErrNameClash
// (names.go); either stores nothing.
func (ch *Change) Commit() (TableInfo, error) {
	if ch.done {
		panic("cache: Change committed or aborted twice")
	}
	ch.done = true
	defer ch.b.abort()
	if ch.compact != nil {
		return ch.commitCompaction()
	}
	t, c := ch.table(), ch.c
	c.mu.Lock()
	prev := c.tables[t.name]
	if ch.old != nil && prev != ch.old {
		c.mu.Unlock()
		return TableInfo{}, fmt.Errorf("%w: %q", ErrConflict, t.name)
	}
	if err := c.checkNameLocked(t.name); err != nil {
		c.mu.Unlock()
		return TableInfo{}, err
	}
	c.tables[t.name] = t
	c.mu.Unlock()
	ch.b.committed = true
	for _, e := range ch.b.entries { // with Sources: held, and evictable
		if e.lazy != nil {
			c.enqueue(e.lazy)
		}
	}
	if prev != nil && ch.old == nil {
		c.used.Add(-prev.held())
		c.forget(prev)
	}
	if ch.replaced > 0 { // the batches a coalescing Append replaced
		gone := &table{entries: ch.old.entries[len(ch.old.entries)-ch.replaced:]}
		c.used.Add(-gone.held())
		c.forget(gone)
	}
	return t.info(), nil
}

// Abort gives back the budget the change holds. It does nothing after
// Commit, so it may be deferred.
func (ch *Change) Abort() {
	if ch.done {
		return
	}
	ch.done = true
	ch.b.abort()
}
