//go:build cref

package cref_test

import (
	"flag"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/cref"
	"github.com/quiverdb/quiver/internal/datagen"
)

// BenchmarkDecode answers: how fast does quiver's codec decode, next to
// the C library decoding the very same frames? Each iteration decodes the
// data set once with quiver (timed as ns/op) and once with C (timer
// stopped), so both see the same machine state; quiver/C is the ratio of
// speeds, the figure the codec-alone targets (≥ 0.9 lz4, ≥ 0.75 zstd)
// hold.
//
//	go test -tags cref -run x -bench . -count 5 ./internal/cref
func BenchmarkDecode(b *testing.B) {
	for _, ds := range dataSets() {
		for _, s := range []string{"lz4", "zstd:1", "zstd:3"} {
			setting, err := codec.ParseSetting(s)
			if err != nil {
				b.Fatal(err)
			}
			for _, writer := range []string{"quiver", "c"} {
				b.Run(fmt.Sprintf("data=%s/codec=%s/frames=%s", ds.name, s, writer), func(b *testing.B) {
					benchDecode(b, ds, setting, writer)
				})
			}
		}
	}
}

func benchDecode(b *testing.B, ds dataSet, s codec.Setting, writer string) {
	bufs := ds.bufs()
	q := codec.MustNew(s)
	frames := make([][]byte, len(bufs))
	var total int64
	for i, buf := range bufs {
		frames[i] = compress(b, q, writer, buf)
		total += int64(len(buf))
	}
	formats := []cref.Format{cref.Zstd}
	if s.Kind == codec.LZ4 {
		formats = []cref.Format{cref.LZ4Frame, cref.LZ4Block}
	}
	passes := make([]*cref.DecodePass, len(formats))
	for i, f := range formats {
		p, err := cref.NewDecodePass(f, frames, bufs)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		passes[i] = p
	}
	out := make([][]byte, len(bufs))
	for i, buf := range bufs {
		out[i] = make([]byte, len(buf))
	}
	var compressed int64
	for _, f := range frames {
		compressed += int64(len(f))
	}
	cTime := make([]time.Duration, len(passes))
	var qTime time.Duration
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		for i, f := range frames {
			if _, err := q.Decompress(out[i][:0], f, len(out[i])); err != nil {
				b.Fatal(err)
			}
		}
		qTime += time.Since(start)
		b.StopTimer()
		for i, p := range passes {
			d, err := p.Run()
			if err != nil {
				b.Fatal(err)
			}
			cTime[i] += d
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(total)/float64(compressed), "ratio")
	for i, f := range formats {
		name := map[cref.Format]string{cref.LZ4Frame: "C-frame", cref.LZ4Block: "C-block", cref.Zstd: "C"}[f]
		b.ReportMetric(float64(total)*float64(b.N)/1e6/cTime[i].Seconds(), name+"-MB/s")
		b.ReportMetric(cTime[i].Seconds()/qTime.Seconds(), "quiver/"+name)
	}
}

// compress writes buf as a frame of s, with quiver's codec or with the C
// library at the matching setting (LZ4: liblz4's default frame with
// independent blocks; zstd: ZSTD_compress at the level).
func compress(b *testing.B, q codec.Codec, writer string, buf []byte) []byte {
	if writer == "quiver" {
		return q.Compress(nil, buf)
	}
	var frame []byte
	var err error
	if s := q.Setting(); s.Kind == codec.LZ4 {
		frame, err = cref.LZ4FCompressFrame(nil, buf, cref.LZ4FOptions{})
	} else {
		frame, err = cref.ZstdCompress(nil, buf, s.Level)
	}
	if err != nil {
		b.Fatal(err)
	}
	return frame
}

var cometRows = flag.Int("cref.rows", 500_000, "rows of the Comet relation in BenchmarkDecode/data=comet")

// dataSet is a list of buffers compressed one by one, as Arrow does.
type dataSet struct {
	name string
	bufs func() [][]byte
}

func dataSets() []dataSet {
	return []dataSet{
		{"comet", cometBuffers},
		{"seq-int64-1MiB", func() [][]byte { return chunks(cref.SeqInt64(16<<20), 1<<20) }},
		{"text-1MiB", func() [][]byte { return chunks(cref.Text(16<<20), 1<<20) }},
	}
}

// cometBuffers are the Arrow buffers (validity, offsets, values) of the
// Comet relation, built once.
var cometBuffers = sync.OnceValue(func() [][]byte {
	var bufs [][]byte
	for _, r := range datagen.CometRecords(nil, *cometRows, datagen.DefaultCometBatch) {
		for _, c := range r.Columns() {
			bufs = append(bufs, buffersOf(c.Data())...)
		}
	}
	return bufs // the records are not released: GoAllocator memory, kept for the process
})

func buffersOf(d arrow.ArrayData) [][]byte {
	var out [][]byte
	for _, b := range d.Buffers() {
		if b != nil && b.Len() > 0 {
			out = append(out, b.Bytes())
		}
	}
	return out
}

func chunks(b []byte, size int) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := min(size, len(b))
		out = append(out, b[:n])
		b = b[n:]
	}
	return out
}
