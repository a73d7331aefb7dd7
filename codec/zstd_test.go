package codec_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/codec/codectest"
)

func zstdAt(level int) codec.Codec {
	return codec.MustNew(codec.Setting{Kind: codec.Zstd, Level: level})
}

func TestZstdLevels(t *testing.T) {
	src := codectest.Text(200 << 10)
	levels := []int{codec.MinZstdLevel, -5, -1, 0}
	for l := 1; l <= codec.MaxZstdLevel; l++ {
		levels = append(levels, l)
	}
	for _, l := range levels {
		c := zstdAt(l)
		if l != 0 && c.Setting().Level != l {
			t.Errorf("level %d: Setting() = %v", l, c.Setting())
		}
		got, err := c.Decompress(nil, c.Compress(nil, src), len(src))
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("level %d: round trip: %v", l, err)
		}
	}
	if zstdAt(0).Setting() != codec.SettingZstd {
		t.Errorf("level 0 is %v, want the default", zstdAt(0).Setting())
	}
}

// TestZstdLevelBands checks the level → klauspost speed mapping through the
// bytes: levels in one band write the same frame, neighbouring bands differ.
func TestZstdLevelBands(t *testing.T) {
	if libzstd {
		t.Skip("libzstd has no bands; TestZstdCgoLevels checks its levels")
	}
	src := codectest.Text(300 << 10)
	frame := func(level int) []byte { return zstdAt(level).Compress(nil, src) }
	bands := [][]int{{codec.MinZstdLevel, -5, -1, 1}, {2, 3, 5}, {6, 9}, {10, 19, 22}}
	for i, band := range bands {
		first := frame(band[0])
		for _, l := range band[1:] {
			if !bytes.Equal(frame(l), first) {
				t.Errorf("levels %d and %d write different frames", band[0], l)
			}
		}
		if i > 0 && bytes.Equal(first, frame(bands[i-1][0])) {
			t.Errorf("levels %d and %d write the same frame", bands[i-1][0], band[0])
		}
	}
	if bytes.Equal(frame(1), frame(19)) {
		t.Error("levels 1 and 19 write the same frame")
	}
}

// TestZstdFrameFlags checks what our frames declare: no checksum (like
// libzstd's default) and the content size.
func TestZstdFrameFlags(t *testing.T) {
	for _, n := range []int{0, 1000, 9 << 20} {
		var h zstd.Header
		if err := h.Decode(zstdAt(3).Compress(nil, codectest.Text(n))); err != nil {
			t.Fatal(err)
		}
		if h.HasCheckSum || !h.HasFCS || h.FrameContentSize != uint64(n) {
			t.Errorf("%d bytes: header %+v", n, h)
		}
	}
}

func TestZstdChecksumVerified(t *testing.T) {
	src := codectest.Text(5000)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	frame := enc.EncodeAll(src, nil)
	if got, err := zstdAt(3).Decompress(nil, frame, len(src)); err != nil || !bytes.Equal(got, src) {
		t.Fatalf("frame with checksum: %v", err)
	}
	frame[len(frame)-1] ^= 1
	_, err = zstdAt(3).Decompress(nil, frame, len(src))
	if !errors.Is(err, codec.ErrChecksum) || !libzstd && !errors.Is(err, zstd.ErrCRCMismatch) {
		t.Fatalf("bad checksum: %v, want ErrChecksum (wrapping zstd.ErrCRCMismatch without cgozstd)", err)
	}
}

func TestZstdErrors(t *testing.T) {
	src := codectest.Text(5000)
	frame := zstdAt(3).Compress(nil, src)
	// A frame asking for a 256 MiB window: magic, FHD 0 (no single
	// segment, no content size), window descriptor exponent 18.
	bigWindow := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 18 << 3, 0x01, 0x00, 0x00}
	for _, tc := range []struct {
		name  string
		frame []byte
		n     int
		want  error
	}{
		{"empty", nil, 0, codec.ErrCorrupt},
		{"not zstd", []byte("hello, world"), 12, codec.ErrCorrupt},
		{"too large", frame, len(src) - 1, codec.ErrTooLarge},
		{"too small", frame, len(src) + 1, codec.ErrTooSmall},
		{"trailing", append(frame[:len(frame):len(frame)], 1, 2, 3, 4, 5, 6, 7, 8), len(src), codec.ErrCorrupt},
		{"window", bigWindow, 0, codec.ErrCorrupt},
		{"absurd n", frame, 1 << 40, codec.ErrTooSmall},
		{"negative n", frame, -1, codec.ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := zstdAt(3).Decompress([]byte("x"), tc.frame, tc.n)
			if !errors.Is(err, tc.want) || string(got) != "x" {
				t.Fatalf("Decompress = %q, %v; want %v", got, err, tc.want)
			}
		})
	}
}

var zstdCLIFrames = []cliFrame{
	{"l19-check.zst", "-19 --check"},
	{"l1-nocheck.zst", "-1 --no-check"},
}

func TestZstdReadsCLIFrames(t *testing.T) {
	data := cliData()
	if *rewrite {
		writeCLIFrames(t, "zstd", zstdCLIFrames, data)
	}
	var all []byte
	for _, cf := range zstdCLIFrames {
		frame, err := os.ReadFile(filepath.Join("testdata", "zstd", cf.file))
		if err != nil {
			t.Fatal(err)
		}
		got, err := zstdAt(1).Decompress(nil, frame, len(data))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%s: %d bytes, %v", cf.file, len(got), err)
		}
		all = append(all, frame...)
	}
	// Concatenated frames decode to the concatenated content, as in libzstd.
	got, err := zstdAt(1).Decompress(nil, all, 2*len(data))
	if err != nil || !bytes.Equal(got, append(data[:len(data):len(data)], data...)) {
		t.Fatalf("two frames: %d bytes, %v", len(got), err)
	}
}

// TestDecompressSlack: with room past n the result is the same bytes, a
// frame decoding to more than n is still ErrTooLarge, and the prefix of
// dst is kept.
func TestDecompressSlack(t *testing.T) {
	src := bytes.Repeat([]byte("quiver slack "), 5000)
	for _, s := range []codec.Setting{codec.SettingNone, codec.SettingLZ4, {Kind: codec.Zstd, Level: 3}} {
		c := codec.MustNew(s)
		frame := c.Compress(nil, src)
		dst := make([]byte, 3, 3+len(src)+codec.DecodeSlack)
		copy(dst, "abc")
		got, err := codec.DecompressSlack(c, dst, frame, len(src))
		if err != nil || !bytes.Equal(got[3:], src) || string(got[:3]) != "abc" {
			t.Fatalf("%s: %v", s, err)
		}
		short := make([]byte, 0, len(src)-10+codec.DecodeSlack)
		if got, err := codec.DecompressSlack(c, short, frame, len(src)-10); !errors.Is(err, codec.ErrTooLarge) && !errors.Is(err, codec.ErrCorrupt) || len(got) != 0 {
			t.Errorf("%s: frame longer than n: %v, %d bytes", s, err, len(got))
		}
	}
}
