package cache

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// compaction is what a compacting Change replaces: entries [from, to)
// of the snapshot it read.
type compaction struct{ from, to int }

// PrepareCompact re-encodes batches [from, to) of table name into
// batches of rows rows each (the last may be shorter), the same rows in
// the same order, with the decisions of the table's first Put, without
// making them visible: what a durable store does to merge many small
// appends (package store). base is the Generation the caller read the
// table at; another one is ErrConflict.
//
// The change's Image holds the new batches. Its Commit replaces the old
// ones in the table visible then, which may have grown by appends since:
// they are kept after the compacted batches (a rebase); a table put,
// dropped or compacted meanwhile is ErrConflict. Statistics are those of
// the new batches (each the merge of the old ones it holds), and the
// table's distinct-count sketches are unchanged: the rows are. It
// decodes and encodes on one goroutine.
func (c *Cache) PrepareCompact(ctx context.Context, name string, base uint64, from, to, rows int) (*Change, error) {
	old, err := c.snapshot(name)
	if err != nil {
		return nil, err
	}
	if old.gen != base {
		return nil, fmt.Errorf("%w: %q is no longer generation %d", ErrConflict, name, base)
	}
	if !Compactable(old.schema) {
		return nil, fmt.Errorf("cache: compaction of table %q: its batches cannot be merged: arrow-go cannot concatenate a union column (%s)", name, old.schema)
	}
	if from < 0 || to > len(old.entries) || from >= to || rows <= 0 {
		return nil, fmt.Errorf("cache: compaction of table %q: batches [%d, %d) into batches of %d rows; the table has %d batches", name, from, to, rows, len(old.entries))
	}
	// One goroutine: a compaction is background work, and should leave
	// the other cores to queries and uploads.
	b, err := c.newBuilder(name, old.schema, TableOptions{Codec: old.setting, Concurrency: 1})
	if err != nil {
		return nil, err
	}
	b.encodings, b.out = old.encodings, old.schema
	b.columns = make([]columnState, len(old.columns))
	for i, col := range old.columns {
		b.columns[i] = columnState{codec: col.codec, dictionary: col.dictionary}
		if col.dictionary == "decoded" { // the scan yields the values already
			b.columns[i].dictionary = ""
		}
	}
	r := newRebatcher(c.scanEntries(ctx, old, from, to), int64(rows), c.opts.Alloc)
	defer r.Release()
	if err := b.run(ctx, r); err != nil {
		b.abort()
		return nil, err
	}
	return &Change{c: c, b: b, old: old, compact: &compaction{from: from, to: to}}, nil
}

// Compactable reports whether PrepareCompact can merge batches of
// schema: arrow-go concatenates every type but unions.
func Compactable(schema *arrow.Schema) bool {
	for _, f := range schema.Fields() {
		if !concatenable(f.Type) {
			return false
		}
	}
	return true
}

func concatenable(dt arrow.DataType) bool {
	switch dt := dt.(type) {
	case arrow.UnionType:
		return false
	case arrow.ExtensionType:
		return concatenable(dt.StorageType())
	case *arrow.DictionaryType:
		return concatenable(dt.ValueType)
	case arrow.NestedType:
		for _, f := range dt.Fields() {
			if !concatenable(f.Type) {
				return false
			}
		}
	}
	return true
}

