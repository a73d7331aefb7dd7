package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
	"github.com/quiverdb/quiver/query"
	"github.com/quiverdb/quiver/spill"
)

const queryAbout = `Answers one SQL statement and prints the result as a table (EXPLAIN SELECT …
prints the plan), or with --out FILE writes every row to FILE: .arrow (an Arrow
IPC file), .csv (with a header line) or .parquet (zstd).

Locally (no --server) the tables are loaded into an in-memory compressed cache
first: --table NAME=FILE (CSV, Parquet or Arrow IPC, repeatable); with none,
the built-in Comet benchmark relation of --rows rows is loaded as "comet" (id, k,
v int64; s1, s2, s3 utf8). The SQL quiver answers (joins, subqueries, CTEs, set
operations, window functions, DDL and INSERT) is documented in the query package
(go doc github.com/quiverdb/quiver/query); what it refuses is refused with an
error naming the construct and its position.

With --server URI the statement runs on a Flight SQL server (quiver serve):
grpc://host:port, grpc+tls://host:port (--tls-ca to trust a private CA) or
host:port. --codec then sets the session's result codec before the query (none,
lz4, zstd:N or auto; default: the server's), --token (or the environment
variable QUIVER_TOKEN) is sent as "authorization: Bearer <token>". A summary goes
to stderr: rows, the bytes received (the FlightData messages: schema, headers
and bodies) against the Arrow bytes of the decoded batches, what compression
saved, and the time. The server sends a batch that compression would make
bigger (a few rows) uncompressed, so a tiny result reads "uncompressed" under
any --codec. With --out, a progress line for fetches longer than a second.
Errors from the server print as one line saying what the gRPC code means.

--out-codec sets the body compression of an .arrow file; by default it keeps
the result's codec with --server and is zstd:1 locally.`

// tableFlags collects repeated --table NAME=FILE flags.
type tableFlags []string

func (t *tableFlags) String() string     { return strings.Join(*t, ",") }
func (t *tableFlags) Set(v string) error { *t = append(*t, v); return nil }

func runQuery(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	var tables tableFlags
	var remote remoteFlags
	remote.register(fs, "")
	fs.Var(&tables, "table", "load `NAME=FILE` (CSV, Parquet or Arrow IPC); repeatable; local only")
	rows := fs.Int("rows", 1_000_000, "rows of the built-in relation, when no --table is given; local only")
	codecText := fs.String("codec", "", "local: codec of the cached tables (default auto); with --server: the result codec (none, lz4, zstd:N, auto; default the server's)")
	maxRows := fs.Int("max-rows", 100, "rows of the result to print (the rest are counted)")
	out := fs.String("out", "", "write every row to `FILE` (.arrow, .csv or .parquet) instead of printing")
	outCodec := fs.String("out-codec", "", "body compression of an .arrow --out file: none, lz4, zstd, zstd:N")
	memLimit := fs.Int64("memory-limit", query.DefaultMemoryLimit, "bytes the query's sorts and aggregates may hold; local only")
	timing := fs.Bool("timing", false, "print load and query times and what the scan skipped on stderr; local only")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return printHelp(stdout, fs, "query [flags] SQL", queryAbout)
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want exactly one SQL argument (quote it), got %d", errUsage, len(pos))
	}
	if *maxRows < 0 {
		return fmt.Errorf("%w: --max-rows must not be negative", errUsage)
	}
	var outSetting *codec.Setting
	if *out != "" {
		if _, err := outFormat(*out); err != nil {
			return err
		}
	}
	if *outCodec != "" {
		if f, _ := outFormat(*out); f != outArrow {
			return fmt.Errorf("%w: --out-codec applies to an .arrow --out file", errUsage)
		}
		st, err := codec.ParseSetting(*outCodec)
		if err != nil {
			return fmt.Errorf("%w: --out-codec: %v", errUsage, err)
		}
		outSetting = &st
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if remote.server != "" {
		for _, name := range []string{"table", "rows", "memory-limit", "timing"} {
			if set[name] {
				return fmt.Errorf("%w: --%s is for local queries, not with --server (load tables with 'quiver load')", errUsage, name)
			}
		}
		if *codecText != "" && *codecText != "auto" {
			if _, err := codec.ParseSetting(*codecText); err != nil {
				return fmt.Errorf("%w: --codec: %v (want none, lz4, zstd:N or auto)", errUsage, err)
			}
		}
		return runRemoteQuery(ctx, remoteQuery{remote: remote, sql: pos[0], codec: *codecText,
			out: *out, outCodec: outSetting, maxRows: *maxRows}, stdout, stderr)
	}
	for _, name := range []string{"token", "tls-ca"} {
		if set[name] {
			return fmt.Errorf("%w: --%s needs --server", errUsage, name)
		}
	}
	if *codecText == "" {
		*codecText = "auto"
	}
	setting, err := cache.ParseCodecSetting(*codecText)
	if err != nil {
		return fmt.Errorf("%w: --codec: %v", errUsage, err)
	}
	if *rows <= 0 || *memLimit <= 0 {
		return fmt.Errorf("%w: --rows and --memory-limit must be positive", errUsage)
	}
	for _, t := range tables {
		if !strings.Contains(t, "=") {
			return fmt.Errorf("%w: --table %q: want NAME=FILE", errUsage, t)
		}
	}
	outCodecLocal := codec.Setting{Kind: codec.Zstd, Level: 1}
	if outSetting != nil {
		outCodecLocal = *outSetting
	}
	return runLocalQuery(ctx, localQuery{sql: pos[0], tables: tables, rows: *rows, codec: setting,
		memLimit: *memLimit, timing: *timing, out: *out, outCodec: outCodecLocal, maxRows: *maxRows}, stdout, stderr)
}

