package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/internal/flightipc"
	"github.com/quiverdb/quiver/server"
)

// remoteAlloc allocates what the client commands decode and upload. Tests
// swap in a memory.CheckedAllocator to find leaks on every path.
var remoteAlloc memory.Allocator = memory.DefaultAllocator

// tokenEnv names the environment variable a bearer token is taken from
// when --token is not given, so it stays out of shell history and ps.
const tokenEnv = "QUIVER_TOKEN"

// remoteFlags are the connection flags quiver query --server and quiver
// load share.
type remoteFlags struct {
	server, token, tlsCA string
}

func (f *remoteFlags) register(fs *flag.FlagSet, defaultServer string) {
	fs.StringVar(&f.server, "server", defaultServer, "Flight SQL server `URI`: grpc://host:port, grpc+tls://host:port or host:port")
	fs.StringVar(&f.token, "token", "", "bearer token (default: the environment variable "+tokenEnv+")")
	fs.StringVar(&f.tlsCA, "tls-ca", "", "PEM `FILE` of the CA that signed the server's certificate (grpc+tls; default: the system's)")
}

// target is where a client connects: host:port and whether over TLS.
type target struct {
	addr string
	tls  bool
}

func (t target) String() string {
	if t.tls {
		return "grpc+tls://" + t.addr
	}
	return "grpc://" + t.addr
}

// loopback reports whether the target is this machine, where plain text
// exposes nothing and compression only costs CPU.
func (t target) loopback() bool {
	host, _, _ := net.SplitHostPort(t.addr)
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// parseTarget reads a Flight URI: grpc:// (or grpc+tcp://) for plain
// text, grpc+tls:// for TLS, and a bare host:port meaning grpc://. A
// missing port is the server's default port.
func parseTarget(uri string) (target, error) {
	var t target
	rest := uri
	if scheme, after, ok := strings.Cut(uri, "://"); ok {
		switch strings.ToLower(scheme) {
		case "grpc", "grpc+tcp":
		case "grpc+tls":
			t.tls = true
		default:
			return t, fmt.Errorf("%w: --server %q: scheme %q is not grpc, grpc+tcp or grpc+tls", errUsage, uri, scheme)
		}
		rest = after
	}
	rest = strings.TrimSuffix(rest, "/")
	if rest == "" || strings.ContainsAny(rest, "/?#@") {
		return t, fmt.Errorf("%w: --server %q: want host:port", errUsage, uri)
	}
	if _, _, err := net.SplitHostPort(rest); err != nil {
		// No port: the server's default one. A bare IPv6 address is
		// taken whole; anything else with a colon is a mistake.
		host := strings.TrimSuffix(strings.TrimPrefix(rest, "["), "]")
		if strings.Contains(host, ":") && net.ParseIP(host) == nil {
			return t, fmt.Errorf("%w: --server %q: want host:port", errUsage, uri)
		}
		_, port, _ := net.SplitHostPort(server.DefaultListen)
		rest = net.JoinHostPort(host, port)
	}
	host, port, err := net.SplitHostPort(rest)
	if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n <= 0 || n > 65535 {
		return t, fmt.Errorf("%w: --server %q: want host:port", errUsage, uri)
	}
	t.addr = rest
	return t, nil
}

// remoteConn is a Flight SQL client with session cookies, the bearer
// token on every call, and a count of the FlightData bytes it sends.
type remoteConn struct {
	*flightsql.Client
	target target
	sent   atomic.Int64 // FlightData header, body and app metadata bytes sent
}

// connect checks the flags and makes the client. gRPC connects lazily: a
// server that is not there shows on the first call, as Unavailable.
func (f *remoteFlags) connect(stderr io.Writer) (*remoteConn, error) {
	t, err := parseTarget(f.server)
	if err != nil {
		return nil, err
	}
	if f.tlsCA != "" && !t.tls {
		return nil, fmt.Errorf("%w: --tls-ca needs a grpc+tls:// server, not %s", errUsage, t)
	}
	token := f.token
	if token == "" {
		token = os.Getenv(tokenEnv)
	}
	c := &remoteConn{target: t}
	creds := insecure.NewCredentials()
	if t.tls {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if f.tlsCA != "" {
			pem, err := os.ReadFile(f.tlsCA)
			if err != nil {
				return nil, err
			}
			cfg.RootCAs = x509.NewCertPool()
			if !cfg.RootCAs.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("%w: --tls-ca %s holds no PEM certificate", errUsage, f.tlsCA)
			}
		}
		creds = credentials.NewTLS(cfg)
	}
	opts := []grpc.DialOption{grpc.WithTransportCredentials(creds), grpc.WithChainStreamInterceptor(c.countSent)}
	if token != "" {
		if !t.tls && !t.loopback() {
			fmt.Fprintf(stderr, "warning: sending the bearer token in plain text to %s (use grpc+tls://)\n", t.addr)
		}
		opts = append(opts, grpc.WithPerRPCCredentials(bearer(token)))
	}
	cl, err := flightsql.NewClient(t.addr, nil, []flight.ClientMiddleware{flight.NewClientCookieMiddleware()}, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t, err)
	}
	cl.Alloc = remoteAlloc
	c.Client = cl
	return c, nil
}

