//go:build duckdb

package bench

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"

	"github.com/quiverdb/quiver/datagen/tpch/tpchparquet"
)

// With -tags duckdb, RunQuery and RunTPCH measure DuckDB (cgo, its static
// library from the Go module proxy) in the same run: each TPC-H table is
// written as Parquet to a temporary directory and loaded into an
// in-memory DuckDB table, so both engines answer from memory.

type duckDB struct {
	db  *sql.DB
	ver string
}

// newDuckPeer opens an in-memory DuckDB with threads threads holding the
// TPC-H tables named at scale factor sf.
func newDuckPeer(ctx context.Context, sf float64, threads int, tables ...string) (duckPeer, error) {
	dir, err := os.MkdirTemp("", "quiver-bench-duckdb")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	// No extension is installed or loaded: nothing reaches the network.
	db, err := sql.Open("duckdb", fmt.Sprintf("?autoinstall_known_extensions=false&autoload_known_extensions=false&threads=%d", threads))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	for _, table := range tables {
		if err := loadDuckTable(ctx, db, dir, table, sf); err != nil {
			db.Close()
			return nil, err
		}
	}
	d := &duckDB{db: db}
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&d.ver); err != nil {
		db.Close()
		return nil, err
	}
	d.ver = "DuckDB " + d.ver
	return d, nil
}

// loadDuckTable writes table as Parquet in dir and loads it into db.
func loadDuckTable(ctx context.Context, db *sql.DB, dir, table string, sf float64) error {
	path := filepath.Join(dir, table+".parquet")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = tpchparquet.WriteTable(f, table, sf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM read_parquet('%s')", table, path)); err != nil {
		return fmt.Errorf("DuckDB: loading %s: %w", table, err)
	}
	return os.Remove(path)
}

func (d *duckDB) version() string { return d.ver }
func (d *duckDB) close()          { d.db.Close() }

func (d *duckDB) run(ctx context.Context, q string) (string, error) {
	rows, err := d.db.QueryContext(ctx, q)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var dg digest
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", err
		}
		if dg.rows == 0 && len(vals) > 0 {
			dg.first = duckValue(vals[0])
		}
		dg.rows++
	}
	return dg.String(), rows.Err()
}

func duckValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case duckdb.Decimal:
		return decimalString(v.Value, int(v.Scale))
	case time.Time:
		return v.Format(time.DateOnly)
	}
	return fmt.Sprint(v)
}
