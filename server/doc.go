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
// "quiver", schema "main"; SQL may qualify a table by them, unquoted
// table names match ignoring case and quoted ones exactly, and an ingest
// whose table name differs only in case from a table held is refused with
// AlreadyExists: see query/names.go), session options, CancelFlightInfo. Two calls
// are replaced (flightService): DoGet, because arrow-go writes results
// uncompressed with no way to say otherwise, and DoPut, because its IPC
// reader trusts the lengths in what clients upload; quiver reads uploads
// with its own hostile-input-safe batch reader (flightdata.go). DoAction
// and ListActions are wrapped (actions.go) so that an unknown action is
// refused by name, with the list of those quiver answers.
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
// compressed while the current one is sent. A batch whose compressed body
// would not be smaller than its Arrow buffers (a count, a few short rows:
// each buffer pays an 8-byte length and a frame header) is sent
// uncompressed, a RecordBatch without BodyCompression, as Arrow IPC allows
// batch by batch; results with dictionaries keep the session's codec.
//
// # Result codec
//
// Per session, the Flight SQL session option "quiver.result.codec": none,
// lz4, zstd:N (levels as package codec maps them), or auto; the server
// default is Config.ResultCodec (auto). auto is none for a loopback peer,
// where compressing costs more time than the bytes it saves, and zstd:1 for
// any other (Kyuubi measured zstd cutting a cross-subnet fetch to 0.39× of
// uncompressed) — except for Arrow's Flight SQL JDBC driver, which cannot
// read compressed bodies (apache/arrow-java#926): a call whose gRPC
// user-agent contains "JDBC Flight SQL Driver" (what the driver sends since
// 19.0.0) or is a bare gRPC Java one ("grpc-java-netty/…", what older
// drivers send) gets none under auto (clientcodec.go). A session that
// chooses a codec gets it, whatever its user-agent.
//
// Spark's keys, which Kyuubi reuses, are accepted beside quiver's and mean
// the same (sparkoptions.go):
//
//	quiver.result.codec                              none | lz4 | zstd:N | auto
//	spark.sql.execution.arrow.compression.codec      none | lz4 | zstd
//	spark.sql.execution.arrow.compression.zstd.level N (default 3, as in Spark)
//
// Spark's codec zstd is zstd at the Spark level; setting the level also
// sets the level of the session's codec when that is zstd. One request
// applies its keys in the order above, so {codec: zstd, level: 1} is
// zstd:1 and a request setting both codec keys gets Spark's. An option
// sent with no value goes back to the default (the level to 3).
//
// # Time zone
//
// A session's time zone (package query's timezone.go: where instants
// meet wall-clock times) is set by SQL, SET TimeZone = 'Europe/Berlin'
// (or SET TIME ZONE …) sent with ExecuteUpdate, or by the session option
// "TimeZone" (OptionTimeZone; GetSessionOptions reports it); an unknown
// zone is refused by name. A session that sets none, and a call without
// a session, use Config.TimeZone (quiver serve --time-zone, default
// UTC). A SET from a caller without a session starts one, whose cookie
// comes with the update's response headers (arrow-go's ExecuteUpdate
// returns before its cookie middleware reads them: set an option first).
//
// # Sessions
//
// Sessions live in quiver's own store (sessions.go), found by the
// arrow_flight_session_id cookie that arrow-go's, Arrow C++'s and Arrow
// Java's cookie middlewares carry. A session starts at the first
// SetSessionOptions without a (live) cookie. The store holds at most
// Config.MaxSessions, at most Config.MaxSessionsPerClient of them created
// by one client (its IPv4 address or IPv6 /64, and with tokens its
// token); past either a new session is refused with ResourceExhausted: a
// session is never dropped to make room for another client's, so no
// client can change another's settings by flooding. One exception keeps programs that open a session per run
// and never close it working: a client at its own limit takes over its
// least recently used session if that has been unused for a minute. A
// session unused for Config.SessionIdle is dropped. A call
// whose cookie names a session the server no longer holds (idle too long,
// or from before a restart) fails with FailedPrecondition, "session …
// has expired: set its options again", instead of running with the
// defaults; SetSessionOptions then starts a new one. CloseSession drops
// the session and tells the client to drop its cookie.
//
// # Statement tickets
//
// GetFlightInfo plans the query (so bad SQL fails there, and the plan is
// admitted as a query: it waits for one of Config.MaxQueries slots) and
// returns one endpoint whose ticket is a handle: 128 random bits naming the
// statement (SQL, and for a prepared statement the parameters bound at
// that moment) in the server's ticket store (tickets.go). The SQL thus
// crosses the wire once each way, in the request's descriptor and the
// FlightInfo's, never in the ticket. A ticket belongs to its owner:
//
//   - the session that planned it, if the call carried a session cookie;
//   - otherwise the client: same IP address, and same bearer token on a
//     server with tokens. Clients without a cookie jar (arrow-rs, the
//     JavaScript client) fetch their tickets this way; programs on one
//     host sharing a token (or a server without tokens) are one client,
//     so give such programs a session or tokens of their own.
//
// DoGet and CancelFlightInfo of a ticket that is another's, expired or
// made up answer NotFound alike; CancelFlightInfo cancels only the
// caller's own fetches. A ticket can be fetched again, and by several
// readers at once, until Config.TicketTTL (the endpoint's expiration_time
// says when), from the server that issued it: the endpoint names no other
// location, and a restart forgets every ticket (NotFound: plan again). A
// client holds at most 1,024 tickets and 64 MiB of their SQL and
// parameters; past that its own oldest ticket is dropped. All clients
// together hold at most Config.MaxTicketBytes (--max-ticket-bytes, 256 MiB): past it a client
// recycles its own oldest tickets, and one whose own do not make room is
// refused with ResourceExhausted naming the limit; no client's ticket is
// dropped for another.
//
// Prepared statements live in a bounded store by handle (also 128 random
// bits), with the parameters last bound (one row; a column per ?, in
// order), and belong to their owner as tickets do. The store holds at
// most Config.MaxSessions, at most 1,024 per client; past either, the
// client's own least recently used statement is closed (a client with
// none is refused), never another's. Idle ones go after
// Config.SessionIdle.
//
// # Limits of queries, statements and sessions
//
// Each Config field, its default, the flag of quiver serve that sets it,
// and what it bounds (uploads have their own, under Security and limits):
//
//	Config field          default           quiver serve flag           what it bounds
//	MaxQueries            2×GOMAXPROCS, ≥4  --max-queries               queries planning or running at once (the
//	                                                                    rest wait up to QueueTimeout, 30 s)
//	QueryMemory           1 GiB             --query-memory              one query's sorts and aggregates
//	MaxSQLBytes           1 MiB             --max-sql-bytes             one statement's SQL
//	MaxMessageBytes       3.75 MiB          --max-message-bytes         one FlightData sent
//	MaxBatchRows          65,536            --max-batch-rows            rows of one result batch
//	TicketTTL             15 min            --ticket-ttl                how long a ticket can be fetched
//	MaxSessions           10,000            —                           sessions; apart, prepared statements
//	MaxSessionsPerClient  1,000             --max-sessions-per-client   one client's sessions
//	SessionIdle           1 h               —                           a session or prepared statement unused
//	—                     1,024 / 64 MiB    —                           one client's tickets (count / bytes)
//	MaxTicketBytes        256 MiB           —                           all clients' tickets (bytes)
//
// A client, for every per-client limit here and for uploads, is an IPv4
// address or an IPv6 /64 (a host picks its IPv6 address from its /64
// freely, so an exact address would bound nothing), and on a server with
// tokens also the token (identity.go). What a ticket or prepared
// statement belongs to is its session, or without one its exact address.
//
// SQL past MaxSQLBytes is InvalidArgument naming the limit and the flag;
// a full queue, session store or prepared-statement store is
// ResourceExhausted saying which limit.
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
// With Config.Store, a full disk is ResourceExhausted (store.DiskFullError:
// the table, the data directory and the space free), a damaged data
// directory DataLoss, and an append to a table held in memory only
// (loaded at start) FailedPrecondition.
// A query past QueryMemory with NoSpill names the flags (--query-memory,
// --no-spill). Spill errors tell the client sizes and the quota, never the
// spill folder's path, which goes to the server's log (spilllog.go).
//
// # Security and limits
//
// Bearer tokens (Config.Tokens) are checked on every call, as SHA-256
// digests compared in constant time against each token. TLS from a
// certificate and key. Listen refuses an address other machines can reach
// unless the server has both, or Config.Insecure. At most MaxQueries run at
// once (the rest wait up to QueueTimeout); each query's sorts and aggregates
// hold at most QueryMemory, and so may the expressions of one batch (a
// constant is computed only for the rows a LIMIT passes on); a statement's
// expressions hold at most MaxExprNodes nodes (default 10,000) nested at
// most MaxExprDepth deep (default 1,000; a chain a + b + c … counts once);
// a cancelled query stops planning and evaluating within a step.
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
//	one row of parameters, decoded the SQL limit        --max-sql-bytes
//	                               + 64 KiB
//	ingests at once                2 (then wait        --max-ingests
//	                               QueueTimeout)
//	uploads at once of one client  half the above,     --max-ingests-per-client
//	                               ≥ 1 (then wait)
//	time between two messages      30 s                --upload-idle
//	of one upload
//	all uploads' decoded bytes     cache budget        --budget
//	held now + the cache's
//
// A refused upload fails with ResourceExhausted naming the table, the
// bytes, the limit and its flag, and stores nothing. An upload whose
// client sends nothing for UploadIdle fails with DeadlineExceeded naming
// it, stores nothing and frees its slots: without it a client that sent
// one message and stopped held a slot for as long as its connection
// lived, and two such held every slot of the default. After an upload that
// decoded 64 MiB or more the server returns freed memory to the OS
// (debug.FreeOSMemory); quiver serve also sets the runtime's soft memory
// limit to MemoryLimit (cache budget + QueryMemory × MaxQueries + 512 MiB)
// unless GOMEMLIMIT is set.
//
// # Durable tables
//
// Config.Store (quiver serve --data-dir DIR, package store) writes every
// ingest (create, append, replace) and every SQL change (below) to its
// data directory before the client is told it succeeded, views in the
// store's catalog file; a restart serves the tables again, each
// batch read on first use. The cache's budget then caches the stored
// tables: an upload that needs room first has the cache drop batches it
// can read again (uploads' decoded bytes count as above). An append of
// fewer than 65,536 rows, by ingest or INSERT, coalesces with the
// table's trailing small batches (cache.TableOptions.Coalesce), so
// small appends do not leave a batch and a chunk file each. Without a Store
// tables live in memory only.
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
// # Tables made with SQL
//
// ExecuteUpdate (CommandStatementUpdate) runs CREATE TABLE [AS SELECT],
// INSERT, CREATE [OR REPLACE] VIEW, DROP TABLE / VIEW and TRUNCATE
// (package query's Exec) and returns the rows inserted or removed; a
// query sent that way is refused, naming Execute. Tools that send such a
// statement through Execute get the count as a one-row result, the change
// made when the ticket is fetched (each fetch makes it again: fetch it
// once). A change takes a query slot (--max-queries) and goes through the
// same writer as bulk ingest: the cache, or with --data-dir the store.
// A prepared change (CommandPreparedStatementUpdate, what arrow-go's
// database/sql driver sends for db.Exec with arguments) runs once per row
// of the parameters uploaded, each row a change of its own (a failing row
// reports how many before it were applied), the upload read under the
// limits of bulk ingest (update.go). SHOW TABLES, DESCRIBE t and
// information_schema.tables / .columns answer through Execute like any
// query. Bulk ingest refuses a view's name.
//
// # Not here yet
//
// Transactions, Substrait plans, UPDATE and DELETE, GetXdbcTypeInfo,
// foreign keys, and PollFlightInfo: the Flight SQL layer
// answers them Unimplemented or with the error saying why.
package server
