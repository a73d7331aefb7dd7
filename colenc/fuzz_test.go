package colenc_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/quiverdb/quiver/colenc"
)

// Fuzz targets. Seeds are in testdata/fuzz/<FuzzName>/ (written by
// TestWriteFuzzSeeds with -rewrite) plus the f.Add calls below. Run one with
//
//	go test -run x -fuzz FuzzDecode -fuzztime 60s ./colenc

// fuzzLimit keeps decoded sizes small enough to allocate, and keeps
// negative limits so that path is fuzzed too.
func fuzzLimit(n int) int { return n % (16 << 20) }

// FuzzDecode decodes garbage: never a panic, every error matches
// ErrCorrupt, success stays within the limit, and a prefix in dst changes
// nothing.
func FuzzDecode(f *testing.F) {
	f.Add(colenc.Encode(nil, column(8, 100, shapes[0].v), 8, colenc.Delta), 1<<20)
	f.Add([]byte{1, 2, 4, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 0xff, 0x7f}, 100)
	f.Fuzz(func(t *testing.T, src []byte, limit int) {
		limit = fuzzLimit(limit)
		got, err := colenc.Decode(nil, src, limit)
		if err != nil {
			if !errors.Is(err, colenc.ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			return
		}
		if len(got) > limit {
			t.Fatalf("decoded %d bytes, limit %d", len(got), limit)
		}
		again, err := colenc.Decode([]byte("pre"), src, limit)
		if err != nil || string(again[:3]) != "pre" || !bytes.Equal(again[3:], got) {
			t.Fatalf("decoding after a prefix differs (err %v)", err)
		}
		// What we decode, we encode again with the same encoding and read
		// back the same values (the bytes may differ: a hand-made input can
		// use more bits than it needs).
		width := int(src[2])
		re := colenc.Encode(nil, got, width, colenc.Encoding(src[1]))
		back, err := colenc.Decode(nil, re, len(got))
		if err != nil || !bytes.Equal(back, got) {
			t.Fatalf("re-encoding what we decoded does not round-trip (err %v)", err)
		}
	})
}

// FuzzRoundTrip encodes arbitrary values with every encoding and with
// Choose's pick, and decodes them back.
func FuzzRoundTrip(f *testing.F) {
	f.Add(column(8, 64, shapes[2].v), true)
	f.Add(column(4, 64, shapes[6].v), false)
	f.Fuzz(func(t *testing.T, data []byte, wide bool) {
		width := 4
		if wide {
			width = 8
		}
		data = data[:len(data)/width*width]
		for _, enc := range append(encodings, colenc.Choose(width, data)) {
			encoded := colenc.Encode([]byte("pre"), data, width, enc)
			if string(encoded[:3]) != "pre" || len(encoded)-3 != colenc.EncodedLen(data, width, enc) {
				t.Fatalf("%s: prefix lost or EncodedLen wrong", enc)
			}
			got, err := colenc.Decode(nil, encoded[3:], len(data))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%s width %d: round trip failed: %v", enc, width, err)
			}
		}
	})
}

// TestWriteFuzzSeeds writes the committed seed corpus under testdata/fuzz/
// when run with -rewrite: every encoding at both widths, cut-off and
// flipped buffers, and raw values of each shape. go test runs every seed as
// a test case.
func TestWriteFuzzSeeds(t *testing.T) {
	if !*rewrite {
		t.Skip("only with -rewrite")
	}
	for _, width := range []int{4, 8} {
		for _, s := range []int{0, 2, 3, 5, 6} {
			src := column(width, 40, shapes[s].v)
			for _, enc := range encodings {
				e := colenc.Encode(nil, src, width, enc)
				name := fmt.Sprintf("%s-w%d-%s", enc, width, shapes[s].name)
				writeSeed(t, "FuzzDecode", name, fmt.Sprintf("[]byte(%q)\nint(%d)\n", e, len(src)))
				writeSeed(t, "FuzzDecode", name+"-cut", fmt.Sprintf("[]byte(%q)\nint(%d)\n", e[:len(e)*2/3], len(src)))
				r := rand.New(rand.NewPCG(uint64(width), uint64(s)))
				flipped := bytes.Clone(e)
				flipped[r.IntN(len(flipped))] ^= 0x5a
				writeSeed(t, "FuzzDecode", name+"-flip", fmt.Sprintf("[]byte(%q)\nint(%d)\n", flipped, len(src)))
			}
			writeSeed(t, "FuzzRoundTrip", fmt.Sprintf("w%d-%s", width, shapes[s].name), fmt.Sprintf("[]byte(%q)\nbool(%v)\n", src, width == 8))
		}
	}
}

func writeSeed(t *testing.T, fuzzer, file, values string) {
	dir := filepath.Join("testdata", "fuzz", fuzzer)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte("go test fuzz v1\n"+values), 0o644); err != nil {
		t.Fatal(err)
	}
}
