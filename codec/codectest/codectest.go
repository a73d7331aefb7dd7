// Package codectest is the conformance suite every codec.Codec passes. Run
// it from a codec's tests:
//
//	func TestLZ4(t *testing.T) { codectest.Run(t, codec.MustNew(codec.SettingLZ4)) }
package codectest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/codec"
)

// Run checks c against the codec.Codec contract: round trips on several
// data shapes and sizes, empty and incompressible input, the decoded-size
// limit in both directions, dst reuse with a prefix, corrupt input and
// concurrent use. Subtests are named so that -run can pick one; with
// -short, inputs over 1 MiB are skipped.
func Run(t *testing.T, c codec.Codec) {
	t.Helper()
	t.Run("setting", func(t *testing.T) { testSetting(t, c) })
	t.Run("roundtrip", func(t *testing.T) { testRoundTrip(t, c) })
	t.Run("empty", func(t *testing.T) { testEmpty(t, c) })
	t.Run("incompressible", func(t *testing.T) { testIncompressible(t, c) })
	t.Run("limit", func(t *testing.T) { testLimit(t, c) })
	t.Run("prefix", func(t *testing.T) { testPrefix(t, c) })
	t.Run("corrupt", func(t *testing.T) { testCorrupt(t, c) })
	t.Run("concurrent", func(t *testing.T) { testConcurrent(t, c) })
}

// Sizes exercise no data, tiny inputs, both sides of 64 KiB (the smallest
// LZ4 block size) and more than one 4 MiB LZ4 block.
var sizes = []int{0, 1, 7, 64<<10 - 1, 64 << 10, 64<<10 + 1, 4<<20 + 3}

// Shapes is the data the suite compresses, by name. Each function returns n
// bytes from a fixed seed.
var shapes = []struct {
	name string
	gen  func(n int) []byte
}{
	{"i64seq", Int64Seq},
	{"smallints", SmallInts},
	{"random", Random},
	{"text", Text},
}

func testSetting(t *testing.T, c codec.Codec) {
	s := c.Setting()
	if err := s.Validate(); err != nil {
		t.Fatalf("Setting() = %+v: %v", s, err)
	}
	back, err := codec.ParseSetting(s.String())
	if err != nil || back != s {
		t.Fatalf("ParseSetting(%q) = %+v, %v; want %+v", s.String(), back, err, s)
	}
	again, err := codec.New(s)
	if err != nil || again.Setting() != s {
		t.Fatalf("New(%v) = %v, %v", s, again, err)
	}
}

func testRoundTrip(t *testing.T, c codec.Codec) {
	for _, shape := range shapes {
		for _, n := range sizes {
			if testing.Short() && n > 1<<20 {
				continue
			}
			t.Run(fmt.Sprintf("%s/%d", shape.name, n), func(t *testing.T) {
				roundTrip(t, c, shape.gen(n))
			})
		}
	}
}

// roundTrip compresses src, checks the bound, decodes it back with a canary
// after the window, and returns the compressed form.
func roundTrip(t *testing.T, c codec.Codec, src []byte) []byte {
	t.Helper()
	comp := c.Compress(nil, src)
	if bound := c.CompressBound(len(src)); len(comp) > bound {
		t.Fatalf("%d bytes compress to %d, over CompressBound %d", len(src), len(comp), bound)
	}
	got, err := Decompress(t, c, nil, comp, len(src))
	if err != nil {
		t.Fatalf("Decompress(%d bytes, n=%d): %v", len(comp), len(src), err)
	}
	if !bytes.Equal(got, src) {
		t.Fatalf("round trip of %d bytes differs at byte %d", len(src), firstDiff(got, src))
	}
	return comp
}

func testEmpty(t *testing.T, c codec.Codec) {
	for _, src := range [][]byte{nil, {}} {
		comp := c.Compress(nil, src)
		got, err := c.Decompress(nil, comp, 0)
		if err != nil || len(got) != 0 {
			t.Fatalf("empty input: Decompress(%x, 0) = %d bytes, %v", comp, len(got), err)
		}
		got, err = c.Decompress([]byte("pre"), comp, 0)
		if err != nil || string(got) != "pre" {
			t.Fatalf("empty input with prefix: got %q, %v", got, err)
		}
	}
}

