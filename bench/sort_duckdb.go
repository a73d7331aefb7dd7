//go:build duckdb

package bench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/datagen/tpch/tpchparquet"
)

// With -tags duckdb, RunSort measures DuckDB in the same run: lineitem is
// written as Parquet and loaded into a table of a database file in a
// temporary folder (an in-memory database would have to hold the table
// within the very memory limit the sort is measured under), then the
// memory limit is set to the sort's. Each query runs as EXPLAIN ANALYZE:
// DuckDB sorts every row to the end and discards them, where fetching
// 6 million rows through database/sql would measure the driver.

type duckSort struct {
	db  *sql.DB
	dir string
	ver string
}

func newDuckSortPeer(ctx context.Context, sf float64, threads int, memory int64, parent string) (sortPeer, error) {
	dir, err := os.MkdirTemp(parent, "quiver-bench-sort-duckdb")
	if err != nil {
		return nil, err
	}
	d, err := openDuckSort(ctx, dir, sf, threads, memory)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return d, nil
}

func openDuckSort(ctx context.Context, dir string, sf float64, threads int, memory int64) (*duckSort, error) {
	path := filepath.Join(dir, "lineitem.parquet")
	if err := writeParquet(path, sf); err != nil {
		return nil, err
	}
	// No extension is installed or loaded: nothing reaches the network.
	db, err := sql.Open("duckdb", filepath.Join(dir, "lineitem.duckdb")+fmt.Sprintf("?autoinstall_known_extensions=false&autoload_known_extensions=false&threads=%d", threads))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	d := &duckSort{db: db, dir: dir}
	for _, s := range []string{
		fmt.Sprintf("CREATE TABLE lineitem AS SELECT * FROM read_parquet('%s')", path),
		"CHECKPOINT",
		fmt.Sprintf("SET memory_limit = '%dB'", memory),
		fmt.Sprintf("SET temp_directory = '%s'", filepath.Join(dir, "tmp")),
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			db.Close()
			return nil, fmt.Errorf("DuckDB: %s: %w", s, err)
		}
	}
	os.Remove(path)
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&d.ver); err != nil {
		db.Close()
		return nil, err
	}
	d.ver = "DuckDB " + d.ver
	return d, nil
}

// writeParquet writes lineitem at sf to path.
func writeParquet(path string, sf float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = tpchparquet.WriteTable(f, tpch.LineitemTable, sf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (d *duckSort) version() string { return d.ver }

func (d *duckSort) close() {
	d.db.Close()
	os.RemoveAll(d.dir)
}

func (d *duckSort) run(ctx context.Context, q string) error {
	rows, err := d.db.QueryContext(ctx, "EXPLAIN ANALYZE "+q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}

func (d *duckSort) count(ctx context.Context, q string) (int64, error) {
	var n int64
	err := d.db.QueryRowContext(ctx, "SELECT count(*) FROM ("+q+")").Scan(&n)
	return n, err
}
