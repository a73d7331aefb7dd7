package codec_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/codec/codectest"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata: golden dumps, frames from the lz4 and zstd tools, fuzz seeds")

var lz4c = codec.MustNew(codec.SettingLZ4)

// interopData has compressible and incompressible stretches longer than a
// 64 KiB block, so other writers emit both compressed and raw blocks.
func interopData() []byte {
	var b []byte
	b = append(b, codectest.Text(150<<10)...)
	b = append(b, codectest.Random(70<<10)...)
	b = append(b, codectest.Int64Seq(100<<10+5)...)
	return b
}

func pierrecFrame(t testing.TB, data []byte, opts ...lz4.Option) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := lz4.NewWriter(&buf)
	if err := w.Apply(opts...); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLZ4ReadsPierrecFrames(t *testing.T) {
	data := interopData()
	for _, tc := range []struct {
		name string
		opts func(n int) []lz4.Option
	}{
		{"defaults", func(int) []lz4.Option { return nil }}, // 4 MiB blocks, content checksum
		{"arrowgo", func(int) []lz4.Option {
			return []lz4.Option{lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false)}
		}},
		{"blocksums-256k", func(int) []lz4.Option {
			return []lz4.Option{lz4.BlockSizeOption(lz4.Block256Kb), lz4.BlockChecksumOption(true)}
		}},
		{"size-1m", func(n int) []lz4.Option {
			return []lz4.Option{lz4.BlockSizeOption(lz4.Block1Mb), lz4.SizeOption(uint64(n))}
		}},
		{"everything-64k", func(n int) []lz4.Option {
			return []lz4.Option{lz4.BlockSizeOption(lz4.Block64Kb), lz4.BlockChecksumOption(true),
				lz4.ChecksumOption(true), lz4.SizeOption(uint64(n))}
		}},
		{"hc", func(int) []lz4.Option {
			return []lz4.Option{lz4.CompressionLevelOption(lz4.Level5), lz4.BlockSizeOption(lz4.Block64Kb)}
		}},
		{"ccompat-concurrent", func(int) []lz4.Option {
			return []lz4.Option{lz4.CompressionLevelOption(lz4.CCompatFast), lz4.ConcurrencyOption(2),
				lz4.BlockSizeOption(lz4.Block64Kb)}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, src := range [][]byte{data, nil, data[:1], data[:100<<10]} {
				frame := pierrecFrame(t, src, tc.opts(len(src))...)
				got, err := lz4c.Decompress([]byte("pre"), frame, len(src))
				if err != nil {
					t.Fatalf("%d bytes: %v", len(src), err)
				}
				if !bytes.Equal(got[3:], src) || string(got[:3]) != "pre" {
					t.Fatalf("%d bytes: decoded data differs", len(src))
				}
				if _, err := lz4c.Decompress(nil, frame, len(src)+1); !errors.Is(err, codec.ErrTooSmall) {
					t.Fatalf("n too big: %v, want ErrTooSmall", err)
				}
			}
		})
	}
}

func TestLZ4PierrecReadsOurs(t *testing.T) {
	for _, src := range [][]byte{nil, {1}, interopData(), codectest.Random(4<<20 + 3), codectest.Int64Seq(9 << 20)} {
		frame := lz4c.Compress(nil, src)
		got, err := io.ReadAll(lz4.NewReader(bytes.NewReader(frame)))
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("pierrec Reader on our %d-byte frame: %d bytes, %v", len(src), len(got), err)
		}
	}
}

func TestLZ4WriterLayout(t *testing.T) {
	frame := lz4c.Compress(nil, nil)
	if want := []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x70, 0x73, 0, 0, 0, 0}; !bytes.Equal(frame, want) {
		t.Fatalf("empty frame % x, want % x", frame, want)
	}
	// Incompressible blocks are stored raw, so the frame is exactly the bound.
	src := codectest.Random(8<<20 + 10)
	frame = lz4c.Compress(nil, src)
	if len(frame) != lz4c.CompressBound(len(src)) {
		t.Fatalf("random %d bytes: frame %d, bound %d", len(src), len(frame), lz4c.CompressBound(len(src)))
	}
	for i, at := range []int{7, 7 + 4 + 4<<20, 7 + 8 + 8<<20} {
		want := uint32(min(4<<20, len(src)-i*4<<20)) | 1<<31
		if got := binary.LittleEndian.Uint32(frame[at:]); got != want {
			t.Fatalf("block %d header %#08x, want %#08x", i, got, want)
		}
	}
	// Compressible blocks are compressed, each at most 4 MiB of input.
	src = codectest.Int64Seq(4<<20 + 1)
	frame = lz4c.Compress(nil, src)
	size := binary.LittleEndian.Uint32(frame[7:])
	if size&(1<<31) != 0 || size > 3<<20 {
		t.Fatalf("first block header %#08x, want compressed", size)
	}
}

