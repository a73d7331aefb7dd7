package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/store"
)

// Config configures a Server. The zero value serves on a loopback port
// with no auth, results compressed by the auto policy, and the defaults
// below.
type Config struct {
	// Listen is the host:port to serve on; default DefaultListen.
	Listen string
	// TLSCert and TLSKey are PEM files; both or neither.
	TLSCert, TLSKey string
	// Tokens are the bearer tokens a client may present. None means no
	// authentication.
	Tokens []string
	// Insecure allows a non-loopback Listen without TLS and tokens. Without
	// it, such a server refuses to start.
	Insecure bool

	// ResultCodec is the codec of result streams for sessions that do not
	// choose one: "none", "lz4", "zstd:N" or "auto" (default): none for
	// loopback peers, zstd:1 for the others.
	ResultCodec string
	// MaxMessageBytes bounds every FlightData message the server sends
	// (header and body), so clients with gRPC's default 4 MiB receive limit
	// read every result; default DefaultMaxMessageBytes.
	MaxMessageBytes int
	// MaxBatchRows bounds the rows of one result batch; default
	// DefaultMaxBatchRows.
	MaxBatchRows int
	// MaxRecvBytes bounds one message the server receives (an ingested
	// batch); default 64 MiB.
	MaxRecvBytes int

	// MaxQueries bounds the queries running at once; a query past it
	// waits up to QueueTimeout for a slot, then fails with
	// ResourceExhausted. Default 2 × GOMAXPROCS, at least 4.
	MaxQueries   int
	QueueTimeout time.Duration // default 30 s
	// QueryMemory bounds what one query's sorts and aggregates hold;
	// default query.DefaultMemoryLimit.
	QueryMemory int64
	// TimeZone is a session's time zone until it sets its own (SET
	// TimeZone = '…' or the session option OptionTimeZone): where
	// instants meet wall-clock times (package query's timezone.go).
	// Default UTC; quiver serve --time-zone.
	TimeZone *time.Location
	// MaxExprNodes and MaxExprDepth bound the expressions of one
	// statement: its expression nodes, all together, and how deeply they
	// nest; a statement past either fails with InvalidArgument naming the
	// limit. Defaults query.DefaultMaxExprNodes (10,000) and
	// query.DefaultMaxExprDepth (1,000); negative: no limit.
	MaxExprNodes int
	MaxExprDepth int
	// MaxSessions bounds the sessions held (and, apart, the prepared
	// statements); past it a new one is refused, a live one is never
	// dropped to make room. Default 10,000. SessionIdle drops a session
	// unused that long; default 1 h.
	MaxSessions int
	SessionIdle time.Duration
	// ShutdownGrace is how long Shutdown lets running streams finish
	// before cutting them; default 30 s.
	ShutdownGrace time.Duration

	// SpillDir is where queries' ORDER BY and GROUP BY spill what passes
	// QueryMemory: a folder of this server's under it, removed at
	// shutdown (and, after a crash, at the next start). "" means the
	// system's temp dir. NoSpill turns spilling off: such queries fail
	// with ResourceExhausted instead.
	SpillDir string
	NoSpill  bool
	// SpillQuota caps the spill files on disk, all queries together; a
	// query that would pass it fails with ResourceExhausted saying how
	// much it needed. 0 means no quota (the disk is the limit).
	SpillQuota int64
	// SpillCodec compresses spill files: none, lz4 or zstd:N; default
	// zstd:1, which writes about half lz4's bytes (quiver bench spill).
	SpillCodec string

	// MetricsListen is the host:port of the Prometheus endpoint
	// (/metrics); "" (the default) serves none. Like Listen, a
	// non-loopback address needs TLS and tokens, or Insecure; with tokens
	// the endpoint wants the same bearer token, with TLS it is HTTPS.
	MetricsListen string
	// MaxIngests bounds the uploads (bulk ingest) read at once; one past
	// it waits up to QueueTimeout, then fails with ResourceExhausted.
	// Default DefaultMaxIngests. Uploads do not take query slots.
	MaxIngests int
	// MaxIngestBytes bounds the decoded bytes of one upload, all its
	// batches together; default DefaultMaxIngestBytes. What every upload
	// in progress holds decoded also counts against the cache's budget,
	// and each uploaded batch is bounded by the ingest limits of
	// uploadLimits (ingest_limits.go).
	MaxIngestBytes int64
	// MaxIngestsPerClient bounds the uploads one client (an IPv4 address
	// or IPv6 /64, and token) reads at once, so one client cannot take
	// every slot; past it an upload waits up to QueueTimeout, then fails
	// with ResourceExhausted. Default half of MaxIngests, at least 1.
	MaxIngestsPerClient int
	// UploadIdle is how long an upload may go without a message from its
	// client; past it the upload fails with DeadlineExceeded, stores
	// nothing and frees its slot, so a stalled client cannot hold one
	// forever. Default DefaultUploadIdle.
	UploadIdle time.Duration

	// Store, when set, keeps ingested tables in a data directory: every
	// create, append and replace is written there before the client is
	// told it succeeded (see package store). It must be open over the
	// server's cache. Nil keeps tables in memory only.
	Store *store.Store

	// Logger receives the server's logs; default slog.Default().
	Logger *slog.Logger
	// Alloc allocates query results and uploads; default the cache's
	// recycling allocator (cache.RecyclingAllocator). Tests pass a
	// memory.CheckedAllocator to find leaks.
	Alloc memory.Allocator

	// --- Statements and sessions (defaults and checks in
	// config_sessions.go) ---

	// MaxSQLBytes bounds the SQL of one statement; longer SQL fails with
	// InvalidArgument naming the limit. Default DefaultMaxSQLBytes.
	MaxSQLBytes int
	// TicketTTL is how long a statement's ticket can be fetched after
	// GetFlightInfo issued it; default DefaultTicketTTL.
	TicketTTL time.Duration
	// MaxTicketBytes bounds the SQL and parameters of all the tickets the
	// server holds, every client's together (one client holds at most
	// 1,024 tickets and 64 MiB); past it a client recycles its own oldest
	// tickets, and one whose own do not make room gets ResourceExhausted:
	// no other client's ticket is dropped. Default DefaultMaxTicketBytes.
	MaxTicketBytes int64
	// MaxSessionsPerClient bounds the sessions one client (IPv4 address
	// or IPv6 /64, and bearer token when the server has tokens) holds at once; past it
	// a new session is refused. Default DefaultMaxSessionsPerClient.
	MaxSessionsPerClient int
}

