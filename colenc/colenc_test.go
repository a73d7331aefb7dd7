package colenc_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/quiverdb/quiver/colenc"
)

var encodings = []colenc.Encoding{colenc.Plain, colenc.Delta, colenc.FOR, colenc.Lengths}

// column builds a little-endian buffer of n values of width bytes.
func column(width, n int, v func(i int, r *rand.Rand) int64) []byte {
	r := rand.New(rand.NewPCG(42, uint64(n)))
	b := make([]byte, n*width)
	for i := range n {
		x := v(i, r)
		if width == 4 {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(int32(x)))
		} else {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
		}
	}
	return b
}

// shapes are the data the round-trip tests run over, at every width.
var shapes = []struct {
	name string
	v    func(i int, r *rand.Rand) int64
}{
	{"sequential", func(i int, _ *rand.Rand) int64 { return int64(i) }},
	{"constant", func(int, *rand.Rand) int64 { return -7 }},
	{"small-range", func(_ int, r *rand.Rand) int64 { return 1_000_000 + r.Int64N(1000) }},
	{"random", func(_ int, r *rand.Rand) int64 { return int64(r.Uint64()) }},
	{"negative", func(i int, r *rand.Rand) int64 { return -int64(i)*3 - r.Int64N(5) }},
	{"min-max", func(i int, _ *rand.Rand) int64 {
		return [...]int64{math.MinInt64, math.MaxInt64, 0, -1, math.MinInt32, math.MaxInt32}[i%6]
	}},
	{"offsets", func(i int, _ *rand.Rand) int64 { return int64(i * (i % 7)) }},
}

var sizes = []int{0, 1, 2, 3, 63, 64, 65, 1000}

func TestRoundTrip(t *testing.T) {
	for _, width := range []int{4, 8} {
		for _, s := range shapes {
			for _, n := range sizes {
				src := column(width, n, s.v)
				for _, enc := range encodings {
					t.Run(fmt.Sprintf("width=%d/%s/n=%d/%s", width, s.name, n, enc), func(t *testing.T) {
						roundTrip(t, src, width, enc)
					})
				}
			}
		}
	}
}

func roundTrip(t *testing.T, src []byte, width int, enc colenc.Encoding) []byte {
	t.Helper()
	prefix := []byte("prefix")
	enc1 := colenc.Encode(append([]byte(nil), prefix...), src, width, enc)
	if !bytes.HasPrefix(enc1, prefix) {
		t.Fatalf("Encode lost the prefix in dst")
	}
	encoded := enc1[len(prefix):]
	if got, want := len(encoded), colenc.EncodedLen(src, width, enc); got != want {
		t.Fatalf("Encode wrote %d bytes, EncodedLen says %d", got, want)
	}
	if n, _, w, err := colenc.DecodedLen(encoded, len(src)); err != nil || n != len(src) || w != width {
		t.Fatalf("DecodedLen = %d, width %d, %v; want %d, width %d", n, w, err, len(src), width)
	}
	got, err := colenc.Decode(append([]byte(nil), prefix...), encoded, len(src))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("Decode lost the prefix in dst")
	}
	if !bytes.Equal(got[len(prefix):], src) {
		t.Fatalf("round trip differs")
	}
	if len(src) > 0 {
		if _, err := colenc.Decode(nil, encoded, len(src)-1); !errors.Is(err, colenc.ErrLimit) || !errors.Is(err, colenc.ErrCorrupt) {
			t.Fatalf("Decode with limit %d of %d: %v, want ErrLimit", len(src)-1, len(src), err)
		}
	}
	return encoded
}

// TestDecodeReusesSpareCapacity checks dst's spare capacity is used and the
// prefix survives.
func TestDecodeReusesSpareCapacity(t *testing.T) {
	src := column(8, 100, shapes[0].v)
	encoded := colenc.Encode(nil, src, 8, colenc.Delta)
	dst := make([]byte, 3, 3+len(src))
	copy(dst, "abc")
	got, err := colenc.Decode(dst, encoded, len(src))
	if err != nil || &got[0] != &dst[0] || string(got[:3]) != "abc" || !bytes.Equal(got[3:], src) {
		t.Fatalf("Decode did not reuse dst or lost its prefix (err %v)", err)
	}
}

