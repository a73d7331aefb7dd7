//go:build duckdb

package difftest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	_ "github.com/duckdb/duckdb-go/v2" // registers "duckdb"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/datagen/tpch/tpchcache"
	"github.com/quiverdb/quiver/datagen/tpch/tpchparquet"
	"github.com/quiverdb/quiver/query"
)

// sf is the scale factor of the TPC-H tables in both engines.
const sf = 0.01

// engines are quiver and DuckDB over the same tables.
type engines struct {
	q  *query.Engine
	db *sql.DB
	c  *cache.Cache // quiver's tables
}

var env engines

func TestMain(m *testing.M) {
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "difftest:", err)
		code = 1
	}
	os.Exit(code)
}

func run(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "difftest")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	if err := env.open(context.Background(), dir); err != nil {
		return 0, err
	}
	defer env.db.Close()
	fmt.Fprintf(os.Stderr, "difftest: the eight TPC-H tables (SF %v), t and w loaded into quiver and DuckDB in %v\n", sf, time.Since(start).Round(time.Millisecond))
	return m.Run(), nil
}

// open loads the TPC-H tables, t and w into a quiver cache and, through
// Parquet files (the TPC-H ones in dir), into an in-memory DuckDB (w in
// its engine types).
func (e *engines) open(ctx context.Context, dir string) error {
	c, err := e.openTPCH(ctx, dir, sf)
	if err != nil {
		return err
	}
	e.c = c
	recs := nullsTable(memory.DefaultAllocator)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	if err := putRecords(ctx, c, "t", recs); err != nil {
		return err
	}
	narrow := narrowTable(memory.DefaultAllocator)
	wide, err := engineRecords(ctx, memory.DefaultAllocator, narrow)
	defer func() {
		for _, r := range append(narrow, wide...) {
			r.Release()
		}
	}()
	if err != nil {
		return err
	}
	if err := putRecords(ctx, c, "w", narrow); err != nil {
		return err
	}
	if err := duckTable(ctx, e.db, "t", "*", recs); err != nil {
		return err
	}
	return duckTable(ctx, e.db, "w", "*", wide)
}

// openTPCH returns a cache holding the eight TPC-H tables at scale factor
// sf, with e.q over it, and opens e.db, an in-memory DuckDB, with the same
// tables read from Parquet files written to dir. The two engines load at
// once, each generating the rows (one core each).
func (e *engines) openTPCH(ctx context.Context, dir string, sf float64) (*cache.Cache, error) {
	c, err := cache.New(cache.Options{})
	if err != nil {
		return nil, err
	}
	// No extension is loaded or installed: nothing reaches the network.
	e.db, err = sql.Open("duckdb", "?autoinstall_known_extensions=false&autoload_known_extensions=false&threads=2")
	if err != nil {
		return nil, err
	}
	loaded := make(chan error, 1)
	go func() { loaded <- tpchcache.Load(ctx, c, sf) }()
	err = loadDuckTPCH(ctx, e.db, dir, sf)
	if qerr := <-loaded; err == nil {
		err = qerr
	}
	if err != nil {
		e.db.Close()
		return nil, err
	}
	e.q = query.New(c, engineOptions())
	return c, nil
}

func loadDuckTPCH(ctx context.Context, db *sql.DB, dir string, sf float64) error {
	for _, table := range tpch.Tables {
		path := filepath.Join(dir, table+".parquet")
		if err := writeFile(path, func(f *os.File) error { return tpchparquet.WriteTable(f, table, sf) }); err != nil {
			return err
		}
		stmt := fmt.Sprintf("CREATE TABLE %s AS SELECT * FROM read_parquet('%s')", table, path)
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("DuckDB: %s: %w", stmt, err)
		}
	}
	return nil
}

// duckTable makes table name in DuckDB from recs, through a Parquet file
// in a temporary directory: CREATE OR REPLACE TABLE name AS SELECT
// selectList FROM the file ("*" for every column as written).
func duckTable(ctx context.Context, db *sql.DB, name, selectList string, recs []arrow.RecordBatch) error {
	dir, err := os.MkdirTemp("", "difftest-"+name)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, name+".parquet")
	if err := writeParquet(path, recs); err != nil {
		return err
	}
	stmt := fmt.Sprintf("CREATE OR REPLACE TABLE %s AS SELECT %s FROM read_parquet('%s')", name, selectList, path)
	if _, err := db.ExecContext(ctx, stmt); err != nil {
		return fmt.Errorf("DuckDB: %s: %w", stmt, err)
	}
	return nil
}

