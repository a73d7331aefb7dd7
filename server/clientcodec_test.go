package server

import (
	"context"
	"net"
	"testing"

	"google.golang.org/grpc"

	"github.com/quiverdb/quiver/codec"
)

// The agents gRPC sends for Arrow's Flight SQL JDBC driver 19 (which
// names itself, apache/arrow-java#804) and for older ones (which do not).
const (
	jdbcAgent    = "JDBC Flight SQL Driver 19.0.0 grpc-java-netty/1.73.0"
	oldJDBCAgent = "grpc-java-netty/1.60.0"
)

func TestNoCompressionForJDBCUnderAuto(t *testing.T) {
	remote := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 9), Port: 5000}
	auto, _ := parseResultCodec("auto")
	lz4, _ := parseResultCodec("lz4")
	zstd1 := codec.Setting{Kind: codec.Zstd, Level: 1}
	for _, tc := range []struct {
		rc    resultCodec
		agent string
		want  codec.Setting
	}{
		{auto, jdbcAgent, codec.SettingNone},
		{auto, oldJDBCAgent, codec.SettingNone},
		{auto, "grpc-go/1.72.0", zstd1},
		{auto, "ADBC Flight SQL Driver (unknown or development build) grpc-go/1.72.0", zstd1},
		{auto, "MyApp/2.0 grpc-java-netty/1.73.0", zstd1}, // a Java client that names itself
		{lz4, jdbcAgent, lz4.setting},                     // the session chose
	} {
		if got := tc.rc.forClient(remote, tc.agent); got != tc.want {
			t.Errorf("%s for %q: %v, want %v", tc.rc, tc.agent, got, tc.want)
		}
	}
}

// TestJDBCAgentGetsUncompressedResults runs the rule end to end: a server
// on this machine's non-loopback address (auto compresses for it), a
// client carrying the JDBC driver's user-agent.
func TestJDBCAgentGetsUncompressedResults(t *testing.T) {
	ip := nonLoopbackIPv4(t)
	ts := startServer(t, Config{Listen: net.JoinHostPort(ip, "0"), Insecure: true}, numbersTable(1000, 1000))
	ctx := context.Background()
	kinds := func(opts ...grpc.DialOption) []codec.Kind {
		t.Helper()
		return codecKinds(fetchRaw(t, ts.client(t, opts...), ctx, `SELECT id, name FROM nums`).infos)
	}
	if got := kinds(); len(got) != 1 || got[0] != codec.Zstd {
		t.Fatalf("auto for a remote grpc-go client: %v, want zstd", got)
	}
	if got := kinds(grpc.WithUserAgent(jdbcAgent)); len(got) != 1 || got[0] != codec.None {
		t.Errorf("auto for the JDBC driver: %v, want none", got)
	}
	jdbc := ts.client(t, grpc.WithUserAgent(jdbcAgent))
	setCodec(t, jdbc, ctx, "lz4")
	if got := codecKinds(fetchRaw(t, jdbc, ctx, `SELECT id, name FROM nums`).infos); len(got) != 1 || got[0] != codec.LZ4 {
		t.Errorf("the JDBC driver's session chose lz4: %v", got)
	}
}

// nonLoopbackIPv4 is an address of this machine that is not loopback;
// the test is skipped without one.
func nonLoopbackIPv4(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skip(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	t.Skip("no non-loopback IPv4 address")
	return ""
}
