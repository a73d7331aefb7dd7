package meta

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// FuzzDecodeMessage: garbage never panics and fails with exactly one of
// the sentinels; whatever decodes re-encodes and decodes to the same.
func FuzzDecodeMessage(f *testing.F) {
	registerPairF(f)
	for _, m := range validMessagesF(f) {
		f.Add(m)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeMessage(data, Limits{})
		n, md, headErr := DecodeMessageHead(data, Limits{})
		if headErr != nil {
			checkErr(t, headErr, "decode head")
		}
		if err != nil {
			checkErr(t, err, "decode")
			return
		}
		// What the full decoder accepts, the head decoder reads the same.
		if headErr != nil || n != m.BodyLength || !md.Equal(m.Metadata) {
			t.Fatalf("head: body %d, metadata %v, %v; full decode: body %d, metadata %v", n, md, headErr, m.BodyLength, m.Metadata)
		}
		m.Version = MetadataV5 // we write V5 only
		out, err := EncodeMessage(m)
		if err != nil {
			t.Fatalf("re-encoding a decoded message: %v", err)
		}
		m2, err := DecodeMessage(out, Limits{})
		if err != nil {
			t.Fatalf("decoding our re-encoding: %v", err)
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", m2, m)
		}
	})
}

// FuzzDecodeFooter is FuzzDecodeMessage for footers.
func FuzzDecodeFooter(f *testing.F) {
	registerPairF(f)
	f.Add(footerSeed(f))
	f.Fuzz(func(t *testing.T, data []byte) {
		ft, err := DecodeFooter(data, Limits{})
		if err != nil {
			checkErr(t, err, "decode")
			return
		}
		ft.Version = MetadataV5
		out, err := EncodeFooter(ft)
		if err != nil {
			t.Fatalf("re-encoding a decoded footer: %v", err)
		}
		ft2, err := DecodeFooter(out, Limits{})
		if err != nil {
			t.Fatalf("decoding our re-encoding: %v", err)
		}
		if !reflect.DeepEqual(ft, ft2) {
			t.Fatalf("round trip differs:\n got %+v\nwant %+v", ft2, ft)
		}
	})
}

func registerPairF(f *testing.F) {
	if arrow.GetExtensionType("quiver.test.pair") != nil {
		return
	}
	if err := arrow.RegisterExtensionType(newPairType()); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { arrow.UnregisterExtensionType("quiver.test.pair") })
}

func validMessagesF(f *testing.F) [][]byte {
	var out [][]byte
	for _, m := range append(sampleMessages(), &Message{Header: HeaderSchema, Schema: NewSchema(goldenSchema())}) {
		b, err := EncodeMessage(m)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func footerSeed(f *testing.F) []byte {
	b, err := EncodeFooter(&Footer{
		Schema:       NewSchema(goldenSchema()),
		Dictionaries: []Block{{8, 120, 64}},
		Records:      []Block{{192, 200, 1 << 20}, {192 + 200 + 1<<20, 200, 0}},
		Metadata:     md("k", "v"),
	})
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// TestFuzzSeeds keeps the committed seed corpus: real messages written by
// arrow-go (every header, all types, both codecs) and a real footer. With
// -rewrite it writes them from what arrow-go writes now; otherwise it
// checks that they are there and decode.
func TestFuzzSeeds(t *testing.T) {
	registerPair(t)
	seeds := map[string][]byte{}
	_, _, stream := arrowGoBatches(t, false, ipc.WithZstd())
	for i, fr := range splitStream(t, stream) {
		m, _ := DecodeMessage(fr.meta, Limits{})
		seeds[fmt.Sprintf("FuzzDecodeMessage/arrowgo-zstd-%02d-%s", i, strings.ToLower(m.Header.String()))] = fr.meta
	}
	_, _, stream = arrowGoBatches(t, false, ipc.WithLZ4())
	for i, fr := range splitStream(t, stream) {
		m, _ := DecodeMessage(fr.meta, Limits{})
		if m.Header == HeaderRecordBatch {
			seeds[fmt.Sprintf("FuzzDecodeMessage/arrowgo-lz4-%02d-%s", i, strings.ToLower(m.Header.String()))] = fr.meta
		}
	}
	seeds["FuzzDecodeMessage/arrowgo-all-types-schema"] = splitStream(t, arrowGoSchemaStream(t, allTypesSchema()))[0].meta
	// Hand-made regressions: rejected, never decoded. A decimal scale of
	// -5371 crashed arrow-go's decimal formatting behind our decoder.
	seeds["FuzzDecodeMessage/handmade-decimal-scale"] = schemaMsg(rawField(typeDecimal,
		rawTableOf(i32(decimalPrecision, 5), i32(decimalScale, -5371), i32(decimalBitWidth, 256))))
	seeds["FuzzDecodeMessage/handmade-shared-fields"] = sharedFieldsMessage(8, 6)
	_, _, file := arrowGoBatches(t, true)
	n := int(binary.LittleEndian.Uint32(file[len(file)-10:]))
	seeds["FuzzDecodeFooter/arrowgo-file-footer"] = file[len(file)-10-n : len(file)-10]

	for name, data := range seeds {
		path := filepath.Join("testdata", "fuzz", name)
		if strings.HasPrefix(name, "FuzzDecodeFooter/") {
			// Kept out of the fuzz corpus: a 5.6 KB footer (every type's
			// schema) left the fuzzer minimizing for whole runs (14 inputs
			// in 20 s); footerSeed is its small seed.
			path = filepath.Join("testdata", "regress", name)
		}
		want := fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", data)
		if *rewrite {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (regenerate with -rewrite)", err)
		}
		var committed []byte
		if _, err := fmt.Sscanf(strings.TrimPrefix(string(got), "go test fuzz v1\n[]byte("), "%q", &committed); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if strings.HasPrefix(name, "FuzzDecodeFooter") {
			_, err = DecodeFooter(committed, Limits{})
		} else {
			_, err = DecodeMessage(committed, Limits{})
		}
		if handmade := strings.Contains(name, "/handmade-"); handmade != (err != nil) {
			t.Errorf("%s: err = %v", path, err)
		}
	}
}
