package main

import (
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/store"
)

// openDataDir opens --data-dir over c, logging what it restored and what
// it could not; with no directory it says that tables live in memory
// only, and returns nil.
func openDataDir(dir string, c *cache.Cache, compaction store.Compaction, log *slog.Logger, stdout io.Writer) (*store.Store, error) {
	if dir == "" {
		fmt.Fprintln(stdout, "tables are kept in memory only; --data-dir DIR keeps them")
		return nil, nil
	}
	start := time.Now()
	st, err := store.Open(dir, c, store.Options{Compaction: compaction, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("--data-dir: %w", err)
	}
	for _, p := range st.Problems() {
		log.Error("data directory: not served or not cleaned up", "error", p)
	}
	log.Info("data directory opened", "dir", dir, "tables", len(st.Tables()), "not_served", len(st.Problems()), "ms", time.Since(start).Milliseconds())
	return st, nil
}

// checkStartTables refuses --demo and --table tables named like a stored
// table: they would replace it in memory while the disk kept the other.
func checkStartTables(st *store.Store, demo bool, tables []string) error {
	if st == nil {
		return nil
	}
	stored := st.Tables()
	var names []string
	if demo {
		names = append(names, tpch.Tables...)
	}
	for _, t := range tables {
		name, _, _ := strings.Cut(t, "=")
		names = append(names, name)
	}
	for _, name := range names {
		if slices.Contains(stored, name) {
			return fmt.Errorf("%w: table %q is stored in --data-dir %s and also loaded at start (--demo or --table); start without it, or use another data directory", errUsage, name, st.Dir())
		}
	}
	return nil
}