// bearer sends "authorization: Bearer <token>" on every call. It allows
// plain text (RequireTransportSecurity false) because loopback servers
// need no TLS; connect warns when the peer is elsewhere.
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (bearer) RequireTransportSecurity() bool { return false }

// countSent counts the FlightData bytes of every stream's sends: the
// bytes an upload put on the wire (before gRPC framing).
func (c *remoteConn) countSent(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	cs, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		return nil, err
	}
	return &sendCounter{ClientStream: cs, n: &c.sent}, nil
}

type sendCounter struct {
	grpc.ClientStream
	n *atomic.Int64
}

func (s *sendCounter) SendMsg(m any) error {
	err := s.ClientStream.SendMsg(m)
	if fd, ok := m.(*flight.FlightData); ok && err == nil {
		s.n.Add(flightipc.Bytes(fd))
	}
	return err
}

// remoteError is a server's error as one line a person can act on: what
// the gRPC code means, then the server's message. It keeps the status,
// so status.Code still reads the code.
type remoteError struct {
	what string
	st   *status.Status
	hint string
}

func (e *remoteError) Error() string {
	s := e.what + ": " + e.st.Message()
	if e.hint != "" {
		s += " (" + e.hint + ")"
	}
	return s
}

func (e *remoteError) GRPCStatus() *status.Status { return e.st }

// explain turns a gRPC status error into a remoteError; invalid names
// what an InvalidArgument means for the command ("invalid SQL"). Other
// errors are returned as they are.
func (c *remoteConn) explain(err error, invalid string) error {
	var re *remoteError
	if err == nil || errors.As(err, &re) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	// The status itself, not status.FromError, whose message for a
	// wrapped status is the whole chain.
	var se interface{ GRPCStatus() *status.Status }
	if !errors.As(err, &se) || se.GRPCStatus().Code() == codes.OK {
		return err
	}
	st := se.GRPCStatus()
	e := &remoteError{st: st}
	switch st.Code() {
	case codes.InvalidArgument:
		e.what = invalid
	case codes.NotFound:
		e.what = "not found"
	case codes.AlreadyExists:
		e.what = "already exists"
	case codes.Unauthenticated:
		e.what, e.hint = "not authenticated", "give --token or set "+tokenEnv
	case codes.PermissionDenied:
		e.what = "permission denied"
	case codes.ResourceExhausted:
		e.what = "over a server limit"
	case codes.FailedPrecondition:
		e.what = "failed precondition"
	case codes.Aborted:
		e.what = "aborted"
	case codes.Unimplemented:
		e.what = "not supported by the server"
	case codes.Unavailable:
		e.what = "server " + c.target.String() + " unavailable"
	case codes.DeadlineExceeded:
		e.what = "deadline exceeded"
	case codes.Canceled:
		e.what = "cancelled"
	case codes.DataLoss:
		e.what = "data loss on the server"
	default:
		e.what = "server error (" + st.Code().String() + ")"
	}
	return e
}
