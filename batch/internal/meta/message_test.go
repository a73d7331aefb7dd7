package meta

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/endian"
	"github.com/apache/arrow-go/v18/arrow/extensions"
)

func sampleMessages() []*Message {
	rb := RecordBatch{
		Length:         3,
		Nodes:          []FieldNode{{3, 1}, {3, 0}, {7, 7}},
		Buffers:        []Buffer{{0, 8}, {8, 0}, {8, 24}, {32, 64}},
		Compression:    CompressionZstd,
		VariadicCounts: []int64{2, 0},
	}
	return []*Message{
		{Version: MetadataV5, Header: HeaderRecordBatch, BodyLength: 96, Record: &rb},
		{Version: MetadataV5, Header: HeaderRecordBatch, BodyLength: 0, Record: &RecordBatch{Compression: CompressionNone}},
		{Version: MetadataV5, Header: HeaderRecordBatch, BodyLength: 96, Record: &RecordBatch{
			Length: 1 << 40, Nodes: rb.Nodes, Buffers: rb.Buffers, Compression: CompressionLZ4,
		}, Metadata: md("batch", "meta", "", "")},
		{Version: MetadataV5, Header: HeaderDictionaryBatch, BodyLength: 96, Dictionary: &DictionaryBatch{ID: 7, Data: rb, IsDelta: true}},
		{Version: MetadataV5, Header: HeaderDictionaryBatch, BodyLength: 100, Dictionary: &DictionaryBatch{ID: 0, Data: RecordBatch{Compression: CompressionNone}}},
	}
}

func TestRoundTripBatches(t *testing.T) {
	var e Encoder
	for i, m := range sampleMessages() {
		out, err := e.AppendMessage(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodeMessage(out, Limits{})
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Fatalf("message %d:\n got %+v\nwant %+v", i, got, m)
		}
		if len(out)%8 != 0 {
			t.Errorf("message %d: %d bytes, not a multiple of 8", i, len(out))
		}
	}
}

func TestRoundTripSchema(t *testing.T) {
	registerPair(t)
	s := NewSchema(allTypesSchema())
	// Ids need not be 0, 1, 2, ...: a decoded schema keeps its writer's.
	for i := range s.Dicts {
		s.Dicts[i].ID = int64(100 - 3*i)
	}
	m := &Message{Version: MetadataV5, Header: HeaderSchema, Schema: s, Metadata: md("k", "v")}
	out, err := EncodeMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeMessage(out, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sameSchema(t, got.Schema.Schema, s.Schema)
	sameDicts(t, got.Schema.Dicts, s.Dicts)
	if !got.Metadata.Equal(m.Metadata) {
		t.Fatalf("message metadata %v", got.Metadata)
	}
	// Encoding what we decoded gives the same bytes.
	again, err := EncodeMessage(got)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, out) {
		t.Fatalf("re-encoding a decoded schema changed its bytes")
	}
}

func TestAppendKeepsPrefixAndEncoderIsReusable(t *testing.T) {
	registerPair(t)
	var e Encoder
	schema := &Message{Header: HeaderSchema, Schema: NewSchema(allTypesSchema())}
	fresh, err := EncodeMessage(schema)
	if err != nil {
		t.Fatal(err)
	}
	prefix := []byte("prefix--")
	for i, m := range append(sampleMessages(), schema, sampleMessages()[0], schema) {
		want, err := EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		dst := append(make([]byte, 0, 16), prefix...)
		got, err := e.AppendMessage(dst, m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got[:len(prefix)], prefix) || !bytes.Equal(got[len(prefix):], want) {
			t.Fatalf("message %d: reused encoder or prefix changed the output", i)
		}
	}
	var buf []byte
	if buf, err = e.AppendMessage(buf, schema); err != nil || !bytes.Equal(buf, fresh) {
		t.Fatalf("schema after reuse differs (%v)", err)
	}
	footer := &Footer{Schema: schema.Schema, Records: []Block{{8, 200, 64}}}
	want, err := EncodeFooter(footer)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.AppendFooter(prefix, footer)
	if err != nil || !bytes.Equal(got[len(prefix):], want) || string(got[:len(prefix)]) != string(prefix) {
		t.Fatalf("footer from a reused encoder differs (%v)", err)
	}
}

