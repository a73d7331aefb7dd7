package cache

import (
	"bytes"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/golden_v1")

// TestGoldenChunks pins chunk format version 1: chunks written by this
// version are committed under testdata/golden_v1, and must still decode to
// the same arrays and be what the encoder writes today. A change that
// breaks this test changes the format: bump chunkVersion and keep a reader
// for version 1.
func TestGoldenChunks(t *testing.T) {
	mem := checked(t)
	cases := []struct {
		name string
		dt   arrow.DataType
		json string
		set  codec.Setting
	}{
		{"int64-delta-none", arrow.PrimitiveTypes.Int64, `[10, 11, null, 13, 14, 15, 16, 17, 18, 19, 20, 21]`, codec.SettingNone},
		{"int64-delta-lz4", arrow.PrimitiveTypes.Int64, `[10, 11, null, 13, 14, 15, 16, 17, 18, 19, 20, 21]`, codec.SettingLZ4},
		{"utf8-lengths-zstd", arrow.BinaryTypes.String, `["alpha", null, "beta", "", "alphabet", "alpha", "alpha", "alpha", "alpha"]`, codec.SettingZstd},
		{"bool-none", arrow.FixedWidthTypes.Boolean, `[true, false, null, true, true, true, false, false, true, true]`, codec.SettingNone},
		{"float64-plain-none", arrow.PrimitiveTypes.Float64, `[1.5, -0.0, null, 1e300]`, codec.SettingNone},
		{"decimal128-narrow-none", &arrow.Decimal128Type{Precision: 15, Scale: 2}, `["1.00", "-2.50", null, "3.75", "1000.01", "1000.02", "1000.03", "1000.04", "1000.05"]`, codec.SettingNone},
		{"list-ipc-none", arrow.ListOf(arrow.PrimitiveTypes.Int32), `[[1, 2], null, [], [3]]`, codec.SettingNone},
	}
	dir := filepath.Join("testdata", "golden_v1")
	for _, tc := range cases {
		arr, _, err := array.FromJSON(mem, tc.dt, strings.NewReader(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		enc := &chunkEncoder{encodings: true, mem: mem}
		enc.use(tc.set)
		chunk, info, err := enc.encode(nil, arr)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, tc.name+".hex")
		if *rewrite {
			os.MkdirAll(dir, 0o755)
			if err := os.WriteFile(path, []byte(hex.EncodeToString(chunk)+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run with -rewrite to create)", err)
		}
		golden, err := hex.DecodeString(strings.TrimSpace(string(text)))
		if err != nil {
			t.Fatal(err)
		}
		// Compressed bytes depend on the codec library (and the cgozstd
		// build uses libzstd), so only codec-free chunks must match byte
		// for byte; every golden chunk must decode.
		if tc.set.Kind == codec.None && !bytes.Equal(golden, chunk) {
			t.Errorf("%s: the encoder no longer writes the golden chunk\n got %x\nwant %x", tc.name, chunk, golden)
		}
		limit := info.decoded
		if info.ipc {
			limit = 1 << 20
		}
		dec := &chunkDecoder{mem: memory.NewGoAllocator()}
		got, err := dec.decode(tc.dt, golden, limit)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !sameArray(arr, got) {
			t.Errorf("%s: golden chunk decodes to %v, want %v", tc.name, got, arr)
		}
		got.Release()
		arr.Release()
	}
}
