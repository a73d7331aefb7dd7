package meta

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"reflect"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// pairType is an extension type the tests register or not: a struct of two
// int32s, with metadata "v1".
type pairType struct {
	arrow.ExtensionBase
}

func newPairType() *pairType {
	return &pairType{ExtensionBase: arrow.ExtensionBase{Storage: arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	)}}
}

func (*pairType) ArrayType() reflect.Type { return reflect.TypeOf(pairArray{}) }
func (*pairType) ExtensionName() string   { return "quiver.test.pair" }
func (*pairType) Serialize() string       { return "v1" }
func (p *pairType) ExtensionEquals(o arrow.ExtensionType) bool {
	return o.ExtensionName() == p.ExtensionName() && arrow.TypeEqual(p.Storage, o.StorageType())
}
func (*pairType) Deserialize(storage arrow.DataType, data string) (arrow.ExtensionType, error) {
	if data != "v1" {
		return nil, fmt.Errorf("pair: metadata %q", data)
	}
	if !arrow.TypeEqual(storage, newPairType().Storage) {
		return nil, fmt.Errorf("pair: storage %v", storage)
	}
	return newPairType(), nil
}

type pairArray struct{ array.ExtensionArrayBase }

// registerPair registers pairType for the duration of the test.
func registerPair(t *testing.T) {
	t.Helper()
	if arrow.GetExtensionType("quiver.test.pair") != nil {
		return
	}
	if err := arrow.RegisterExtensionType(newPairType()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { arrow.UnregisterExtensionType("quiver.test.pair") })
}

func md(kv ...string) arrow.Metadata {
	var k, v []string
	for i := 0; i < len(kv); i += 2 {
		k, v = append(k, kv[i]), append(v, kv[i+1])
	}
	return arrow.NewMetadata(k, v)
}

func dict(index, value arrow.DataType) *arrow.DictionaryType {
	return &arrow.DictionaryType{IndexType: index, ValueType: value}
}

// allTypes returns fields of every type arrow-go v18.8.0 has, with
// nullability, names and metadata varied, and dictionaries nested at
// several depths.
func allTypes() []arrow.Field {
	f := func(name string, dt arrow.DataType) arrow.Field {
		return arrow.Field{Name: name, Type: dt, Nullable: true}
	}
	orderedDict := dict(arrow.PrimitiveTypes.Int16, arrow.BinaryTypes.String)
	orderedDict.Ordered = true
	sorted := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	sorted.KeysSorted = true
	ree := arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String)
	ree.ValueNullable = false
	return []arrow.Field{
		f("null", arrow.Null),
		{Name: "bool", Type: arrow.FixedWidthTypes.Boolean},
		f("i8", arrow.PrimitiveTypes.Int8), f("i16", arrow.PrimitiveTypes.Int16),
		f("i32", arrow.PrimitiveTypes.Int32), f("i64", arrow.PrimitiveTypes.Int64),
		f("u8", arrow.PrimitiveTypes.Uint8), f("u16", arrow.PrimitiveTypes.Uint16),
		f("u32", arrow.PrimitiveTypes.Uint32), f("u64", arrow.PrimitiveTypes.Uint64),
		f("f16", arrow.FixedWidthTypes.Float16), f("f32", arrow.PrimitiveTypes.Float32),
		f("f64", arrow.PrimitiveTypes.Float64),
		f("dec32", &arrow.Decimal32Type{Precision: 9, Scale: 2}),
		f("dec64", &arrow.Decimal64Type{Precision: 18, Scale: -3}),
		f("dec128", &arrow.Decimal128Type{Precision: 38, Scale: 10}),
		f("dec256", &arrow.Decimal256Type{Precision: 76, Scale: 0}),
		f("date32", arrow.FixedWidthTypes.Date32), f("date64", arrow.FixedWidthTypes.Date64),
		f("t32s", arrow.FixedWidthTypes.Time32s), f("t32ms", arrow.FixedWidthTypes.Time32ms),
		f("t64us", arrow.FixedWidthTypes.Time64us), f("t64ns", arrow.FixedWidthTypes.Time64ns),
		f("ts_s", &arrow.TimestampType{Unit: arrow.Second}),
		f("ts_ms_utc", &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}),
		f("ts_us", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "+07:30"}),
		f("ts_ns_ny", &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "America/New_York"}),
		f("dur_s", arrow.FixedWidthTypes.Duration_s), f("dur_ms", arrow.FixedWidthTypes.Duration_ms),
		f("dur_us", arrow.FixedWidthTypes.Duration_us), f("dur_ns", arrow.FixedWidthTypes.Duration_ns),
		f("iv_m", arrow.FixedWidthTypes.MonthInterval), f("iv_dt", arrow.FixedWidthTypes.DayTimeInterval),
		f("iv_mdn", arrow.FixedWidthTypes.MonthDayNanoInterval),
		f("bin", arrow.BinaryTypes.Binary), f("lbin", arrow.BinaryTypes.LargeBinary),
		f("str", arrow.BinaryTypes.String), f("lstr", arrow.BinaryTypes.LargeString),
		f("binview", arrow.BinaryTypes.BinaryView), f("strview", arrow.BinaryTypes.StringView),
		f("fsb", &arrow.FixedSizeBinaryType{ByteWidth: 7}),
		f("list", arrow.ListOf(arrow.PrimitiveTypes.Int32)),
		f("llist", arrow.LargeListOfField(arrow.Field{Name: "elem", Type: arrow.BinaryTypes.String, Metadata: md("k", "v")})),
		f("listview", arrow.ListViewOf(arrow.PrimitiveTypes.Int16)),
		f("llistview", arrow.LargeListViewOfNonNullable(arrow.PrimitiveTypes.Float64)),
		f("fsl", arrow.FixedSizeListOfNonNullable(3, arrow.PrimitiveTypes.Float32)),
		f("struct", arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true, Metadata: md("doc", "b field")},
			arrow.Field{Name: "c", Type: arrow.StructOf(arrow.Field{Name: "d", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}), Nullable: true},
		)),
		f("empty_struct", arrow.StructOf()),
		f("map", arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String)),
		f("map_sorted", sorted),
		f("sparse", arrow.SparseUnionOf([]arrow.Field{
			f("i", arrow.PrimitiveTypes.Int32), f("s", arrow.BinaryTypes.String),
		}, []arrow.UnionTypeCode{5, 10})),
		f("dense", arrow.DenseUnionOf([]arrow.Field{
			f("i", arrow.PrimitiveTypes.Int32), f("s", arrow.BinaryTypes.String), f("n", arrow.Null),
		}, []arrow.UnionTypeCode{0, 1, 2})),
		f("ree", ree),
		f("dict", orderedDict),
		f("dict_u8", dict(arrow.PrimitiveTypes.Uint8, arrow.BinaryTypes.LargeString)),
		f("list_of_dict", arrow.ListOf(dict(arrow.PrimitiveTypes.Int8, arrow.BinaryTypes.String))),
		f("struct_of_dicts", arrow.StructOf(
			f("x", dict(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64)),
			f("y", arrow.ListOf(dict(arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.Binary))),
		)),
		f("dict_of_struct_of_dict", dict(arrow.PrimitiveTypes.Int32, arrow.StructOf(
			f("z", dict(arrow.PrimitiveTypes.Int8, arrow.BinaryTypes.String)),
		))),
		f("uuid", extensions.NewUUIDType()),
		f("bool8", extensions.NewBool8Type()),
		f("list_of_uuid", arrow.ListOf(extensions.NewUUIDType())),
		{Name: "pair", Type: newPairType(), Nullable: true, Metadata: md("user", "kept")},
		{Name: "with_meta", Type: arrow.PrimitiveTypes.Int64, Metadata: md("a", "1", "b", "2", "a", "3")},
		{Name: "", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	}
}