func TestEncodeVersionIsV5(t *testing.T) {
	m := sampleMessages()[0]
	v4 := *m
	v4.Version = MetadataV4
	out, err := EncodeMessage(&v4)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeMessage(out, Limits{})
	if err != nil || got.Version != MetadataV5 {
		t.Fatalf("version %d (%v), want V5", got.Version, err)
	}
}

func TestEncodeUnsupported(t *testing.T) {
	dictOfExt := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dict(arrow.PrimitiveTypes.Int32, extensions.NewUUIDType())}}, nil)
	cases := map[string]*Message{
		"big endian": {Header: HeaderSchema, Schema: NewSchema(arrow.NewSchemaWithEndian(
			[]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int32}}, nil, endian.BigEndian))},
		"dictionary of extension": {Header: HeaderSchema, Schema: NewSchema(dictOfExt)},
		"decimal precision 0": {Header: HeaderSchema, Schema: NewSchema(arrow.NewSchema(
			[]arrow.Field{{Name: "a", Type: &arrow.Decimal128Type{Precision: 0}}}, nil))},
		"decimal scale 39": {Header: HeaderSchema, Schema: NewSchema(arrow.NewSchema(
			[]arrow.Field{{Name: "a", Type: &arrow.Decimal128Type{Precision: 5, Scale: 39}}}, nil))},
		"float dictionary index": {Header: HeaderSchema, Schema: NewSchema(arrow.NewSchema(
			[]arrow.Field{{Name: "a", Type: dict(arrow.PrimitiveTypes.Float32, arrow.BinaryTypes.String)}}, nil))},
		"tensor": {Header: HeaderTensor},
	}
	for name, m := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := EncodeMessage(m); !errors.Is(err, ErrUnsupported) {
				t.Fatalf("err = %v, want ErrUnsupported", err)
			}
		})
	}
}

// TestEncodeDictsMismatchPanics runs each case in a child process (the
// package has no recover) and checks that it dies with our message.
func TestEncodeDictsMismatchPanics(t *testing.T) {
	s := NewSchema(allTypesSchema())
	cases := map[string][]DictField{
		"nil":       nil,
		"one short": s.Dicts[:len(s.Dicts)-1],
		"one extra": append(append([]DictField{}, s.Dicts...), DictField{ID: 99, Path: []int{0}}),
		"swapped":   append([]DictField{s.Dicts[1], s.Dicts[0]}, s.Dicts[2:]...),
	}
	if name := os.Getenv("META_PANIC_CASE"); name != "" {
		EncodeMessage(&Message{Header: HeaderSchema, Schema: &Schema{Schema: s.Schema, Dicts: cases[name]}})
		return
	}
	for name := range cases {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestEncodeDictsMismatchPanics$")
			cmd.Env = append(os.Environ(), "META_PANIC_CASE="+name)
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), "panic: meta: Schema.Dicts") {
				t.Fatalf("err %v, output:\n%s", err, out)
			}
		})
	}
}

func TestStrings(t *testing.T) {
	for c, want := range map[Compression]string{CompressionNone: "none", CompressionLZ4: "LZ4_FRAME", CompressionZstd: "ZSTD", 5: "Compression(5)"} {
		if c.String() != want {
			t.Errorf("%d: %q, want %q", c, c.String(), want)
		}
	}
	for h, want := range map[HeaderType]string{HeaderSchema: "Schema", HeaderRecordBatch: "RecordBatch", HeaderDictionaryBatch: "DictionaryBatch", HeaderSparseTensor: "SparseTensor", 9: "HeaderType(9)"} {
		if h.String() != want {
			t.Errorf("%d: %q, want %q", h, h.String(), want)
		}
	}
}

func TestLimits(t *testing.T) {
	if err := (Limits{}).Validate(); err != nil {
		t.Fatal(err)
	}
	if err := (Limits{MaxDepth: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "MaxDepth") {
		t.Fatalf("err = %v", err)
	}
	if err := (Limits{MaxDepth: 1 << 20}).Validate(); err == nil {
		t.Fatal("MaxDepth 1<<20 accepted")
	}
	if got := (Limits{MaxNodes: 5, MaxDepth: 1 << 20}).orDefault(); got.MaxNodes != 5 || got.MaxFields != DefaultLimits.MaxFields || got.MaxDepth != maxDepthCap {
		t.Fatalf("orDefault = %+v", got)
	}
}
