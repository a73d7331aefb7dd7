// Package bench holds the workloads and measurements behind `quiver
// bench`: over the Comet cache relation and its wide int64 relations
// (generated in internal/datagen, which `quiver cache` and `quiver query`
// also use), a side-by-side run of quiver's batch codec against arrow-go's
// IPC writer and reader on the same records (codecs.go), and Comet's cache
// benchmark: materialize, footprint, projected reads and a pruned filter
// per cache codec setting, against the uncompressed records and arrow-go
// IPC streams (cache.go). Over TPC-H (package tpch, with DuckDB in the
// same run when built with -tags duckdb): issue 5's lineitem queries
// (query.go) and the 22 TPC-H queries over the eight tables, each query's
// ratio to DuckDB and their geometric mean (tpch.go); both load DuckDB
// through one peer (query_peer.go, query_duckdb.go). Spark's
// MapStatusesSerDeserBenchmark over package shuffle's map statuses, with
// a gob + zstd peer and Spark's published figures (shuffle.go).
//
// Every speed is MB/s of uncompressed Arrow buffer bytes (MB = 10^6 bytes):
// the sum over the records of every buffer's length (validity bitmaps,
// offsets, values) as it lies in memory, before padding or compression.
// Encode and decode use the same numerator, so two speeds in one table are
// comparable whatever each side writes. The cache benchmark reports times
// instead, as Comet's does, and ratios of times within one run.
package bench
