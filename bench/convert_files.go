package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	arrowcsv "github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/convert/csv"
	"github.com/quiverdb/quiver/datagen/lineitem"
)

// fileCell is one way of reading a file into Arrow batches.
type fileCell struct {
	name    string
	run     func() (rows, batches int64, err error)
	times   []time.Duration
	rows    int64
	batches int64
}

// csvCells reads the lineitem CSV at path (size bytes) with arrow-go's
// csv.Reader and with quiver's at 1 and GOMAXPROCS goroutines, all with
// lineitem's schema and 8192-row batches.
func csvCells(path string, mem memory.Allocator, batchRows int) []*fileCell {
	schema := lineitem.Schema()
	arrowGo := func() (int64, int64, error) {
		f, err := os.Open(path)
		if err != nil {
			return 0, 0, err
		}
		defer f.Close()
		r := arrowcsv.NewReader(f, schema, arrowcsv.WithHeader(true), arrowcsv.WithChunk(batchRows), arrowcsv.WithAllocator(mem))
		defer r.Release()
		var rows, batches int64
		for r.Next() {
			rows += r.RecordBatch().NumRows()
			batches++
		}
		return rows, batches, r.Err()
	}
	quiver := func(goroutines int) func() (int64, int64, error) {
		return func() (int64, int64, error) {
			f, err := os.Open(path)
			if err != nil {
				return 0, 0, err
			}
			defer f.Close()
			r, err := csv.NewReader(f, csv.Options{Schema: schema, Concurrency: goroutines, Convert: convert.Config{BatchRows: batchRows, Alloc: mem}})
			if err != nil {
				return 0, 0, err
			}
			defer r.Release()
			return drainReader(r)
		}
	}
	procs := runtime.GOMAXPROCS(0)
	cells := []*fileCell{
		{name: "arrow-go csv.Reader", run: arrowGo},
		{name: "quiver, 1 goroutine", run: quiver(1)},
	}
	if procs > 1 {
		cells = append(cells, &fileCell{name: fmt.Sprintf("quiver, %d goroutines", procs), run: quiver(procs)})
	}
	return cells
}

func drainReader(r *convert.Reader) (int64, int64, error) {
	var rows, batches int64
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return rows, batches, nil
		}
		if err != nil {
			return rows, batches, err
		}
		rows += rec.NumRows()
		batches++
		rec.Release()
	}
}

// writeLineitemCSV writes a lineitem CSV of about size bytes under
// os.TempDir() and returns its path and exact size.
func writeLineitemCSV(size int64) (string, int64, int, error) {
	f, err := os.CreateTemp("", "quiver-bench-lineitem-*.csv")
	if err != nil {
		return "", 0, 0, err
	}
	rows, err := lineitem.Write(f, size, 0, 1)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", 0, 0, err
	}
	st, err := os.Stat(f.Name())
	if err != nil {
		return "", 0, 0, err
	}
	return f.Name(), st.Size(), rows, nil
}

// writeLineitemParquet writes rows lineitem rows as Parquet (row groups
// of 1,048,576 rows, pqarrow's default properties) under os.TempDir().
func writeLineitemParquet(mem memory.Allocator, rows int) (string, int64, error) {
	var buf bytes.Buffer
	if _, err := lineitem.Write(&buf, 0, rows, 2); err != nil {
		return "", 0, err
	}
	r, err := csv.NewReader(&buf, csv.Options{Schema: lineitem.Schema(), Convert: convert.Config{BatchRows: 1 << 16, Alloc: mem}})
	if err != nil {
		return "", 0, err
	}
	defer r.Release()
	f, err := os.CreateTemp("", "quiver-bench-lineitem-*.parquet")
	if err != nil {
		return "", 0, err
	}
	path := f.Name()
	fail := func(err error) (string, int64, error) {
		f.Close()
		os.Remove(path)
		return "", 0, err
	}
	w, err := pqarrow.NewFileWriter(r.Schema(), f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(1<<20), parquet.WithAllocator(mem)), pqarrow.DefaultWriterProps())
	if err != nil {
		return fail(err)
	}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		err = w.WriteBuffered(rec)
		rec.Release()
		if err != nil {
			return fail(err)
		}
	}
	if err := w.Close(); err != nil {
		os.Remove(path)
		return "", 0, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", 0, err
	}
	return path, st.Size(), nil
}

// parquetCells read the Parquet file at path: pqarrow's record reader
// alone (its default batch size, which is the whole selection, and 8192
// rows), and quiver's Parquet source (pqarrow reading 8192 rows, which
// pass through, or 65536 rows, which the coalescer cuts by copying).
func parquetCells(path string, mem memory.Allocator, batchRows int) []*fileCell {
	pq := func(batch int64) func() (int64, int64, error) {
		return func() (int64, int64, error) {
			f, err := os.Open(path)
			if err != nil {
				return 0, 0, err
			}
			defer f.Close()
			pf, err := file.NewParquetReader(f, file.WithReadProps(parquet.NewReaderProperties(mem)))
			if err != nil {
				return 0, 0, err
			}
			defer pf.Close()
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: batch}, mem)
			if err != nil {
				return 0, 0, err
			}
			rr, err := fr.GetRecordReader(context.Background(), nil, nil)
			if err != nil {
				return 0, 0, err
			}
			defer rr.Release()
			var rows, batches int64
			for rr.Next() {
				rows += rr.RecordBatch().NumRows()
				batches++
			}
			return rows, batches, rr.Err()
		}
	}
	quiver := func(read int) func() (int64, int64, error) {
		return func() (int64, int64, error) {
			f, err := os.Open(path)
			if err != nil {
				return 0, 0, err
			}
			defer f.Close()
			src, err := convert.OpenParquet(context.Background(), f, convert.ParquetOptions{BatchRows: read, Alloc: mem})
			if err != nil {
				return 0, 0, err
			}
			r, err := convert.NewReader(src, convert.Config{BatchRows: batchRows, Alloc: mem})
			if err != nil {
				return 0, 0, err
			}
			defer r.Release()
			return drainReader(r)
		}
	}
	return []*fileCell{
		{name: "pqarrow alone, default BatchSize (0: whole file)", run: pq(0)},
		{name: fmt.Sprintf("pqarrow alone, BatchSize %d", batchRows), run: pq(int64(batchRows))},
		{name: fmt.Sprintf("quiver, pqarrow %d rows, passed through", batchRows), run: quiver(batchRows)},
		{name: fmt.Sprintf("quiver, pqarrow %d rows, coalesced to %d", 8*batchRows, batchRows), run: quiver(8 * batchRows)},
	}
}

// measureFiles runs cells runs times, interleaved, after a warm-up run
// that checks every cell reads the same rows.
func measureFiles(ctx context.Context, what string, cells []*fileCell, runs int, logf func(string, ...any)) error {
	for run := -1; run < runs; run++ {
		for _, c := range cells {
			if err := ctx.Err(); err != nil {
				return err
			}
			var rows, batches int64
			d, err := timed(func() error {
				var err error
				rows, batches, err = c.run()
				return err
			})
			if err != nil {
				return fmt.Errorf("bench: %s: %s: %w", what, c.name, err)
			}
			if run < 0 {
				c.rows, c.batches = rows, batches
				if rows != cells[0].rows {
					return fmt.Errorf("bench: %s: %s read %d rows, %s %d", what, c.name, rows, cells[0].name, cells[0].rows)
				}
				continue
			}
			c.times = append(c.times, d)
		}
		if run >= 0 {
			logf("bench: %s run %d of %d", what, run+1, runs)
		}
	}
	return nil
}
