package server

import (
	"net"
	"strings"

	"github.com/quiverdb/quiver/codec"
)

// jdbcUserAgent is what Arrow's Flight SQL JDBC driver puts before gRPC's
// own agent since arrow-java 19.0.0 ("JDBC Flight SQL Driver 19.0.0
// grpc-java-netty/1.73.0"; apache/arrow-java#804).
const jdbcUserAgent = "JDBC Flight SQL Driver"

// forClient resolves the codec for one call: forPeer's rule, except that
// auto sends none to clients that cannot decode compressed bodies.
func (r resultCodec) forClient(addr net.Addr, userAgent string) codec.Setting {
	if r.auto && noCompressedBodies(userAgent) {
		return codec.SettingNone
	}
	return r.forPeer(addr)
}

// noCompressedBodies says whether a client's user-agent marks it as one
// that cannot read compressed IPC bodies: Arrow's Flight SQL JDBC driver,
// whose jar leaves out arrow-compression (apache/arrow-java#926). Drivers
// before 19.0.0 do not name themselves and send gRPC Java's bare agent
// ("grpc-java-netty/1.60.0"), so that counts too: a Java client that
// names nothing has the JDBC driver's odds. A session that chooses a codec
// is not overridden.
func noCompressedBodies(userAgent string) bool {
	return strings.Contains(userAgent, jdbcUserAgent) || strings.HasPrefix(userAgent, "grpc-java")
}