func allTypesSchema() *arrow.Schema {
	m := md("schema", "meta", "ünïcode", "välue")
	return arrow.NewSchema(allTypes(), &m)
}

// sameSchema fails the test unless got and want are equal, metadata
// included at every level.
func sameSchema(t *testing.T, got, want *arrow.Schema) {
	t.Helper()
	if !got.Equal(want) || !got.Metadata().Equal(want.Metadata()) {
		t.Fatalf("schemas differ:\n got %v\nwant %v", got, want)
	}
	for i := range want.NumFields() {
		if !got.Field(i).Equal(want.Field(i)) {
			t.Errorf("field %d differs:\n got %v %v\nwant %v %v", i, got.Field(i), got.Field(i).Metadata, want.Field(i), want.Field(i).Metadata)
		}
	}
}

// frame is one encapsulated message of a stream.
type frame struct {
	meta []byte // the flatbuffer, padding included
	body []byte
}

// splitStream cuts an IPC stream into its messages, using DecodeMessage
// for the body lengths and checking them against arrow-go's reader.
func splitStream(t *testing.T, stream []byte) []frame {
	t.Helper()
	mr := ipc.NewMessageReader(bytes.NewReader(stream))
	defer mr.Release()
	var out []frame
	for {
		if len(stream) < 8 || binary.LittleEndian.Uint32(stream) != 0xFFFFFFFF {
			t.Fatalf("no continuation marker at %x", stream[:min(8, len(stream))])
		}
		n := int(binary.LittleEndian.Uint32(stream[4:]))
		if n == 0 {
			return out
		}
		meta := stream[8 : 8+n]
		m, err := DecodeMessage(meta, Limits{})
		if err != nil {
			t.Fatalf("message %d: %v", len(out), err)
		}
		am, err := mr.Message()
		if err != nil {
			t.Fatalf("arrow-go message %d: %v", len(out), err)
		}
		if am.BodyLen() != m.BodyLength || int(am.Type()) != int(m.Header) {
			t.Fatalf("message %d: arrow-go says %v with body %d, we say %v with %d", len(out), am.Type(), am.BodyLen(), m.Header, m.BodyLength)
		}
		out = append(out, frame{meta: meta, body: stream[8+n : 8+n+int(m.BodyLength)]})
		stream = stream[8+n+int(m.BodyLength):]
	}
}

// encapsulate frames flatbuffer messages as an IPC stream: continuation
// marker, padded length, flatbuffer, zero padding to 8, body; then the
// end-of-stream marker.
func encapsulate(msgs ...frame) []byte {
	var out []byte
	for _, m := range msgs {
		padded := (len(m.meta) + 7) &^ 7
		out = binary.LittleEndian.AppendUint32(out, 0xFFFFFFFF)
		out = binary.LittleEndian.AppendUint32(out, uint32(padded))
		out = append(out, m.meta...)
		out = append(out, make([]byte, padded-len(m.meta))...)
		out = append(out, m.body...)
	}
	out = binary.LittleEndian.AppendUint32(out, 0xFFFFFFFF)
	return binary.LittleEndian.AppendUint32(out, 0)
}
