package csv

import (
	"fmt"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/convert"
)

// Options configure a CSV reader. The zero value reads comma-separated
// text with a header line, infers the schema from the first 1000
// records, takes an empty field, NULL and null as nulls in every column
// (in string columns only when unquoted: see NullTokens), fails on the
// first malformed record, and parses on GOMAXPROCS goroutines in 1 MiB
// chunks.
type Options struct {
	// Comma is the field delimiter; 0 means ','. Use '\t' for TSV. It
	// cannot be '"', '\r' or '\n'.
	Comma byte
	// NoHeader says the first record is data. Columns are then named
	// c1, c2, … unless Schema names them.
	NoHeader bool
	// Schema gives the columns' names and types (a header line, if any,
	// must have as many fields; its names are not used). nil infers the
	// types (see infer.go) and takes the names from the header.
	Schema *arrow.Schema
	// InferRows is how many records inference samples; default 1000.
	InferRows int
	// InferDecimal makes inference choose decimal128 over float64 for
	// numbers in plain decimal notation.
	InferDecimal bool
	// NullTokens are the fields read as null. nil means "" (the empty
	// field), "NULL" and "null"; an empty non-nil slice means none. In
	// string and binary columns only unquoted fields are null: quoting
	// is how a CSV writes the string "" or "NULL", so 1,"" has the empty
	// string where 1, has a null (as DuckDB's read_csv with
	// allow_quoted_nulls=false, Polars and Spark read them; see the
	// package doc). In other columns a quoted token is null too ("" is
	// no number).
	NullTokens []string
	// StringsNeverNull takes every field of a string or binary column as
	// it is (an empty field is the empty string, NULL the word), as
	// arrow-go's csv.Reader does by default; NullTokens then apply to the
	// other columns only.
	StringsNeverNull bool
	// SkipMalformed skips malformed records (syntax, wrong field count,
	// a field that does not parse as its column's type) and counts them
	// in Stats().SkippedRows instead of failing; Source.Skipped keeps the
	// first KeepErrors of their errors.
	SkipMalformed bool
	// KeepErrors bounds the errors kept in skip mode; default 100.
	KeepErrors int
	// Concurrency is the goroutines that parse; default GOMAXPROCS. 1
	// parses on the caller's goroutine.
	Concurrency int
	// ChunkBytes is the size of the chunks the input is cut into and
	// parsed by; default 1 MiB.
	ChunkBytes int
	// MaxRecordBytes bounds one record (and so one field): a longer one
	// is an error, and memory stays bounded whatever the input. Default
	// 64 MiB.
	MaxRecordBytes int
	// MaxColumns bounds the fields of the header (or first record);
	// default 16384.
	MaxColumns int
	// Convert sizes the output batches.
	Convert convert.Config
}

// Validate reports an unusable option.
func (o Options) Validate() error {
	switch o.Comma {
	case '"', '\r', '\n':
		return fmt.Errorf("csv: %q cannot be the delimiter", o.Comma)
	}
	if o.InferRows < 0 || o.KeepErrors < 0 || o.Concurrency < 0 || o.ChunkBytes < 0 || o.MaxRecordBytes < 0 || o.MaxColumns < 0 {
		return fmt.Errorf("csv: negative option in %+v", o)
	}
	return o.Convert.Validate()
}

func (o Options) withDefaults() Options {
	if o.Comma == 0 {
		o.Comma = ','
	}
	if o.InferRows == 0 {
		o.InferRows = 1000
	}
	if o.NullTokens == nil {
		o.NullTokens = []string{"", "NULL", "null"}
	}
	if o.KeepErrors == 0 {
		o.KeepErrors = 100
	}
	if o.Concurrency == 0 {
		o.Concurrency = runtime.GOMAXPROCS(0)
	}
	if o.ChunkBytes == 0 {
		o.ChunkBytes = 1 << 20
	}
	if o.MaxRecordBytes == 0 {
		o.MaxRecordBytes = 64 << 20
	}
	if o.MaxColumns == 0 {
		o.MaxColumns = 1 << 14
	}
	return o
}