// lz4Frame builds a frame with a correct header check byte.
func lz4Frame(flg, bd byte, descriptor []byte, body ...[]byte) []byte {
	f := []byte{0x04, 0x22, 0x4d, 0x18, flg, bd}
	f = append(f, descriptor...)
	f = append(f, byte(codec.XXH32(f[4:])>>8))
	for _, b := range body {
		f = append(f, b...)
	}
	return f
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// block returns a block: its size word, data and, if sum, its checksum.
func block(data []byte, raw, sum bool) []byte {
	size := uint32(len(data))
	if raw {
		size |= 1 << 31
	}
	b := append(le32(size), data...)
	if sum {
		b = append(b, le32(codec.XXH32(data))...)
	}
	return b
}

func compressBlock(t testing.TB, data []byte) []byte {
	var c lz4.Compressor
	out := make([]byte, lz4.CompressBlockBound(len(data)))
	n, err := c.CompressBlock(data, out)
	if err != nil || n == 0 {
		t.Fatalf("CompressBlock: %d, %v", n, err)
	}
	return out[:n]
}

func TestLZ4Errors(t *testing.T) {
	text := codectest.Text(1000)
	comp := compressBlock(t, text)
	end := le32(0)
	const indep, bd64k, bd4m = 0x60, 0x40, 0x70
	size8 := func(n uint64) []byte { return binary.LittleEndian.AppendUint64(nil, n) }
	badSum := append(block(text, true, true)[:4+len(text)], 1, 2, 3, 4)
	for _, tc := range []struct {
		name  string
		frame []byte
		n     int
		want  error
		msg   string
	}{
		{"empty", nil, 0, codec.ErrHeaderTruncated, "0 bytes"},
		{"short magic", []byte{0x04, 0x22, 0x4d}, 0, codec.ErrHeaderTruncated, ""},
		{"bad magic", []byte("not a frame at all"), 0, codec.ErrNotFrame, "magic"},
		{"legacy", append(le32(0x184C2102), 0, 0, 0, 0), 0, codec.ErrNotFrame, "legacy"},
		{"version 0", lz4Frame(0x20, bd4m, nil, end), 0, codec.ErrNotFrame, "version 0"},
		{"version 2", lz4Frame(0xA0, bd4m, nil, end), 0, codec.ErrNotFrame, "version 2"},
		{"FLG reserved", lz4Frame(indep|2, bd4m, nil, end), 0, codec.ErrNotFrame, "reserved"},
		{"BD reserved", lz4Frame(indep, bd4m|1, nil, end), 0, codec.ErrNotFrame, "reserved"},
		{"block id 3", lz4Frame(indep, 0x30, nil, end), 0, codec.ErrNotFrame, "block size id 3"},
		{"header check", append(lz4Frame(indep, bd4m, nil)[:6], 0x00, 0, 0, 0, 0), 0, codec.ErrChecksum, "header check"},
		{"cut header", lz4Frame(indep|0x08, bd4m, size8(5))[:10], 5, codec.ErrHeaderTruncated, "10 of 15"},
		{"no end mark", lz4Frame(indep, bd4m, nil), 0, codec.ErrNoEndMark, "after block 0"},
		{"cut end mark", lz4Frame(indep, bd4m, nil, block(text, true, false), []byte{0, 0}), 1000, codec.ErrNoEndMark, "after block 1"},
		{"overrun", lz4Frame(indep, bd4m, nil, le32(70000), text[:10]), 1000, codec.ErrBlockOverrun, "block 0 claims 70000 bytes, 10 left"},
		{"over block max", lz4Frame(indep, bd64k, nil, le32(70000)), 1000, codec.ErrBlockCorrupt, "frame maximum 65536"},
		{"garbage block", lz4Frame(indep, bd4m, nil, block([]byte{0xff, 0xff, 0xff}, false, false), end), 1000, codec.ErrBlockCorrupt, "block 0"},
		{"raw too large", lz4Frame(indep, bd4m, nil, block(text, true, false), end), 999, codec.ErrTooLarge, "stored block 0 has 1000 bytes, 999"},
		{"block too large", lz4Frame(indep, bd4m, nil, block(comp, false, false), end), 999, codec.ErrTooLarge, "decodes to 1000 bytes, 999"},
		{"second block too large", lz4Frame(indep, bd4m, nil, block(comp, false, false), block(comp, false, false), end), 1999, codec.ErrTooLarge, "block 1 decodes to 1000 bytes, 999"},
		{"too small", lz4Frame(indep, bd4m, nil, block(comp, false, false), end), 1001, codec.ErrTooSmall, "1000 bytes, expected 1001"},
		{"block checksum", lz4Frame(indep|0x10, bd4m, nil, badSum, end), 1000, codec.ErrChecksum, "block 0 checksum 0x04030201"},
		{"block checksum cut", lz4Frame(indep|0x10, bd4m, nil, badSum[:len(badSum)-1]), 1000, codec.ErrBlockOverrun, "claims 1004 bytes, 1003 left"},
		{"content checksum", lz4Frame(indep|0x04, bd4m, nil, block(text, true, false), end, le32(7)), 1000, codec.ErrChecksum, "content checksum 0x00000007"},
		{"content checksum cut", lz4Frame(indep|0x04, bd4m, nil, block(text, true, false), end, []byte{1, 2}), 1000, codec.ErrNoEndMark, "2 of 4"},
		{"trailing", lz4Frame(indep, bd4m, nil, block(text, true, false), end, []byte{0}), 1000, codec.ErrCorrupt, "1 bytes after"},
		{"content size big", lz4Frame(indep|0x08, bd4m, size8(1001), block(text, true, false), end), 1000, codec.ErrTooLarge, "content size 1001"},
		{"content size small", lz4Frame(indep|0x08, bd4m, size8(999), block(text, true, false), end), 1000, codec.ErrTooSmall, "content size 999"},
		{"content size huge", lz4Frame(indep|0x08, bd4m, size8(1<<63), block(text, true, false), end), 1000, codec.ErrTooLarge, ""},
		{"skippable cut", append(le32(0x184D2A53), 9, 0, 0, 0, 1), 0, codec.ErrHeaderTruncated, "skippable frame claims 9 bytes, 1 left"},
		{"absurd n", lz4Frame(indep, bd4m, nil, end), 1 << 40, codec.ErrTooSmall, "cannot decode"},
		{"negative n", lz4Frame(indep, bd4m, nil, end), -1, codec.ErrCorrupt, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := lz4c.Decompress(nil, tc.frame, tc.n)
			if !errors.Is(err, tc.want) || !errors.Is(err, codec.ErrCorrupt) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("err %v, want %v containing %q", err, tc.want, tc.msg)
			}
			if tc.want == codec.ErrCorrupt {
				for _, other := range []error{codec.ErrTooLarge, codec.ErrTooSmall, codec.ErrNotFrame, codec.ErrBlockCorrupt} {
					if errors.Is(err, other) {
						t.Fatalf("err %v also matches %v", err, other)
					}
				}
			}
		})
	}
}

