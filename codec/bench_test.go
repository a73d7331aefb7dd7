package codec_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/quiverdb/quiver/codec"
)

// Benchmarks answer: how fast does each codec encode and decode Arrow-like
// buffers on this machine, at what ratio, against copy() (the physical
// limit) and against pierrec's frame Writer/Reader as arrow-go configures
// them. Throughput is of uncompressed bytes. Run:
//
//	go test -run x -bench . -count 5 ./codec
//
// BENCHMARKS.md holds the medians.

// benchData is one buffer of each kind, from fixed seeds, as in
// shared/reference/codecs.md.
var benchData = []struct {
	name string
	gen  func(n int) []byte
}{
	{"i64seq", func(n int) []byte { return int64s(n, func(i int, _ *rand.Rand) uint64 { return uint64(i) }) }},
	{"i64rand1000", func(n int) []byte { return int64s(n, func(_ int, r *rand.Rand) uint64 { return r.Uint64N(1000) }) }},
	{"i64rand", func(n int) []byte { return int64s(n, func(_ int, r *rand.Rand) uint64 { return r.Uint64() }) }},
	{"strvalues", stringValues},
	{"i32offsets", int32Offsets},
}

var benchSizes = []struct {
	name string
	n    int
}{{"64KiB", 64 << 10}, {"1MiB", 1 << 20}}

func int64s(n int, v func(int, *rand.Rand) uint64) []byte {
	r := rand.New(rand.NewPCG(42, 1))
	b := make([]byte, n)
	for i := range n / 8 {
		binary.LittleEndian.PutUint64(b[8*i:], v(i, r))
	}
	return b
}

// stringValues is the value bytes of a string column: values 5..40 bytes
// long, words from a 5000-word vocabulary drawn uniformly (real text is
// Zipf-distributed and compresses better).
func stringValues(n int) []byte {
	r := rand.New(rand.NewPCG(42, 1))
	vocab := make([][]byte, 5000)
	for i := range vocab {
		w := make([]byte, 3+r.IntN(8))
		for j := range w {
			w[j] = 'a' + byte(r.IntN(26))
		}
		vocab[i] = w
	}
	b := make([]byte, 0, n+64)
	for len(b) < n {
		target := 5 + r.IntN(36)
		var v []byte
		for len(v) < target {
			if len(v) > 0 {
				v = append(v, ' ')
			}
			v = append(v, vocab[r.IntN(len(vocab))]...)
		}
		b = append(b, v[:target]...)
	}
	return b[:n]
}

// int32Offsets is a string column's offsets: from 0, deltas 5..40.
func int32Offsets(n int) []byte {
	r := rand.New(rand.NewPCG(42, 1))
	b := make([]byte, n)
	off := uint32(0)
	for i := range n / 4 {
		binary.LittleEndian.PutUint32(b[4*i:], off)
		off += 5 + uint32(r.IntN(36))
	}
	return b
}

// benchCodec is a codec under test, or a peer with the same shape.
type benchCodec struct {
	name     string
	compress func(dst, src []byte) []byte
	decode   func(dst, src []byte, n int) ([]byte, error)
}

func fromCodec(name string, c codec.Codec) benchCodec {
	return benchCodec{name, c.Compress, c.Decompress}
}

func benchCodecs() []benchCodec {
	return []benchCodec{
		{"copy", func(dst, src []byte) []byte { return append(dst, src...) },
			func(dst, src []byte, n int) ([]byte, error) { return append(dst, src[:n]...), nil }},
		fromCodec("lz4", codec.MustNew(codec.SettingLZ4)),
		fromCodec("lz4-ccompat", codec.LZ4CCompat),
		pierrecArrowGo(),
		fromCodec("zstd:1", zstdAt(1)),
		fromCodec("zstd:3", zstdAt(3)),
		fromCodec("zstd:7", zstdAt(7)),
		fromCodec("zstd:19", zstdAt(19)),
	}
}

// pierrecArrowGo is pierrec's frame Writer and Reader set up and reused as
// arrow-go's IPC code does: 64 KiB blocks, no checksum, Reset per buffer,
// io.ReadFull into the destination.
func pierrecArrowGo() benchCodec {
	w := lz4.NewWriter(nil)
	if err := w.Apply(lz4.ChecksumOption(false), lz4.BlockSizeOption(lz4.Block64Kb)); err != nil {
		panic(err)
	}
	r := lz4.NewReader(nil)
	var buf bytes.Buffer
	var src bytes.Reader
	return benchCodec{
		name: "pierrec-frame-arrowgo",
		compress: func(dst, in []byte) []byte {
			buf.Reset()
			w.Reset(&buf)
			if _, err := w.Write(in); err != nil {
				panic(err)
			}
			if err := w.Close(); err != nil {
				panic(err)
			}
			return append(dst, buf.Bytes()...)
		},
		decode: func(dst, in []byte, n int) ([]byte, error) {
			src.Reset(in)
			r.Reset(&src)
			out := dst[len(dst) : len(dst)+n]
			_, err := io.ReadFull(r, out)
			return dst[:len(dst)+n], err
		},
	}
}

func BenchmarkEncode(b *testing.B) {
	forEachBench(b, func(b *testing.B, c benchCodec, src []byte) {
		dst := make([]byte, 0, 2*len(src)+1024)
		var out []byte
		start := cpuTime()
		for b.Loop() {
			out = c.compress(dst[:0], src)
		}
		reportCPU(b, start, len(src))
		b.ReportMetric(float64(len(src))/float64(len(out)), "ratio")
	})
}

func BenchmarkDecode(b *testing.B) {
	forEachBench(b, func(b *testing.B, c benchCodec, src []byte) {
		comp := c.compress(nil, src)
		dst := make([]byte, 0, len(src))
		start := cpuTime()
		for b.Loop() {
			if _, err := c.decode(dst[:0], comp, len(src)); err != nil {
				b.Fatal(err)
			}
		}
		reportCPU(b, start, len(src))
		b.ReportMetric(float64(len(src))/float64(len(comp)), "ratio")
	})
}

func forEachBench(b *testing.B, run func(*testing.B, benchCodec, []byte)) {
	for _, c := range benchCodecs() {
		for _, d := range benchData {
			for _, size := range benchSizes {
				src := d.gen(size.n)
				b.Run(fmt.Sprintf("codec=%s/data=%s/size=%s", c.name, d.name, size.name), func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(src)))
					run(b, c, src)
				})
			}
		}
	}
}

// BenchmarkEncodeParallel asks whether goroutines sharing one codec scale:
// zstd encoders are shared per level. RunParallel has no b.Loop form.
func BenchmarkEncodeParallel(b *testing.B) {
	src := stringValues(1 << 20)
	for _, c := range []codec.Codec{codec.MustNew(codec.SettingLZ4), zstdAt(1), zstdAt(3)} {
		b.Run("codec="+c.Setting().String()+"/data=strvalues/size=1MiB", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			b.RunParallel(func(pb *testing.PB) {
				dst := make([]byte, 0, 2*len(src))
				for pb.Next() {
					dst = c.Compress(dst[:0], src)
				}
			})
		})
	}
}
