// Package csv reads CSV and TSV into Arrow record batches, fast and
// treating its input as hostile.
//
// # Format
//
// RFC 4180 with LF or CRLF line ends: fields separated by
// Options.Comma, a field either raw (no delimiter, newline or quote) or
// quoted (quotes doubled inside; newlines allowed). A header line unless
// Options.NoHeader; a UTF-8 byte order mark is skipped; blank lines are
// skipped (as encoding/csv does). String columns are checked to be
// UTF-8. Values: integers of every
// width, float32/64 (strconv's grammar; a fast exact path for plain
// notation), decimal32/64/128 (plain or exponent notation, never
// rounded: digits past the scale must be zeros), bool (true/false,
// t/f, 1/0, yes/no, any case), date32/64 (YYYY-MM-DD), timestamps
// (YYYY-MM-DD[ T]HH:MM[:SS[.f]][Z|±HH[:MM]]; a zoned value in a naive
// column is an error), string, large_string, binary, null.
//
// # Nulls
//
// A field is null when it is a null token: by default the empty field,
// NULL and null (Options.NullTokens), in every column type. In string
// and binary columns only an unquoted field is: quoting is how CSV
// writes the string "" or "NULL", so in
//
//	id,s
//	1,
//	2,""
//	3,NULL
//	4,"NULL"
//
// s is null, "", null and "NULL". In other columns a quoted token is
// null too (a quoted empty field can mean nothing else).
// Options.StringsNeverNull takes every string field as it is (arrow-go's
// default). One rule for every path: quiver convert, quiver load,
// serve --table and the library all read CSV through this package.
//
// Others: DuckDB's read_csv, given the same tokens (nullstr) and
// allow_quoted_nulls=false, reads strings as quiver does (tested in
// query/difftest); its default, allow_quoted_nulls=true, reads a quoted
// token as null in every column, strings included, as quiver does in the
// others. Polars (and Spark since 2.4) read an unquoted empty field as
// null and a quoted one as the empty string; polars applies the null
// values it is given to quoted fields too, so a quoted "NULL" is null
// there, and a quoted "" in a number column makes it a string column
// (tested in interop/polars).
//
// A line with nothing on it is skipped, so a one-column file cannot
// hold an unquoted empty field (write "" or NULL); DuckDB reads such a
// line as a null row.
//
// # How it is fast
//
//		input ──splitter──▶ chunks (≈1 MiB, cut at record ends) ──▶ N goroutines:
//		    tokenize (field windows, unquoted in place) ──▶ parse column by column
//		    into builders ──▶ one batch per chunk ──▶ in input order ──▶ Coalescer
//
//	  - The splitter cuts the input at record boundaries without parsing
//	    it: a record ends at a newline preceded, since the chunk began, by
//	    an even number of quotes. Without quotes in a chunk that is one
//	    SIMD LastIndexByte; with quotes, one IndexByte per quote. Chunks
//	    are then parsed on Options.Concurrency goroutines and handed over
//	    in input order, so the output, the errors and the skip counts are
//	    those of one sequential parse whatever the chunking (tested, and
//	    fuzzed with 1-byte chunks).
//	  - The tokenizer records each field as a window of the chunk,
//	    unquoting quoted fields in place (they only shrink), so no field
//	    is copied or allocated before its parser reads it.
//	  - Each column is then parsed down all the chunk's rows by a loop
//	    typed for it, writing values by index into memory reserved once
//	    (package convert/internal/parse: no allocation, no strconv for
//	    integers, decimals, dates and timestamps).
//	  - The chunk's batch shares the builders' buffers (reuse mode); the
//	    Coalescer copies it into 8192-row output batches in bulk and the
//	    buffers go back to the pool.
//
// # Malformed input
//
// A record is malformed when its quoting is (a quote inside a raw
// field, anything but a delimiter or line end after a closing quote),
// when it has the wrong number of fields, or when a field does not
// parse as its column's type. A malformed record's error names its line
// (its first line, counting every line of the input) and column. A
// record with malformed quoting runs to the next newline preceded by an
// even number of quotes since it began: the same rule the splitter cuts
// by, which is what keeps parallel and sequential parses identical on
// any input. By default the first malformed record ends the read (the
// rows before it come out first); with SkipMalformed every malformed
// record is skipped and counted, and the first KeepErrors errors kept.
//
// Memory is bounded whatever the input: a record longer than
// MaxRecordBytes, or a header wider than MaxColumns, is ErrLimit; at
// most a few chunks per goroutine are in flight; inference reads at most
// 16 MiB ahead.
//
// # Schema inference
//
// Without Options.Schema, the types come from the first InferRows
// well-formed records (infer.go): bool, int64, decimal128 (with
// InferDecimal), float64, date32, timestamp, else string. Null fields
// are not sampled, so a date column with empty fields is a date column,
// a column null in the whole sample is a string column (of nulls), and
// quoted numbers are numbers: DuckDB's sniffer infers the same.
package csv
