//go:build cref

package cref_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/cref"
)

// BenchmarkCompress answers: would libzstd or liblz4 through cgo buy the
// encode speed the zstd:1 target asks for, and at what size? Each
// iteration compresses the data set once with quiver's codec (timed) and
// once with the C library at the same setting (timer stopped).
func BenchmarkCompress(b *testing.B) {
	for _, ds := range dataSets() {
		for _, s := range []string{"lz4", "zstd:1", "zstd:3"} {
			setting, err := codec.ParseSetting(s)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("data=%s/codec=%s", ds.name, s), func(b *testing.B) {
				benchCompress(b, ds.bufs(), setting)
			})
		}
	}
}

func benchCompress(b *testing.B, bufs [][]byte, s codec.Setting) {
	q := codec.MustNew(s)
	qOut := make([][]byte, len(bufs))
	cOut := make([][]byte, len(bufs))
	var total int64
	for _, buf := range bufs {
		total += int64(len(buf))
	}
	cCompress := func(dst, src []byte) ([]byte, error) {
		if s.Kind == codec.LZ4 {
			return cref.LZ4FCompressFrame(dst, src, cref.LZ4FOptions{BlockSize: cref.LZ4Block4MiB})
		}
		return cref.ZstdCompress(dst, src, s.Level)
	}
	var cTime, qTime time.Duration
	var qBytes, cBytes int64
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		for i, buf := range bufs {
			qOut[i] = q.Compress(qOut[i][:0], buf)
		}
		qTime += time.Since(start)
		b.StopTimer()
		start = time.Now()
		for i, buf := range bufs {
			var err error
			if cOut[i], err = cCompress(cOut[i][:0], buf); err != nil {
				b.Fatal(err)
			}
		}
		cTime += time.Since(start)
		b.StartTimer()
	}
	for i := range bufs {
		qBytes += int64(len(qOut[i]))
		cBytes += int64(len(cOut[i]))
	}
	b.ReportMetric(float64(total)/float64(qBytes), "ratio")
	b.ReportMetric(float64(total)/float64(cBytes), "C-ratio")
	b.ReportMetric(float64(total)*float64(b.N)/1e6/cTime.Seconds(), "C-MB/s")
	b.ReportMetric(cTime.Seconds()/qTime.Seconds(), "quiver/C")
}
