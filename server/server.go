package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/query"
	"github.com/quiverdb/quiver/spill"
)

// Server is quiver's Flight SQL server over one cache.
type Server struct {
	cfg          Config
	cache        *cache.Cache
	engine       *query.Engine
	log          *slog.Logger
	mem          memory.Allocator
	defaultCodec resultCodec

	sessions *sessions
	prepared *preparedStore
	tickets  *ticketStore
	running  runningQueries
	slots    chan struct{}
	metrics  metrics

	ingestSlots chan struct{} // uploads at once (ingest_limits.go)
	ingestPer   clientSlots   // uploads at once of each client
	ingestMem   *ingestMemory // what uploads hold decoded

	spills *spill.Manager // nil with NoSpill
	views  *query.Views   // the engine's (durable.go)

	grpc      *grpc.Server
	lis       net.Listener
	tls       bool
	tlsConfig *tls.Config // nil without TLS
	closing   atomic.Bool

	metricsLis  net.Listener // nil without Config.MetricsListen
	metricsHTTP *http.Server
}

// New returns a server over c. It does not listen yet: call Listen, then
// Serve.
func New(cfg Config, c *cache.Cache) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := checkStore(cfg, c); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults(runtime.GOMAXPROCS(0))
	rc, _ := parseResultCodec(cfg.ResultCodec) // checked by Validate
	var spills *spill.Manager
	if !cfg.NoSpill {
		sc, _ := codec.ParseSetting(cfg.SpillCodec) // checked by Validate
		m, err := spill.NewManager(spill.Config{Dir: cfg.SpillDir, Quota: cfg.SpillQuota, Codec: sc})
		if err != nil {
			return nil, fmt.Errorf("server: spill folder: %w", err)
		}
		spills = m
	}
	views, err := loadViews(cfg) // durable.go
	if err != nil {
		if spills != nil {
			spills.Close()
		}
		return nil, err
	}
	ok := false
	defer func() {
		if !ok && spills != nil {
			spills.Close()
		}
	}()
	s := &Server{
		cfg: cfg, cache: c, log: cfg.Logger, mem: cfg.Alloc, defaultCodec: rc, spills: spills, views: views,
		engine: query.New(c, query.Options{MemoryLimit: cfg.QueryMemory, Alloc: cfg.Alloc, Spill: spills,
			MemoryLimitName: "--query-memory", NoSpillName: "--no-spill",
			MaxExprNodes: cfg.MaxExprNodes, MaxExprDepth: cfg.MaxExprDepth,
			Tables: tableWriterOf(cfg, c), Views: views, TimeZone: cfg.TimeZone}),
		sessions: newSessions(cfg.MaxSessions, cfg.MaxSessionsPerClient, cfg.SessionIdle),
		prepared: &preparedStore{max: cfg.MaxSessions, idle: cfg.SessionIdle, m: map[string]*prepared{}},
		tickets:  newTicketStore(cfg.TicketTTL, cfg.MaxTicketBytes),
		slots:    make(chan struct{}, cfg.MaxQueries),

		ingestSlots: make(chan struct{}, cfg.MaxIngests),
		ingestPer:   clientSlots{n: cfg.MaxIngestsPerClient, m: map[string]*clientSlot{}},
		ingestMem:   &ingestMemory{Allocator: cfg.Alloc},
	}
	s.metrics.cache = c
	s.metrics.sessions = s.sessions
	s.metrics.running = &s.running

	opts := []grpc.ServerOption{grpc.MaxRecvMsgSize(cfg.MaxRecvBytes)}
	if cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("server: TLS: %w", err)
		}
		s.tlsConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		opts = append(opts, grpc.Creds(credentials.NewTLS(s.tlsConfig.Clone())))
		s.tls = true
	}
	if a := newTokenAuth(cfg.Tokens); a != nil {
		opts = append(opts, grpc.ChainUnaryInterceptor(a.unary), grpc.ChainStreamInterceptor(a.stream))
	}
	s.grpc = grpc.NewServer(opts...)
	sql := &sqlServer{s: s}
	if err := sql.registerSQLInfo(); err != nil {
		return nil, err
	}
	flight.RegisterFlightServiceServer(s.grpc, &flightService{FlightServer: flightsql.NewFlightServer(sql), s: s})
	ok = true
	return s, nil
}