func TestChoose(t *testing.T) {
	for _, width := range []int{4, 8} {
		for _, tc := range []struct {
			shape int
			want  colenc.Encoding
		}{
			{0, colenc.Delta}, // sequential: step 1, 0 bits
			{2, colenc.FOR},   // 1000 distinct values around 1e6: 10 bits
			{3, colenc.Plain}, // random full range
			{5, colenc.Plain}, // extremes
		} {
			src := column(width, 8192, shapes[tc.shape].v)
			if got := colenc.Choose(width, src); got != tc.want {
				t.Errorf("width %d, %s: Choose = %s, want %s", width, shapes[tc.shape].name, got, tc.want)
			}
		}
	}
	// 25% rule: FOR that saves less than a quarter stays Plain.
	src := column(4, 1000, func(_ int, r *rand.Rand) int64 { return r.Int64N(1 << 25) })
	if got := colenc.Choose(4, src); got != colenc.Plain {
		t.Errorf("25-bit values in int32: Choose = %s, want plain (FOR saves 22%%)", got)
	}
	src = column(4, 1000, func(_ int, r *rand.Rand) int64 { return r.Int64N(1 << 23) })
	if got := colenc.Choose(4, src); got != colenc.FOR {
		t.Errorf("23-bit values in int32: Choose = %s, want for (saves 28%%)", got)
	}
}

func TestEncodingString(t *testing.T) {
	for _, e := range encodings {
		got, err := colenc.ParseEncoding(e.String())
		if err != nil || got != e {
			t.Errorf("ParseEncoding(%q) = %v, %v", e.String(), got, err)
		}
	}
	if s := colenc.Encoding(9).String(); s != "Encoding(9)" {
		t.Errorf("String of unknown = %q", s)
	}
	if _, err := colenc.ParseEncoding("rle"); err == nil {
		t.Error("ParseEncoding(rle) succeeded")
	}
}

// TestLengthsFallsBackToPlain: offsets that decrease or start below zero
// are not offsets; Encode says so with the Plain tag.
func TestLengthsFallsBackToPlain(t *testing.T) {
	for _, width := range []int{4, 8} {
		for _, offs := range [][]int64{
			{0, 5, 3},
			{-1, 2, 3},
			{5, math.MinInt64 + 1}, // difference wraps to a positive int64 (found by FuzzRoundTrip)
		} {
			src := column(width, len(offs), func(i int, _ *rand.Rand) int64 { return offs[i] })
			encoded := roundTrip(t, src, width, colenc.Lengths)
			if encoded[1] != byte(colenc.Plain) {
				t.Errorf("width %d offsets %v encoded as %s, want plain", width, offs, colenc.Encoding(encoded[1]))
			}
		}
	}
}

// lengthsBuf writes a Lengths buffer by hand: first offset, lengths of bits.
func lengthsBuf(width int, first int64, bits uint, lengths ...uint64) []byte {
	b := []byte{colenc.Version, byte(colenc.Lengths), byte(width)}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(lengths)+1))
	b = binary.LittleEndian.AppendUint64(b, uint64(first))
	b = append(b, byte(bits))
	var acc big
	for _, l := range lengths {
		acc.put(l, bits)
	}
	return append(b, acc.bytes()...)
}

// big is a slow, obviously right bit writer for hand-made inputs.
type big struct{ bitsLE []byte }

func (w *big) put(v uint64, bits uint) {
	for i := range bits {
		w.bitsLE = append(w.bitsLE, byte(v>>i&1))
	}
}

func (w *big) bytes() []byte {
	out := make([]byte, (len(w.bitsLE)+7)/8)
	for i, bit := range w.bitsLE {
		out[i/8] |= bit << (i % 8)
	}
	return out
}