func testIncompressible(t *testing.T, c codec.Codec) {
	for _, n := range []int{100, 1 << 20} {
		src := Random(n)
		comp := roundTrip(t, c, src)
		// Storing raw is always an option, so overhead stays tiny.
		if over := len(comp) - n; over > 64+n/1000 {
			t.Errorf("%d random bytes grow by %d", n, over)
		}
	}
}

// testLimit checks that n is enforced both ways and that nothing past
// len(dst)+n is written, whether or not dst has the capacity.
func testLimit(t *testing.T, c codec.Codec) {
	for _, shape := range shapes {
		for _, n := range []int{0, 1, 1000, 100 << 10} {
			src := shape.gen(n)
			comp := c.Compress(nil, src)
			for _, m := range []int{n - 1, n + 1, n + 1000, n / 2} {
				if m < 0 || m == n {
					continue
				}
				want := codec.ErrTooSmall
				if m < n {
					want = codec.ErrTooLarge
				}
				for _, dst := range [][]byte{nil, []byte("prefix")} {
					got, err := Decompress(t, c, dst, comp, m)
					if !errors.Is(err, want) || !errors.Is(err, codec.ErrCorrupt) {
						t.Fatalf("%s: %d bytes decoded with n=%d: err %v, want %v", shape.name, n, m, err, want)
					}
					if len(got) != len(dst) || !bytes.Equal(got, dst) {
						t.Fatalf("%s: failed Decompress returned %d bytes, want dst (%d)", shape.name, len(got), len(dst))
					}
				}
			}
		}
	}
}

func testPrefix(t *testing.T, c codec.Codec) {
	src := Text(10 << 10)
	plain := c.Compress(nil, src)
	prefix := []byte("prefix bytes that must survive")
	for _, spare := range []int{0, 100, 1 << 20} {
		dst := append(make([]byte, 0, len(prefix)+spare), prefix...)
		comp := c.Compress(dst, src)
		if !bytes.HasPrefix(comp, prefix) {
			t.Fatalf("Compress with spare %d lost the prefix", spare)
		}
		// Compressors must be deterministic: caches and golden tests rely on
		// it, and the prefix must not change what follows it.
		if !bytes.Equal(comp[len(prefix):], plain) {
			t.Fatalf("Compress after a prefix (spare %d) wrote different bytes", spare)
		}
		dst = append(make([]byte, 0, len(prefix)+spare), prefix...)
		got, err := Decompress(t, c, dst, plain, len(src))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], src) {
			t.Fatalf("Decompress with spare %d: prefix or data wrong", spare)
		}
	}
}