// sqlServer implements arrow-go's flightsql.Server for a Server.
type sqlServer struct {
	flightsql.BaseServer
	s *Server
}

// Listen binds the configured address. It refuses an address other
// programs on the network can reach unless the server has TLS and tokens,
// or Config.Insecure says to.
func (s *Server) Listen() error {
	host, _, _ := net.SplitHostPort(s.cfg.Listen)
	if !loopbackHost(host) && !(s.tls && len(s.cfg.Tokens) > 0) && !s.cfg.Insecure {
		return fmt.Errorf("server: refusing to listen on %s without TLS and a bearer token (set --tls-cert, --tls-key and --token-file, or pass --insecure)", s.cfg.Listen)
	}
	lis, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	if err := s.listenMetrics(); err != nil {
		lis.Close()
		return err
	}
	s.lis = lis
	return nil
}

// loopbackHost says whether host names only this machine.
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Addr is the address the server listens on (after Listen).
func (s *Server) Addr() net.Addr { return s.lis.Addr() }

// URI is what a Flight SQL client connects to.
func (s *Server) URI() string {
	scheme := "grpc"
	if s.tls {
		scheme = "grpc+tls"
	}
	return scheme + "://" + s.lis.Addr().String()
}

// Serve answers calls until Shutdown.
func (s *Server) Serve() error {
	if s.lis == nil {
		return errors.New("server: Serve before Listen")
	}
	s.log.Info("serving", "uri", s.URI(), "tls", s.tls, "auth", len(s.cfg.Tokens) > 0, "result_codec", s.defaultCodec.String(), "metrics", s.MetricsURL())
	go s.serveMetrics()
	err := s.grpc.Serve(s.lis)
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// Shutdown stops accepting calls and lets running ones finish until
// ctx ends or the configured grace passes, whichever is first; then it
// cuts the rest.
func (s *Server) Shutdown(ctx context.Context) {
	s.closing.Store(true)
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ShutdownGrace)
	defer cancel()
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
		s.log.Info("stopped")
	case <-ctx.Done():
		s.log.Warn("grace period over: cutting running calls", "running_queries", s.running.count())
		s.grpc.Stop()
		<-done
	}
	if s.metricsHTTP != nil {
		s.metricsHTTP.Close()
		s.metricsLis.Close() // in case Serve never ran
	}
	if s.spills != nil {
		if err := s.spills.Close(); err != nil {
			s.log.Warn("removing the spill folder", "err", err)
		}
	}
}

// admit waits for a query slot, at most QueueTimeout.
func (s *Server) admit(ctx context.Context) (func(), error) {
	return s.acquire(ctx, s.slots, "queries running", "--max-queries")
}

// acquire waits for one of slots, at most QueueTimeout; the error says
// how many what hold them and which flag sets that.
func (s *Server) acquire(ctx context.Context, slots chan struct{}, what, flag string) (func(), error) {
	if s.closing.Load() {
		return nil, status.Error(codes.Unavailable, "the server is shutting down")
	}
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, nil
	default:
	}
	t := time.NewTimer(s.cfg.QueueTimeout)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return func() { <-slots }, nil
	case <-t.C:
		return nil, status.Errorf(codes.ResourceExhausted, "the server is busy: %d %s, none finished within %s (%s)", cap(slots), what, s.cfg.QueueTimeout, flag)
	case <-ctx.Done():
		return nil, toStatus(ctx.Err())
	}
}

// Cache is the cache the server answers from.
func (s *Server) Cache() *cache.Cache { return s.cache }
