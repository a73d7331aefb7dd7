package main

import (
	"fmt"
	"io"
	"math"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/store"
)

// inspectDataDir prints what a --data-dir holds: each table's footprint
// (read from the manifests, without locking the directory, so a running
// server's can be looked at), the tables that cannot be served and why,
// and with verify every chunk read and its checksum checked.
func inspectDataDir(w io.Writer, dir string, verify bool) error {
	c, err := cache.New(cache.Options{Budget: math.MaxInt64})
	if err != nil {
		return err
	}
	st, err := store.Open(dir, c, store.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer st.Close()
	tables := st.Tables()
	fmt.Fprintf(w, "%s: quiver data directory, %d tables\n\n", dir, len(tables))
	for _, name := range tables {
		info, err := c.Info(name)
		if err != nil {
			return err
		}
		printFootprint(w, info)
	}
	var bad []error
	for _, p := range st.Problems() {
		fmt.Fprintf(w, "not served: %v\n", p)
		bad = append(bad, p)
	}
	if verify {
		for _, name := range tables {
			if err := st.Verify(name); err != nil {
				fmt.Fprintf(w, "verify: %v\n", err)
				bad = append(bad, err)
			}
		}
		if len(bad) == 0 {
			fmt.Fprintln(w, "verify: every chunk of every table read and its checksum checked: OK")
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s: %d problems, the first: %w", dir, len(bad), bad[0])
	}
	return nil
}