func TestLengthsRejectsOverflow(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  []byte
	}{
		{"int32 offsets pass 2^31-1", lengthsBuf(4, math.MaxInt32-10, 32, 5, 6)},
		{"int32 length 2^32-1", lengthsBuf(4, 0, 32, math.MaxUint32)},
		{"negative first offset", lengthsBuf(4, -1, 3, 1)},
		{"int64 negative length", lengthsBuf(8, 0, 64, 1<<63)},
		{"int64 offsets pass 2^63-1", lengthsBuf(8, math.MaxInt64-1, 2, 1, 1)},
	} {
		got, err := colenc.Decode([]byte("pre"), tc.src, 1<<20)
		if !errors.Is(err, colenc.ErrCorrupt) || string(got) != "pre" {
			t.Errorf("%s: Decode = %q, %v; want dst unchanged and ErrCorrupt", tc.name, got, err)
		}
	}
	// The largest valid int32 offset still decodes.
	got, err := colenc.Decode(nil, lengthsBuf(4, math.MaxInt32-11, 4, 5, 6), 1<<20)
	if err != nil || int32(binary.LittleEndian.Uint32(got[8:])) != math.MaxInt32 {
		t.Errorf("offsets up to 2^31-1: %v", err)
	}
}

// TestCorrupt cuts and flips encoded buffers of every encoding: no panic,
// and every error matches ErrCorrupt.
func TestCorrupt(t *testing.T) {
	for _, width := range []int{4, 8} {
		for _, enc := range encodings {
			src := column(width, 50, shapes[2].v)
			if enc == colenc.Lengths {
				src = column(width, 50, shapes[6].v)
			}
			encoded := colenc.Encode(nil, src, width, enc)
			for cut := range len(encoded) {
				if _, err := colenc.Decode(nil, encoded[:cut], 1<<20); !errors.Is(err, colenc.ErrCorrupt) {
					t.Fatalf("%s width %d cut to %d of %d bytes: %v", enc, width, cut, len(encoded), err)
				}
			}
			if _, err := colenc.Decode(nil, append(encoded, 0), 1<<20); !errors.Is(err, colenc.ErrCorrupt) {
				t.Fatalf("%s width %d with a trailing byte: %v", enc, width, err)
			}
			for i := range encoded {
				for _, x := range []byte{0x01, 0x80, 0xff} {
					bad := bytes.Clone(encoded)
					bad[i] ^= x
					// Payload flips decode to other values; header flips must
					// fail or decode to at most limit. Either way, no panic.
					got, err := colenc.Decode(nil, bad, 1<<20)
					if err != nil && !errors.Is(err, colenc.ErrCorrupt) {
						t.Fatalf("%s flip byte %d: error %v does not match ErrCorrupt", enc, i, err)
					}
					if err == nil && len(got) > 1<<20 {
						t.Fatalf("%s flip byte %d: decoded %d bytes over the limit", enc, i, len(got))
					}
				}
			}
		}
	}
	for _, bad := range [][]byte{
		nil,
		{2, 0, 8, 0, 0, 0, 0}, // version 2
		{1, 4, 8, 0, 0, 0, 0}, // tag 4
		{1, 0, 5, 0, 0, 0, 0}, // width 5
		{1, 2, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 33, 0, 0, 0, 0, 0}, // 33 bits in int32
		{1, 2, 4, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0},                 // base past int32
	} {
		if _, err := colenc.Decode(nil, bad, 1<<20); !errors.Is(err, colenc.ErrCorrupt) {
			t.Errorf("Decode(% x): %v, want ErrCorrupt", bad, err)
		}
	}
	if _, err := colenc.Decode(nil, colenc.Encode(nil, nil, 8, colenc.Plain), -1); !errors.Is(err, colenc.ErrLimit) {
		t.Errorf("negative limit: %v, want ErrLimit", err)
	}
}

