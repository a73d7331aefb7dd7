package main

import (
	"context"
	encsv "encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	arrowcsv "github.com/apache/arrow-go/v18/arrow/csv"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/arrowsize"
)

// Output formats of query --out, told by the file's extension.
const (
	outArrow   = "arrow"
	outCSV     = "csv"
	outParquet = "parquet"
)

// outFormat tells the format of an --out file from its extension.
func outFormat(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".arrow", ".ipc", ".feather":
		return outArrow, nil
	case ".csv":
		return outCSV, nil
	case ".parquet", ".pq":
		return outParquet, nil
	}
	return "", fmt.Errorf("%w: --out %q: want a .arrow, .csv or .parquet file", errUsage, path)
}

// parquetRowGroup is the most rows of one Parquet row group: the writer
// holds a row group's encoded pages in memory until it is complete.
const parquetRowGroup = 1 << 20

// recordSink writes the records of one result to a file.
type recordSink interface {
	Write(arrow.RecordBatch) error
	Close() error
}

// writeResult writes every record of rr to out, through a temporary file
// beside it renamed into place when complete, so a failed fetch leaves
// no partial file. arrowCodec is asked for the .arrow codec when the
// first record is written (a remote result's codec is known only then).
// tick is called after every record with the rows and Arrow bytes so far.
// An error of rr is returned as it is (the caller explains a server's).
func writeResult(ctx context.Context, out string, rr array.RecordReader, arrowCodec func() codec.Setting, tick func(rows, arrowBytes int64)) error {
	format, err := outFormat(out)
	if err != nil {
		return err
	}
	return writeFileAtomically(out, func(tmp *os.File) error {
		return writeRecords(ctx, out, tmp, format, rr, arrowCodec, tick)
	})
}

// writeRecords writes every batch of rr to tmp in format.
func writeRecords(ctx context.Context, out string, tmp *os.File, format string, rr array.RecordReader, arrowCodec func() codec.Setting, tick func(rows, arrowBytes int64)) error {
	var err error
	// The Parquet writer closes its sink; the file is ours to close.
	w := struct{ io.Writer }{tmp}
	var sink recordSink
	switch format {
	case outArrow:
		sink = &arrowSink{w: w, schema: rr.Schema(), setting: arrowCodec}
	case outCSV:
		sink, err = newCSVSink(w, rr.Schema())
	case outParquet:
		sink, err = newParquetSink(w, rr.Schema())
	}
	if err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	var rows, size int64
	for rr.Next() {
		if err := ctx.Err(); err != nil {
			sink.Close()
			return err
		}
		rec := rr.RecordBatch()
		if err := sink.Write(rec); err != nil {
			sink.Close()
			return fmt.Errorf("%s: %w", out, err)
		}
		rows += rec.NumRows()
		size += arrowsize.Record(rec)
		if tick != nil {
			tick(rows, size)
		}
	}
	if err := rr.Err(); err != nil {
		sink.Close()
		return err
	}
	if err := sink.Close(); err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	return nil
}

// arrowSink writes an Arrow IPC file with quiver's batch writer, opened
// at the first record so the codec can be the result's.
type arrowSink struct {
	w       io.Writer
	schema  *arrow.Schema
	setting func() codec.Setting
	fw      *batch.FileWriter
}

func (s *arrowSink) open() error {
	if s.fw != nil {
		return nil
	}
	var err error
	s.fw, err = batch.NewFileWriter(s.w, s.schema, batch.WriteOptions{Codec: s.setting(), Alloc: remoteAlloc})
	return err
}

func (s *arrowSink) Write(rec arrow.RecordBatch) error {
	if err := s.open(); err != nil {
		return err
	}
	return s.fw.Write(rec)
}

func (s *arrowSink) Close() error {
	if err := s.open(); err != nil {
		return err
	}
	return s.fw.Close()
}

// csvSink writes CSV with a header line through arrow-go's writer. NULL
// is an empty field, as most CSV readers (quiver's too) read it back.
type csvSink struct {
	w *arrowcsv.Writer
}

func newCSVSink(w io.Writer, schema *arrow.Schema) (*csvSink, error) {
	// The header is written here rather than by arrow-go, which writes it
	// only with the first record: an empty result still gets its header.
	hw := encsv.NewWriter(w)
	names := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		names[i] = f.Name
	}
	if err := hw.Write(names); err != nil {
		return nil, err
	}
	hw.Flush()
	if err := hw.Error(); err != nil {
		return nil, err
	}
	return &csvSink{w: arrowcsv.NewWriter(w, schema, arrowcsv.WithNullWriter(""), arrowcsv.WithCustomTypeConverter(csvFallback))}, nil
}

// csvFallback formats the types arrow-go's CSV writer does not know (it
// panics on them): dictionaries, times, durations, intervals, views,
// structs, maps, unions, run-end encoded arrays, each cell as the array
// prints it.
func csvFallback(dt arrow.DataType, col arrow.Array) ([]string, bool) {
	if csvNative(dt) {
		return nil, false
	}
	out := make([]string, col.Len())
	for i := range out {
		if !col.IsNull(i) {
			out[i] = col.ValueStr(i)
		}
	}
	return out, true
}

// csvNative lists the types arrow-go's CSV writer formats itself.
func csvNative(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.STRING, arrow.LARGE_STRING,
		arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.BINARY, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY, arrow.NULL:
		return true
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST:
		return csvNative(dt.(arrow.ListLikeType).Elem())
	}
	return false
}

func (s *csvSink) Write(rec arrow.RecordBatch) error { return s.w.Write(rec) }
func (s *csvSink) Close() error                      { return s.w.Flush() }

// parquetSink writes Parquet with zstd through pqarrow, with the Arrow
// schema stored so types Parquet lacks (e.g. durations) read back as
// they were.
type parquetSink struct {
	w *pqarrow.FileWriter
}

func newParquetSink(w io.Writer, schema *arrow.Schema) (*parquetSink, error) {
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithMaxRowGroupLength(parquetRowGroup),
		parquet.WithAllocator(remoteAlloc))
	fw, err := pqarrow.NewFileWriter(schema, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema(), pqarrow.WithAllocator(remoteAlloc)))
	if err != nil {
		return nil, err
	}
	return &parquetSink{w: fw}, nil
}

func (s *parquetSink) Write(rec arrow.RecordBatch) error { return s.w.WriteBuffered(rec) }
func (s *parquetSink) Close() error                      { return s.w.Close() }