// scanEntries is a serial scan of every column of t's entries [from, to).
func (c *Cache) scanEntries(ctx context.Context, t *table, from, to int) *Scanner {
	s := &Scanner{t: t, schema: t.schema, mem: c.opts.Alloc, concurrency: 1}
	s.cols = make([]int, t.schema.NumFields())
	for i := range s.cols {
		s.cols[i] = i
	}
	s.refs.Store(1)
	s.metrics.Batches = len(t.entries)
	for i := from; i < to; i++ {
		s.kept = append(s.kept, i)
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	return s
}

// rebase returns the table a compaction makes of prev, the table visible
// at its commit: prev's entries with [from, to) replaced by the new ones.
// prev must be the snapshot the compaction read, or one that grew from it
// by appends only (the same entries first); else ok is false.
func (ch *Change) rebase(prev *table) (t *table, ok bool) {
	old, span := ch.old, ch.compact
	if prev == nil || prev.input != old.input || prev.schema != old.schema || len(prev.entries) < span.to {
		return nil, false
	}
	for i := range span.to {
		if prev.entries[i] != old.entries[i] {
			return nil, false
		}
	}
	t = &table{
		name: prev.name, input: prev.input, schema: prev.schema, setting: prev.setting,
		encodings: prev.encodings, columns: make([]columnState, len(prev.columns)),
	}
	for i, col := range prev.columns {
		// The sketches hold the same rows: kept as they are.
		t.columns[i] = columnState{codec: col.codec, dictionary: col.dictionary, encodings: map[string]int{}, sketch: col.sketch}
	}
	for _, e := range prev.entries[:span.from] {
		t.add(e, e.names)
	}
	for i, e := range ch.b.entries {
		t.add(e, ch.b.names[i])
	}
	for _, e := range prev.entries[span.to:] {
		t.add(e, e.names)
	}
	t.gen = generations.Add(1)
	return t, true
}

// commitCompaction is Commit of a compacting change (see PrepareCompact).
func (ch *Change) commitCompaction() (TableInfo, error) {
	c, name := ch.c, ch.old.name
	c.mu.Lock()
	t, ok := ch.rebase(c.tables[name])
	if !ok {
		c.mu.Unlock()
		return TableInfo{}, fmt.Errorf("%w: %q was put, dropped or compacted during its compaction", ErrConflict, name)
	}
	c.tables[name] = t
	c.mu.Unlock()
	ch.result = t
	ch.b.committed = true
	for _, e := range ch.b.entries { // with Sources: held, and evictable
		if e.lazy != nil {
			c.enqueue(e.lazy)
		}
	}
	// The replaced batches leave the budget; scans of older snapshots
	// still read them (a dropped restored batch is read again).
	gone := ch.old.entries[ch.compact.from:ch.compact.to]
	for _, e := range gone {
		if e.lazy == nil {
			c.used.Add(-e.size())
		}
	}
	c.forgetEntries(gone)
	return t.info(), nil
}

// rebatcher reads a scan and yields batches of rows rows (the last may be
// shorter), concatenating and slicing the scan's.
type rebatcher struct {
	refs    atomic.Int64
	src     *Scanner
	rows    int64
	mem     memory.Allocator
	pending []arrow.RecordBatch // scanned, not yet yielded, in order
	held    int64               // rows in pending
	cur     arrow.RecordBatch
	err     error
	done    bool
}

var _ array.RecordReader = (*rebatcher)(nil)

func newRebatcher(src *Scanner, rows int64, mem memory.Allocator) *rebatcher {
	r := &rebatcher{src: src, rows: rows, mem: mem}
	r.refs.Store(1)
	return r
}

func (r *rebatcher) Schema() *arrow.Schema { return r.src.Schema() }

func (r *rebatcher) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns the current batch.
//
// Deprecated: use RecordBatch.
func (r *rebatcher) Record() arrow.RecordBatch { return r.cur }

func (r *rebatcher) Err() error { return r.err }

func (r *rebatcher) Retain() { r.refs.Add(1) }

func (r *rebatcher) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	r.src.Release()
	r.releaseCur()
	for _, rec := range r.pending {
		rec.Release()
	}
	r.pending = nil
}

func (r *rebatcher) releaseCur() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func (r *rebatcher) Next() bool {
	r.releaseCur()
	if r.err != nil {
		return false
	}
	for r.held < r.rows && !r.done {
		if !r.src.Next() {
			r.done, r.err = true, r.src.Err()
			break
		}
		rec := r.src.RecordBatch()
		if rec.NumRows() == 0 { // nothing to add (and arrow-go's concat trips on empty dictionaries)
			continue
		}
		rec.Retain()
		r.pending = append(r.pending, rec)
		r.held += rec.NumRows()
	}
	if r.err != nil || r.held == 0 {
		return false
	}
	if r.cur, r.err = r.take(min(r.rows, r.held)); r.err != nil {
		return false
	}
	return true
}

// take yields the first n pending rows as one batch, keeping the rest.
func (r *rebatcher) take(n int64) (arrow.RecordBatch, error) {
	all := r.pending[0]
	if len(r.pending) > 1 {
		var err error
		if all, err = concatRecords(r.mem, r.Schema(), r.pending); err != nil {
			return nil, fmt.Errorf("cache: compaction: %w", err)
		}
		for _, rec := range r.pending {
			rec.Release()
		}
	}
	r.pending = r.pending[:0]
	r.held -= n
	if r.held == 0 {
		return all, nil
	}
	r.pending = append(r.pending, all.NewSlice(n, all.NumRows()))
	out := all.NewSlice(0, n)
	all.Release()
	return out, nil
}