// Defaults.
const (
	DefaultListen          = "127.0.0.1:31337"
	DefaultMaxMessageBytes = 4<<20 - 256<<10 // 3.75 MiB: under gRPC's 4 MiB default with room for framing
	DefaultMaxBatchRows    = 64 * 1024
	minMessageBytes        = 64 << 10

	DefaultMaxIngests     = 2
	DefaultMaxIngestBytes = 16 << 30
	DefaultUploadIdle     = 30 * time.Second
)

// withDefaults fills the zero fields.
func (c Config) withDefaults(gomaxprocs int) Config {
	if c.Listen == "" {
		c.Listen = DefaultListen
	}
	if c.ResultCodec == "" {
		c.ResultCodec = "auto"
	}
	if c.MaxMessageBytes == 0 {
		c.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if c.MaxBatchRows == 0 {
		c.MaxBatchRows = DefaultMaxBatchRows
	}
	if c.MaxRecvBytes == 0 {
		c.MaxRecvBytes = 64 << 20
	}
	if c.MaxQueries == 0 {
		c.MaxQueries = max(4, 2*gomaxprocs)
	}
	if c.QueueTimeout == 0 {
		c.QueueTimeout = 30 * time.Second
	}
	if c.MaxSessions == 0 {
		c.MaxSessions = 10_000
	}
	if c.SessionIdle == 0 {
		c.SessionIdle = time.Hour
	}
	if c.ShutdownGrace == 0 {
		c.ShutdownGrace = 30 * time.Second
	}
	if c.SpillCodec == "" {
		c.SpillCodec = "zstd:1"
	}
	if c.MaxIngests == 0 {
		c.MaxIngests = DefaultMaxIngests
	}
	if c.MaxIngestBytes == 0 {
		c.MaxIngestBytes = DefaultMaxIngestBytes
	}
	if c.MaxIngestsPerClient == 0 {
		c.MaxIngestsPerClient = max(1, c.MaxIngests/2)
	}
	if c.UploadIdle == 0 {
		c.UploadIdle = DefaultUploadIdle
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Alloc == nil {
		c.Alloc = cache.RecyclingAllocator()
	}
	return c.withSessionDefaults()
}

// Validate reports the first invalid field.
func (c Config) Validate() error {
	if c.Listen != "" {
		if _, _, err := net.SplitHostPort(c.Listen); err != nil {
			return fmt.Errorf("server: listen address %q: %w", c.Listen, err)
		}
	}
	if c.MetricsListen != "" {
		if _, _, err := net.SplitHostPort(c.MetricsListen); err != nil {
			return fmt.Errorf("server: metrics address %q: %w", c.MetricsListen, err)
		}
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return errors.New("server: TLS needs both a certificate and a key file")
	}
	for i, t := range c.Tokens {
		if len(t) < 16 {
			return fmt.Errorf("server: token %d has %d characters; use at least 16", i+1, len(t))
		}
	}
	if c.ResultCodec != "" {
		if _, err := parseResultCodec(c.ResultCodec); err != nil {
			return fmt.Errorf("server: result codec: %w", err)
		}
	}
	if c.SpillCodec != "" {
		if _, err := codec.ParseSetting(c.SpillCodec); err != nil {
			return fmt.Errorf("server: spill codec: %w", err)
		}
	}
	if c.MaxMessageBytes != 0 && c.MaxMessageBytes < minMessageBytes {
		return fmt.Errorf("server: max message bytes %d is below %d", c.MaxMessageBytes, minMessageBytes)
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"max batch rows", int64(c.MaxBatchRows)}, {"max receive bytes", int64(c.MaxRecvBytes)},
		{"max queries", int64(c.MaxQueries)}, {"queue timeout", int64(c.QueueTimeout)},
		{"query memory", c.QueryMemory}, {"max sessions", int64(c.MaxSessions)},
		{"session idle", int64(c.SessionIdle)}, {"shutdown grace", int64(c.ShutdownGrace)},
		{"spill quota", c.SpillQuota},
		{"max ingests", int64(c.MaxIngests)}, {"max ingest bytes", c.MaxIngestBytes},
		{"max ingests per client", int64(c.MaxIngestsPerClient)}, {"upload idle", int64(c.UploadIdle)},
	} {
		if f.v < 0 {
			return fmt.Errorf("server: negative %s %d", f.name, f.v)
		}
	}
	return c.validateSessions()
}

// resultCodec is a session's choice of result codec: a fixed setting, or
// auto (decided per peer).
type resultCodec struct {
	auto    bool
	setting codec.Setting
}

func (r resultCodec) String() string {
	if r.auto {
		return "auto"
	}
	return r.setting.String()
}

// forPeer resolves auto: none on loopback, where compressing costs more
// time than the bytes it saves; zstd:1 elsewhere.
func (r resultCodec) forPeer(addr net.Addr) codec.Setting {
	if !r.auto {
		return r.setting
	}
	if isLoopback(addr) {
		return codec.SettingNone
	}
	return codec.Setting{Kind: codec.Zstd, Level: 1}
}

func parseResultCodec(s string) (resultCodec, error) {
	if s == "auto" {
		return resultCodec{auto: true}, nil
	}
	st, err := codec.ParseSetting(s)
	if err != nil {
		return resultCodec{}, fmt.Errorf("%w (want none, lz4, zstd:N or auto)", err)
	}
	return resultCodec{setting: st}, nil
}

func isLoopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}
