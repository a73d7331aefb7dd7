//go:build duckdb

package query

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2" // registers "duckdb"

	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/datagen/tpch/tpchparquet"
)

// BenchmarkGroupByDuckDB is BenchmarkGroupBySpill's peer: DuckDB (cgo, its
// static library from the Go module proxy) answering the same queries
// over the same lineitem, with 2 threads, in a database file (so that its
// table does not count against its memory limit), with no limit, with the
// limit quiver spills under and with four times that. A limit DuckDB
// cannot work in is reported as a skip with its error. Each query runs as EXPLAIN ANALYZE:
// DuckDB aggregates every row and discards the groups, as the quiver
// benchmark does, where fetching them through database/sql would measure
// the driver.
//
//	go test -tags duckdb -run XXX -bench 'GroupBy(Spill|DuckDB)' -benchtime 5x ./query/
func BenchmarkGroupByDuckDB(b *testing.B) {
	ctx := context.Background()
	sf := *groupBySF
	dir := b.TempDir()
	path := filepath.Join(dir, "lineitem.parquet")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	err = tpchparquet.WriteTable(f, tpch.LineitemTable, sf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
	// No extension is installed or loaded: nothing reaches the network.
	db, err := sql.Open("duckdb", filepath.Join(dir, "lineitem.duckdb")+"?autoinstall_known_extensions=false&autoload_known_extensions=false&threads=2")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{
		fmt.Sprintf("CREATE TABLE lineitem AS SELECT * FROM read_parquet('%s')", path),
		"CHECKPOINT",
		fmt.Sprintf("SET temp_directory = '%s'", filepath.Join(dir, "tmp")),
	} {
		if _, err := db.ExecContext(ctx, s); err != nil {
			b.Fatalf("DuckDB: %s: %v", s, err)
		}
	}
	var ver string
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&ver); err != nil {
		b.Fatal(err)
	}
	b.Logf("DuckDB %s, SF %v", ver, sf)
	for _, q := range groupByQueries {
		for _, mode := range []struct {
			name  string
			limit string
		}{
			{"memory", "8GB"},
			{"limit", fmt.Sprintf("%dB", groupBySpillLimit(sf))},
			{"limit4x", fmt.Sprintf("%dB", 4*groupBySpillLimit(sf))},
		} {
			b.Run(fmt.Sprintf("q=%s/mode=%s", q.name, mode.name), func(b *testing.B) {
				if _, err := db.ExecContext(ctx, fmt.Sprintf("SET memory_limit = '%s'", mode.limit)); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					rows, err := db.QueryContext(ctx, "EXPLAIN ANALYZE "+q.sql)
					if err != nil && strings.Contains(err.Error(), "Out of Memory") {
						// At SF 0.1 DuckDB 1.5 fails under 16 and
						// 64 MiB, where quiver spills.
						b.Skipf("DuckDB at memory_limit %s: %v", mode.limit, strings.SplitN(err.Error(), "\n", 2)[0])
					}
					if err != nil {
						b.Fatal(err)
					}
					for rows.Next() {
					}
					if err := rows.Err(); err != nil {
						b.Fatal(err)
					}
					rows.Close()
				}
			})
		}
	}
}
