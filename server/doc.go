// Package server is quiver's Arrow Flight SQL server: SQL over the tables of
// a cache.Cache (package query), results streamed back as standard Arrow
// IPC with body compression that any Flight client decodes from the batch
// metadata alone.
//
//	s, err := server.New(server.Config{Listen: "127.0.0.1:31337"}, c)
//	err = s.Listen()
//	go s.Serve()
//	defer s.Shutdown(ctx)
//
// # What it serves
//
// arrow-go's flightsql package does the Flight SQL protocol (command
// dispatch, actions, catalog result schemas); sqlServer implements its
// Server interface: statements, prepared statements with parameters,
// GetCatalogs/GetDbSchemas/GetTables/GetTableTypes/GetSqlInfo (catalog
// "quiver", schema "main"), session options, CancelFlightInfo. Two calls
// are replaced (flightService): DoGet, because arrow-go writes results
// uncompressed with no way to say otherwise, and DoPut, because its IPC
// reader trusts the lengths in what clients upload; quiver reads uploads
// with its own hostile-input-safe batch reader (flightdata.go).
//
// # A result stream
//
// One FlightData per IPC message, as every Flight implementation sends:
//
//	FlightData 0   data_header = Schema message            data_body = —
//	FlightData 1   data_header = [DictionaryBatch]…        data_body = its body
//	FlightData k   data_header = RecordBatch message       data_body = body:
//	                 BodyCompression{codec: LZ4_FRAME|ZSTD, BUFFER} when compressed,
//	                 each buffer = int64 decoded length (or -1: stored raw) + frame
//
// No FlightData is larger than Config.MaxMessageBytes (default 3.75 MiB, so
// clients at gRPC's default 4 MiB receive limit read every result) and no
// batch has more than Config.MaxBatchRows rows: a batch that would pass
// either is cut into slices, each encoded anew (results.go); a LIMIT that
// ends inside a batch is such a slice, compressed with the same codec and
// level as the rest. Two encoders take turns so the next batch is
// compressed while the current one is sent.
//
// # Result codec
//
// Per session, the Flight SQL session option "quiver.result.codec": none,
// lz4, zstd:N (levels as package codec maps them), or auto; the server
// default is Config.ResultCodec (auto). auto is none for a loopback peer,
// where compressing costs more time than the bytes it saves, and zstd:1 for
// any other (Kyuubi measured zstd cutting a cross-subnet fetch to 0.39× of
// uncompressed). Sessions live in quiver's own store (sessions.go), found by
// the arrow_flight_session_id cookie that arrow-go's and Arrow C++'s cookie
// middlewares carry; at most MaxSessions, dropped after SessionIdle.
//
// # Statement tickets
//
// A statement's ticket holds its SQL ("sql:" + text): GetFlightInfo plans
// the query (so bad SQL fails there) and DoGet plans it again and runs it.
// The server keeps no state between the two, and a ticket can be fetched
// again. Prepared statements live in a bounded store by handle, with the
// parameters last bound (one row; a column per ?, in order).
//
// # Errors
//
// Every error reaches the client as a gRPC status (grpcerr.go): bad SQL,
// unsupported constructs, unknown columns and run-time errors such as
// division by zero are InvalidArgument with the engine's message (which
// names the construct and its line and column); unknown tables NotFound;
// a query past its memory limit, an ingest past the cache budget or a row
// bigger than the message limit ResourceExhausted; a full queue
// ResourceExhausted after Config.QueueTimeout; damaged cache data DataLoss.
//
// # Security and limits
//
// Bearer tokens (Config.Tokens) are checked on every call, as SHA-256
// digests compared in constant time against each token. TLS from a
// certificate and key. Listen refuses an address other machines can reach
// unless the server has both, or Config.Insecure. At most MaxQueries run at
// once (the rest wait up to QueueTimeout); each query's sorts and aggregates
// hold at most QueryMemory.
//
// Uploads (bulk ingest, parameters) are read a message at a time, each
// checked from the lengths it claims before anything is allocated for it
// (ingest_limits.go; ingest_memory.go counts what they hold):
//
//	limit                          default             flag (quiver serve)
//	one message received           64 MiB              Config.MaxRecvBytes
//	one batch, decoded             64× its body or     —
//	                               16 MiB, ≤ 1 GiB
//	one upload, decoded            16 GiB              --max-ingest-bytes
//	uploads at once                2 (then wait        --max-ingests
//	                               QueueTimeout)
//	all uploads' decoded bytes     cache budget        --budget
//	held now + the cache's
//
// A refused upload fails with ResourceExhausted naming the table, the
// bytes, the limit and its flag, and stores nothing. After an upload that
// decoded 64 MiB or more the server returns freed memory to the OS
// (debug.FreeOSMemory); quiver serve also sets the runtime's soft memory
// limit to MemoryLimit (cache budget + QueryMemory × MaxQueries + 512 MiB)
// unless GOMEMLIMIT is set.
//
// # Metrics
//
// Off by default; Config.MetricsListen (--metrics HOST:PORT) serves
// Prometheus text at /metrics: quiver's counters (queries, errors by gRPC
// code, cancelled queries, which client disconnects count as, rows and
// bytes sent, cache use) and the Go runtime's gauges (go_goroutines,
// go_memstats_heap_*, go_gc_*). The endpoint follows the Flight port's
// rule: a non-loopback address needs TLS and tokens or Insecure; with
// tokens it wants the bearer token, with TLS it is HTTPS.
//
// # Not here yet
//
// Transactions, Substrait plans, DML and DDL (tables change by bulk ingest
// only), GetXdbcTypeInfo, primary and foreign keys (quiver has none), and
// PollFlightInfo: the Flight SQL layer answers them Unimplemented or with
// the error saying why.
package server
