package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"strings"

	"google.golang.org/grpc/metadata"
)

// owner says who created a ticket or a prepared statement, and so who may
// fetch, use or cancel it.
//
// client is the caller's network identity: its IP address, and on a
// server with bearer tokens the digest of the token it presented (a
// server without tokens ignores the header, or a client could pick a new
// identity per call). session is the session the call's cookie named, or
// "" for a client that keeps no cookies.
type owner struct {
	client  string
	session string
}

// allows says whether the caller may act on what o created. Something
// created in a session belongs to that session alone (whatever address
// the client calls from next); something created without one belongs to
// the client: same token, same IP address. A cookie-less client's
// tickets are thus safe from other machines and other tokens, but not
// from other programs on its own host sharing its token: give such
// clients a session (any SetSessionOptions call) or tokens of their own.
func (o owner) allows(caller owner) bool {
	if o.session != "" {
		return caller.session == o.session && tokenPart(caller.client) == tokenPart(o.client)
	}
	return caller.client == o.client
}

// tokenPart is the token digest of a client key ("" without tokens).
func tokenPart(client string) string {
	tok, _, _ := strings.Cut(client, "@")
	return tok
}

// clientKey is the caller's client identity: "<token digest>@<IP>", the
// digest empty on a server without tokens.
func (s *Server) clientKey(ctx context.Context) string {
	tok := ""
	if len(s.cfg.Tokens) > 0 {
		md, _ := metadata.FromIncomingContext(ctx)
		if v := md.Get("authorization"); len(v) > 0 {
			// Checked by tokenAuth before any handler runs; the scheme's
			// case does not count.
			_, token, _ := strings.Cut(v[0], " ")
			d := sha256.Sum256([]byte(token))
			tok = hex.EncodeToString(d[:8])
		}
	}
	return tok + "@" + peerIP(ctx)
}

// clientGroup is the key every per-client limit counts by (tickets,
// sessions, prepared statements, upload slots): the client key with an
// IPv6 address cut to its /64. One IPv6 host is handed a whole /64 and
// picks its source address from it freely (privacy addresses), so a limit
// per exact address is no limit; an IPv4 address counts alone. Ownership
// (owner.allows) still compares exact keys: the group only shares limits.
func clientGroup(client string) string {
	tok, ip, _ := strings.Cut(client, "@")
	a := net.ParseIP(ip)
	if a == nil || a.To4() != nil {
		return client
	}
	return tok + "@" + a.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// peerIP is the caller's IP address without the port (a client's calls
// may come on several connections), or "" when gRPC does not know it.
func peerIP(ctx context.Context) string {
	switch a := peerAddr(ctx).(type) {
	case *net.TCPAddr:
		return a.IP.String()
	case nil:
		return ""
	default:
		return a.String()
	}
}

// userAgent is the user-agent the caller's gRPC library sent.
func userAgent(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	return strings.Join(md.Get("user-agent"), " ")
}
