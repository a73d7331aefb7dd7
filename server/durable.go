package server

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query"
)

// tables returns the writer of table changes, for bulk ingest and for
// SQL (CREATE TABLE, INSERT, DROP, TRUNCATE: the engine's
// Options.Tables): the cache itself, or a store.Store over it
// (Config.Store) that writes each change to its data directory before
// the change is visible.
func (s *Server) tables() query.TableWriter { return tableWriterOf(s.cfg, s.cache) }

func tableWriterOf(cfg Config, c *cache.Cache) query.TableWriter {
	if cfg.Store != nil {
		return cfg.Store
	}
	return query.CacheTables(c)
}

// checkStore refuses a store over another cache than the server's: its
// writes would not be what the server answers from.
func checkStore(cfg Config, c *cache.Cache) error {
	if cfg.Store != nil && cfg.Store.Cache() != c {
		return errors.New("server: Config.Store is open over another cache than the server's")
	}
	return nil
}

// catalogFile is what the server keeps in the store's catalog
// (store.SaveCatalog), as JSON: the views CREATE VIEW made, in the order
// they were made:
//
//	{"views":[{"name":"big","columns":["n"],"sql":"SELECT `a` FROM `t` WHERE `a`>1"}]}
type catalogFile struct {
	Views []query.View `json:"views"`
}

// loadViews returns the engine's views: those the store's catalog
// holds, saved to it again on every change, before the change is
// acknowledged; without a store, an empty set in memory.
func loadViews(cfg Config) (*query.Views, error) {
	v := &query.Views{}
	st := cfg.Store
	if st == nil {
		return v, nil
	}
	if b := st.Catalog(); b != nil {
		var cf catalogFile
		if err := json.Unmarshal(b, &cf); err != nil {
			return nil, fmt.Errorf("server: the catalog of data directory %s: %w", st.Dir(), err)
		}
		v.Load(cf.Views)
	}
	v.Saved = func(views []query.View) error {
		b, err := json.Marshal(catalogFile{Views: views})
		if err != nil {
			return err
		}
		return st.SaveCatalog(b)
	}
	return v, nil
}
