package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/datagen/tpch"
	"github.com/quiverdb/quiver/datagen/tpch/tpchcache"
	"github.com/quiverdb/quiver/query"
	"github.com/quiverdb/quiver/server"
	"github.com/quiverdb/quiver/store"
)

const serveAbout = `Runs quiver's Arrow Flight SQL server: SQL over the tables in an in-memory
compressed cache, results streamed as standard Arrow IPC with body compression
that Flight clients decode from the batch metadata alone (arrow-go, pyarrow;
Arrow's Flight SQL JDBC driver reads only codec none, apache/arrow-java#926).

With no flags it listens on 127.0.0.1:31337 with an empty cache: load tables
with 'quiver load', --table NAME=FILE (CSV, Parquet or Arrow IPC) or --demo
(TPC-H's eight tables, region, nation, part, supplier, partsupp, customer,
orders and lineitem, generated in-process at --sf as TPC-H's dbgen does).

Result codec: the session option "quiver.result.codec" (none, lz4, zstd:N,
auto), default --codec; Spark's and Kyuubi's keys
"spark.sql.execution.arrow.compression.codec" (none, lz4, zstd) and
"spark.sql.execution.arrow.compression.zstd.level" mean the same. auto sends
uncompressed to loopback clients, to Arrow's Flight SQL JDBC driver (its
user-agent, or a bare grpc-java one: the driver cannot read compressed
bodies) and zstd:1 to the others.

Statements: a ticket is a random handle bound to the session (or, for a
client without a session cookie, to its address and token) that planned it,
fetchable until --ticket-ttl; SQL longer than --max-sql-bytes is refused. A
client holds at most --max-sessions-per-client sessions; no client's session
is dropped to make room for another's (a client at its own limit takes over
its own session unused for a minute), and a call naming a session the server
no longer holds fails: set its options again.

Tables: without --data-dir every table lives in memory only and is gone when
the server stops. With --data-dir DIR every ingest (create, append, replace)
is written to DIR (compressed chunk files, then a checksummed manifest
replaced atomically) before the client is told it succeeded, and a restart
serves the tables again, reading each batch from disk on its first use. One
server per directory (DIR/LOCK). Each append writes a chunk file of its own;
once a table has more than --compact-files (8) of them holding fewer than
--compact-rows (8,192) rows, or a file of batches a quarter full or less,
the background merges them into batches of --compact-rows rows, with the
same atomic rule (scans and appends go on meanwhile). --demo and --table
tables stay in memory only, and may not share a name with a stored table.

Memory: each query's sorts and aggregates hold at most --query-memory; past
it ORDER BY and GROUP BY spill compressed, checksummed files under --spill-dir
(removed when the query ends), within --spill-quota. Uploads (bulk ingest):
at most --max-ingests at once (--max-ingests-per-client of one client), each
decoding at most --max-ingest-bytes, each batch at most 64× its compressed
size or 16 MiB; an upload that sends nothing for --upload-idle (30 s) fails,
freeing its slot; what uploads hold decoded
counts against --budget as it arrives. The Go runtime's soft memory limit is
set to what these add up to (--budget + --query-memory × --max-queries +
512 MiB) unless GOMEMLIMIT is set, so freed memory goes back to the OS.

Security: --token-file (one bearer token per line) or the environment variable
QUIVER_TOKENS (comma-separated) turn on authentication; --tls-cert/--tls-key turn
on TLS. The server refuses to listen on a non-loopback address without both
unless --insecure is given.

--config FILE reads a JSON object whose keys are these flags' names (without
dashes) and values their values (a list for "table"); flags on the command line
win. Logs go to stderr (--log-format text|json). SIGINT or SIGTERM stop
accepting calls, let running streams finish for --shutdown-grace, then exit.

Metrics: --metrics HOST:PORT serves Prometheus metrics (quiver's counters and
the Go runtime's: go_goroutines, heap, GC) at http://HOST:PORT/metrics; none
without it, so a second server needs only its own --listen. The endpoint
follows --listen's rule (a non-loopback address needs TLS and tokens, or
--insecure), wants the bearer token when tokens are set, and is HTTPS with TLS.`

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var tables tableFlags
	configFile := fs.String("config", "", "read flags from this JSON `FILE`")
	listen := fs.String("listen", server.DefaultListen, "`host:port` to serve Flight SQL on")
	fs.Var(&tables, "table", "load `NAME=FILE` (CSV, Parquet or Arrow IPC) at start; repeatable")
	demo := fs.Bool("demo", false, "load the eight TPC-H tables generated in-process")
	sf := fs.Float64("sf", 0.01, "TPC-H scale factor for --demo (0.01: 60,175 lineitem rows)")
	resultCodec := fs.String("codec", "auto", "result codec for sessions that set none: none, lz4, zstd:N, auto")
	cacheCodec := fs.String("cache-codec", "auto", "codec of the cached tables")
	budget := fs.Int64("budget", cache.DefaultBudget, "cache budget in compressed bytes")
	tokenFile := fs.String("token-file", "", "bearer tokens, one per line (also: QUIVER_TOKENS=tok1,tok2)")
	tlsCert := fs.String("tls-cert", "", "TLS certificate `PEM` file")
	tlsKey := fs.String("tls-key", "", "TLS key `PEM` file")
	insecure := fs.Bool("insecure", false, "allow a non-loopback --listen without TLS and tokens")
	metricsAddr := fs.String("metrics", "", "`host:port` of the Prometheus metrics endpoint (default: none)")
	maxQueries := fs.Int("max-queries", 0, "queries running at once (0: 2 × cores, at least 4)")
	maxIngests := fs.Int("max-ingests", server.DefaultMaxIngests, "uploads (bulk ingest) read at once")
	maxIngestBytes := fs.Int64("max-ingest-bytes", server.DefaultMaxIngestBytes, "decoded bytes of one upload, all its batches")
	maxIngestsPerClient := fs.Int("max-ingests-per-client", 0, "uploads one client (IPv4 address or IPv6 /64) reads at once (0: half of --max-ingests, at least 1)")
	uploadIdle := fs.Duration("upload-idle", server.DefaultUploadIdle, "longest wait for the next message of an upload; a longer pause fails it")
	queryMemory := fs.Int64("query-memory", 0, "bytes one query's sorts and aggregates may hold (0: 1 GiB)")
	maxExprNodes := fs.Int("max-expr-nodes", query.DefaultMaxExprNodes, "expression nodes one statement may hold, all its expressions together (-1: no limit)")
	maxExprDepth := fs.Int("max-expr-depth", query.DefaultMaxExprDepth, "how deeply a statement's expressions may nest; a chain a + b + c … counts once (-1: no limit)")
	maxMessage := fs.Int("max-message-bytes", server.DefaultMaxMessageBytes, "largest FlightData message sent (clients' gRPC limit is 4 MiB by default)")
	maxBatchRows := fs.Int("max-batch-rows", server.DefaultMaxBatchRows, "most rows in one result batch")
	maxSQL := fs.Int("max-sql-bytes", server.DefaultMaxSQLBytes, "longest SQL statement accepted, in bytes")
	ticketTTL := fs.Duration("ticket-ttl", server.DefaultTicketTTL, "how long a statement's ticket can be fetched after it is planned")
	maxTicketBytes := fs.Int64("max-ticket-bytes", server.DefaultMaxTicketBytes, "SQL and parameter bytes of all clients' tickets together")
	sessionsPerClient := fs.Int("max-sessions-per-client", server.DefaultMaxSessionsPerClient, "sessions one client (IP address and token) may hold")
	grace := fs.Duration("shutdown-grace", 30*time.Second, "how long running streams may finish at shutdown")
	spillDir := fs.String("spill-dir", "", "where ORDER BY and GROUP BY spill past --query-memory (default: the system temp dir)")
	spillQuota := fs.Int64("spill-quota", 0, "bytes of spill files on disk, all queries together (0: no quota)")
	spillCodec := fs.String("spill-codec", "zstd:1", "spill file codec: none, lz4, zstd:N")
	noSpill := fs.Bool("no-spill", false, "never spill: queries past --query-memory fail")
	logFormat := fs.String("log-format", "text", "text or json")
	timeZone := fs.String("time-zone", "UTC", "a session's time zone until it sets its own (SET TimeZone): an IANA name such as Europe/Berlin")
	dataDir := fs.String("data-dir", "", "keep ingested tables in `DIR`: written there before an ingest is acknowledged, served again after a restart (default: memory only)")
	compactFiles := fs.Int("compact-files", store.DefaultCompactFiles, "with --data-dir, merge a table's small appends into full batches in the background once more than `K` of them are on disk (0: never)")
	compactRows := fs.Int("compact-rows", store.DefaultCompactRows, "with --data-dir, `N` rows in a batch merged from small appends")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return printHelp(stdout, fs, "serve [flags]", serveAbout)
	}
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("%w: serve takes no arguments, got %q", errUsage, pos)
	}
	if *configFile != "" {
		if err := applyConfigFile(fs, *configFile); err != nil {
			return err
		}
	}
	cacheSetting, err := cache.ParseCodecSetting(*cacheCodec)
	if err != nil {
		return fmt.Errorf("%w: --cache-codec: %v", errUsage, err)
	}
	zone, err := query.LoadTimeZone(*timeZone)
	if err != nil {
		return fmt.Errorf("%w: --time-zone: %v", errUsage, err)
	}
	tokens, err := readTokens(*tokenFile)
	if err != nil {
		return err
	}
	var handler slog.Handler = slog.NewTextHandler(stderr, nil)
	switch *logFormat {
	case "json":
		handler = slog.NewJSONHandler(stderr, nil)
	case "text":
	default:
		return fmt.Errorf("%w: --log-format %q: want text or json", errUsage, *logFormat)
	}
	log := slog.New(handler)

	c, err := cache.New(cache.Options{Budget: *budget, Codec: cacheSetting})
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	compaction := store.Compaction{Files: *compactFiles, Rows: *compactRows}
	if *compactFiles == 0 {
		compaction.Files = -1
	}
	if *compactFiles < 0 || *compactRows <= 0 {
		return fmt.Errorf("%w: --compact-files %d, --compact-rows %d: want 0 or more files, 1 or more rows", errUsage, *compactFiles, *compactRows)
	}
	if err := compaction.Validate(); err != nil {
		return fmt.Errorf("%w: --compact-rows: %v", errUsage, err)
	}
	st, err := openDataDir(*dataDir, c, compaction, log, stdout)
	if err != nil {
		return err
	}
	if st != nil {
		defer st.Close()
	}
	cfg := server.Config{
		Listen: *listen, TLSCert: *tlsCert, TLSKey: *tlsKey, Tokens: tokens, Insecure: *insecure,
		ResultCodec: *resultCodec, MaxMessageBytes: *maxMessage, MaxBatchRows: *maxBatchRows,
		MaxQueries: *maxQueries, QueryMemory: *queryMemory, MaxExprNodes: *maxExprNodes, MaxExprDepth: *maxExprDepth, ShutdownGrace: *grace, Logger: log,
		SpillDir: *spillDir, SpillQuota: *spillQuota, SpillCodec: *spillCodec, NoSpill: *noSpill,
		MetricsListen: *metricsAddr, MaxIngests: *maxIngests, MaxIngestBytes: *maxIngestBytes,
	}
	cfg.MaxSQLBytes, cfg.TicketTTL, cfg.MaxSessionsPerClient = *maxSQL, *ticketTTL, *sessionsPerClient
	cfg.MaxTicketBytes, cfg.MaxIngestsPerClient, cfg.UploadIdle = *maxTicketBytes, *maxIngestsPerClient, *uploadIdle
	cfg.Store = st
	cfg.TimeZone = zone
	server.Version = version
	s, err := server.New(cfg, c)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if err := s.Listen(); err != nil {
		return err
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(s.MemoryLimit())
		defer debug.SetMemoryLimit(prev) // serve runs in-process in tests
		log.Info("memory limit", "bytes", s.MemoryLimit())
	}
	if err := checkStartTables(st, *demo, tables); err != nil {
		return err
	}
	if err := loadStartTables(ctx, c, log, *demo, *sf, tables); err != nil {
		return err
	}
	if u := s.MetricsURL(); u != "" {
		fmt.Fprintf(stdout, "metrics: %s\n", u)
	}
	fmt.Fprintf(stdout, "quiver serving Flight SQL on %s\nconnect: %s\n", s.Addr(), s.URI())
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", grace.String())
	s.Shutdown(context.Background())
	return <-done
}

