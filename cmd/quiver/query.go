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

	"github.com/quiverdb/quiver/bench"
	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query"
)

const queryAbout = `Loads tables into an in-memory compressed cache and answers one SQL statement
over them, printing the result as a table (EXPLAIN SELECT … prints the plan).

Tables come from --table NAME=FILE (Arrow IPC files or streams, repeatable); with
none, the built-in Comet benchmark relation of --rows rows is loaded as "comet"
(id, k, v int64; s1, s2, s3 utf8). The SQL subset is documented in the query
package (go doc github.com/quiverdb/quiver/query): one table, WHERE, GROUP BY,
HAVING, ORDER BY, LIMIT; anything else is refused with its position.`

// tableFlags collects repeated --table NAME=FILE flags.
type tableFlags []string

func (t *tableFlags) String() string     { return strings.Join(*t, ",") }
func (t *tableFlags) Set(v string) error { *t = append(*t, v); return nil }

func runQuery(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("query", flag.ContinueOnError)
	var tables tableFlags
	fs.Var(&tables, "table", "load `NAME=FILE` (Arrow IPC); repeatable")
	rows := fs.Int("rows", 1_000_000, "rows of the built-in relation, when no --table is given")
	codecText := fs.String("codec", "auto", "cache codec of the loaded tables")
	maxRows := fs.Int("max-rows", 100, "rows of the result to print (the rest are counted)")
	memLimit := fs.Int64("memory-limit", query.DefaultMemoryLimit, "bytes the query's sorts and aggregates may hold")
	timing := fs.Bool("timing", false, "print load and query times and what the scan skipped on stderr")
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
	setting, err := cache.ParseCodecSetting(*codecText)
	if err != nil {
		return fmt.Errorf("%w: --codec: %v", errUsage, err)
	}
	if *rows <= 0 || *maxRows < 0 || *memLimit <= 0 {
		return fmt.Errorf("%w: --rows and --memory-limit must be positive, --max-rows not negative", errUsage)
	}
	c, err := cache.New(cache.Options{Budget: 1 << 40})
	if err != nil {
		return err
	}
	start := time.Now()
	opts := cache.TableOptions{Codec: setting}
	if len(tables) == 0 {
		recs := bench.CometRecords(nil, *rows, bench.DefaultCometBatch)
		r, err := array.NewRecordReader(bench.CometSchema, recs)
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
	for _, t := range tables {
		if !strings.Contains(t, "=") {
			return fmt.Errorf("%w: --table %q: want NAME=FILE", errUsage, t)
		}
		if err := loadFile(ctx, c, t, opts); err != nil {
			return err
		}
	}
	loaded := time.Since(start)
	e := query.New(c, query.Options{MemoryLimit: *memLimit})
	start = time.Now()
	res, err := e.Query(ctx, pos[0])
	if err != nil {
		return err
	}
	defer res.Release()
	if err := printResult(stdout, res, *maxRows); err != nil {
		return err
	}
	if *timing {
		st := res.Stats()
		fmt.Fprintf(stderr, "loaded in %v; query %v; %d rows; scan decoded %d and skipped %d of %d batches\n",
			loaded.Round(time.Millisecond), time.Since(start).Round(time.Microsecond), st.Rows, st.Scan.Decoded, st.Scan.Skipped, st.Scan.Batches)
	}
	return nil
}

// printResult prints up to maxRows rows as an aligned table, then the
// count of the rest.
func printResult(w io.Writer, res *query.Result, maxRows int) error {
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
		fmt.Fprintf(w, "(%d rows)\n", total)
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
