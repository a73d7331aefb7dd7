package query

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
)

// TableWriter is where statements that change tables (CREATE TABLE,
// INSERT, DROP, TRUNCATE: ddl.go) write: the cache itself (CacheTables),
// or a store.Store over it, which writes each change to its data
// directory before it is visible. Bulk ingest in the server writes
// through the same one, so every change of a table has one path.
type TableWriter interface {
	Put(ctx context.Context, name string, r array.RecordReader, opts cache.TableOptions) (cache.TableInfo, error)
	Append(ctx context.Context, name string, r array.RecordReader, opts cache.TableOptions) (cache.TableInfo, error)
	Drop(name string) (bool, error)
}

// CacheTables is a TableWriter that changes the cache c directly (tables
// in memory only).
func CacheTables(c *cache.Cache) TableWriter { return cacheTables{c} }

type cacheTables struct{ *cache.Cache }

func (w cacheTables) Drop(name string) (bool, error) { return w.Cache.Drop(name), nil }
