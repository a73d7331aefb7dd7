package codec_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/codec/codectest"
)

func TestXXH32Vectors(t *testing.T) {
	// From xxHash's own tests and pierrec's.
	for _, tc := range []struct {
		sum  uint32
		data string
	}{
		{0x02cc5d05, ""},
		{0x550d7456, "a"},
		{0x4999fc53, "ab"},
		{0x32d153ff, "abc"},
		{0xa3643705, "abcd"},
		{0x9738f19b, "abcde"},
		{0x8b7cd587, "abcdef"},
		{0x9dd093b3, "abcdefg"},
		{0x0bb3c6bb, "abcdefgh"},
		{0xd03c13fd, "abcdefghi"},
		{0x8b988cfe, "abcdefghij"},
		{0x9d2d8b62, "abcdefghijklmnop"},
		{0x42ae804d, "abcdefghijklmnopqrstuvwxyz0123456789"},
		{0xe2293b2f, "Nobody inspects the spammish repetition"},
	} {
		if got := codec.XXH32([]byte(tc.data)); got != tc.sum {
			t.Errorf("xxh32(%q) = %#08x, want %#08x", tc.data, got, tc.sum)
		}
	}
}

// TestXXH32MatchesPierrec checks our hash against the content checksum
// pierrec's Writer stores, at every length across the 16-byte lane
// boundaries and at a few large ones.
func TestXXH32MatchesPierrec(t *testing.T) {
	data := codectest.Random(1 << 20)
	lengths := []int{100 << 10, 1<<20 - 5, 1 << 20}
	for n := range 70 {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		var buf bytes.Buffer
		w := lz4.NewWriter(&buf)
		if err := w.Apply(lz4.ChecksumOption(true)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data[:n]); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		frame := buf.Bytes()
		want := binary.LittleEndian.Uint32(frame[len(frame)-4:])
		if got := codec.XXH32(data[:n]); got != want {
			t.Fatalf("xxh32 of %d bytes = %#08x, pierrec wrote %#08x", n, got, want)
		}
	}
}

func BenchmarkXXH32(b *testing.B) {
	data := codectest.Random(1 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		codec.XXH32(data)
	}
}
