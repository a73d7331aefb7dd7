package client

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// DefaultPort is the port of a server URI that names none: quiver
// serve's default (server.DefaultListen, which a test keeps equal).
const DefaultPort = "31337"

// ErrTarget is returned, wrapped, for a server URI Dial cannot read.
var ErrTarget = errors.New("client: bad server URI")

// Target is where a client connects: host:port and whether over TLS.
type Target struct {
	Addr string // host:port
	TLS  bool
}

// String is the target as a Flight URI (grpc:// or grpc+tls://).
func (t Target) String() string {
	if t.TLS {
		return "grpc+tls://" + t.Addr
	}
	return "grpc://" + t.Addr
}

// Loopback reports whether the target is this machine, where plain text
// exposes nothing and compression only costs CPU.
func (t Target) Loopback() bool {
	host, _, _ := net.SplitHostPort(t.Addr)
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ParseTarget reads a Flight URI: grpc:// (or grpc+tcp://) for plain
// text, grpc+tls:// for TLS, and a bare host:port meaning grpc://. A
// missing port is DefaultPort. Errors match ErrTarget.
func ParseTarget(uri string) (Target, error) {
	var t Target
	rest := uri
	if scheme, after, ok := strings.Cut(uri, "://"); ok {
		switch strings.ToLower(scheme) {
		case "grpc", "grpc+tcp":
		case "grpc+tls":
			t.TLS = true
		default:
			return t, fmt.Errorf("%w %q: scheme %q is not grpc, grpc+tcp or grpc+tls", ErrTarget, uri, scheme)
		}
		rest = after
	}
	rest = strings.TrimSuffix(rest, "/")
	if rest == "" || strings.ContainsAny(rest, "/?#@") {
		return t, fmt.Errorf("%w %q: want host:port", ErrTarget, uri)
	}
	if _, _, err := net.SplitHostPort(rest); err != nil {
		// No port: the server's default one. A bare IPv6 address is
		// taken whole; anything else with a colon is a mistake.
		host := strings.TrimSuffix(strings.TrimPrefix(rest, "["), "]")
		if strings.Contains(host, ":") && net.ParseIP(host) == nil {
			return t, fmt.Errorf("%w %q: want host:port", ErrTarget, uri)
		}
		rest = net.JoinHostPort(host, DefaultPort)
	}
	host, port, err := net.SplitHostPort(rest)
	if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n <= 0 || n > 65535 {
		return t, fmt.Errorf("%w %q: want host:port", ErrTarget, uri)
	}
	t.Addr = rest
	return t, nil
}
