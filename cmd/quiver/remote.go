package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"

	"github.com/quiverdb/quiver/client"
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

// target checks --server.
func (f *remoteFlags) target() (client.Target, error) {
	t, err := client.ParseTarget(f.server)
	if err != nil {
		return t, fmt.Errorf("%w: --server: %v", errUsage, err)
	}
	return t, nil
}

// connect checks the flags and makes the client. gRPC connects lazily: a
// server that is not there shows on the first call, as Unavailable.
func (f *remoteFlags) connect(stderr io.Writer) (*client.Client, error) {
	t, err := f.target()
	if err != nil {
		return nil, err
	}
	if f.tlsCA != "" && !t.TLS {
		return nil, fmt.Errorf("%w: --tls-ca needs a grpc+tls:// server, not %s", errUsage, t)
	}
	token := f.token
	if token == "" {
		token = os.Getenv(tokenEnv)
	}
	c, err := client.Dial(f.server, client.Options{Token: token, TLSCAFile: f.tlsCA, Alloc: remoteAlloc,
		Prefetch: max(2, min(4, runtime.GOMAXPROCS(0)))})
	if errors.Is(err, client.ErrOptions) {
		return nil, fmt.Errorf("%w: --tls-ca: %v", errUsage, err)
	}
	if err != nil {
		return nil, err
	}
	if c.PlainTextToken() {
		fmt.Fprintf(stderr, "warning: sending the bearer token in plain text to %s (use grpc+tls://)\n", t.Addr)
	}
	return c, nil
}

// withHints adds what to do about a server's error in the command's
// terms (its flags).
func withHints(err error) error {
	var ce *client.Error
	if errors.As(err, &ce) && ce.Code() == codes.Unauthenticated {
		ce.Hint = "give --token or set " + tokenEnv
	}
	return err
}
