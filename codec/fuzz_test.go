package codec_test

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/codec/codectest"
)

// Fuzz targets. Seeds are in testdata/fuzz/<FuzzName>/ (written by
// TestWriteFuzzSeeds with -rewrite) plus the f.Add calls below. Run one with
//
//	go test -run x -fuzz FuzzLZ4Decompress -fuzztime 60s ./codec

// fuzzSize keeps fuzzed decoded sizes small enough to allocate, and keeps
// negative ones so that path is fuzzed too.
func fuzzSize(n int) int { return n % (16 << 20) }

// FuzzLZ4Decompress decodes garbage. With fix set it first corrects the
// header check byte, which random mutation almost never gets right, so the
// fuzzer gets past the header to the blocks.
func FuzzLZ4Decompress(f *testing.F) {
	f.Add(lz4c.Compress(nil, codectest.Text(300)), 300, false)
	f.Add([]byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x70, 0x73, 0, 0, 0, 0}, 0, true)
	f.Fuzz(func(t *testing.T, src []byte, n int, fix bool) {
		n = fuzzSize(n)
		if fix {
			fixHeaderCheck(src)
		}
		got, err := codectest.Decompress(t, lz4c, []byte("pre"), src, n)
		if err != nil {
			return
		}
		// A second decoder must agree on what we accept. pierrec's Reader
		// refuses some frames we read (dictionary ids), so only its
		// successes count.
		theirs, err := io.ReadAll(io.LimitReader(lz4.NewReader(bytes.NewReader(src)), int64(n)+1))
		if err == nil && !bytes.Equal(theirs, got[3:]) {
			t.Fatalf("we decode %d bytes, pierrec's Reader %d, and they differ", n, len(theirs))
		}
	})
}

// fixHeaderCheck sets the header check byte of an LZ4 frame in src.
func fixHeaderCheck(src []byte) {
	if len(src) < 7 || binary.LittleEndian.Uint32(src) != 0x184D2204 {
		return
	}
	size := 7
	if src[4]&0x08 != 0 {
		size += 8
	}
	if src[4]&0x01 != 0 {
		size += 4
	}
	if len(src) >= size {
		src[size-1] = byte(codec.XXH32(src[4:size-1]) >> 8)
	}
}

// zstdStream is a second zstd decode path for FuzzZstdDecompress: the
// streaming decoder, with no concurrency so it decodes in place.
var zstdStream = func() *zstd.Decoder {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(128<<20))
	if err != nil {
		panic(err)
	}
	return d
}()

func FuzzZstdDecompress(f *testing.F) {
	f.Add(zstdAt(3).Compress(nil, codectest.Text(300)), 300)
	f.Add(zstdAt(3).Compress(nil, nil), 0)
	f.Fuzz(func(t *testing.T, src []byte, n int) {
		n = fuzzSize(n)
		got, err := codectest.Decompress(t, zstdAt(3), []byte("pre"), src, n)
		if err != nil {
			return
		}
		if err := zstdStream.Reset(bytes.NewReader(src)); err != nil {
			t.Fatalf("we decode %d bytes, the stream decoder fails: %v", n, err)
		}
		theirs, err := io.ReadAll(io.LimitReader(zstdStream, int64(n)+1))
		if err != nil || !bytes.Equal(theirs, got[3:]) {
			t.Fatalf("we decode %d bytes, the stream decoder %d (%v), and they differ", n, len(theirs), err)
		}
	})
}

func FuzzNoneDecompress(f *testing.F) {
	f.Add([]byte("hello"), 5)
	f.Add([]byte{}, 0)
	f.Fuzz(func(t *testing.T, src []byte, n int) {
		n = fuzzSize(n)
		got, err := codectest.Decompress(t, codec.MustNew(codec.SettingNone), nil, src, n)
		if err == nil && !bytes.Equal(got, src) {
			t.Fatal("none changed the bytes")
		}
	})
}

// roundTripCodecs are the codecs FuzzRoundTrip picks from.
var roundTripCodecs = []codec.Codec{
	codec.MustNew(codec.SettingNone),
	lz4c,
	codec.LZ4CCompat,
	zstdAt(-5),
	zstdAt(3),
	zstdAt(7),
	zstdAt(19),
}

func FuzzRoundTrip(f *testing.F) {
	f.Add(codectest.Text(300), uint8(1))
	f.Add([]byte{}, uint8(4))
	f.Fuzz(func(t *testing.T, src []byte, which uint8) {
		c := roundTripCodecs[int(which)%len(roundTripCodecs)]
		comp := c.Compress([]byte("pre"), src)
		if len(comp)-3 > c.CompressBound(len(src)) {
			t.Fatalf("%v: %d bytes compress to %d, bound %d", c.Setting(), len(src), len(comp)-3, c.CompressBound(len(src)))
		}
		got, err := codectest.Decompress(t, c, []byte("x"), comp[3:], len(src))
		if err != nil || !bytes.Equal(got[1:], src) {
			t.Fatalf("%v: round trip of %d bytes: %v", c.Setting(), len(src), err)
		}
	})
}
