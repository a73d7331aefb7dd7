//go:build !nobench

package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/quiverdb/quiver/bench"
)

const benchConvertAbout = `Measures the converter (issue 4), each comparison's cells back to back in every run:

  per type   one column, 0% and 10% nulls, plain and dictionary input, through
             convert.Coalescer's bulk paths, against arrow-go's builders fed value
             by value (Append) and, where they have it, AppendValues of Go slices;
  CSV        a lineitem-shaped file of --csv-mb MB written under the system temp
             dir (and removed), read by arrow-go's csv.Reader and by quiver's CSV
             reader on 1 and GOMAXPROCS goroutines;
  Parquet    a lineitem Parquet file of --parquet-rows rows read by pqarrow alone
             and by quiver's Parquet source re-batched to --batch-rows rows.

Prints the tables and the targets (≥ 5× Append for strings, decimals and
dictionary strings; ≥ 2× for fixed width with nulls; CSV ≥ 3× arrow-go).`

func runBenchConvert(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newBenchFlags("convert", benchConvertAbout, 5, "measurements per per-type cell, interleaved; the tables show medians")
	batchRows := fs.Int("batch-rows", 8192, "rows per batch")
	batches := fs.Int("batches", 32, "input batches per per-type cell and run")
	types := fs.String("types", "all", "comma-separated per-type cases, all, or none: "+strings.Join(bench.TypeCaseNames(), ", "))
	csvMB := fs.Int64("csv-mb", 1000, "size of the CSV file in MB (10^6 B); 0 skips the CSV cells")
	fileRuns := fs.Int("file-runs", 3, "measurements of each CSV and Parquet cell")
	parquetRows := fs.Int("parquet-rows", 2_000_000, "rows of the Parquet file; 0 skips the Parquet cells")
	if err := fs.parse(args, stdout); err != nil {
		return err
	}
	if *batchRows <= 0 || *batches <= 0 || *fileRuns <= 0 || *csvMB < 0 || *parquetRows < 0 {
		return fmt.Errorf("%w: --batch-rows, --batches and --file-runs must be positive; --csv-mb and --parquet-rows not negative", errUsage)
	}
	cfg := bench.ConvertConfig{BatchRows: *batchRows, Batches: *batches, Runs: *fs.runs, CSVBytes: *csvMB * 1e6,
		CSVRuns: *fileRuns, ParquetRows: *parquetRows, Progress: fs.progress(stderr)}
	if *csvMB == 0 {
		cfg.CSVBytes = -1
	}
	if *parquetRows == 0 {
		cfg.ParquetRows = -1
	}
	switch *types {
	case "all":
	case "none":
		cfg.Types = []string{}
	default:
		cfg.Types = splitTop(*types)
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	_, err := bench.RunConvert(ctx, cfg, stdout)
	return err
}

// splitTop splits s at the commas outside parentheses and angle brackets
// (type names such as decimal(9,2) and map<string,string> hold commas).
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(', '<':
			depth++
		case ')', '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}
