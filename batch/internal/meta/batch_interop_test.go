package meta

import (
	"bytes"
	"encoding/binary"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// batchSchema is allTypes less the two fields arrow-go cannot build arrays
// for (dictionaries of large strings and of structs).
func batchSchema() *arrow.Schema {
	var fields []arrow.Field
	for _, f := range allTypes() {
		if f.Name != "dict_u8" && f.Name != "dict_of_struct_of_dict" {
			fields = append(fields, f)
		}
	}
	return arrow.NewSchema(fields, nil)
}

// batchRows are JSON rows for batchSchema: some values, the rest null.
var batchRows = []string{
	`[{"i64": 1, "str": "x", "strview": "a string longer than twelve bytes", "binview": "c2hvcnQ=",
	   "list": [1, 2, null], "dict": "red", "list_of_dict": ["a", "b", "a"], "bool": true,
	   "struct": {"a": 1, "b": "bee", "c": {"d": false}}},
	  {"i64": 2, "strview": "short", "dict": "blue", "list_of_dict": []},
	  {}]`,
	`[]`,
	`[{"i64": 3, "strview": "another string that does not fit inline", "dict": "red"}]`,
}

// arrowGoBatches has arrow-go build the batches of batchRows and write
// them as a stream (file false) or a file with the given options.
func arrowGoBatches(t *testing.T, file bool, opts ...ipc.Option) (*arrow.Schema, []arrow.RecordBatch, []byte) {
	t.Helper()
	registerPair(t)
	s := batchSchema()
	var recs []arrow.RecordBatch
	for _, rows := range batchRows {
		rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, s, strings.NewReader(rows))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(rec.Release)
		recs = append(recs, rec)
	}
	if file {
		// The file format allows one dictionary per field: repeat the
		// first batch rather than write batches with other dictionaries.
		recs = []arrow.RecordBatch{recs[0], recs[0]}
	}
	var buf bytes.Buffer
	opts = append(opts, ipc.WithSchema(s))
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if file {
		fw, err := ipc.NewFileWriter(&buf, opts...)
		if err != nil {
			t.Fatal(err)
		}
		w = fw
	} else {
		w = ipc.NewWriter(&buf, opts...)
	}
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return s, recs, buf.Bytes()
}

// layout counts the field nodes of a record batch of schema s (dictionary
// values travel in their own batches) and the view-typed ones among them.
func layout(fields []arrow.Field) (nodes, views int) {
	for _, f := range fields {
		dt := f.Type
		if ext, ok := dt.(arrow.ExtensionType); ok {
			dt = ext.StorageType()
		}
		nodes++
		switch dt.ID() {
		case arrow.BINARY_VIEW, arrow.STRING_VIEW:
			views++
		case arrow.DICTIONARY:
			continue
		}
		if nested, ok := dt.(arrow.NestedType); ok {
			n, v := layout(nested.Fields())
			nodes, views = nodes+n, views+v
		}
	}
	return nodes, views
}

// checkBody checks that buffers lie in order, 8-aligned and without
// overlap within the body, and that compressed ones start with a sane
// uncompressed length.
func checkBody(t *testing.T, rb *RecordBatch, body []byte) {
	t.Helper()
	var end int64
	for i, b := range rb.Buffers {
		if b.Offset%8 != 0 || b.Offset < end || b.Offset+b.Length > int64(len(body)) {
			t.Fatalf("buffer %d at %d+%d (previous end %d, body %d)", i, b.Offset, b.Length, end, len(body))
		}
		end = b.Offset + b.Length
		if rb.Compression != CompressionNone && b.Length > 0 {
			if b.Length < 8 || int64(binary.LittleEndian.Uint64(body[b.Offset:])) < -1 {
				t.Fatalf("compressed buffer %d: length %d", i, b.Length)
			}
		}
	}
	if int64(len(body))-end >= 8 {
		t.Fatalf("body of %d bytes ends %d bytes after its last buffer", len(body), int64(len(body))-end)
	}
}

