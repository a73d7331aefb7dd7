package agg

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/sortkey"
	"github.com/quiverdb/quiver/spill"
)

// source is one sorted run of a merge: a spill file's reader, or batches
// kept in memory.
type source interface {
	Next() bool
	RecordBatch() arrow.RecordBatch
	Err() error
	Release()
}

// memSource reads batches kept in memory; it does not own them.
type memSource struct {
	recs []arrow.RecordBatch
	i    int
}

func (m *memSource) Next() bool {
	if m.i >= len(m.recs) {
		return false
	}
	m.i++
	return true
}

func (m *memSource) RecordBatch() arrow.RecordBatch { return m.recs[m.i-1] }
func (m *memSource) Err() error                     { return nil }
func (m *memSource) Release()                       {}

// cursor reads one run: its current batch, that batch's normalized keys,
// and the next row.
type cursor struct {
	src   source
	name  string
	idx   int // ties between runs go to the lower index
	kind  int // of the file: 0 partial states, 1+d pairs
	batch arrow.RecordBatch
	keys  sortkey.Rows // group keys of batch's rows
	full  sortkey.Rows // group keys and value, in a merge of pairs
	pos   int
	slot  int   // batch's index in the merger's gather sources, -1 none
	bytes int64 // charged for batch and keys
}

// merger merges sorted runs with a binary heap of their cursors ordered
// by head key (in a merge of pairs, by key and value). Callers take the
// head row (pick), advance it, and gather the rows picked so far into a
// batch; the batches picks point into stay alive until then.
type merger struct {
	s       *Spiller
	schema  *arrow.Schema // of the run files
	nkeys   int
	keyEnc  *sortkey.Encoder
	fullEnc *sortkey.Encoder // nil merging partial states
	heap    []*cursor        // live cursors, heap-ordered
	all     []*cursor
	srcs    []arrow.RecordBatch // gather sources, each holding a reference
	picks   []pick
}

