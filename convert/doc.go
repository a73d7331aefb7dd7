// Package convert turns data into Arrow record batches of a target size
// (Config.BatchRows, default 8192, and a byte cap), in bulk rather than
// value by value: record batches of any size (Parquet's, an IPC file's,
// CSV chunks), database/sql rows, and rows or column slices from Go
// programs. It is Comet's ArrowWriter (seed 001) in Go, and goes past
// it: hostile-input safe readers, exact errors, and output any Arrow
// implementation reads.
//
// # Layers
//
//	csv/               CSV and TSV text → batches (its own doc.go)
//	Reader, Source     pulls a Source (CSV, Parquet, IPC, SQL rows) through a Coalescer
//	Coalescer          input of any shape → batches of BatchRows rows; the appender API
//	internal/column    one Builder per output column: the bulk paths per type
//	internal/parse     text → values without allocating (CSV, SQL text, Go strings)
//	lineitem           a lineitem generator for tests and benchmarks
//
// The random columns of every type the tests and `quiver bench convert`
// feed the converter come from internal/datagen.
//
// # Coalescing
//
// A Coalescer keeps one column.Builder per output column and an open
// batch. Appending rows [start, start+n) of an input batch appends that
// slice of every column in one call each (Builder.AppendArray), never
// row by row. When the open batch reaches BatchRows rows it is finished
// and queued, and the rest of the slice goes to the next one, so every
// batch but the last has exactly BatchRows rows whatever the input
// sizes. Before appending, each builder measures what the slice would
// add (Builder.Measure: O(1) for fixed width and offsets-based types);
// if the batch would pass MaxBytes, or an int32 offset would pass
// 2^31-1 (String, Binary, List data), a binary search finds how many
// rows fit and the batch closes there. A batch is therefore split,
// never corrupted and never silently moved to large types. An input
// batch of exactly BatchRows rows, arriving when no batch is open, is
// handed on without a copy (Stats.PassedThrough): Parquet and IPC files
// already in 8192-row batches cost nothing to re-batch.
//
// Time in a source's Next (reading bytes, pqarrow decoding, a driver's
// rows.Next) is Stats.PullTime; appending, parsing and scanning is
// Stats.ConvertTime, as Comet stopped counting source pulls as
// conversion time.
//
// # The bulk paths (package column)
//
//   - Fixed width (integers, floats, dates, times, timestamps,
//     durations, intervals, decimals, fixed-size binary): one block
//     copy of the values whether or not the input has nulls (what lies
//     under a null is unspecified and is copied as is), and one bitmap
//     copy of the validity (arrow-go's bitutil.CopyBitmap, eight rows a
//     byte). The validity bitmap is valid by default: it is not
//     allocated until a batch's first null, and a valid row never
//     touches it.
//   - Booleans: one bitmap copy for values, one for validity.
//   - Strings and binary: offsets in one pass (each rebased by one
//     subtraction), the slice's bytes, adjacent in Arrow, in one copy.
//   - Decimals from rows (AppendRow, SQL, CSV): decimal128 written
//     straight from the unscaled value, an int64 up to 18 digits, or
//     big-endian two's-complement bytes beyond (Java's BigInteger
//     layout), or text; each range-checked against the precision in
//     place. A value that does not fit is an error naming the row and
//     column (ErrRange), never a wrap.
//   - Dictionary-encoded input is decoded: a builder resolves each
//     dictionary once (its offsets checked once, then raw slices), and
//     drops it when a different dictionary arrives; each row then costs
//     an id range check and a copy (short strings as one 16-byte move).
//     Ids under null rows are never read, so garbage there is harmless;
//     an id out of range under a valid row is ErrCorrupt with its row.
//   - Lists, large lists and maps: offsets in one pass, the children of
//     the whole slice appended as one run (in Arrow the children of
//     adjacent rows are adjacent, including slots a null list may own,
//     as Parquet leaves them). Fixed-size lists likewise. Structs field
//     by field, each field's validity ANDed with the struct's, so the
//     fields of a null struct come out null, as arrow-go's
//     StructBuilder.AppendNull leaves them.
//
// Every path produces exactly what arrow-go's builders produce from the
// same values: the differential tests (internal/column) build every
// type × null fraction {0, 0.2, 1} × plain and dictionary input × Comet's
// slices appended in uneven chunks into builders sized for one row, and
// compare with array.Equal and array.ValidateFull against the same rows
// appended value by value, with memory.CheckedAllocator leak checks.
//
// Not handled (ErrUnsupported naming the column): view types, list
// views, unions, run-end encoded arrays, extension types, and
// dictionaries of nested values. Output never holds dictionaries.
//
// # Why our own code where arrow-go has some
//
// arrow-go's builders append one value at a time (Append, or
// AppendValues of Go slices), and have no way to append a slice of an
// existing array's buffers: converting a batch through them costs 5 to
// 40 ns a row where a block copy costs 1 to 3 (see BENCHMARKS.md). Its
// csv.Reader wraps encoding/csv, allocating a string per field, turns a
// field that does not parse into a null plus an error without its line
// or column, panics on a row with the wrong number of fields, and uses
// one core. Its IPC reader trusts lengths in the bytes (see the batch
// package); IPC input here goes through the batch layer instead. Parquet
// decoding is arrow-go's pqarrow, which quiver does not own: its
// hardening is arrow-go's.
//
// # Errors
//
// Bad input never panics and never allocates more than the limits say.
// Errors match ErrMalformed, ErrRange, ErrCorrupt, ErrUnsupported,
// ErrSchema or ErrLimit and name the row (RowError) or, for CSV, the
// line and column (csv.ParseError). A Reader hands out the rows before
// an error first, then the error.
package convert