// putHalves puts rec into quiver's cache as table name in two batches cut
// at row at, so that a filter or aggregate meets more than one.
func putHalves(ctx context.Context, c *cache.Cache, name string, rec arrow.RecordBatch, at int64) error {
	first, rest := rec.NewSlice(0, at), rec.NewSlice(at, rec.NumRows())
	defer first.Release()
	defer rest.Release()
	return putRecords(ctx, c, name, []arrow.RecordBatch{first, rest})
}

func putRecords(ctx context.Context, c *cache.Cache, name string, recs []arrow.RecordBatch) error {
	r, err := array.NewRecordReader(recs[0].Schema(), recs)
	if err != nil {
		return err
	}
	defer r.Release()
	_, err = c.Put(ctx, name, r, cache.TableOptions{})
	return err
}

func writeParquet(path string, recs []arrow.RecordBatch) error {
	return writeFile(path, func(f *os.File) error {
		r, err := array.NewRecordReader(recs[0].Schema(), recs)
		if err != nil {
			return err
		}
		defer r.Release()
		return tpchparquet.Write(f, r)
	})
}

func writeFile(path string, write func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// outcome is what one query gave in both engines.
type outcome struct {
	quiver, duck       []row
	quiverErr, duckErr error
}

func (e *engines) run(ctx context.Context, quiverSQL, duckSQL string) outcome {
	var o outcome
	if r, err := e.q.Query(ctx, quiverSQL); err != nil {
		o.quiverErr = err
	} else {
		o.quiver, o.quiverErr = readArrow(r)
		r.Release()
	}
	if rs, err := e.db.QueryContext(ctx, duckSQL); err != nil {
		o.duckErr = err
	} else {
		o.duck, o.duckErr = readSQL(rs)
	}
	return o
}

// tally counts what a set of queries did.
type tally struct {
	queries, rows, refused int
	refusals               []string // the first few queries both engines refused
}

func (t *tally) String() string {
	return fmt.Sprintf("%d queries, %d rows compared, %d refused by both engines", t.queries, t.rows, t.refused)
}

// mismatch returns "" when both engines agree on q, else what differs.
func (e *engines) mismatch(ctx context.Context, q testQuery, t *tally) string {
	duckSQL := q.duck
	if duckSQL == "" {
		duckSQL = q.sql
	}
	o := e.run(ctx, q.sql, duckSQL)
	t.queries++
	t.rows += len(o.duck)
	var d string
	switch {
	case o.quiverErr != nil && o.duckErr != nil:
		t.refused++
		if len(t.refusals) < 5 {
			t.refusals = append(t.refusals, fmt.Sprintf("%s\n  quiver: %v\n  DuckDB: %v", q.sql, o.quiverErr, o.duckErr))
		}
		return "" // both refuse it
	case o.quiverErr != nil:
		what := "quiver failed"
		if errors.Is(o.quiverErr, query.ErrUnsupported) {
			what = "quiver does not support it"
		}
		d = fmt.Sprintf("%s: %v (DuckDB returned %d rows)", what, o.quiverErr, len(o.duck))
	case o.duckErr != nil:
		d = fmt.Sprintf("DuckDB failed: %v (quiver returned %d rows)", o.duckErr, len(o.quiver))
	default:
		d = diff(o.quiver, o.duck, q.ordered)
	}
	if d == "" {
		return ""
	}
	s := "SQL: " + q.sql
	if q.duck != "" {
		s += "\nDuckDB's SQL: " + q.duck
	}
	return s + "\n" + strings.TrimRight(d, "\n")
}

// testQuery is one query and how to compare it.
type testQuery struct {
	name    string
	sql     string
	duck    string // DuckDB's spelling, when it differs
	ordered bool   // ORDER BY fixes the order of every row
}
