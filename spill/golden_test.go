package spill

import (
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata golden files")

// TestGolden pins the bytes of a small spill file: doc.go's worked example
// (a Utf8 column ["arrow", null, "arrow", "lz4"]) next to an int32 column,
// under lz4 (buffers this small are stored raw, so the bytes stay
// readable), annotated message by message with the checksums.
func TestGolden(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fs := newMemFS()
	m := newTestManager(t, Config{Dir: "/golden", FS: fs, Codec: codec.SettingLZ4}, mem)
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	sb.AppendValues([]string{"arrow", "", "arrow", "lz4"}, []bool{true, false, true, true})
	s := sb.NewArray()
	defer s.Release()
	ib := array.NewInt32Builder(mem)
	defer ib.Release()
	ib.AppendValues([]int32{1, 2, 3, 4}, nil)
	i := ib.NewArray()
	defer i.Release()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{s, i}, 4)
	defer rec.Release()
	f := spillAll(t, m, rec)
	defer f.Remove()
	checkFile(t, f, mem, rec)
	raw := fs.files[f.Path()]

	var b strings.Builder
	b.WriteString("# spill file: one batch of s utf8 [\"arrow\", null, \"arrow\", \"lz4\"], i int32 [1 2 3 4], codec lz4.\n")
	b.WriteString("# Regenerate with go test -run TestGolden -rewrite.\n")
	rest := raw
	for seq := 0; ; seq++ {
		off := len(raw) - len(rest)
		msg, next, err := batch.SplitEncapsulated(rest, batch.Limits{})
		if err != nil {
			fmt.Fprintf(&b, "\n# end-of-stream marker at %d (%v)\n%s", off, err, hex.Dump(rest))
			break
		}
		md, err := msg.CustomMetadata()
		if err != nil {
			t.Fatal(err)
		}
		sum, _ := md.GetValue(checksumKey)
		n := len(rest) - len(next)
		fmt.Fprintf(&b, "\n# message %d at %d: %d bytes (metadata %d, body %d), %s = %s\n", seq, off, n, n-len(msg.Body), len(msg.Body), checksumKey, sum)
		b.WriteString(hex.Dump(rest[:n]))
		rest = next
	}
	got := b.String()
	path := filepath.Join("testdata", "lz4_file.golden")
	if *rewrite {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("%s differs from the file written; if the change is intended, rerun with -rewrite.\n got:\n%s", path, got)
	}
}
