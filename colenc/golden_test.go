package colenc_test

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/colenc"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/*.golden and the fuzz seed corpus")

// TestGolden pins the bytes of small encodings, annotated field by field.
// Run with -rewrite after a deliberate format change and review the diff.
func TestGolden(t *testing.T) {
	for _, g := range []struct {
		file   string
		width  int
		enc    colenc.Encoding
		values []int64
	}{
		{"delta.golden", 8, colenc.Delta, []int64{100, 101, 102, 103, 104, 105, 106, 107, 108, 109}},
		{"delta_int32_down.golden", 4, colenc.Delta, []int64{10, 7, 9, 9, 2}},
		{"for.golden", 8, colenc.FOR, []int64{1000, 1003, 1001, 1007, 1000, 1005}},
		{"lengths.golden", 4, colenc.Lengths, []int64{0, 5, 5, 12, 15}},
		{"plain.golden", 4, colenc.Plain, []int64{1, -1}},
	} {
		src := column(g.width, len(g.values), func(i int, _ *rand.Rand) int64 { return g.values[i] })
		var sb strings.Builder
		fmt.Fprintf(&sb, "## %s, %d-byte values %v: %d bytes plain\n", g.enc, g.width, g.values, len(src))
		dump(&sb, colenc.Encode(nil, src, g.width, g.enc))
		path := filepath.Join("testdata", g.file)
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
			t.Errorf("%s: bytes changed; run go test -rewrite and review the diff.\ngot:\n%s\nwant:\n%s", path, got, want)
		}
	}
}

// dump annotates an encoded buffer.
func dump(sb *strings.Builder, b []byte) {
	line := func(b []byte, note string) { fmt.Fprintf(sb, "%-48s # %s\n", fmt.Sprintf("% x", b), note) }
	enc := colenc.Encoding(b[1])
	line(b[:1], fmt.Sprintf("version %d", b[0]))
	line(b[1:2], fmt.Sprintf("encoding %s", enc))
	line(b[2:3], fmt.Sprintf("width %d bytes", b[2]))
	line(b[3:7], fmt.Sprintf("count %d", binary.LittleEndian.Uint32(b[3:])))
	rest := b[7:]
	if enc != colenc.Plain {
		name := map[colenc.Encoding]string{colenc.Delta: "first value", colenc.FOR: "base (min)", colenc.Lengths: "first offset"}[enc]
		line(b[7:15], fmt.Sprintf("%s %d", name, int64(binary.LittleEndian.Uint64(b[7:]))))
		at := 15
		if enc == colenc.Delta {
			line(b[15:23], fmt.Sprintf("step (smallest delta) %d", int64(binary.LittleEndian.Uint64(b[15:]))))
			at = 23
		}
		line(b[at:at+1], fmt.Sprintf("bit width %d", b[at]))
		rest = b[at+1:]
	}
	for at := 0; at < len(rest); at += 16 {
		line(rest[at:min(at+16, len(rest))], "payload")
	}
	if len(rest) == 0 {
		sb.WriteString("(no payload)\n")
	}
}
