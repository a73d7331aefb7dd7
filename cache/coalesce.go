package cache

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Coalescing small appends (TableOptions.Coalesce). An Append of fewer
// than Coalesce rows takes the table's trailing batches into its new
// batch, decoded and encoded again with the new rows, while the next
// trailing batch is no larger than the rows gathered so far and the
// total stays within Coalesce:
//
//	batches   …  4096 | 8 | 4 | 2 | 1      + append 1 row
//	become    …  4096 | 16
//
// so the trailing batches grow like a binary counter: a run of n
// single-row appends leaves at most log2(Coalesce) small batches, and
// each row is encoded again at most log2(Coalesce) times. The change
// replaces those batches atomically (Change.Replaced says how many), as
// an Append adds: a scan sees the table before or after it. Tables with
// dictionary columns are not coalesced (their batches' dictionaries
// differ).

// coalescable reports whether t's batches can be decoded and encoded
// again as one: no dictionary columns.
func coalescable(t *table) bool {
	for _, f := range t.input.Fields() {
		if f.Type.ID() == arrow.DICTIONARY {
			return false
		}
	}
	return t.input.Equal(t.schema)
}

// coalesce reads r's first batches; when they hold fewer than limit
// rows, it returns a reader of one batch joining the table's trailing
// batches it takes (k of them) and the new rows. Otherwise it returns a
// reader of what it read and the rest of r, and k = 0.
func (c *Cache) coalesce(ctx context.Context, t *table, r array.RecordReader, limit int) (array.RecordReader, int, error) {
	var recs []arrow.RecordBatch
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	rows := int64(0)
	for rows < int64(limit) && r.Next() {
		rec := r.RecordBatch()
		if !rec.Schema().Equal(t.input) {
			return nil, 0, fmt.Errorf("%w: append to table %q: a batch has schema %s, the table's is %s", ErrSchema, t.name, rec.Schema(), t.input)
		}
		rec.Retain()
		recs = append(recs, rec)
		rows += rec.NumRows()
	}
	if err := r.Err(); err != nil {
		return nil, 0, fmt.Errorf("cache: table %q: reading batch %d: %w", t.name, len(recs), err)
	}
	if rows >= int64(limit) { // a large append: its batches as they come
		return &prefixReader{schema: t.input, head: takeRecs(&recs), rest: r, refs: 1}, 0, nil
	}
	acc, k := rows, 0
	for i := len(t.entries) - 1; i >= 0; i-- {
		e := t.entries[i]
		if e.rows > acc || acc+e.rows > int64(limit) {
			break
		}
		acc += e.rows
		k++
	}
	if acc == 0 {
		return &prefixReader{schema: t.input, head: takeRecs(&recs), refs: 1}, 0, nil
	}
	tail, err := c.decodeEntries(t, t.entries[len(t.entries)-k:])
	if err != nil {
		return nil, 0, err
	}
	all := append(tail, recs...)
	recs = all // released on return
	one, err := concatRecords(c.opts.Alloc, t.input, all)
	if err != nil {
		return nil, 0, fmt.Errorf("cache: table %q: joining %d batches: %w", t.name, len(all), err)
	}
	return &prefixReader{schema: t.input, head: []arrow.RecordBatch{one}, refs: 1}, k, nil
}

func takeRecs(p *[]arrow.RecordBatch) []arrow.RecordBatch {
	recs := *p
	*p = nil
	return recs
}

// decodeEntries decodes whole entries of t.
func (c *Cache) decodeEntries(t *table, entries []*entry) ([]arrow.RecordBatch, error) {
	dec := &chunkDecoder{mem: c.opts.Alloc}
	var out []arrow.RecordBatch
	for k, e := range entries {
		chunks, err := e.chunkBytes()
		if err != nil {
			releaseRecords(out)
			return nil, fmt.Errorf("cache: table %q: reading a batch to coalesce: %w", t.name, err)
		}
		arrs := make([]arrow.Array, 0, len(chunks))
		for col, f := range t.schema.Fields() {
			arr, err := dec.decode(f.Type, chunks[col], e.decoded[col])
			if err != nil {
				releaseArrays(arrs)
				releaseRecords(out)
				return nil, &ChunkError{Table: t.name, Batch: len(t.entries) - len(entries) + k, Column: f.Name, Err: err}
			}
			arrs = append(arrs, arr)
		}
		out = append(out, array.NewRecordBatch(t.input, arrs, e.rows))
		releaseArrays(arrs)
	}
	return out, nil
}

func releaseRecords(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// concatRecords joins batches of one schema into one.
func concatRecords(mem memory.Allocator, schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, schema.NumFields())
	defer func() { releaseArrays(cols) }()
	parts := make([]arrow.Array, len(recs))
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	for i := range schema.NumFields() {
		for k, r := range recs {
			parts[k] = r.Column(i)
		}
		col, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, fmt.Errorf("joining column %q: %w", schema.Field(i).Name, err)
		}
		cols = append(cols, col)
	}
	return array.NewRecordBatch(schema, cols, rows), nil
}

// prefixReader yields head, then what rest yields (rest may be nil).
type prefixReader struct {
	schema *arrow.Schema
	head   []arrow.RecordBatch
	rest   array.RecordReader
	cur    arrow.RecordBatch
	refs   int
	err    error
}

func (p *prefixReader) Schema() *arrow.Schema          { return p.schema }
func (p *prefixReader) RecordBatch() arrow.RecordBatch { return p.cur }
func (p *prefixReader) Record() arrow.RecordBatch      { return p.cur }
func (p *prefixReader) Err() error                     { return p.err }
func (p *prefixReader) Retain()                        { p.refs++ }

func (p *prefixReader) Next() bool {
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	if len(p.head) > 0 {
		p.cur, p.head = p.head[0], p.head[1:]
		return true
	}
	if p.rest == nil || !p.rest.Next() {
		if p.rest != nil {
			p.err = p.rest.Err()
		}
		return false
	}
	p.cur = p.rest.RecordBatch()
	p.cur.Retain()
	return true
}

func (p *prefixReader) Release() {
	if p.refs--; p.refs > 0 {
		return
	}
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	releaseRecords(p.head)
	p.head = nil
}

// remove takes e's counts out of t (its entries are set apart).
func (t *table) remove(e *entry) {
	t.rows -= e.rows
	for i := range t.columns {
		c := &t.columns[i]
		c.nulls -= e.stats[i].Nulls
		c.compressed -= e.chunkLen(i)
		c.decoded -= e.decoded[i]
		if i < len(e.names) {
			if c.encodings[e.names[i]]--; c.encodings[e.names[i]] <= 0 {
				delete(c.encodings, e.names[i])
			}
		}
		t.compressed -= e.chunkLen(i)
		t.decoded -= e.decoded[i]
	}
}
