package server

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
)

// tableWriter is where ingest writes tables: the cache itself, or a
// store.Store over it (Config.Store) that writes each change to its
// data directory before the change is visible.
type tableWriter interface {
	Put(ctx context.Context, name string, r array.RecordReader, opts cache.TableOptions) (cache.TableInfo, error)
	Append(ctx context.Context, name string, r array.RecordReader, opts cache.TableOptions) (cache.TableInfo, error)
}

// tables returns the writer of table changes.
func (s *Server) tables() tableWriter {
	if s.cfg.Store != nil {
		return s.cfg.Store
	}
	return s.cache
}

// checkStore refuses a store over another cache than the server's: its
// writes would not be what the server answers from.
func checkStore(cfg Config, c *cache.Cache) error {
	if cfg.Store != nil && cfg.Store.Cache() != c {
		return errors.New("server: Config.Store is open over another cache than the server's")
	}
	return nil
}