func TestLZ4Accepts(t *testing.T) {
	text := codectest.Text(1000)
	end := le32(0)
	ours := lz4c.Compress(nil, text)
	for _, tc := range []struct {
		name  string
		frame []byte
	}{
		{"skippable frames first", append(append(append(le32(0x184D2A5F), 3, 0, 0, 0, 'a', 'b', 'c'), append(le32(0x184D2A50), 0, 0, 0, 0)...), ours...)},
		{"dict id skipped", lz4Frame(0x61, 0x40, le32(12345), block(text, true, false), end)},
		{"empty raw block", lz4Frame(0x60, 0x40, nil, block(nil, true, false), block(text, true, false), block(nil, true, false), end)},
		{"all checks", lz4Frame(0x7c, 0x50, binary.LittleEndian.AppendUint64(nil, 1000),
			block(text[:300], true, true), block(compressBlock(t, text[300:]), false, true), end, le32(codec.XXH32(text)))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lz4c.Decompress(nil, tc.frame, len(text))
			if err != nil || !bytes.Equal(got, text) {
				t.Fatalf("got %d bytes, %v", len(got), err)
			}
		})
	}
}

// cliFrames are frames the lz4 command-line tool wrote, kept in testdata so
// the test runs without the tool. Linked blocks (-BD) are the case pierrec's
// Writer cannot produce.
var cliFrames = []cliFrame{
	{"linked-64k.lz4", "-BD -B4 --no-frame-crc"},
	{"linked-sums-size.lz4", "-BD -B4 -BX --content-size"},
	{"linked-hc.lz4", "-9 -BD -B4"},
	{"indep-256k.lz4", "-B5 -BX"},
}

