package meta

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/endian"
	flatbuffers "github.com/google/flatbuffers/go"
)

// schema writes a Schema table. The dictionary fields of s.Schema take
// their ids from s.Dicts, which must list them in depth-first pre-order with
// their paths, as NewSchema and DecodeMessage make it; a mismatch is a bug
// in the caller and panics.
func (e *Encoder) schema(s *Schema) (flatbuffers.UOffsetT, error) {
	if s == nil || s.Schema == nil {
		panic("meta: encoding a Schema message or Footer without a schema")
	}
	if s.Schema.Endianness() != endian.LittleEndian {
		return 0, unsupportedf("schema endianness %v: quiver writes little-endian data only", s.Schema.Endianness())
	}
	e.dicts, e.next, e.path = s.Dicts, 0, e.path[:0]
	base := len(e.stack)
	for i, f := range s.Schema.Fields() {
		e.path = append(e.path[:0], i)
		off, err := e.field(f)
		if err != nil {
			return 0, err
		}
		e.stack = append(e.stack, off)
	}
	if e.next != len(e.dicts) {
		panic(fmt.Sprintf("meta: Schema.Dicts lists %d dictionaries, the schema has %d; build it with NewSchema", len(e.dicts), e.next))
	}
	fields := e.popVector(base)
	md := e.metadata(s.Schema.Metadata(), nil)
	e.b.StartObject(schemaSlots)
	e.b.PrependUOffsetTSlot(schemaFields, fields, 0)
	e.b.PrependUOffsetTSlot(schemaCustomMetadata, md, 0)
	// endianness Little is the default and so is not written.
	return e.b.EndObject(), nil
}

// field writes a Field table and, first, everything it points to.
func (e *Encoder) field(f arrow.Field) (flatbuffers.UOffsetT, error) {
	dt := f.Type
	ext, _ := dt.(arrow.ExtensionType)
	if ext != nil {
		dt = ext.StorageType()
	}
	var dictID int64
	dict, _ := dt.(*arrow.DictionaryType)
	if dict != nil {
		if _, ok := dict.ValueType.(arrow.ExtensionType); ok {
			// The format would carry it as an extension of the dictionary
			// type, so it would not read back as written.
			return 0, unsupportedf("field %v: dictionary of extension type %v", e.path, dict.ValueType)
		}
		dictID = e.dictID()
		dt = dict.ValueType
	}
	kids, err := e.children(dt)
	if err != nil {
		return 0, err
	}
	tag, typ, err := e.typ(dt)
	if err != nil {
		return 0, err
	}
	var enc flatbuffers.UOffsetT
	if dict != nil {
		if enc, err = e.dictEncoding(dict, dictID); err != nil {
			return 0, err
		}
	}
	name := e.b.CreateString(f.Name)
	md := e.metadata(f.Metadata, ext)

	e.b.StartObject(fieldSlots)
	e.b.PrependUOffsetTSlot(fieldName, name, 0)
	e.b.PrependUOffsetTSlot(fieldType, typ, 0)
	e.b.PrependUOffsetTSlot(fieldDictionary, enc, 0)
	e.b.PrependUOffsetTSlot(fieldChildren, kids, 0)
	e.b.PrependUOffsetTSlot(fieldCustomMetadata, md, 0)
	e.b.PrependByteSlot(fieldTypeType, tag, typeNone)
	e.b.PrependBoolSlot(fieldNullable, f.Nullable, false)
	return e.b.EndObject(), nil
}

// dictID returns the id Dicts gives the dictionary field at e.path.
func (e *Encoder) dictID() int64 {
	if e.next >= len(e.dicts) || !slices.Equal(e.dicts[e.next].Path, e.path) {
		panic(fmt.Sprintf("meta: Schema.Dicts does not list the dictionary field at %v as number %d; build it with NewSchema", e.path, e.next))
	}
	e.next++
	return e.dicts[e.next-1].ID
}

// children writes the child fields of a nested type dt as a vector, or
// returns 0 for a type without children.
func (e *Encoder) children(dt arrow.DataType) (flatbuffers.UOffsetT, error) {
	nested, ok := dt.(arrow.NestedType)
	if !ok {
		return 0, nil
	}
	base := len(e.stack)
	for i, c := range nested.Fields() {
		e.path = append(e.path, i)
		off, err := e.field(c)
		if err != nil {
			return 0, err
		}
		e.path = e.path[:len(e.path)-1]
		e.stack = append(e.stack, off)
	}
	return e.popVector(base), nil
}

// dictEncoding writes a DictionaryEncoding table.
func (e *Encoder) dictEncoding(dict *arrow.DictionaryType, id int64) (flatbuffers.UOffsetT, error) {
	bits, signed, ok := intBits(dict.IndexType)
	if !ok {
		return 0, unsupportedf("field %v: dictionary index type %v is not an integer", e.path, dict.IndexType)
	}
	index := e.intTable(bits, signed)
	e.b.StartObject(dictEncodingSlots)
	e.b.PrependInt64Slot(dictEncodingID, id, 0)
	e.b.PrependUOffsetTSlot(dictEncodingIndexType, index, 0)
	e.b.PrependBoolSlot(dictEncodingIsOrdered, dict.Ordered, false)
	// dictionaryKind DenseArray is the default and so is not written.
	return e.b.EndObject(), nil
}