// newMerger opens a merge of srcs (named for errors): of (keys, value)
// pairs with values of type val, or of partial states when val is nil.
// It owns srcs; on error everything is released.
func (s *Spiller) newMerger(srcs []source, names []string, kind int, val arrow.DataType) (*merger, error) {
	m := &merger{s: s, nkeys: len(s.shape.keyTypes), schema: s.shape.mainSchema}
	if kind > 0 {
		m.schema = s.shape.distSchemas[kind-1]
	}
	for i, src := range srcs {
		m.all = append(m.all, &cursor{src: src, name: names[i], idx: i, kind: kind, slot: -1})
	}
	var err error
	if m.keyEnc, err = sortkey.NewEncoder(s.shape.keyEnc); err != nil {
		m.close()
		return nil, err
	}
	if val != nil {
		fields := append(append([]sortkey.SortField(nil), s.shape.keyEnc...), sortkey.SortField{Type: val})
		if m.fullEnc, err = sortkey.NewEncoder(fields); err != nil {
			m.close()
			return nil, err
		}
	}
	for _, c := range m.all {
		ok, err := m.load(c)
		if err != nil {
			m.close()
			return nil, err
		}
		if ok {
			m.heap = append(m.heap, c)
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m, nil
}

// load moves c to its run's next non-empty batch and encodes its keys;
// it reports false at the end of the run.
func (m *merger) load(c *cursor) (bool, error) {
	if c.batch != nil {
		c.batch.Release()
		c.batch = nil
	}
	c.pos, c.slot = 0, -1
	for {
		if !c.src.Next() {
			m.s.shrink(c.bytes)
			c.bytes = 0
			if err := c.src.Err(); err != nil {
				return false, fmt.Errorf("agg: reading spilled run %s: %w", c.name, err)
			}
			return false, nil
		}
		if c.src.RecordBatch().NumRows() > 0 {
			break
		}
	}
	rec := c.src.RecordBatch()
	if err := sameTypes(rec.Schema(), m.schema); err != nil {
		// The spill package checks every batch's bytes; this checks
		// the batches are the ones this merge expects.
		return false, fmt.Errorf("%w: spilled run %s: %w", spill.ErrCorrupt, c.name, err)
	}
	c.batch = rec
	c.batch.Retain()
	cols := c.batch.Columns()
	c.keys.Reset()
	if err := encodeKeys(m.keyEnc, &c.keys, cols[:m.nkeys], int(c.batch.NumRows())); err != nil {
		return false, fmt.Errorf("agg: spilled run %s: %w", c.name, err)
	}
	if m.fullEnc != nil {
		c.full.Reset()
		if err := m.fullEnc.Encode(&c.full, cols[:m.nkeys+1]); err != nil {
			return false, fmt.Errorf("agg: spilled run %s: %w", c.name, err)
		}
	}
	n := recordBytes(c.batch) + c.keys.Size() + c.full.Size()
	if n > c.bytes {
		m.s.grow(n - c.bytes)
	} else {
		m.s.shrink(c.bytes - n)
	}
	c.bytes = n
	m.s.maxCursor[c.kind] = max(m.s.maxCursor[c.kind], n)
	return true, nil
}

// order is the key the heap orders c's head by.
func (m *merger) order(c *cursor) []byte {
	if m.fullEnc != nil {
		return c.full.Row(c.pos)
	}
	return c.keys.Row(c.pos)
}

func (m *merger) less(a, b *cursor) bool {
	switch bytes.Compare(m.order(a), m.order(b)) {
	case -1:
		return true
	case 0:
		return a.idx < b.idx
	}
	return false
}

func (m *merger) down(i int) {
	h := m.heap
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		j := l
		if r := l + 1; r < len(h) && m.less(h[r], h[l]) {
			j = r
		}
		if !m.less(h[j], h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// head is the cursor with the smallest head row, nil when every run is
// done.
func (m *merger) head() *cursor {
	if len(m.heap) == 0 {
		return nil
	}
	return m.heap[0]
}

// pick adds the head row of c (the head cursor) to the rows to gather.
func (m *merger) pick(c *cursor) {
	if c.slot < 0 {
		c.slot = len(m.srcs)
		c.batch.Retain()
		m.srcs = append(m.srcs, c.batch)
	}
	m.picks = append(m.picks, pick{uint32(c.slot), uint32(c.pos)})
}

// advance moves the head cursor past its head row.
func (m *merger) advance() error {
	c := m.heap[0]
	c.pos++
	if c.pos == int(c.batch.NumRows()) {
		ok, err := m.load(c)
		if err != nil {
			return err
		}
		if !ok {
			last := len(m.heap) - 1
			m.heap[0] = m.heap[last]
			m.heap = m.heap[:last]
		}
	}
	m.down(0)
	return nil
}

// gather copies the rows picked so far into one batch of schema and
// forgets them.
func (m *merger) gather(schema *arrow.Schema) (arrow.RecordBatch, error) {
	defer m.dropPicks()
	return gatherRecord(m.s.mem, schema, m.srcs, m.picks)
}

func (m *merger) dropPicks() {
	releaseRecords(m.srcs)
	m.srcs = m.srcs[:0]
	m.picks = m.picks[:0]
	for _, c := range m.all {
		c.slot = -1
	}
}

// close releases every cursor and its run's reader.
func (m *merger) close() {
	m.dropPicks()
	for _, c := range m.all {
		if c.batch != nil {
			c.batch.Release()
			c.batch = nil
		}
		c.src.Release()
		m.s.shrink(c.bytes)
		c.bytes = 0
	}
	m.all, m.heap = nil, nil
}

// sameTypes checks that got has want's column types.
func sameTypes(got, want *arrow.Schema) error {
	if got.NumFields() != want.NumFields() {
		return fmt.Errorf("%d columns, want %d", got.NumFields(), want.NumFields())
	}
	for i, f := range want.Fields() {
		if !arrow.TypeEqual(got.Field(i).Type, f.Type) {
			return fmt.Errorf("column %d is %s, want %s", i, got.Field(i).Type, f.Type)
		}
	}
	return nil
}

// newRecord makes a batch of cols and releases the caller's references.
func newRecord(schema *arrow.Schema, cols []arrow.Array, rows int) arrow.RecordBatch {
	rec := array.NewRecordBatch(schema, cols, int64(rows))
	releaseAll(cols)
	return rec
}
