// Package bench holds the workloads and measurements behind `quiver
// bench`: the Comet cache relation (comet.go) and a side-by-side run of
// quiver's batch codec against arrow-go's IPC writer and reader on the
// same records (codecs.go).
//
// Every speed is MB/s of uncompressed Arrow buffer bytes (MB = 10^6 bytes):
// the sum over the records of every buffer's length (validity bitmaps,
// offsets, values) as it lies in memory, before padding or compression.
// Encode and decode use the same numerator, so two speeds in one table are
// comparable whatever each side writes.
package bench
