package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"
)

// The metrics endpoint follows the Flight port's rules: it binds a
// non-loopback address only when the server has TLS and tokens, or
// Config.Insecure; with tokens it wants the same bearer token; with TLS it
// is served over HTTPS with the same certificate. It is off unless
// Config.MetricsListen names an address: a port nobody asked for is one
// that two servers on one machine fight over (both took 31338), and a
// Prometheus scrape needs the address written down anyway.

// listenMetrics binds Config.MetricsListen, if set.
func (s *Server) listenMetrics() error {
	addr := s.cfg.MetricsListen
	if addr == "" {
		return nil
	}
	host, _, _ := net.SplitHostPort(addr) // checked by Validate
	if !loopbackHost(host) && !(s.tls && len(s.cfg.Tokens) > 0) && !s.cfg.Insecure {
		return fmt.Errorf("server: refusing to serve metrics on %s without TLS and a bearer token (set --tls-cert, --tls-key and --token-file, pass --insecure, or give --metrics a loopback address)", addr)
	}
	lis, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("server: metrics: listen %s: address already in use (another quiver? choose another --metrics HOST:PORT, or --metrics '' for none)", addr)
	}
	if err != nil {
		return fmt.Errorf("server: metrics: %w", err)
	}
	if s.tlsConfig != nil {
		lis = tls.NewListener(lis, s.tlsConfig)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.metricsAuth(s.Metrics()))
	s.metricsLis = lis
	s.metricsHTTP = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return nil
}

// metricsAuth wants the server's bearer token, when it has tokens.
func (s *Server) metricsAuth(h http.Handler) http.Handler {
	a := newTokenAuth(s.cfg.Tokens)
	if a == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
		if !ok || !strings.EqualFold(scheme, "bearer") || !a.valid(token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="quiver"`)
			http.Error(w, "this endpoint needs the server's bearer token: send the header \"Authorization: Bearer <token>\"", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// MetricsURL is where the metrics endpoint serves (after Listen), or ""
// when there is none.
func (s *Server) MetricsURL() string {
	if s.metricsLis == nil {
		return ""
	}
	scheme := "http"
	if s.tlsConfig != nil {
		scheme = "https"
	}
	return scheme + "://" + s.metricsLis.Addr().String() + "/metrics"
}

// serveMetrics answers metrics scrapes until Shutdown.
func (s *Server) serveMetrics() {
	if s.metricsHTTP == nil {
		return
	}
	if err := s.metricsHTTP.Serve(s.metricsLis); err != nil && !errors.Is(err, http.ErrServerClosed) {
		s.log.Warn("metrics endpoint stopped", "err", err)
	}
}
