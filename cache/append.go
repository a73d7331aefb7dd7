package cache

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// ErrSchema is the error of an Append whose batches have another schema
// than the table's.
var ErrSchema = errors.New("cache: schema differs from the table's")

// ErrConflict is the error of an Append whose table was replaced, dropped
// or appended to by another caller while it ran.
var ErrConflict = errors.New("cache: table changed during append")

// Append adds the batches r yields to the end of table name, which must
// exist and have been put with r's schema. The new batches are encoded
// with the decisions of the table's first Put (codec per column,
// dictionaries kept or decoded); opts may only set Concurrency.
//
// Append is atomic like Put: the batches become visible together, and on
// failure the table stays as it was. If another Put, Append or Drop of the
// same table commits while it runs, Append fails with ErrConflict and
// stores nothing; the caller may retry. Scans already running keep
// reading the table as it was.
func (c *Cache) Append(ctx context.Context, name string, r array.RecordReader, opts TableOptions) (TableInfo, error) {
	old, err := c.snapshot(name)
	if err != nil {
		return TableInfo{}, err
	}
	if !r.Schema().Equal(old.input) {
		return TableInfo{}, fmt.Errorf("%w: append to table %q: batches have schema %s, the table's is %s", ErrSchema, name, r.Schema(), old.input)
	}
	if !opts.Codec.IsZero() && opts.Codec != old.setting {
		return TableInfo{}, fmt.Errorf("cache: append to table %q: codec %s differs from the table's %s", name, opts.Codec, old.setting)
	}
	opts.Codec = old.setting
	opts.Plain = false
	b, err := c.newBuilder(name, old.input, opts)
	if err != nil {
		return TableInfo{}, err
	}
	defer b.abort()
	b.encodings = old.encodings
	b.out = old.schema
	b.columns = make([]columnState, len(old.columns))
	copy(b.columns, old.columns)
	if err := b.run(ctx, r); err != nil {
		return TableInfo{}, err
	}
	t := b.table()
	merged := &table{
		name: name, input: old.input, schema: old.schema, setting: old.setting,
		encodings: old.encodings, columns: make([]columnState, len(old.columns)),
	}
	copy(merged.columns, old.columns)
	for i := range merged.columns {
		merged.columns[i].encodings = maps.Clone(old.columns[i].encodings)
	}
	merged.entries = append(merged.entries, old.entries...)
	merged.rows, merged.compressed, merged.decoded = old.rows, old.compressed, old.decoded
	for i, e := range t.entries {
		merged.add(e, b.names[i])
	}
	c.mu.Lock()
	if c.tables[name] != old {
		c.mu.Unlock()
		return TableInfo{}, fmt.Errorf("%w: %q", ErrConflict, name)
	}
	c.tables[name] = merged
	c.mu.Unlock()
	b.committed = true
	return merged.info(), nil
}
