// Package input opens a data file by what it holds: CSV, TSV, Parquet or
// Arrow IPC (file or stream, any codec), told by an explicit Format,
// else by the file's first bytes, else by its extension. It is the one
// place quiver's commands (convert, load, cache, query --table) and the
// client package tell formats apart.
//
// It lives beside package convert rather than in it because it opens
// CSV through convert/csv, which imports convert.
package input

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/convert/csv"
	"github.com/quiverdb/quiver/internal/pull"
)

// Format is a kind of input file.
type Format string

// The formats Open reads. Detect (empty) tells them apart by content.
const (
	Detect  Format = ""
	CSV     Format = "csv"
	TSV     Format = "tsv"
	Parquet Format = "parquet"
	Arrow   Format = "arrow" // Arrow IPC file or stream
)

// ErrFormat is returned, wrapped, for a format Open does not know or
// cannot read from where it is asked to (standard input is CSV or TSV).
var ErrFormat = errors.New("input: unsupported format")

// ParseFormat reads a format name: csv, tsv, parquet, arrow, or empty
// for Detect.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(s)); f {
	case Detect, CSV, TSV, Parquet, Arrow:
		return f, nil
	}
	return Detect, fmt.Errorf("%w %q: want csv, tsv, parquet or arrow", ErrFormat, s)
}

// Sniff tells the format of a file from its first bytes (8 are enough)
// and its name: Parquet's "PAR1", the Arrow IPC file magic "ARROW1" or
// an IPC stream's continuation marker; otherwise text, TSV for a .tsv
// name and CSV for anything else.
func Sniff(head []byte, path string) Format {
	switch {
	case bytes.HasPrefix(head, []byte("PAR1")):
		return Parquet
	case bytes.HasPrefix(head, []byte("ARROW1")), bytes.HasPrefix(head, []byte{0xff, 0xff, 0xff, 0xff}):
		return Arrow
	case strings.EqualFold(filepath.Ext(path), ".tsv"):
		return TSV
	}
	return CSV
}

// Options configure Open. The zero value detects the format, reads CSV
// with csv.Options' defaults and makes convert.Config's batches.
type Options struct {
	// Format is the input's format; Detect tells it by content and name.
	Format Format
	// CSV configures CSV and TSV input. A zero Comma is ',' for CSV and
	// a tab for TSV. Its Convert field is replaced by Convert.
	CSV csv.Options
	// Convert sizes the batches of the Source (and of Records).
	Convert convert.Config
	// IPC configures Arrow IPC input (limits, allocator, concurrency).
	IPC batch.ReadOptions
	// KeepIPC makes Records hand out an Arrow IPC input's batches as
	// they are, every Arrow type included, rather than re-batched and
	// with dictionaries decoded by package convert.
	KeepIPC bool
}

// File is an opened input: its format, size and a convert.Source over
// it. A convert.Reader made of Source owns the Source; Close closes the
// file once that is released.
type File struct {
	Format Format
	Size   int64 // bytes; 0 for standard input
	Source convert.Source
	close  func() error
}

// Close closes the file (not the Source: the Reader made of it releases
// it).
func (f *File) Close() error { return f.close() }

// Skipped is the malformed CSV records skipped (csv.Options.SkipMalformed);
// nil for other formats.
func (f *File) Skipped() []*csv.ParseError {
	if cs, ok := f.Source.(*csv.Source); ok {
		return cs.Skipped()
	}
	return nil
}

// Open opens path as a Source. A path of "-" is CSV or TSV on standard
// input. Errors name the path.
func Open(ctx context.Context, path string, opts Options) (*File, error) {
	format, err := ParseFormat(string(opts.Format))
	if err != nil {
		return nil, err
	}
	copts := opts.CSV
	copts.Convert = opts.Convert
	if path == "-" {
		if format != Detect && format != CSV && format != TSV {
			return nil, fmt.Errorf("%w: standard input must be CSV or TSV, not %s", ErrFormat, format)
		}
		src, err := csvSource(os.Stdin, format, copts)
		if err != nil {
			return nil, fmt.Errorf("standard input: %w", err)
		}
		if format == Detect {
			format = CSV
		}
		return &File{Format: format, Source: src, close: func() error { return nil }}, nil
	}
	f, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	format = detect(f, path, format)
	var src convert.Source
	switch format {
	case CSV, TSV:
		src, err = csvSource(f, format, copts)
	case Parquet:
		src, err = convert.OpenParquet(ctx, f, convert.ParquetOptions{BatchRows: opts.Convert.BatchRows, Alloc: opts.Convert.Alloc})
	case Arrow:
		src, err = convert.OpenIPC(f, st.Size(), opts.IPC)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &File{Format: format, Size: st.Size(), Source: src, close: f.Close}, nil
}

// openRegular opens path for reading, refusing a directory by name.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil && st.IsDir() {
		err = fmt.Errorf("%s is a directory", path)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, st, nil
}

func csvSource(r io.Reader, format Format, copts csv.Options) (convert.Source, error) {
	if format == TSV && copts.Comma == 0 {
		copts.Comma = '\t'
	}
	return csv.NewSource(r, copts)
}

// Records opens path as an array.RecordReader of opts.Convert's batches
// (or, with KeepIPC, an Arrow IPC input's own). Release closes the file.
func Records(ctx context.Context, path string, opts Options) (array.RecordReader, error) {
	if opts.KeepIPC && path != "-" {
		format := opts.Format
		f, st, err := openRegular(path)
		if err != nil {
			return nil, err
		}
		format = detect(f, path, format)
		if format == Arrow {
			r, err := batch.OpenRecords(f, st.Size(), opts.IPC)
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			return withRelease(r, func() { f.Close() }), nil
		}
		f.Close()
		opts.Format = format
	}
	in, err := Open(ctx, path, opts)
	if err != nil {
		return nil, err
	}
	cr, err := convert.NewReader(in.Source, opts.Convert)
	if err != nil {
		in.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return withRelease(pull.Records(cr.Schema(), cr.Next), func() { cr.Release(); in.Close() }), nil
}

// releaser is a RecordReader that runs done after its last Release.
type releaser struct {
	array.RecordReader
	refs atomic.Int64
	done func()
}

func withRelease(r array.RecordReader, done func()) *releaser {
	rr := &releaser{RecordReader: r, done: done}
	rr.refs.Store(1)
	return rr
}

func (r *releaser) Retain() { r.refs.Add(1) }

func (r *releaser) Release() {
	if r.refs.Add(-1) == 0 {
		r.RecordReader.Release()
		r.done()
	}
}

// detect is format, or for Detect what the first bytes of f (then its
// name) say it is.
func detect(f io.ReaderAt, path string, format Format) Format {
	if format != Detect {
		return format
	}
	head := make([]byte, 8)
	n, _ := f.ReadAt(head, 0)
	return Sniff(head[:n], path)
}
