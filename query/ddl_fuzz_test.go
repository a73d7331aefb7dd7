package query

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// FuzzChange runs arbitrary text as a change on a table t (k BIGINT
// PRIMARY KEY, s VARCHAR, d DATE, x DECIMAL(9,2)) holding a few rows: it
// never panics, fails only with the engine's documented errors or the
// cache's, and leaks nothing.
func FuzzChange(f *testing.F) {
	for _, seed := range []string{
		`INSERT INTO t VALUES (9, 'a', '2024-01-01', 1.5)`,
		`INSERT INTO t (s, k) VALUES ('x', 10), ('y', 11)`,
		`INSERT INTO t SELECT k + 100, s, d, x FROM t`,
		`INSERT INTO t VALUES (1, NULL, NULL, NULL)`,
		`INSERT INTO t VALUES (12, 'b', 'no date', 1)`,
		`INSERT INTO t VALUES (13, 'b', NULL, 123456789.123)`,
		`CREATE TABLE u AS SELECT * FROM t WHERE k > 1`,
		`CREATE TABLE u (a INTEGER UNIQUE, b VARCHAR NOT NULL, PRIMARY KEY (b))`,
		`CREATE VIEW v (a) AS SELECT k FROM t`,
		`CREATE OR REPLACE VIEW t AS SELECT 1`,
		`DROP TABLE IF EXISTS t, u`,
		`TRUNCATE t`,
		`CREATE INDEX i ON t (k, s)`,
		`SHOW TABLES`, `DESCRIBE t`,
		`SELECT * FROM information_schema.columns`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		c, err := cache.New(cache.Options{Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		e := New(c, Options{Alloc: mem, MemoryLimit: 8 << 20, MaxExprNodes: 2000, MaxExprDepth: 200})
		ctx := context.Background()
		for _, setup := range []string{
			`CREATE TABLE t (k BIGINT PRIMARY KEY, s VARCHAR, d DATE, x DECIMAL(9,2))`,
			`INSERT INTO t VALUES (1, 'one', '2020-02-29', 0.5), (2, '', NULL, -3), (3, NULL, '1999-12-31', NULL)`,
		} {
			if _, err := e.Exec(ctx, setup); err != nil {
				t.Fatal(err)
			}
		}
		if err := runAll(e, sql); err != nil && !documented(err) && !cacheError(err) {
			t.Fatalf("%.300s: undocumented error %T: %v", sql, err, err)
		}
		for _, name := range c.Tables() {
			c.Drop(name)
		}
		if got := mem.CurrentAlloc(); got != 0 {
			t.Fatalf("%.300s: %d bytes leaked", sql, got)
		}
	})
}

// cacheError reports an error of the cache's that a change passes on.
func cacheError(err error) bool {
	return errors.Is(err, cache.ErrBudget) || errors.Is(err, cache.ErrNameClash) || errors.Is(err, cache.ErrSchema)
}