func TestRecordBatchFromArrowGo(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  []ipc.Option
		codec Compression
	}{
		{"none", nil, CompressionNone},
		{"lz4", []ipc.Option{ipc.WithLZ4()}, CompressionLZ4},
		{"zstd", []ipc.Option{ipc.WithZstd()}, CompressionZstd},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, recs, stream := arrowGoBatches(t, false, tc.opts...)
			frames := splitStream(t, stream)
			m0, err := DecodeMessage(frames[0].meta, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			sameSchema(t, m0.Schema.Schema, s)
			dictIDs := map[int64]bool{}
			for _, d := range m0.Schema.Dicts {
				dictIDs[d.ID] = true
			}
			wantNodes, wantViews := layout(s.Fields())
			var out []frame
			nrec := 0
			for i, fr := range frames {
				m, err := DecodeMessage(fr.meta, Limits{})
				if err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				switch m.Header {
				case HeaderRecordBatch:
					rb := m.Record
					if rb.Length != recs[nrec].NumRows() || len(rb.Nodes) != wantNodes || len(rb.VariadicCounts) != wantViews {
						t.Fatalf("batch %d: length %d nodes %d variadic %d, want %d %d %d",
							nrec, rb.Length, len(rb.Nodes), len(rb.VariadicCounts), recs[nrec].NumRows(), wantNodes, wantViews)
					}
					if rb.Compression != tc.codec {
						t.Fatalf("batch %d: compression %v, want %v", nrec, rb.Compression, tc.codec)
					}
					checkBody(t, rb, fr.body)
					nrec++
				case HeaderDictionaryBatch:
					if !dictIDs[m.Dictionary.ID] {
						t.Fatalf("message %d: dictionary id %d not in the schema", i, m.Dictionary.ID)
					}
					if m.Dictionary.Data.Compression != tc.codec {
						t.Fatalf("dictionary %d: compression %v", m.Dictionary.ID, m.Dictionary.Data.Compression)
					}
					checkBody(t, &m.Dictionary.Data, fr.body)
				case HeaderSchema:
					if i != 0 {
						t.Fatalf("schema message at %d", i)
					}
				}
				// Our encoding of the decoded message decodes to the same.
				enc, err := EncodeMessage(m)
				if err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				m2, err := DecodeMessage(enc, Limits{})
				if err != nil {
					t.Fatalf("message %d re-encoded: %v", i, err)
				}
				if m.Header != HeaderSchema && !reflect.DeepEqual(m, m2) {
					t.Fatalf("message %d: round trip\n got %+v\nwant %+v", i, m2, m)
				}
				out = append(out, frame{meta: enc, body: fr.body})
			}
			if nrec != len(recs) {
				t.Fatalf("%d batches, want %d", nrec, len(recs))
			}
			// arrow-go reads the stream rebuilt from our metadata.
			r, err := ipc.NewReader(bytes.NewReader(encapsulate(out...)))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Release()
			for i := 0; r.Next(); i++ {
				if !array.RecordEqual(r.RecordBatch(), recs[i]) {
					t.Fatalf("batch %d differs after our re-encoding", i)
				}
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestFooterFromArrowGo(t *testing.T) {
	s, recs, file := arrowGoBatches(t, true, ipc.WithZstd())
	if string(file[:6]) != "ARROW1" || string(file[len(file)-6:]) != "ARROW1" {
		t.Fatal("not an Arrow file")
	}
	n := int(binary.LittleEndian.Uint32(file[len(file)-10:]))
	start := len(file) - 10 - n
	f, err := DecodeFooter(file[start:len(file)-10], Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Version != MetadataV5 || len(f.Records) != len(recs) || len(f.Dictionaries) == 0 {
		t.Fatalf("footer: version %d, %d records, %d dictionaries", f.Version, len(f.Records), len(f.Dictionaries))
	}
	sameSchema(t, f.Schema.Schema, s)
	for i, b := range append(append([]Block{}, f.Dictionaries...), f.Records...) {
		msg := file[b.Offset : b.Offset+int64(b.MetaDataLength)]
		if binary.LittleEndian.Uint32(msg) != 0xFFFFFFFF || int(binary.LittleEndian.Uint32(msg[4:])) != len(msg)-8 {
			t.Fatalf("block %d at %d: no message prefix", i, b.Offset)
		}
		m, err := DecodeMessage(msg[8:], Limits{})
		if err != nil {
			t.Fatalf("block %d: %v", i, err)
		}
		wantHeader := HeaderRecordBatch
		if i < len(f.Dictionaries) {
			wantHeader = HeaderDictionaryBatch
		}
		if m.Header != wantHeader || m.BodyLength != b.BodyLength {
			t.Fatalf("block %d: %v with body %d, footer says %v with %d", i, m.Header, m.BodyLength, wantHeader, b.BodyLength)
		}
	}
	// Swap in our encoding of the footer; arrow-go reads the file.
	f.Metadata = md("footer", "custom")
	enc, err := EncodeFooter(f)
	if err != nil {
		t.Fatal(err)
	}
	f2, err := DecodeFooter(enc, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sameSchema(t, f2.Schema.Schema, s)
	f2.Schema, f.Schema = nil, nil
	if !reflect.DeepEqual(f, f2) {
		t.Fatalf("footer round trip\n got %+v\nwant %+v", f2, f)
	}
	rebuilt := append(bytes.Clone(file[:start]), enc...)
	rebuilt = binary.LittleEndian.AppendUint32(rebuilt, uint32(len(enc)))
	rebuilt = append(rebuilt, "ARROW1"...)
	fr, err := ipc.NewFileReader(bytes.NewReader(rebuilt))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	if fr.NumRecords() != len(recs) {
		t.Fatalf("arrow-go sees %d records", fr.NumRecords())
	}
	for i := range recs {
		rec, err := fr.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		if !array.RecordEqual(rec, recs[i]) {
			t.Fatalf("record %d differs", i)
		}
	}
}
