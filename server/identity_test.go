package server

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

func TestClientGroup(t *testing.T) {
	for _, c := range []struct{ client, want string }{
		{"@127.0.0.1", "@127.0.0.1"},
		{"ab12@10.1.2.3", "ab12@10.1.2.3"},
		{"@2001:db8::1", "@2001:db8::/64"},
		{"@2001:db8::ffff:ffff:ffff:ffff", "@2001:db8::/64"},
		{"ab12@2001:db8:0:1::1", "ab12@2001:db8:0:1::/64"},
		{"@::1", "@::/64"},
		{"@", "@"},
	} {
		if got := clientGroup(c.client); got != c.want {
			t.Errorf("clientGroup(%q) = %q, want %q", c.client, got, c.want)
		}
	}
}

// headerSink is the little of a gRPC server stream that setting a
// session's cookie needs, for calls made without one.
type headerSink struct{}

func (headerSink) Method() string               { return "" }
func (headerSink) SetHeader(metadata.MD) error  { return nil }
func (headerSink) SendHeader(metadata.MD) error { return nil }
func (headerSink) SetTrailer(metadata.MD) error { return nil }

// callFrom is the context of a call from ip: loopback has one IPv6
// address, so the server's own calls stand in for IPv6 hosts.
func callFrom(ip string) context.Context {
	ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: &net.TCPAddr{IP: net.ParseIP(ip), Port: 40000}})
	return grpc.NewContextWithServerTransportStream(ctx, headerSink{})
}

// TestPerClientLimitsGroupIPv6: sessions, prepared statements and upload
// slots count an IPv6
// client by its /64, as tickets do (TestTicketStoreGroupsIPv6): a host
// rotating through its addresses meets the same limits.
func TestPerClientLimitsGroupIPv6(t *testing.T) {
	ts := startServer(t, Config{MaxSessionsPerClient: 2, MaxIngests: 4, MaxIngestsPerClient: 1, QueueTimeout: 50 * time.Millisecond})
	for i, ip := range []string{"2001:db8::1", "2001:db8::2"} {
		if _, err := ts.sessions.getOrCreate(callFrom(ip), ts.clientKey(callFrom(ip)), ts.defaultCodec); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
	}
	_, err := ts.sessions.getOrCreate(callFrom("2001:db8::3"), ts.clientKey(callFrom("2001:db8::3")), ts.defaultCodec)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "this client (2001:db8::/64) holds 2 sessions") {
		t.Errorf("a third address of the /64: %v", err)
	}
	if _, err := ts.sessions.getOrCreate(callFrom("2001:db8:0:1::1"), ts.clientKey(callFrom("2001:db8:0:1::1")), ts.defaultCodec); err != nil {
		t.Errorf("the next /64: %v", err)
	}

	// Prepared statements: the /64's own oldest goes past its share.
	ps := &preparedStore{max: 10 * preparedPerClient, idle: time.Hour, m: map[string]*prepared{}}
	first := &prepared{owner: owner{client: ts.clientKey(callFrom("2001:db8::1"))}}
	if err := ps.add(first); err != nil {
		t.Fatal(err)
	}
	for range preparedPerClient {
		if err := ps.add(&prepared{owner: owner{client: ts.clientKey(callFrom("2001:db8::2"))}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, held := ps.m[first.handle]; held || len(ps.m) != preparedPerClient {
		t.Errorf("after %d statements more from the /64: its first held %v, %d held", preparedPerClient, held, len(ps.m))
	}

	release, err := ts.admitIngest(callFrom("2001:db8::1"))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := ts.admitIngest(callFrom("2001:db8::2")); status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "--max-ingests-per-client") {
		t.Errorf("an upload from another address of the /64: %v", err)
	}
	other, err := ts.admitIngest(callFrom("2001:db8:0:1::1"))
	if err != nil {
		t.Errorf("an upload from the next /64: %v", err)
	} else {
		other()
	}
}
