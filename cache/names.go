package cache

import (
	"errors"
	"fmt"
	"strings"
)

// Table names are unique ignoring case: a Put whose name differs only in
// case from a table held fails with ErrNameClash. SQL folds unquoted
// names to one case, so two tables "LINEITEM" and "lineitem" would leave
// `FROM LineItem` ambiguous and let whoever loads a table later change
// which table a query written earlier reads (issue 13). DuckDB's catalog
// refuses the same. Names are stored and listed as they were given.

// ErrNameClash: a Put names a table that differs only in case from one
// the cache holds.
var ErrNameClash = errors.New("cache: table name differs only in case from a table held")

// FoldName is the form under which table names are unique: lower case,
// as SQL engines that fold (DuckDB, PostgreSQL) fold unquoted names.
func FoldName(name string) string { return strings.ToLower(name) }

// Resolve returns the name of the table held whose name equals name
// ignoring case (FoldName), if there is one; there is at most one.
func (c *Cache) Resolve(name string) (string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.resolveLocked(name)
}

func (c *Cache) resolveLocked(name string) (string, bool) {
	if _, ok := c.tables[name]; ok {
		return name, true
	}
	f := FoldName(name)
	for held := range c.tables {
		if FoldName(held) == f {
			return held, true
		}
	}
	return "", false
}

// checkNameLocked fails when name would clash with a table held.
func (c *Cache) checkNameLocked(name string) error {
	if held, ok := c.resolveLocked(name); ok && held != name {
		return fmt.Errorf("%w: table %q would clash with table %q (names are unique ignoring case; use %q, or drop it first)", ErrNameClash, name, held, held)
	}
	return nil
}
