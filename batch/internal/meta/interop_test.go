package meta

import (
	"bytes"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// arrowGoSchemaStream has arrow-go write a stream of s with no batches:
// the schema message and the end-of-stream marker.
func arrowGoSchemaStream(t *testing.T, s *arrow.Schema) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// arrowGoReadSchema has arrow-go read the schema of a stream.
func arrowGoReadSchema(t *testing.T, stream []byte) *arrow.Schema {
	t.Helper()
	r, err := ipc.NewReader(bytes.NewReader(stream))
	if err != nil {
		t.Fatalf("arrow-go reader: %v", err)
	}
	defer r.Release()
	for r.Next() {
	}
	if err := r.Err(); err != nil {
		t.Fatalf("arrow-go reader: %v", err)
	}
	return r.Schema()
}

func TestSchemaFromArrowGo(t *testing.T) {
	registerPair(t)
	want := allTypesSchema()
	frames := splitStream(t, arrowGoSchemaStream(t, want))
	if len(frames) != 1 {
		t.Fatalf("%d messages, want 1", len(frames))
	}
	m, err := DecodeMessage(frames[0].meta, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Header != HeaderSchema || m.Version != MetadataV5 || m.BodyLength != 0 {
		t.Fatalf("header %v version %d body %d", m.Header, m.Version, m.BodyLength)
	}
	sameSchema(t, m.Schema.Schema, want)
	// arrow-go numbers dictionaries as NewSchema does.
	sameDicts(t, m.Schema.Dicts, NewSchema(want).Dicts)
}

func TestSchemaFromArrowGoUnregisteredExtension(t *testing.T) {
	// Written with the extension registered, read without: the storage
	// type and the extension keys stay, as in arrow-go's own reader.
	var stream []byte
	t.Run("write", func(t *testing.T) {
		registerPair(t)
		stream = arrowGoSchemaStream(t, allTypesSchema())
	})
	frames := splitStream(t, stream)
	m, err := DecodeMessage(frames[0].meta, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := arrowGoReadSchema(t, stream)
	sameSchema(t, m.Schema.Schema, want)
	pair := m.Schema.Schema.Field(slices.IndexFunc(want.Fields(), func(f arrow.Field) bool { return f.Name == "pair" }))
	if pair.Type.ID() != arrow.STRUCT {
		t.Fatalf("pair type %v, want its storage", pair.Type)
	}
	if v, _ := pair.Metadata.GetValue(extensionNameKey); v != "quiver.test.pair" {
		t.Fatalf("pair metadata %v", pair.Metadata)
	}
	// And we write it back the way it came.
	out, err := EncodeMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	registerPair(t)
	sameSchema(t, arrowGoReadSchema(t, encapsulate(frame{meta: out})), allTypesSchema())
}

func TestSchemaToArrowGo(t *testing.T) {
	registerPair(t)
	want := allTypesSchema()
	s := NewSchema(want)
	out, err := EncodeMessage(&Message{Header: HeaderSchema, Schema: s})
	if err != nil {
		t.Fatal(err)
	}
	sameSchema(t, arrowGoReadSchema(t, encapsulate(frame{meta: out})), want)
	m, err := DecodeMessage(out, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sameSchema(t, m.Schema.Schema, want)
	sameDicts(t, m.Schema.Dicts, s.Dicts)
}

func sameDicts(t *testing.T, got, want []DictField) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d dictionaries, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].ID != want[i].ID || !slices.Equal(got[i].Path, want[i].Path) || !arrow.TypeEqual(got[i].Type, want[i].Type) {
			t.Errorf("dictionary %d: got id %d path %v %v, want id %d path %v %v",
				i, got[i].ID, got[i].Path, got[i].Type, want[i].ID, want[i].Path, want[i].Type)
		}
	}
}

func TestNewSchemaDicts(t *testing.T) {
	s := NewSchema(allTypesSchema())
	idx := func(name string) int {
		return allTypesSchema().FieldIndices(name)[0]
	}
	want := []struct {
		path []int
		id   int64
	}{
		{[]int{idx("dict")}, 0},
		{[]int{idx("dict_u8")}, 1},
		{[]int{idx("list_of_dict"), 0}, 2},
		{[]int{idx("struct_of_dicts"), 0}, 3},
		{[]int{idx("struct_of_dicts"), 1, 0}, 4},
		{[]int{idx("dict_of_struct_of_dict")}, 5},
		{[]int{idx("dict_of_struct_of_dict"), 0}, 6},
	}
	if len(s.Dicts) != len(want) {
		t.Fatalf("%d dictionaries, want %d: %v", len(s.Dicts), len(want), s.Dicts)
	}
	for i, w := range want {
		if s.Dicts[i].ID != w.id || !slices.Equal(s.Dicts[i].Path, w.path) {
			t.Errorf("dict %d: id %d path %v, want %d %v", i, s.Dicts[i].ID, s.Dicts[i].Path, w.id, w.path)
		}
	}
}
