package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/convert/input"
)

const convertAbout = `Converts CSV/TSV, Parquet or Arrow IPC (file or stream, any codec) into a standard
Arrow IPC file or stream of --batch-rows-row batches, compressed with --codec, that
any Arrow implementation reads. The input format is told by --from, else by the
file's magic bytes, else by its extension (.tsv is tab-separated; anything else
text is CSV). IN may be - for CSV on standard input. OUT is written to a
temporary file beside it and renamed into place when complete.

CSV: RFC 4180 quoting; a header line unless --no-header; types inferred from
the first --infer-rows records (int64, float64, decimal with --infer-decimal,
bool, date, timestamp, string); an empty field, NULL and null are null in
every column (--null), but a quoted string is a value: 1,"" has the empty
string where 1, has a null (--strings-never-null: no nulls in string
columns). A malformed record stops the conversion with its line and column,
or with --skip-malformed is skipped and counted.
Dictionary-encoded columns are decoded. Progress goes to stderr after two
seconds; a summary line at the end.`

func runConvert(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	codecFlag := fs.String("codec", "zstd:1", "body compression of the output: none, lz4, zstd, zstd:N")
	format := fs.String("format", "file", "output format: file or stream")
	from := fs.String("from", "", "input format: csv, tsv, parquet or arrow (default: detect)")
	batchRows := fs.Int("batch-rows", convert.DefaultBatchRows, "rows per output batch")
	maxBytes := fs.Int64("max-batch-bytes", convert.DefaultMaxBytes, "largest output batch, in bytes of Arrow buffers")
	csvf := registerCSVFlags(fs)
	inferRows := fs.Int("infer-rows", 1000, "CSV: records sampled to infer the types")
	inferDecimal := fs.Bool("infer-decimal", false, "CSV: infer decimal128 rather than float64 for plain decimal numbers")
	skip := fs.Bool("skip-malformed", false, "CSV: skip malformed records and count them instead of failing")
	goroutines := fs.Int("goroutines", runtime.GOMAXPROCS(0), "goroutines parsing CSV and compressing the output")
	quiet := fs.Bool("quiet", false, "no progress or summary on stderr")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return printHelp(stdout, fs, "convert [flags] IN OUT", convertAbout)
	}
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return fmt.Errorf("%w: want IN and OUT, got %d arguments", errUsage, len(pos))
	}
	setting, err := codec.ParseSetting(*codecFlag)
	if err != nil {
		return fmt.Errorf("%w: --codec: %v", errUsage, err)
	}
	if *format != "file" && *format != "stream" {
		return fmt.Errorf("%w: --format must be file or stream, not %q", errUsage, *format)
	}
	if *batchRows <= 0 || *maxBytes <= 0 || *goroutines <= 0 || *inferRows <= 0 {
		return fmt.Errorf("%w: --batch-rows, --max-batch-bytes, --goroutines and --infer-rows must be positive", errUsage)
	}
	in, out := pos[0], pos[1]
	inFormat, err := input.ParseFormat(*from)
	if err != nil {
		return fmt.Errorf("%w: --from: %v", errUsage, err)
	}
	cfg := convert.Config{BatchRows: *batchRows, MaxBytes: *maxBytes}
	copts, err := csvf.options(cfg)
	if err != nil {
		return err
	}
	copts.InferRows, copts.InferDecimal = *inferRows, *inferDecimal
	copts.SkipMalformed, copts.Concurrency = *skip, *goroutines
	iopts := input.Options{Format: inFormat, CSV: copts, Convert: cfg, IPC: batch.ReadOptions{Concurrency: *goroutines}}
	src, err := input.Open(ctx, in, iopts)
	if errors.Is(err, input.ErrFormat) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if err != nil {
		return err
	}
	defer src.Close()
	r, err := convert.NewReader(src.Source, cfg)
	if err != nil {
		return err
	}
	defer r.Release()
	wopts := batch.WriteOptions{Codec: setting, Concurrency: *goroutines}
	var p *fetchProgress
	start := time.Now()
	if !*quiet {
		p = newFetchProgress(stderr, "read")
		p.total = src.Size
	}
	if err := writeOutput(ctx, out, *format == "file", r, wopts, p); err != nil {
		return err
	}
	if p != nil {
		p.done()
		convertSummary(stderr, r.Stats(), out, start)
		if skipped := src.Skipped(); len(skipped) > 0 {
			fmt.Fprintf(stderr, "first skipped: %v\n", skipped[0])
		}
	}
	return nil
}

// writeOutput writes every batch of r to out (through a temporary file
// renamed into place).
func writeOutput(ctx context.Context, out string, file bool, r *convert.Reader, opts batch.WriteOptions, p *fetchProgress) error {
	return writeFileAtomically(out, func(tmp *os.File) error {
		return writeBatches(ctx, out, tmp, file, r, opts, p)
	})
}

// writeBatches writes every batch of r to f as an IPC file or stream.
func writeBatches(ctx context.Context, out string, tmp *os.File, file bool, r *convert.Reader, opts batch.WriteOptions, p *fetchProgress) error {
	var err error
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if file {
		w, err = batch.NewFileWriter(tmp, r.Schema(), opts)
	} else {
		w, err = batch.NewStreamWriter(tmp, r.Schema(), opts)
	}
	if err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			return fmt.Errorf("%s: %w", out, err)
		}
		st := r.Stats()
		p.update(st.Rows, st.InputBytes)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	return nil
}

// convertSummary is the line a conversion ends with.
func convertSummary(w io.Writer, st convert.Stats, out string, start time.Time) {
	el := time.Since(start)
	fmt.Fprintf(w, "%s: %d rows in %d batches in %v (%.1f MB/s of input; converting %v, waiting for input %v)",
		out, st.Rows, st.Batches, el.Round(time.Millisecond), float64(st.InputBytes)/1e6/el.Seconds(),
		st.ConvertTime.Round(time.Millisecond), st.PullTime.Round(time.Millisecond))
	if st.SkippedRows > 0 {
		fmt.Fprintf(w, "; %d malformed records skipped", st.SkippedRows)
	}
	fmt.Fprintln(w)
}
