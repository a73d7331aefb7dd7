//go:build cgo && cgozstd

package codec_test

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/codec/codectest"
)

// TestZstdCgoLevels: libzstd honours each level, so 1, 3, 19 and -5 all
// write different frames (klauspost writes the same for 1 and -5).
func TestZstdCgoLevels(t *testing.T) {
	src := codectest.Text(300 << 10)
	levels := []int{1, 3, 19, -5}
	frames := make([][]byte, len(levels))
	for i, l := range levels {
		frames[i] = zstdAt(l).Compress(nil, src)
		for j := range i {
			if bytes.Equal(frames[i], frames[j]) {
				t.Errorf("levels %d and %d write the same %d bytes", levels[j], l, len(frames[i]))
			}
		}
	}
	if len(frames[2]) >= len(frames[0]) || len(frames[0]) >= len(frames[3]) {
		t.Errorf("sizes at levels 1, 3, 19, -5: %d %d %d %d; want 19 < 1 < -5", len(frames[0]), len(frames[1]), len(frames[2]), len(frames[3]))
	}
}

// TestZstdCgoInterop: libzstd's frames decode with the pure-Go codec and
// the pure-Go codec's frames decode with libzstd, at every size the
// conformance suite uses and on each data shape.
func TestZstdCgoInterop(t *testing.T) {
	shapes := map[string]func(int) []byte{
		"i64seq": codectest.Int64Seq, "smallints": codectest.SmallInts,
		"random": codectest.Random, "text": codectest.Text,
	}
	for _, level := range []int{-5, 1, 3, 19} {
		c, g := zstdAt(level), codec.ZstdGo(level)
		for name, gen := range shapes {
			for _, n := range []int{0, 1, 7, 64<<10 + 1, 3 << 20} {
				if level == 19 && n > 1<<20 {
					continue // slow, and adds nothing
				}
				src := gen(n)
				t.Run(fmt.Sprintf("L%d/%s/%d", level, name, n), func(t *testing.T) {
					for _, dir := range []struct {
						name     string
						enc, dec codec.Codec
					}{{"libzstd→klauspost", c, g}, {"klauspost→libzstd", g, c}} {
						got, err := codectest.Decompress(t, dir.dec, []byte("p"), dir.enc.Compress(nil, src), n)
						if err != nil || !bytes.Equal(got[1:], src) {
							t.Fatalf("%s: %v", dir.name, err)
						}
					}
				})
			}
		}
	}
}

// TestZstdCgoFrameChecks: what libzstd's one-shot decoder would accept but
// the pure-Go codec refuses, and the content-size check before decoding.
func TestZstdCgoFrameChecks(t *testing.T) {
	src := codectest.Text(5000)
	frame := zstdAt(1).Compress(nil, src)
	// No content size, a 256 MiB window, then an empty last raw block.
	bigWindow := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 18 << 3, 0x01, 0x00, 0x00}
	// The same with a 128 MiB window, the largest allowed.
	okWindow := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 17 << 3, 0x01, 0x00, 0x00}
	two := append(append([]byte(nil), frame...), frame...)
	for _, tc := range []struct {
		name  string
		frame []byte
		n     int
		want  error
	}{
		{"window", bigWindow, 0, codec.ErrCorrupt},
		{"window ok", okWindow, 0, nil},
		{"two frames", two, 2 * len(src), nil},
		{"two frames short", two, 2*len(src) - 1, codec.ErrTooLarge},
		{"two frames long", two, 2*len(src) + 1, codec.ErrTooSmall},
		{"no content size, too large", okWindow[:6:6], 0, codec.ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, c := range []codec.Codec{zstdAt(1), codec.ZstdGo(1)} {
				_, err := codectest.Decompress(t, c, []byte("x"), tc.frame, tc.n)
				if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
					t.Fatalf("%v: err %v, want %v", c.Setting(), err, tc.want)
				}
			}
		})
	}
}
