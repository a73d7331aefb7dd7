// Package column holds the output-column builders of package convert: one
// Builder per column of a record batch, filled in bulk from slices of Arrow
// arrays and emptied batch after batch. The bulk path of each type (what
// AppendArray copies, in how many passes) is described in convert's
// package doc; this one says how a builder is driven.
//
// # One batch
//
// New returns the builder for an output type (dictionaries decoded:
// OutputType, OutputSchema). The coalescer, per slice of an input batch:
//
//	bytes, fits := b.Measure(arr, start, n) // O(1) for fixed width and offsets
//	// close the batch first when it would pass its byte cap, or !fits
//	err := b.AppendArray(arr, start, n, Mask{})
//	...
//	data := b.Finish() // the caller releases it; b is empty and reusable
//
// Rows also come one at a time through the concrete types' typed methods
// (Append(f, v) or Raw and Advance for Fixed, Bool.Append, Binary.Append,
// AppendNull), for row-oriented sources: SQL rows, CSV fields, Go values.
//
// In reuse mode (a CSV chunk's scratch columns) Snapshot hands out the rows
// over the builder's own buffers and Reset empties it, keeping its memory;
// the snapshot must be released before the builder is written again.
//
// # Limits and failures
//
// String, Binary, List and Map columns have int32 offsets: their data (or
// child count) stays within MaxOffset. Measure reports that a slice would
// pass it (fits false) and AppendArray refuses it with ErrOffsets,
// appending nothing, so the coalescer closes the batch instead. Input that
// contradicts itself (a dictionary id past its dictionary under a valid
// row) is ErrCorrupt; a type no builder handles is ErrUnsupported; a value
// that does not fit its column is ErrRange. convert re-exports all four.
//
// # Memory
//
// Buffers come from the allocator given to New and are sized for capRows
// rows on first use, so a batch of the expected size allocates once. A
// validity bitmap is not allocated until a batch's first null. A builder
// holds a dictionary it is decoding until a different one arrives or
// Finish. Release frees everything.
package column
