package codec_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/quiverdb/quiver/codec/codectest"
)

// TestWriteFuzzSeeds writes the committed seed corpus under
// testdata/fuzz/ when run with -rewrite: real frames from us and from other
// writers, and cut-off ones. go test runs every seed as a test case.
func TestWriteFuzzSeeds(t *testing.T) {
	if !*rewrite {
		t.Skip("only with -rewrite")
	}
	text := codectest.Text(2000)
	all := pierrecFrame(t, text, lz4.BlockSizeOption(lz4.Block64Kb), lz4.BlockChecksumOption(true),
		lz4.ChecksumOption(true), lz4.SizeOption(uint64(len(text))))
	ours := lz4c.Compress(nil, text[:300])
	lz4Seeds := map[string]seed{
		"ours-text":            {ours, 300},
		"ours-empty":           {lz4c.Compress(nil, nil), 0},
		"ours-raw":             {lz4c.Compress(nil, codectest.Random(100)), 100},
		"ours-cut":             {ours[:20], 300},
		"pierrec-checks":       {all, len(text)},
		"pierrec-checks-cut":   {all[:len(all)-3], len(text)},
		"pierrec-defaults":     {pierrecFrame(t, text[:500]), 500},
		"pierrec-arrowgo":      {pierrecFrame(t, text[:500], lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false)), 500},
		"linked-handmade":      {linkedFrame(), len(linkedContent)},
		"skippable-then-frame": {append([]byte{0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 'h', 'i'}, ours...), 300},
	}
	crc, err := zstd.NewWriter(nil, zstd.WithEncoderCRC(true))
	if err != nil {
		t.Fatal(err)
	}
	z3 := zstdAt(3).Compress(nil, text[:300])
	zstdSeeds := map[string]seed{
		"ours-l3":      {z3, 300},
		"ours-l19":     {zstdAt(19).Compress(nil, text), len(text)},
		"ours-empty":   {zstdAt(1).Compress(nil, nil), 0},
		"ours-cut":     {z3[:len(z3)/2], 300},
		"crc":          {crc.EncodeAll(text[:500], nil), 500},
		"two-frames":   {append(z3[:len(z3):len(z3)], z3...), 600},
		"random-input": {zstdAt(3).Compress(nil, codectest.Random(200)), 200},
	}
	noneSeeds := map[string]seed{"text": {text[:100], 100}, "short": {text[:10], 11}}
	for file, s := range lz4Seeds {
		writeSeed(t, "FuzzLZ4Decompress", file, fmt.Sprintf("[]byte(%q)\nint(%d)\nbool(false)\n", s.src, s.n))
	}
	for name, seeds := range map[string]map[string]seed{
		"FuzzZstdDecompress": zstdSeeds,
		"FuzzNoneDecompress": noneSeeds,
	} {
		for file, s := range seeds {
			writeSeed(t, name, file, fmt.Sprintf("[]byte(%q)\nint(%d)\n", s.src, s.n))
		}
	}
	for file, s := range map[string]struct {
		src   []byte
		which uint8
	}{
		// A few hundred bytes each: the fuzzer minimizes what it keeps,
		// and 2 KB inputs through zstd at level 19 left it minimizing for
		// whole runs (332 inputs in 20 s).
		"lz4-text":      {text[:300], 1},
		"lz4-i64":       {codectest.Int64Seq(304), 1},
		"ccompat-ints":  {codectest.SmallInts(300), 2},
		"zstd-l19-text": {text[:300], 6},
		"zstd-random":   {codectest.Random(300), 4},
	} {
		writeSeed(t, "FuzzRoundTrip", file, fmt.Sprintf("[]byte(%q)\nbyte(%d)\n", s.src, s.which))
	}
}

type seed struct {
	src []byte
	n   int
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

// linkedContent and linkedFrame are a two-block frame with linked blocks,
// made by hand: block 1 copies 8 bytes from 16 bytes back, inside block 0.
var linkedContent = []byte("abcdefghijklmnopabcdefghvwxyz")

func linkedFrame() []byte {
	return lz4Frame(0x40, 0x40, nil,
		block(linkedContent[:16], true, false),
		// Sequence: no literals, match of 8 at offset 16; then the 5 last
		// literals a block must end with.
		block([]byte{0x04, 16, 0, 0x50, 'v', 'w', 'x', 'y', 'z'}, false, false),
		le32(0))
}