// loadStartTables loads --demo and --table tables into c.
func loadStartTables(ctx context.Context, c *cache.Cache, log *slog.Logger, demo bool, sf float64, tables []string) error {
	if demo {
		start := time.Now()
		if err := tpchcache.Load(ctx, c, sf); err != nil {
			return fmt.Errorf("--demo: %w", err)
		}
		for _, name := range tpch.Tables {
			info, _ := c.Info(name)
			log.Info("loaded", "table", name, "rows", info.Rows, "compressed_bytes", info.Compressed, "decoded_bytes", info.Decoded)
		}
		log.Info("demo loaded", "sf", sf, "ms", time.Since(start).Milliseconds())
	}
	for _, t := range tables {
		if !strings.Contains(t, "=") {
			return fmt.Errorf("%w: --table %q: want NAME=FILE", errUsage, t)
		}
		if err := loadFile(ctx, c, t, cache.TableOptions{}); err != nil {
			return err
		}
		name, _, _ := strings.Cut(t, "=")
		info, _ := c.Info(name)
		log.Info("loaded", "table", name, "rows", info.Rows, "compressed_bytes", info.Compressed, "decoded_bytes", info.Decoded)
	}
	return nil
}

// readTokens reads bearer tokens from file (one per line, # comments) and
// from QUIVER_TOKENS.
func readTokens(file string) ([]string, error) {
	var tokens []string
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--token-file: %w", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				tokens = append(tokens, line)
			}
		}
		if len(tokens) == 0 {
			return nil, fmt.Errorf("--token-file %s holds no token", file)
		}
	}
	for _, t := range strings.Split(os.Getenv("QUIVER_TOKENS"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			tokens = append(tokens, t)
		}
	}
	return tokens, nil
}

// applyConfigFile sets every flag the JSON object in path names and the
// command line did not set.
func applyConfigFile(fs *flag.FlagSet, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("--config: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("--config %s: %w", path, err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for key, v := range m {
		f := fs.Lookup(key)
		if f == nil || key == "config" {
			return fmt.Errorf("%w: --config %s: unknown setting %q", errUsage, path, key)
		}
		if set[key] {
			continue
		}
		values := []any{v}
		if list, ok := v.([]any); ok {
			values = list
		}
		for _, v := range values {
			text := fmt.Sprint(v)
			if n, ok := v.(float64); ok {
				text = strings.TrimSuffix(fmt.Sprintf("%f", n), ".000000") // JSON numbers: 1e+06 would not parse as an int
			}
			if err := fs.Set(key, text); err != nil {
				return fmt.Errorf("%w: --config %s: %s: %v", errUsage, path, key, err)
			}
		}
	}
	return nil
}
