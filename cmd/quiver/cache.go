package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/convert/input"
	"github.com/quiverdb/quiver/internal/datagen"
)

const cacheAbout = `Loads tables into an in-memory compressed cache, as the server will, and prints
each table's footprint: rows, batches, decoded and compressed bytes, and per
column the codec and encoding used (what auto chose), nulls, distinct values
(a HyperLogLog estimate, about 1.6% standard error; "-" for types without
one), and bytes.

Each FILE is a CSV, Parquet or Arrow IPC file (or stream), loaded as the table NAME (default: the
file name without its extension). With no FILE the built-in Comet benchmark
relation of --rows rows is loaded as "comet". The decoded size is the table's
size for planning, the same under every codec; the budget counts compressed bytes.`

func runCache(ctx context.Context, args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("cache", flag.ContinueOnError)
	codecText := fs.String("codec", "auto", "codec of every table: auto, none, lz4, zstd or zstd:LEVEL")
	plain := fs.Bool("plain", false, "turn the encodings (delta, frame of reference, lengths) off")
	budget := fs.Int64("budget", cache.DefaultBudget, "most compressed bytes the cache holds")
	rows := fs.Int("rows", 1_000_000, "rows of the built-in relation, when no FILE is given")
	concurrency := fs.Int("concurrency", 0, "goroutines encoding each table (0: GOMAXPROCS)")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return printHelp(stdout, fs, "cache [flags] [[NAME=]FILE ...]", cacheAbout)
	}
	if err != nil {
		return err
	}
	setting, err := cache.ParseCodecSetting(*codecText)
	if err != nil {
		return fmt.Errorf("%w: --codec: %v", errUsage, err)
	}
	if *budget <= 0 || *rows <= 0 || *concurrency < 0 {
		return fmt.Errorf("%w: --budget and --rows must be positive, --concurrency not negative", errUsage)
	}
	c, err := cache.New(cache.Options{Budget: *budget, Concurrency: *concurrency})
	if err != nil {
		return err
	}
	opts := cache.TableOptions{Codec: setting, Plain: *plain}
	if len(pos) == 0 {
		recs := datagen.CometRecords(nil, *rows, datagen.DefaultCometBatch)
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
	for _, arg := range pos {
		if err := loadFile(ctx, c, arg, opts); err != nil {
			return err
		}
	}
	for _, name := range c.Tables() {
		info, err := c.Info(name)
		if err != nil {
			return err
		}
		printFootprint(stdout, info)
	}
	fmt.Fprintf(stdout, "cache: %s of the %s budget in use\n", mib(c.Used()), mib(c.Budget()))
	return nil
}

// loadFile puts one [NAME=]FILE argument into c.
func loadFile(ctx context.Context, c *cache.Cache, arg string, opts cache.TableOptions) error {
	name, path, ok := strings.Cut(arg, "=")
	if !ok {
		path = arg
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if name == "" || path == "" {
		return fmt.Errorf("%w: %q: want FILE or NAME=FILE", errUsage, arg)
	}
	r, err := openTableFile(ctx, path)
	if err != nil {
		return err
	}
	defer r.Release()
	if _, err := c.Put(ctx, name, r, opts); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func printFootprint(w io.Writer, t cache.TableInfo) {
	fmt.Fprintf(w, "table %s: %d rows in %d batches, codec %s\n", t.Name, t.Rows, t.Batches, t.Codec)
	fmt.Fprintf(w, "  decoded %s (%d bytes), compressed %s (%d bytes), ratio %.2f\n\n",
		mib(t.Decoded), t.Decoded, mib(t.Compressed), t.Compressed, t.Ratio())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  column\ttype\tnulls\tdistinct\tcodec\tencoding\tcompressed\tdecoded\tratio\t")
	for _, col := range t.Columns {
		enc := col.Encoding
		if col.Dictionary != "" {
			enc += " (dictionary " + col.Dictionary + ")"
		}
		distinct := "-"
		if col.Distinct >= 0 {
			distinct = strconv.FormatInt(col.Distinct, 10)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\t%d\t%d\t%s\t\n", col.Name, col.Type, col.Nulls, distinct, col.Codec, enc, col.Compressed, col.Decoded, ratio(col.Decoded, col.Compressed))
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func mib(n int64) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }

// openTableFile reads an Arrow IPC file or stream as it is (every Arrow
// type), and CSV or Parquet through package convert.
func openTableFile(ctx context.Context, path string) (array.RecordReader, error) {
	return input.Records(ctx, path, input.Options{KeepIPC: true})
}