type cliFrame struct{ file, flags string }

// cliData is the input of the lz4 and zstd tool frames: text with repeats
// across 64 KiB block boundaries.
func cliData() []byte { return codectest.Text(140 << 10) }

func TestLZ4ReadsCLIFrames(t *testing.T) {
	data := cliData()
	if *rewrite {
		writeCLIFrames(t, "lz4", cliFrames, data)
	}
	for _, cf := range cliFrames {
		t.Run(cf.file, func(t *testing.T) {
			frame, err := os.ReadFile(filepath.Join("testdata", "lz4", cf.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := lz4c.Decompress(nil, frame, len(data))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("got %d bytes, %v", len(got), err)
			}
		})
	}
}

// TestLZ4LinkedNeedsDict proves the linked frames really reference earlier
// blocks: marked independent, they no longer decode.
func TestLZ4LinkedNeedsDict(t *testing.T) {
	frame, err := os.ReadFile(filepath.Join("testdata", "lz4", "linked-64k.lz4"))
	if err != nil {
		t.Fatal(err)
	}
	frame[4] |= 0x20
	frame[6] = byte(codec.XXH32(frame[4:6]) >> 8)
	if _, err := lz4c.Decompress(nil, frame, len(cliData())); !errors.Is(err, codec.ErrBlockCorrupt) {
		t.Fatalf("linked frame marked independent: %v, want ErrBlockCorrupt", err)
	}
}

// TestLZ4CLIReadsOurs runs the reference tool on our frames when it is
// installed.
func TestLZ4CLIReadsOurs(t *testing.T) {
	if _, err := exec.LookPath("lz4"); err != nil {
		t.Skip("lz4 tool not installed")
	}
	for _, src := range [][]byte{nil, interopData(), codectest.Random(4<<20 + 3)} {
		cmd := exec.Command("lz4", "-d", "-c")
		cmd.Stdin = bytes.NewReader(lz4c.Compress(nil, src))
		got, err := cmd.Output()
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("lz4 -d on our %d-byte frame: %d bytes, %v", len(src), len(got), err)
		}
	}
}

// writeCLIFrames regenerates testdata/<tool>/ by running the tool on data.
func writeCLIFrames(t *testing.T, tool string, frames []cliFrame, data []byte) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		t.Fatalf("-rewrite needs the %s tool", tool)
	}
	dir := filepath.Join("testdata", tool)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, cf := range frames {
		cmd := exec.Command(tool, append(strings.Fields(cf.flags), "-c")...)
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s %s: %v", tool, cf.flags, err)
		}
		if err := os.WriteFile(filepath.Join(dir, cf.file), out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLZ4LinkedHandmade(t *testing.T) {
	got, err := lz4c.Decompress(nil, linkedFrame(), len(linkedContent))
	if err != nil || !bytes.Equal(got, linkedContent) {
		t.Fatalf("got %q, %v", got, err)
	}
	indep := linkedFrame()
	indep[4] |= 0x20
	indep[6] = byte(codec.XXH32(indep[4:6]) >> 8)
	if _, err := lz4c.Decompress(nil, indep, len(linkedContent)); !errors.Is(err, codec.ErrBlockCorrupt) {
		t.Fatalf("marked independent: %v, want ErrBlockCorrupt", err)
	}
}
