package codec_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLZ4Golden pins the bytes of the frames we write, annotated field by
// field. Run with -rewrite after a deliberate format change and review the
// diff.
func TestLZ4Golden(t *testing.T) {
	var sb strings.Builder
	for _, in := range []struct{ name, data string }{
		{"empty input", ""},
		{"short input, stored raw", "quiver"},
		{"repetitive input, compressed", strings.Repeat("quiver keeps arrow tables compressed. ", 3)},
	} {
		fmt.Fprintf(&sb, "## %s: %d bytes %q\n", in.name, len(in.data), in.data)
		dumpLZ4Frame(&sb, lz4c.Compress(nil, []byte(in.data)))
		sb.WriteString("\n")
	}
	path := filepath.Join("testdata", "lz4_frame.golden")
	if *rewrite {
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := sb.String(); got != string(want) {
		t.Fatalf("frame bytes changed; run go test -rewrite and review the diff.\ngot:\n%s\nwant:\n%s", got, want)
	}
}

// dumpLZ4Frame annotates a frame we wrote: 7-byte header, blocks, end mark.
// It only understands our own layout (no optional fields).
func dumpLZ4Frame(sb *strings.Builder, f []byte) {
	line := func(b []byte, note string) { fmt.Fprintf(sb, "%-48s # %s\n", fmt.Sprintf("% x", b), note) }
	line(f[:4], fmt.Sprintf("magic %#08x", binary.LittleEndian.Uint32(f)))
	flg := f[4]
	line(f[4:5], fmt.Sprintf("FLG: version %d, independent %d, block checksum %d, content size %d, content checksum %d, dict id %d",
		flg>>6, flg>>5&1, flg>>4&1, flg>>3&1, flg>>2&1, flg&1))
	line(f[5:6], fmt.Sprintf("BD: block max size id %d (%d KiB)", f[5]>>4, 1<<(8+2*(f[5]>>4))>>10))
	line(f[6:7], "HC: header checksum, xxh32(FLG BD) >> 8")
	f = f[7:]
	for i := 0; ; i++ {
		word := binary.LittleEndian.Uint32(f)
		if word == 0 {
			line(f[:4], "end mark")
			return
		}
		size, kind := int(word&^(1<<31)), "compressed"
		if word>>31 == 1 {
			kind = "stored raw (high bit set)"
		}
		line(f[:4], fmt.Sprintf("block %d: %d bytes, %s", i, size, kind))
		for at := 4; at < 4+size; at += 16 {
			end := min(at+16, 4+size)
			line(f[at:end], fmt.Sprintf("  %q", f[at:end]))
		}
		f = f[4+size:]
	}
}
