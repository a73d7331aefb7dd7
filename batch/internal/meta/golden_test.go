package meta

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata golden files and fuzz seeds")

// goldenSchema is small but has a name, nullability, metadata at every
// level, a timestamp with a zone and a dictionary nested in a list.
func goldenSchema() *arrow.Schema {
	m := md("origin", "golden")
	return arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "tags", Type: arrow.ListOf(dict(arrow.PrimitiveTypes.Int8, arrow.BinaryTypes.String)), Nullable: true, Metadata: md("k", "v")},
	}, &m)
}

func goldenRecord() *Message {
	return &Message{Header: HeaderRecordBatch, BodyLength: 64, Record: &RecordBatch{
		Length:         3,
		Nodes:          []FieldNode{{3, 0}, {3, 1}},
		Buffers:        []Buffer{{0, 0}, {0, 24}, {24, 8}, {32, 32}},
		Compression:    CompressionZstd,
		VariadicCounts: []int64{1},
	}}
}

func TestGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		msg  *Message
	}{
		{"schema_message.golden", &Message{Header: HeaderSchema, Schema: NewSchema(goldenSchema())}},
		{"record_batch_message.golden", goldenRecord()},
	} {
		t.Run(tc.file, func(t *testing.T) {
			buf, err := EncodeMessage(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			got := "# " + tc.file + ": Message flatbuffer of " + tc.msg.Header.String() +
				", as Encoder.AppendMessage writes it. Regenerate with go test -run TestGolden -rewrite.\n" +
				annotate(buf, messageDesc)
			path := filepath.Join("testdata", tc.file)
			if *rewrite {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Fatalf("%s differs from the encoding; if the change is intended, rerun with -rewrite.\n got:\n%s", path, got)
			}
		})
	}
}
