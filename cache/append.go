package cache

import (
	"context"
	"errors"

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
// dictionaries kept or decoded); opts may only set Concurrency and
// Coalesce (coalesce.go).
//
// Append is atomic like Put: the batches become visible together, and on
// failure the table stays as it was. If another Put, Append or Drop of the
// same table commits while it runs, Append fails with ErrConflict and
// stores nothing; the caller may retry. Scans already running keep
// reading the table as it was.
func (c *Cache) Append(ctx context.Context, name string, r array.RecordReader, opts TableOptions) (TableInfo, error) {
	ch, err := c.PrepareAppend(ctx, name, r, opts)
	if err != nil {
		return TableInfo{}, err
	}
	return ch.Commit()
}