// localQuery is one quiver query without --server.
type localQuery struct {
	sql      string
	tables   []string // NAME=FILE
	rows     int      // of the Comet relation, when no tables
	codec    cache.CodecSetting
	memLimit int64
	timing   bool
	out      string
	outCodec codec.Setting
	maxRows  int
}

// runLocalQuery loads the tables into a cache of its own and answers q.sql
// over them.
func runLocalQuery(ctx context.Context, q localQuery, stdout, stderr io.Writer) error {
	c, err := cache.New(cache.Options{Budget: 1 << 40})
	if err != nil {
		return err
	}
	start := time.Now()
	opts := cache.TableOptions{Codec: q.codec}
	if len(q.tables) == 0 {
		recs := datagen.CometRecords(nil, q.rows, datagen.DefaultCometBatch)
		r, err := array.NewRecordReader(datagen.CometSchema, recs)
		for _, rec := range recs {
			rec.Release()
		}
		if err != nil {
			return err
		}
		defer r.Release()
		if _, err := c.Put(ctx, "comet", r, opts); err != nil {
			return err
		}
	}
	for _, t := range q.tables {
		if err := loadFile(ctx, c, t, opts); err != nil {
			return err
		}
	}
	loaded := time.Since(start)
	// ORDER BY and GROUP BY past --memory-limit spill under the temp dir
	// (zstd:1), in a folder removed when the command ends.
	spills, err := spill.NewManager(spill.Config{Codec: codec.Setting{Kind: codec.Zstd, Level: 1}})
	if err != nil {
		return err
	}
	defer spills.Close()
	e := query.New(c, query.Options{MemoryLimit: q.memLimit, Spill: spills})
	start = time.Now()
	res, err := e.Query(ctx, q.sql)
	if err != nil {
		return err
	}
	defer res.Release()
	if q.out != "" {
		p := newFetchProgress(stderr, "of Arrow data")
		err = writeResult(ctx, q.out, res, func() codec.Setting { return q.outCodec }, p.update)
		p.done()
	} else {
		err = printResult(stdout, res, q.maxRows)
	}
	if err != nil {
		return err
	}
	if q.timing {
		st := res.Stats()
		fmt.Fprintf(stderr, "loaded in %v; query %v; %d rows; scan decoded %d and skipped %d of %d batches\n",
			loaded.Round(time.Millisecond), time.Since(start).Round(time.Microsecond), st.Rows, st.Scan.Decoded, st.Scan.Skipped, st.Scan.Batches)
	}
	return nil
}

// printResult prints up to maxRows rows of res as an aligned table, then
// the count of the rest. res is a local query's result or a server's.
func printResult(w io.Writer, res array.RecordReader, maxRows int) error {
	// The first batch comes before the header, so a query that fails at
	// once prints only its error.
	more := res.Next()
	if !more && res.Err() != nil {
		return res.Err()
	}
	schema := res.Schema()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = f.Name
	}
	fmt.Fprintln(tw, strings.Join(names, "\t")+"\t")
	printed, total := 0, 0
	for ; more; more = res.Next() {
		rec := res.RecordBatch()
		for i := range int(rec.NumRows()) {
			total++
			if printed >= maxRows {
				continue
			}
			cells := make([]string, rec.NumCols())
			for j, col := range rec.Columns() {
				cells[j] = formatCell(col, i)
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
			printed++
		}
	}
	tw.Flush()
	if err := res.Err(); err != nil {
		return err
	}
	if total > printed {
		fmt.Fprintf(w, "… %d more rows (%d in all; --max-rows to print more)\n", total-printed, total)
	} else if names[0] != "plan" || len(names) != 1 {
		fmt.Fprintf(w, "(%s)\n", plural(int64(total), "row", "rows"))
	}
	return nil
}

func formatCell(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "NULL"
	}
	if d, ok := col.(*array.Decimal128); ok {
		return d.Value(i).ToString(d.DataType().(*arrow.Decimal128Type).Scale)
	}
	return col.ValueStr(i)
}
