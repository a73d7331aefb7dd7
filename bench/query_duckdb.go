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

	"github.com/quiverdb/quiver/tpch"
	"github.com/quiverdb/quiver/tpch/tpchparquet"
)

// With -tags duckdb, RunQuery measures DuckDB (cgo, its static library
// from the Go module proxy) in the same run: lineitem is written as
// Parquet to a temporary directory and loaded into an in-memory DuckDB
// table, so both engines answer from memory.

type duckDB struct {
	db  *sql.DB
	ver string
}

func newDuckPeer(ctx context.Context, sf float64, threads int) (duckPeer, error) {
	dir, err := os.MkdirTemp("", "quiver-bench-duckdb")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "lineitem.parquet")
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	err = tpchparquet.WriteTable(f, tpch.LineitemTable, sf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	// No extension is installed or loaded: nothing reaches the network.
	db, err := sql.Open("duckdb", fmt.Sprintf("?autoinstall_known_extensions=false&autoload_known_extensions=false&threads=%d", threads))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, fmt.Sprintf("CREATE TABLE lineitem AS SELECT * FROM read_parquet('%s')", path)); err != nil {
		db.Close()
		return nil, fmt.Errorf("DuckDB: loading lineitem: %w", err)
	}
	d := &duckDB{db: db}
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&d.ver); err != nil {
		db.Close()
		return nil, err
	}
	d.ver = "DuckDB " + d.ver
	return d, nil
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