// TestHugeCountRejectedBeforeAllocating: a 16-byte buffer claiming 2^32-1
// zero-bit values would decode to 32 GiB; the limit stops it. The bound is
// loose (1 MiB, far under the 64 MiB limit) because the race detector and the
// test runner allocate a few KiB of their own between the two readings.
func TestHugeCountRejectedBeforeAllocating(t *testing.T) {
	bad := []byte{1, byte(colenc.FOR), 8, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := colenc.Decode(nil, bad, 64<<20); !errors.Is(err, colenc.ErrLimit) {
		t.Fatalf("err %v, want ErrLimit", err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("allocated %d bytes rejecting a huge count", n)
	}
}

func TestEncodePanicsOnCallerBugs(t *testing.T) {
	for name, f := range map[string]func(){
		"width 3":       func() { colenc.Encode(nil, make([]byte, 6), 3, colenc.Plain) },
		"partial value": func() { colenc.Encode(nil, make([]byte, 6), 4, colenc.Plain) },
		"unknown enc":   func() { colenc.Encode(nil, make([]byte, 8), 8, colenc.Encoding(7)) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestAlignedAndUnalignedOutputAgree: the decoders write aligned output
// through typed views and unaligned output byte-wise; both must give the
// same bytes for every encoding and width.
func TestAlignedAndUnalignedOutputAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, width := range []int{4, 8} {
		for _, enc := range []colenc.Encoding{colenc.Delta, colenc.FOR, colenc.Lengths} {
			for _, n := range []int{1, 2, 63, 64, 65, 1000} {
				src := make([]byte, width*n)
				var cur uint64
				for i := range n {
					cur += uint64(r.IntN(1 << r.IntN(12)))
					if width == 4 {
						binary.LittleEndian.PutUint32(src[4*i:], uint32(cur))
					} else {
						binary.LittleEndian.PutUint64(src[8*i:], cur)
					}
				}
				buf := colenc.Encode(nil, src, width, enc)
				aligned, err := colenc.Decode(make([]byte, 0, len(src)), buf, len(src))
				if err != nil {
					t.Fatal(err)
				}
				shifted, err := colenc.Decode(make([]byte, 1, len(src)+1), buf, len(src))
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(aligned, src) || !bytes.Equal(shifted[1:], src) {
					t.Errorf("width %d %s n=%d: aligned ok %v, unaligned ok %v", width, enc, n, bytes.Equal(aligned, src), bytes.Equal(shifted[1:], src))
				}
			}
		}
	}
}

// TestDecodeWritesNothingPastItsOutput is the canary of the word views:
// decoding into dst whose spare capacity holds guard bytes past the room
// the values need leaves every guard byte as it was, for aligned and
// unaligned output, every encoding and width.
func TestDecodeWritesNothingPastItsOutput(t *testing.T) {
	const guard, spare = 0xAA, 64
	for _, width := range []int{4, 8} {
		for _, enc := range encodings {
			for _, shape := range shapes {
				for _, n := range []int{1, 2, 7, 8, 9, 63, 64, 65, 1000} {
					if enc == colenc.Lengths && shape.name != "sequential" && shape.name != "offsets" {
						continue // lengths need offsets that never decrease
					}
					src := column(width, n, shape.v)
					buf := colenc.Encode(nil, src, width, enc)
					for _, prefix := range []int{0, 1, 4} {
						mem := bytes.Repeat([]byte{guard}, prefix+len(src)+spare)
						got, err := colenc.Decode(mem[:prefix], buf, len(src))
						if err != nil {
							t.Fatalf("width %d %s %s n=%d: %v", width, enc, shape.name, n, err)
						}
						if &got[0] != &mem[0] || !bytes.Equal(got[prefix:], src) {
							t.Fatalf("width %d %s %s n=%d prefix %d: not decoded in place", width, enc, shape.name, n, prefix)
						}
						if tail := mem[prefix+len(src):]; bytes.Count(tail, []byte{guard}) != len(tail) {
							t.Fatalf("width %d %s %s n=%d prefix %d: guard bytes past the output overwritten: % x", width, enc, shape.name, n, prefix, tail)
						}
					}
				}
			}
		}
	}
}
