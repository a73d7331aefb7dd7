package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/internal/flightipc"
)

// Options configure a connection. The zero value connects in plain text
// with no token and reads results with batch.DefaultLimits.
type Options struct {
	// Token is sent as "authorization: Bearer <token>" on every call.
	Token string
	// TLSCAFile is a PEM file of the CA that signed the server's
	// certificate (grpc+tls:// only); empty trusts the system's roots.
	TLSCAFile string
	// TLSConfig, when set, is used for grpc+tls:// as it is (TLSCAFile
	// must then be empty).
	TLSConfig *tls.Config
	// Alloc allocates the batches results decode into and the uploads
	// ingest sends; nil is memory.DefaultAllocator.
	Alloc memory.Allocator
	// Limits bound what one result message may make the reader allocate;
	// the zero value is batch.DefaultLimits.
	Limits batch.Limits
	// Prefetch is how many batches a result decodes ahead of the one
	// read; 0 is 2.
	Prefetch int
	// DialOptions are added to the gRPC dial (after the credentials).
	DialOptions []grpc.DialOption
}

// ErrOptions is returned, wrapped, for options that contradict each
// other or the target.
var ErrOptions = errors.New("client: bad options")

// Client is a Flight SQL connection to a quiver server with session
// cookies (the session keeps the result codec), the bearer token on
// every call, and a count of the bytes uploads sent. It is safe for
// concurrent use; the session is shared by every call.
type Client struct {
	fs     *flightsql.Client
	target Target
	opts   Options
	sent   atomic.Int64 // FlightData header, body and app metadata bytes sent
	// session is set once SetOptions made the server keep a session for
	// this client; Close then ends it, so the server does not hold it
	// (and count it against the client's session limit) until it idles out.
	session atomic.Bool
}

// Dial makes a client of the server at uri (grpc://host:port,
// grpc+tls://host:port or host:port; see ParseTarget). gRPC connects
// lazily: a server that is not there shows on the first call, as an
// *Error with code Unavailable.
func Dial(uri string, opts Options) (*Client, error) {
	t, err := ParseTarget(uri)
	if err != nil {
		return nil, err
	}
	if (opts.TLSCAFile != "" || opts.TLSConfig != nil) && !t.TLS {
		return nil, fmt.Errorf("%w: a TLS CA or config needs a grpc+tls:// server, not %s", ErrOptions, t)
	}
	if opts.TLSCAFile != "" && opts.TLSConfig != nil {
		return nil, fmt.Errorf("%w: TLSCAFile and TLSConfig both set", ErrOptions)
	}
	if opts.Alloc == nil {
		opts.Alloc = memory.DefaultAllocator
	}
	c := &Client{target: t, opts: opts}
	creds := insecure.NewCredentials()
	if t.TLS {
		cfg, err := tlsConfig(opts)
		if err != nil {
			return nil, err
		}
		creds = credentials.NewTLS(cfg)
	}
	dial := []grpc.DialOption{grpc.WithTransportCredentials(creds), grpc.WithChainStreamInterceptor(c.countSent)}
	if opts.Token != "" {
		dial = append(dial, grpc.WithPerRPCCredentials(bearer(opts.Token)))
	}
	dial = append(dial, opts.DialOptions...)
	fs, err := flightsql.NewClient(t.Addr, nil, []flight.ClientMiddleware{flight.NewClientCookieMiddleware()}, dial...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t, err)
	}
	fs.Alloc = opts.Alloc
	c.fs = fs
	return c, nil
}

func tlsConfig(opts Options) (*tls.Config, error) {
	if opts.TLSConfig != nil {
		return opts.TLSConfig, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if opts.TLSCAFile == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(opts.TLSCAFile)
	if err != nil {
		return nil, err
	}
	cfg.RootCAs = x509.NewCertPool()
	if !cfg.RootCAs.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w: TLS CA file %s holds no PEM certificate", ErrOptions, opts.TLSCAFile)
	}
	return cfg, nil
}

// Close ends the client's session on the server, if it made one, and
// then the connection. Ending the session is best effort (a server that
// is gone drops it anyway) and waits at most closeSessionWait.
func (c *Client) Close() error {
	if c.session.Load() {
		ctx, cancel := context.WithTimeout(context.Background(), closeSessionWait)
		_, _ = c.fs.CloseSession(ctx, &flight.CloseSessionRequest{})
		cancel()
	}
	return c.fs.Close()
}

// closeSessionWait bounds how long Close waits for the server to end the
// session.
const closeSessionWait = 2 * time.Second

// Target is where the client connects.
func (c *Client) Target() Target { return c.target }

// PlainTextToken reports whether the client sends a bearer token in
// plain text to another machine (a caller may want to warn).
func (c *Client) PlainTextToken() bool {
	return c.opts.Token != "" && !c.target.TLS && !c.target.Loopback()
}

// Sent is the FlightData bytes (IPC headers, bodies, app metadata)
// every upload of this client has sent so far, before gRPC framing.
func (c *Client) Sent() int64 { return c.sent.Load() }

// FlightSQL is arrow-go's client underneath, for the calls this package
// does not wrap. It shares the session cookie; set session options
// through SetSessionOptions, never its own (see SetSessionOptions).
func (c *Client) FlightSQL() *flightsql.Client { return c.fs }

// bearer sends "authorization: Bearer <token>" on every call. It allows
// plain text (RequireTransportSecurity false) because loopback servers
// need no TLS; PlainTextToken tells a caller when the peer is elsewhere.
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (bearer) RequireTransportSecurity() bool { return false }

// countSent counts the FlightData bytes of every stream's sends: the
// bytes an upload put on the wire (before gRPC framing).
func (c *Client) countSent(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
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