// testCorrupt feeds truncations at every length and single-bit flips of two
// small frames, plus some garbage. Errors must match ErrCorrupt; a flip may
// also decode to other bytes when the format has no checksum.
func testCorrupt(t *testing.T, c codec.Codec) {
	for _, src := range [][]byte{Text(300), append(Int64Seq(2000), Random(200)...)} {
		comp := c.Compress(nil, src)
		for k := range len(comp) {
			_, err := Decompress(t, c, []byte("p"), comp[:k], len(src))
			if !errors.Is(err, codec.ErrCorrupt) {
				t.Fatalf("truncated to %d of %d bytes: err %v, want ErrCorrupt", k, len(comp), err)
			}
		}
		flipped := make([]byte, len(comp))
		for i := range len(comp) * 8 {
			copy(flipped, comp)
			flipped[i/8] ^= 1 << (i % 8)
			_, err := Decompress(t, c, nil, flipped, len(src))
			if err != nil && !errors.Is(err, codec.ErrCorrupt) {
				t.Fatalf("bit %d flipped: err %v does not match ErrCorrupt", i, err)
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for i := range 200 {
		junk := Random(rng.IntN(300))
		if i%2 == 0 && len(junk) > 0 { // start like the real thing
			junk = append(c.Compress(nil, Text(50))[:min(len(junk), 6)], junk...)
		}
		_, err := Decompress(t, c, nil, junk, rng.IntN(1000))
		if err != nil && !errors.Is(err, codec.ErrCorrupt) {
			t.Fatalf("garbage %x: err %v does not match ErrCorrupt", junk, err)
		}
	}
	if _, err := c.Decompress(nil, c.Compress(nil, src1k), -1); !errors.Is(err, codec.ErrCorrupt) {
		t.Fatalf("n = -1: err %v, want ErrCorrupt", err)
	}
}

var src1k = Text(1000)

func testConcurrent(t *testing.T, c codec.Codec) {
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				src := Text(1000 + 3000*g + 1000*i)
				got, err := c.Decompress(nil, c.Compress(nil, src), len(src))
				if err != nil || !bytes.Equal(got, src) {
					t.Errorf("goroutine %d round %d: %v", g, i, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// canary fills spare capacity after the decode window.
const canary = 0xA5

// Decompress calls c.Decompress(dst, src, n) and fails t if the call breaks
// the contract, whatever the input: it gives dst 64 bytes of capacity past
// len(dst)+n filled with a canary and checks that none of them change, that
// the prefix in dst survives, that an error matches codec.ErrCorrupt and
// leaves the length of dst alone, and that success appends exactly n bytes.
// Fuzz targets use it on garbage.
func Decompress(t testing.TB, c codec.Codec, dst, src []byte, n int) ([]byte, error) {
	t.Helper()
	buf := make([]byte, len(dst), len(dst)+max(n, 0)+64)
	copy(buf, dst)
	tail := buf[len(dst):cap(buf)]
	for i := range tail {
		tail[i] = canary
	}
	got, err := c.Decompress(buf, src, n)
	if !bytes.Equal(got[:min(len(got), len(dst))], dst) {
		t.Fatalf("Decompress changed the %d-byte prefix", len(dst))
	}
	for i, b := range tail[max(n, 0):] {
		if b != canary {
			t.Fatalf("Decompress(n=%d) wrote byte %d past len(dst)+n (err %v)", n, i, err)
		}
	}
	switch {
	case err != nil && !errors.Is(err, codec.ErrCorrupt):
		t.Fatalf("Decompress(n=%d): error %v does not match codec.ErrCorrupt", n, err)
	case err != nil && len(got) != len(dst):
		t.Fatalf("Decompress(n=%d) failed (%v) but returned %d bytes, want dst's %d", n, err, len(got), len(dst))
	case err == nil && len(got) != len(dst)+n:
		t.Fatalf("Decompress(n=%d) returned %d bytes after a %d-byte prefix", n, len(got)-len(dst), len(dst))
	}
	return got, err
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// Int64Seq is little-endian int64 values 0, 1, 2, ... cut to n bytes.
func Int64Seq(n int) []byte {
	b := make([]byte, (n+7)/8*8)
	for i := range len(b) / 8 {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(i))
	}
	return b[:n]
}

// SmallInts is little-endian int64 values uniform in 0..999, cut to n bytes.
func SmallInts(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, (n+7)/8*8)
	for i := range len(b) / 8 {
		binary.LittleEndian.PutUint64(b[8*i:], rng.Uint64N(1000))
	}
	return b[:n]
}

// Random is n uniformly random bytes.
func Random(n int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, (n+7)/8*8)
	for i := range len(b) / 8 {
		binary.LittleEndian.PutUint64(b[8*i:], rng.Uint64())
	}
	return b[:n]
}

// Text is n bytes of words drawn from a 500-word vocabulary.
func Text(n int) []byte {
	rng := rand.New(rand.NewPCG(5, 6))
	words := make([]string, 500)
	for i := range words {
		w := make([]byte, 3+rng.IntN(8))
		for j := range w {
			w[j] = 'a' + byte(rng.IntN(26))
		}
		words[i] = string(w)
	}
	var sb strings.Builder
	for sb.Len() < n {
		sb.WriteString(words[rng.IntN(len(words))])
		sb.WriteByte(' ')
	}
	return []byte(sb.String()[:n])
}
