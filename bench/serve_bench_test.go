package bench

import (
	"context"
	"fmt"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkServe answers: how fast does one client fetch catalog_sales
// over loopback from the arrow-go peer and from quiver's server, per
// codec? 200,000 rows; bytes/s are Arrow buffer bytes of the result;
// ratio is the bytes received over those buffer bytes.
//
//	go test -run XXX -bench Serve ./bench
func BenchmarkServe(b *testing.B) {
	cfg := ServeConfig{Rows: 200_000}.withDefaults()
	data, err := generateServeData(cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer data.release()
	ctx := context.Background()
	env, err := startServeEnv(ctx, cfg, data)
	defer env.close()
	if err != nil {
		b.Fatal(err)
	}
	peer, err := dialPeer(env.peer.addr())
	if err != nil {
		b.Fatal(err)
	}
	env.peerClients = append(env.peerClients, peer)
	for _, result := range []string{resultNumeric, resultFull} {
		res := data.results[result]
		raw := ArrowBytes(res.recs)
		run := func(b *testing.B, open openFunc) {
			var f fetched
			b.SetBytes(raw)
			b.ReportAllocs()
			for b.Loop() {
				if f, err = fetch(ctx, open, memory.DefaultAllocator, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(f.IPCBytes)/float64(raw), "ratio")
			b.ReportMetric(float64(f.Rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		}
		for _, comp := range []string{"none", "zstd"} {
			b.Run(fmt.Sprintf("result=%s/server=arrow-go/codec=%s", result, comp), func(b *testing.B) {
				run(b, peerOpen(peer, result, comp))
			})
		}
		for _, codec := range append(DefaultServeCodecs, "auto") {
			b.Run(fmt.Sprintf("result=%s/server=quiver/codec=%s", result, codec), func(b *testing.B) {
				cl, err := env.quiverClient(ctx, env.quiver.addr(), codec, false)
				if err != nil {
					b.Fatal(err)
				}
				open, err := quiverOpen(ctx, cl, selectSQL(tableMain, res.schema))
				if err != nil {
					b.Fatal(err)
				}
				run(b, open)
			})
		}
	}
}
