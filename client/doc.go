// Package client is a Go client of a quiver server (quiver serve) over
// Arrow Flight SQL: what `quiver query --server` and `quiver load` use,
// for Go programs that want a table of Arrow batches without a
// database/sql row loop.
//
//	c, err := client.Dial("grpc+tls://db.example:31337", client.Options{Token: tok, TLSCAFile: "ca.pem"})
//	defer c.Close()
//	err = c.SetResultCodec(ctx, "zstd:1")        // the session's result compression
//	rs, err := c.Query(ctx, "SELECT ... FROM t") // an array.RecordReader
//	defer rs.Release()
//	for rs.Next() { use(rs.RecordBatch()) }
//	err = rs.Err()
//
// # What it does
//
//   - Dial: grpc://, grpc+tls:// (system roots, a CA file or a
//     tls.Config) or host:port (DefaultPort when none); a bearer token on
//     every call; session cookies, so options hold for the connection.
//   - SetResultCodec / SetOptions: session options, set without the race
//     in arrow-go's SetSessionOptions that loses the session cookie about
//     one call in 150 (then the next query runs with the server's default
//     codec). SetSessionOptions is the fix for any arrow-go client; it is
//     the only place quiver's code sets session options.
//   - Query, Prepare + Stmt.Query (one row of ? parameters): results as
//     a *Result, an array.RecordReader decoded by quiver's hostile-input
//     safe reader (Options.Limits), with what came over the wire in
//     Result.Stats.
//   - Ingest (any array.RecordReader) and IngestFile (CSV, TSV, Parquet,
//     Arrow IPC, told apart by package convert/input): Flight SQL bulk
//     ingest with Mode create, append or replace, compressed per
//     IngestOptions.Codec.
//   - Tables and Schemas: the catalog.
//
// # Cancellation and errors
//
// Every call takes a context; cancelling it ends the call on the server,
// a result's fetch included. Result.Release also ends a fetch not read
// to the end. A server's error is an *Error that says what its gRPC code
// means for the call ("invalid SQL", "not found", "server grpc://h:p
// unavailable") and keeps the status for status.Code. Bad URIs and
// options match ErrTarget and ErrOptions.
//
// Memory comes from Options.Alloc: every path releases what it took.
package client
