package colenc_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/colenc"
)

// Benchmarks answer two questions, on one 8192-row batch of int64 columns
// shaped like the Comet relation (id = i, k = i%1000, v = i+1) plus random
// values:
//
//  1. How fast does each encoding encode and decode, at what ratio?
//     (BenchmarkEncode, BenchmarkDecode; throughput is of plain bytes.)
//  2. Is colenc then lz4 smaller than zstd:1 alone, and faster to decode?
//     (BenchmarkPipeline: codec none/lz4/zstd:1, with and without colenc
//     in front, decode = codec then colenc.)
//
// Run:
//
//	go test -run x -bench . -count 5 ./colenc
//
// BENCHMARKS.md holds the medians.

const benchRows = 8192

var benchCols = []struct {
	name string
	v    func(i int, r *rand.Rand) int64
}{
	{"id", func(i int, _ *rand.Rand) int64 { return int64(i) }},
	{"k", func(i int, _ *rand.Rand) int64 { return int64(i % 1000) }},
	{"v", func(i int, _ *rand.Rand) int64 { return int64(i + 1) }},
	{"rand", func(_ int, r *rand.Rand) int64 { return int64(r.Uint64()) }},
}

func BenchmarkEncode(b *testing.B) {
	for _, c := range benchCols {
		src := column(8, benchRows, c.v)
		for _, enc := range []colenc.Encoding{colenc.Plain, colenc.Delta, colenc.FOR} {
			b.Run("col="+c.name+"/enc="+enc.String(), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(src)))
				dst := colenc.Encode(nil, src, 8, enc)
				for b.Loop() {
					dst = colenc.Encode(dst[:0], src, 8, enc)
				}
				b.ReportMetric(float64(len(src))/float64(len(dst)), "ratio")
			})
		}
		b.Run("col="+c.name+"/enc=choose", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			var dst []byte
			for b.Loop() {
				dst = colenc.Encode(dst[:0], src, 8, colenc.Choose(8, src))
			}
			b.ReportMetric(float64(len(src))/float64(len(dst)), "ratio")
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, c := range benchCols {
		src := column(8, benchRows, c.v)
		for _, enc := range []colenc.Encoding{colenc.Plain, colenc.Delta, colenc.FOR} {
			encoded := colenc.Encode(nil, src, 8, enc)
			b.Run("col="+c.name+"/enc="+enc.String(), func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(src)))
				dst := make([]byte, 0, len(src))
				for b.Loop() {
					var err error
					if dst, err = colenc.Decode(dst[:0], encoded, len(src)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(src))/float64(len(encoded)), "ratio")
			})
		}
	}
}

func BenchmarkPipeline(b *testing.B) {
	codecs := []codec.Setting{codec.SettingNone, codec.SettingLZ4, {Kind: codec.Zstd, Level: 1}}
	for _, c := range benchCols {
		src := column(8, benchRows, c.v)
		for _, pre := range []string{"none", "colenc"} {
			stage1 := src
			if pre == "colenc" {
				stage1 = colenc.Encode(nil, src, 8, colenc.Choose(8, src))
			}
			for _, s := range codecs {
				cd := codec.MustNew(s)
				packed := cd.Compress(nil, stage1)
				name := "col=" + c.name + "/pre=" + pre + "/codec=" + s.String()
				ratio := float64(len(src)) / float64(len(packed))
				b.Run(name+"/op=encode", func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(src)))
					var tmp, out []byte
					for b.Loop() {
						in := src
						if pre == "colenc" {
							tmp = colenc.Encode(tmp[:0], src, 8, colenc.Choose(8, src))
							in = tmp
						}
						out = cd.Compress(out[:0], in)
					}
					b.ReportMetric(ratio, "ratio")
				})
				b.Run(name+"/op=decode", func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(src)))
					mid := make([]byte, 0, len(stage1))
					out := make([]byte, 0, len(src))
					for b.Loop() {
						var err error
						if mid, err = cd.Decompress(mid[:0], packed, len(stage1)); err != nil {
							b.Fatal(err)
						}
						if pre == "colenc" {
							if out, err = colenc.Decode(out[:0], mid, len(src)); err != nil {
								b.Fatal(err)
							}
						}
					}
					b.ReportMetric(ratio, "ratio")
					b.ReportMetric(float64(len(packed)), "bytes")
				})
			}
		}
	}
}

// BenchmarkDecodeRows: the rows a filtered scan keeps of a Delta column
// shaped like l_orderkey (ascending, about 4 rows a key): 1.3% of them
// (TPC-H Q8's lineitem after its runtime filter) and a quarter (the most
// the scan decodes by rows); throughput counts the whole column.
func BenchmarkDecodeRows(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	key := int64(1)
	src := column(8, benchRows, func(int, *rand.Rand) int64 {
		if r.IntN(4) == 0 {
			key += 1 + int64(r.IntN(8))
		}
		return key
	})
	encoded := colenc.Encode(nil, src, 8, colenc.Delta)
	for _, keep := range []int{106, benchRows / 4} {
		var rows []int32
		for i := range benchRows {
			if r.IntN(benchRows) < keep {
				rows = append(rows, int32(i))
			}
		}
		b.Run("enc=delta/kept="+strconv.Itoa(keep), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			dst := make([]byte, 0, len(src))
			for b.Loop() {
				var err error
				if dst, err = colenc.DecodeRows(dst[:0], encoded, len(src), rows); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
