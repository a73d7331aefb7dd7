// Package netlimit is a TCP proxy that limits bandwidth, for benchmarks
// that need a slow link on one machine: Kyuubi's cross-subnet fetch at
// about 20 MB/s (anchors.md §5.2), here in-process.
//
//	p, err := netlimit.Listen("127.0.0.1:0", serverAddr, 20_000_000)
//	defer p.Close()
//	dial(p.Addr().String()) // instead of serverAddr
//	up, down := p.Stats()   // bytes on the wire each way
//
// Each direction is one link shared by every connection through the
// proxy, shaped by a token bucket: bytes are forwarded in chunks of at
// most ChunkBytes, each chunk waiting until the link has carried the bytes
// before it at the rate, with a burst of at most Burst worth of time. So
// a 20 MB/s link moves 20 MB in a second less one burst, whatever the
// kernel's socket buffers on either side would have allowed.
//
// What the rate covers is TCP payload: for gRPC that is HTTP/2 frames,
// headers and all, which is what a real link carries too (less the TCP/IP
// headers a real link also carries; a rate here is a payload rate).
package netlimit
